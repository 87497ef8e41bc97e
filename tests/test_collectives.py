"""The alpha-beta collective model: step tables, topologies, bounds, algorithm costs."""

import math

import pytest

from partkit import InputError
from partkit.collectives import (COLLECTIVES, TOPOLOGIES, allreduce_algorithms, bandwidth_bound,
                                 best_allreduce, bidirectional_ring_allreduce, bisection_bound,
                                 ceil_log, crossover, dispatch_bound, double_binary_tree_allreduce,
                                 effective_ports, fattree, fully_connected, latency_bound,
                                 latency_steps, lower_bound, make_topology, recursive_doubling_allreduce,
                                 recursive_halving_doubling_allreduce, ring, ring_allreduce, torus,
                                 torus_dims)

SIZES = [4, 8, 16, 32, 64]
ALPHA, BETA = 2e-6, 1e10


def test_step_table_one_port_versus_two_port():
    # the reference notes: 1-port ceil(log2 N), 2-port ceil(log3 N)
    assert [latency_steps(N, 1) for N in SIZES] == [2, 3, 4, 5, 6]
    assert [latency_steps(N, 2) for N in SIZES] == [2, 2, 3, 4, 4]
    assert [latency_steps(N, 3) for N in SIZES] == [1, 2, 2, 3, 3]


def test_ring_diameter_versus_two_port_effective_diameter():
    assert [ring(N, bidirectional=False).diameter for N in SIZES] == [3, 7, 15, 31, 63]
    assert [ring(N).diameter for N in SIZES] == [2, 4, 8, 16, 32]
    # on a ring the diameter, not the port count, sets the latency bound
    assert [latency_bound(N, 1.0, 2, ring(N)) for N in SIZES] == [2, 4, 8, 16, 32]
    assert [latency_bound(N, 1.0, 1, ring(N, False)) for N in SIZES] == [3, 7, 15, 31, 63]
    assert [latency_bound(N, 1.0, 2) for N in SIZES] == [2, 2, 3, 4, 4]


def test_ceil_log_is_exact_at_powers():
    assert math.ceil(math.log(243, 3)) == 5 and ceil_log(243, 3) == 5
    assert ceil_log(3 ** 5 + 1, 3) == 6 and ceil_log(3 ** 5 - 1, 3) == 5
    assert ceil_log(2 ** 40, 2) == 40 and ceil_log(2 ** 40 + 1, 2) == 41
    assert ceil_log(1, 2) == 0 and latency_steps(1) == 0
    with pytest.raises(InputError):
        latency_steps(0)
    with pytest.raises(InputError):
        latency_steps(8, ports=0)


def test_topology_table():
    rows = {name: [(t.diameter, t.degree, t.bisection_links)
                   for t in (make_topology(name, N) for N in (16, 64))] for name in TOPOLOGIES}
    assert rows == {"ring": [(8, 2, 2), (32, 2, 2)],
                    "torus2d": [(4, 4, 8), (8, 4, 16)],
                    "torus3d": [(4, 4, 8), (6, 6, 32)],
                    "fattree": [(1, 1, 8), (1, 1, 32)],
                    "full": [(1, 15, 64), (1, 63, 1024)]}
    assert make_topology("torus3d", 16).dims == (4, 2, 2)
    assert torus_dims(12, 2) == (4, 3) and torus_dims(7, 2) == (7, 1) and torus_dims(27, 3) == (3, 3, 3)
    assert torus((5,)).diameter == ring(5).diameter
    assert fattree(64, oversubscription=2).bisection_links == 16
    assert fully_connected(7).bisection_links == 12
    with pytest.raises(InputError, match="unknown topology"):
        make_topology("hypercube", 8)


def test_bandwidth_bounds_per_collective():
    N, M = 8, 8e6
    unit = M / BETA
    expected = {"broadcast": unit, "reduce": unit, "scatter": 7 / 8 * unit, "gather": 7 / 8 * unit,
                "reducescatter": 7 / 8 * unit, "allgather": 7 / 8 * unit, "alltoall": 7 / 8 * unit,
                "allreduce": 2 * 7 / 8 * unit}
    assert set(expected) == set(COLLECTIVES)
    for name, value in expected.items():
        assert bandwidth_bound(name, N, M, BETA) == pytest.approx(value)
        # p parallel ports divide the bandwidth term, up to the node degree
        assert bandwidth_bound(name, N, M, BETA, ports=2) == pytest.approx(value / 2)
        assert bandwidth_bound(name, N, M, BETA, ports=4, topology=ring(N)) == pytest.approx(value / 2)
        assert bandwidth_bound(name, N, M, BETA, ports=4, topology=fattree(N)) == pytest.approx(value)
    assert dispatch_bound([1e6, 3e6, 2e6], BETA) == pytest.approx(3e6 / BETA)
    assert dispatch_bound([1e6], BETA, send_bytes=[5e6], ports=2) == pytest.approx(5e6 / (2 * BETA))
    with pytest.raises(InputError, match="unknown collective"):
        bandwidth_bound("allscatter", N, M, BETA)


def test_bisection_bounds():
    M = 4e6
    # ring: 2 links per direction -> (M/2) / (2 beta) = M / (4 beta)
    assert bisection_bound("allreduce", 16, M, BETA, ring(16)) == pytest.approx(M / (4 * BETA))
    # full-bisection fat tree: (M/2) / ((N/2) beta)
    assert bisection_bound("allreduce", 16, M, BETA, fattree(16)) == pytest.approx(M / 16 / BETA)
    # all-to-all on a ring is bisection bound: (N/2)^2 M/N crosses 2 links
    assert bisection_bound("alltoall", 16, M, BETA, ring(16)) == pytest.approx(64 * M / 16 / (2 * BETA))
    bound = lower_bound("alltoall", 16, M, ALPHA, BETA, 1, ring(16))
    assert bound.total == bound.bisection > bound.bandwidth > bound.latency


