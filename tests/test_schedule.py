"""Tests of the independent-task scheduling simulator (partkit.balance.schedule)."""

import math

import numpy as np
import pytest

from partkit.balance.schedule import (POLICIES, kruskal_weiss_chunk, sample_costs, simulate,
                                      worker_noise)
from partkit.errors import InputError
from partkit.balance.kernels.schedule import advance


@pytest.fixture(scope="module")
def costs():
    return sample_costs(4000, "lognormal", cv=2.0, seed=3)


@pytest.mark.parametrize("distribution,cv", [("uniform", 0.5), ("exponential", 1.0),
                                             ("lognormal", 1.0), ("lognormal", 3.0)])
def test_sample_costs_mean_and_cv(distribution, cv):
    c = sample_costs(400_000, distribution, cv=cv, mean=2.0, seed=1)
    assert c.min() >= 0
    assert c.mean() == pytest.approx(2.0, rel=0.03)
    assert c.std() / c.mean() == pytest.approx(cv, rel=0.12)


@pytest.mark.parametrize("policy", POLICIES)
def test_work_is_conserved_and_bound_holds(costs, policy):
    r = simulate(costs, 8, policy, overhead=0.01)
    assert r.busy.sum() == pytest.approx(costs.sum(), rel=1e-9)
    assert r.makespan >= r.lower_bound
    assert r.lower_bound == max(costs.sum() / 8, costs.max())
    # no worker is busy past the makespan (a last failed steal attempt may end after it)
    assert np.all(r.busy + r.overhead <= r.makespan + 1e-9 + (0.05 if policy == "ws" else 0))


def test_access_counts_follow_the_policy(costs):
    n, p = costs.size, 8
    assert simulate(costs, p, "self").accesses == n
    assert simulate(costs, p, "chunk", chunk=7).accesses == math.ceil(n / 7)
    remaining, expected = n, 0
    while remaining:
        remaining -= math.ceil(remaining / p)
        expected += 1
    assert simulate(costs, p, "gss").accesses == expected
    assert expected < 2 * p * math.log(n / p)
    r = simulate(costs, p, "ws")
    assert r.accesses == n and r.steals <= r.steal_attempts


def test_constant_costs_give_exact_makespans():
    c = np.ones(800)
    assert simulate(c, 8, "self", overhead=0.0).makespan == pytest.approx(100.0)
    assert simulate(c, 8, "chunk", chunk=10, overhead=0.5).makespan == pytest.approx(100.0 + 5.0)
    ws = simulate(c, 8, "ws", overhead=0.0)
    assert ws.makespan == pytest.approx(100.0) and ws.steals == 0


def test_serialized_queue_is_a_bottleneck():
    c = np.full(1000, 0.1)
    r = simulate(c, 16, "self", overhead=0.05, serialize=True)
    assert r.makespan >= 1000 * 0.05
    assert simulate(c, 16, "self", overhead=0.05).makespan < r.makespan / 4


def test_advance_skips_freezes_exactly():
    rng = np.random.default_rng(0)
    period, freeze = 3.0, 0.7

    def available(a, b, phase):
        total = b - a
        for j in range(-2, int(b / period) + 3):
            lo, hi = phase + j * period, phase + j * period + freeze
            total -= max(0.0, min(b, hi) - max(a, lo))
        return total

    for _ in range(200):
        start, work, phase, slow = rng.uniform(0, 20), rng.uniform(0, 10), rng.uniform(0, 3), 1.5
        end = advance(start, work, slow, phase, period, freeze)
        assert available(start, end, phase) == pytest.approx(work * slow, abs=1e-9)
        assert advance(start, work, slow, phase, 0.0, 0.0) == pytest.approx(start + work * slow)


def test_freezes_and_slow_workers_cost_what_they_should():
    c = np.ones(1600)
    frozen = simulate(c, 8, "self", overhead=0.0, freeze_period=10.0, freeze_length=2.0)
    assert frozen.makespan >= 200 * 10 / 8 - 10  # 20% of the time is lost on every worker
    slow_gss = simulate(c, 8, "gss", overhead=0.0, slow_workers=1, slowdown=4.0)
    slow_ws = simulate(c, 8, "ws", overhead=0.0, slow_workers=1, slowdown=4.0)
    # GSS hands the slow worker n/p tasks at once; work stealing takes them away
    assert slow_gss.makespan == pytest.approx(4 * 1600 / 8)
    assert slow_ws.makespan < 0.4 * slow_gss.makespan
    assert slow_ws.steals > 0


def test_steal_half_beats_steal_one_from_a_single_root(costs):
    one = simulate(costs, 16, "ws", initial="root", steal="one")
    half = simulate(costs, 16, "ws", initial="root", steal="half")
    assert half.ratio < 1.1 < one.ratio
    assert half.steals < one.steals


def test_deterministic_for_a_seed(costs):
    a = simulate(costs, 8, "ws", seed=5, freeze_period=5.0, freeze_length=0.5)
    b = simulate(costs, 8, "ws", seed=5, freeze_period=5.0, freeze_length=0.5)
    assert a.to_dict() == b.to_dict()
    assert np.array_equal(sample_costs(100, seed=2), sample_costs(100, seed=2))


def test_kruskal_weiss_chunk_grows_with_overhead():
    small = kruskal_weiss_chunk(10**5, 16, 0.001, 1.0)
    large = kruskal_weiss_chunk(10**5, 16, 0.1, 1.0)
    assert 1 <= small < large <= 10**5 // 16
    assert kruskal_weiss_chunk(100, 4, 0.1, 0.0) == 25


@pytest.mark.parametrize("kwargs", [dict(policy="fifo"), dict(p=0), dict(steal_latency=0.0),
                                    dict(chunk=0, policy="chunk"), dict(slow_workers=9),
                                    dict(freeze_period=1.0, freeze_length=1.0)])
def test_bad_arguments_raise_input_error(kwargs):
    args = dict(costs=np.ones(10), p=8, policy="ws")
    args.update(kwargs)
    with pytest.raises(InputError):
        simulate(args.pop("costs"), args.pop("p"), args.pop("policy"), **args)


def test_bad_costs_raise_input_error():
    with pytest.raises(InputError):
        simulate(np.array([1.0, -1.0]), 2, "self")
    with pytest.raises(InputError):
        sample_costs(10, "gamma")
    with pytest.raises(InputError):
        worker_noise(4, slowdown=0.5)


def test_cli_balance_simulate(capsys):
    import json

    from partkit.cli import main

    assert main(["balance", "simulate", "--tasks", "2000", "--workers", "8", "--policy", "gss",
                 "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["policy"] == "gss" and payload["tasks"] == 2000
    assert payload["makespan"] >= payload["lower_bound"] and payload["ratio"] >= 1.0
    direct = simulate(sample_costs(2000, "lognormal", cv=1.0, seed=0), 8, "gss")
    assert payload["makespan"] == pytest.approx(direct.makespan)
    assert main(["balance", "simulate", "--tasks", "500", "--workers", "4", "--policy", "ws",
                 "--slow-workers", "1", "--slowdown", "3"]) == 0
    assert "steals" in capsys.readouterr().out
    assert main(["balance", "simulate", "--tasks", "0", "--workers", "4"]) == 2
    assert "number of tasks" in capsys.readouterr().err
    assert main(["balance", "dag", "--kind", "potri", "--tiles", "4", "--workers", "4",
                 "--json"]) == 0
    dag = json.loads(capsys.readouterr().out)
    assert dag["span"] == 25 and dag["tasks"] == 60
    assert main(["balance", "bins", "--balls", "1000", "--bins", "1000", "-d", "2"]) == 0