def test_lower_bound_combines_the_terms():
    small = lower_bound("allreduce", 64, 8, ALPHA, BETA)
    assert small.total == small.latency == 6 * ALPHA
    large = lower_bound("allreduce", 64, 1e9, ALPHA, BETA, topology=fattree(64))
    assert large.total == large.bandwidth == pytest.approx(2 * 63 / 64 * 1e9 / BETA)
    assert lower_bound("allreduce", 1, 1e9, ALPHA, BETA, topology=ring(1)).total == 0


def test_allreduce_algorithm_costs():
    assert (ring_allreduce(8).latency_steps, ring_allreduce(8).bandwidth_factor) == (14, 14 / 8)
    assert (double_binary_tree_allreduce(8).latency_steps,
            double_binary_tree_allreduce(8).bandwidth_factor) == (6, 3)
    assert (recursive_halving_doubling_allreduce(8).latency_steps,
            recursive_halving_doubling_allreduce(8).bandwidth_factor) == (6, 14 / 8)
    assert (recursive_doubling_allreduce(8).latency_steps,
            recursive_doubling_allreduce(8).bandwidth_factor) == (3, 3)
    # non power of two: 4-node core plus a hand-off in and out
    rhd6 = recursive_halving_doubling_allreduce(6)
    assert (rhd6.latency_steps, rhd6.bandwidth_factor) == (6, 2 * 3 / 4 + 2)
    rd6 = recursive_doubling_allreduce(6)
    assert (rd6.latency_steps, rd6.bandwidth_factor) == (4, 4)
    for N in SIZES:  # bidirectional ring: N alpha + M / beta for even N
        bidir = bidirectional_ring_allreduce(N)
        assert bidir.time(1e6, ALPHA, BETA) == pytest.approx(N * ALPHA + 1e6 / BETA)
    assert ring_allreduce(4).time(4e6, ALPHA, BETA) == pytest.approx(6 * ALPHA + 2 * 3 / 4 * 4e6 / BETA)


def test_algorithms_available_per_topology():
    names = lambda N, p, t: [a.name for a in allreduce_algorithms(N, p, t)]  # noqa: E731
    assert names(16, 1, ring(16)) == ["ring"]
    assert names(16, 2, ring(16)) == ["ring", "bidirectional ring"]
    assert names(16, 2, fattree(16)) == ["ring", "double binary tree", "recursive doubling",
                                         "recursive halving-doubling"]
    assert names(16, 4, fully_connected(16)) == ["ring", "bidirectional ring", "double binary tree",
                                                 "recursive doubling", "recursive halving-doubling"]
    assert effective_ports(6, torus((4, 2))) == 3


def test_no_algorithm_beats_the_lower_bound():
    for name in TOPOLOGIES:
        for N in [2, 3, 5, 6, 8, 12, 16, 27, 64]:
            topology = make_topology(name, N)
            for ports in (1, 2, 4):
                for M in (8, 1e3, 1e6, 1e9):
                    bound = lower_bound("allreduce", N, M, ALPHA, BETA, ports, topology).total
                    for algorithm in allreduce_algorithms(N, ports, topology):
                        assert algorithm.time(M, ALPHA, BETA) >= bound * (1 - 1e-12), \
                            (name, N, ports, M, algorithm.name)


def test_crossover_between_latency_and_bandwidth_optimal():
    # recursive doubling (3 steps, factor 3) against the ring (14 steps, factor 7/4) on 8 nodes
    fast, ring8 = recursive_doubling_allreduce(8), ring_allreduce(8)
    assert crossover(fast, ring8, ALPHA, BETA) == pytest.approx(11 * ALPHA * BETA / 1.25)
    assert best_allreduce(8, 8, ALPHA, BETA, topology=fattree(8))[0].name == "recursive doubling"
    # small messages come within 0.1% of the latency bound on a switched network
    assert fast.time(8, ALPHA, BETA) == pytest.approx(lower_bound("allreduce", 8, 8, ALPHA, BETA).latency,
                                                      rel=1e-3)
    N = 64
    tree, ring_cost = double_binary_tree_allreduce(N), ring_allreduce(N)
    size = crossover(tree, ring_cost, ALPHA, BETA)
    expected = (2 * 63 - 12) * ALPHA * BETA / (6 - 2 * 63 / 64)
    assert size == pytest.approx(expected)
    assert tree.time(size, ALPHA, BETA) == pytest.approx(ring_cost.time(size, ALPHA, BETA))
    assert best_allreduce(N, size / 2, ALPHA, BETA, topology=fattree(N))[0].name != "ring"
    assert best_allreduce(N, size * 2, ALPHA, BETA, topology=ring(N))[0].name == "ring"
    assert tree.time(size / 2, ALPHA, BETA) < ring_cost.time(size / 2, ALPHA, BETA)
    assert tree.time(size * 2, ALPHA, BETA) > ring_cost.time(size * 2, ALPHA, BETA)
    # recursive halving-doubling dominates the ring for N = 2^s: no crossover
    assert crossover(recursive_halving_doubling_allreduce(N), ring_cost, ALPHA, BETA) is None
    assert crossover(ring_cost, ring_cost, ALPHA, BETA) is None
