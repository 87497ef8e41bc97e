"""Calibration (``partkit calibrate``), machine files, and measured against predicted (``partkit measure``).

The fits and the machine-file checks run serially; the commands run under
``mpiexec -n 2`` in a subprocess, as in ``tests/test_distributed.py``, with
a reduced size range and few repetitions so they take seconds.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from partkit.cli import main
from partkit.cost import halo_plan
from partkit.distributed.launch import mpiexec_command
from partkit.errors import InputError
from partkit.estimate import estimate
from partkit.hypergraph import spmv_communication
from partkit.io import read_matrix, write_partition
from partkit.machine import fit_alpha_beta, load_machine, validate_machine
from partkit.machine.fit import Segments, fit_exchange, fit_segments
from tests.test_distributed import ROOT, needs_mpi, run_mpi

SIZES = [2 ** e for e in range(3, 25)]  # 8 B .. 16 MB


# ----------------------------------------------------------------- fits
def test_fit_recovers_alpha_and_beta_from_noisy_timings():
    rng = np.random.default_rng(3)
    sizes = np.array(SIZES, dtype=float)
    seconds = (1.5e-6 + sizes / 6e9) * rng.uniform(0.97, 1.03, sizes.size)
    fit = fit_alpha_beta(sizes, seconds)
    assert fit.alpha == pytest.approx(1.5e-6, rel=0.05)
    assert fit.beta == pytest.approx(6e9, rel=0.05)
    assert fit.worst_ratio() < 1.07 and np.all(np.abs(fit.residuals) < 0.07)


def test_fit_is_exact_on_exact_timings_and_never_negative():
    fit = fit_alpha_beta([8, 64, 4096], [2e-6 + 8 / 1e9, 2e-6 + 64 / 1e9, 2e-6 + 4096 / 1e9])
    assert fit.alpha == pytest.approx(2e-6, rel=1e-9) and fit.beta == pytest.approx(1e9, rel=1e-9)
    flat = fit_alpha_beta([8, 1024], [3e-6, 3e-6])  # no size dependence: beta is unbounded
    assert flat.alpha == pytest.approx(3e-6) and np.isinf(flat.beta)
    assert validate_machine({"alpha": flat.to_dict()["alpha"], "beta": flat.to_dict()["beta"]})
    shrinking = fit_alpha_beta([8, 1024], [3e-6, 1e-6])  # would need a negative 1/beta
    assert shrinking.alpha >= 0 and shrinking.beta > 0


@pytest.mark.parametrize("sizes, seconds", [([8], [1e-6]), ([8, 8], [1e-6, 2e-6]), ([8, 16], [1e-6, -1.0]),
                                            ([8, 16], [1e-6])])
def test_fit_refuses_what_cannot_be_fitted(sizes, seconds):
    with pytest.raises(InputError):
        fit_alpha_beta(sizes, seconds)


def test_piecewise_fit_finds_a_protocol_switch():
    sizes = np.array(SIZES, dtype=float)
    eager, rendezvous = 1e-6 + sizes / 2e9, 5e-6 + sizes / 8e9
    seconds = np.where(sizes < 8192, eager, rendezvous)
    assert fit_alpha_beta(sizes, seconds).worst_ratio(1024) > 1.5  # one line misses it
    segments = fit_segments(sizes, seconds)
    assert segments.starts == (0, 8192)
    assert segments.alphas == pytest.approx((1e-6, 5e-6), rel=1e-6)
    assert segments.betas == pytest.approx((2e9, 8e9), rel=1e-6)
    assert np.allclose(segments.seconds(sizes), seconds)
    one = fit_segments(sizes, 1e-6 + sizes / 2e9)  # a straight line stays one segment
    assert len(one.starts) == 1


def test_exchange_fit_separates_the_start_from_the_per_message_cost():
    rng = np.random.default_rng(5)
    counts = np.repeat([1, 2, 4], len(SIZES)).astype(float)
    sizes = np.tile(np.array(SIZES, dtype=float), 3)
    per_message = np.where(sizes < 8192, 3e-6 + sizes / 4e9, 9e-6 + sizes / 2e9)
    seconds = (5e-6 + counts * per_message) * rng.uniform(0.97, 1.03, sizes.size)
    fit = fit_exchange(counts, sizes, seconds)
    assert fit.start == pytest.approx(5e-6, rel=0.15)
    assert fit.segments.starts == (0, 8192)
    assert fit.segments.alphas == pytest.approx((3e-6, 9e-6), rel=0.15)
    assert fit.segments.betas == pytest.approx((4e9, 2e9), rel=0.1)
    assert np.all(np.abs(fit.residuals) < 0.07) and fit.to_dict()["worst_ratio"] < 1.08
    one = fit_exchange(counts, sizes, counts * per_message)  # no start in the timings: none fitted
    assert one.start == pytest.approx(0.0, abs=1e-9)
    with pytest.raises(InputError, match="two different counts"):
        fit_exchange(np.ones(4), [8, 16, 32, 64], [1e-6] * 4)


# -------------------------------------------------------- machine files
@pytest.mark.parametrize("data, message", [
    ({"beta": 1e9}, "missing field 'alpha'"),
    ({"alpha": 1e-6}, "missing field 'beta'"),
    ({"alpha": -1e-6, "beta": 1e9}, "'alpha' must be non-negative"),
    ({"alpha": 1e-6, "beta": 0}, "'beta' must be positive"),
    ({"alpha": 1e-6, "beta": -5.0}, "'beta' must be positive"),
    ({"alpha": "1e-6", "beta": 1e9}, "'alpha' must be a finite number"),
    ({"alpha": True, "beta": 1e9}, "'alpha' must be a finite number"),
    ({"alpha": 1e-6, "beta": 1e9, "overhead": -1e-6}, "'overhead' must be non-negative"),
    ({"alpha": 1e-6, "beta": 1e9, "allreduce_overhead": float("nan")}, "'allreduce_overhead' must be a finite"),
    ({"alpha": 1e-6, "beta": 1e9, "halo_start": -1e-6}, "'halo_start' must be non-negative"),
    ({"alpha": 1e-6, "beta": 1e9, "allreduce_start": "1"}, "'allreduce_start' must be a finite"),
    ({"alpha": 1e-6, "beta": 1e9, "topology": "hypercube"}, "topology 'hypercube'"),
    ({"alpha": 1e-6, "beta": 1e9, "ports": 0}, "'ports' must be a positive integer"),
    ({"alpha": 1e-6, "beta": 1e9, "halo_segments": [{"from": 8, "alpha": 1e-6, "beta": 1e9}]},
     "the first starting at 0"),
    ({"alpha": 1e-6, "beta": 1e9, "pingpong_segments": [{"from": 0, "alpha": -1, "beta": 1e9}]},
     "pingpong_segments[0]: field 'alpha'"),
    ({"alpha": 1e-6, "beta": 1e9, "levels": [{"alpha": 1e-6, "beta": -1}]}, "levels[0]: field 'beta'"),
    ([1, 2], "must hold a JSON object"),
])
def test_machine_file_errors_name_the_field(tmp_path, data, message):
    path = tmp_path / "machine.json"
    path.write_text(json.dumps(data))
    with pytest.raises(InputError, match=None) as caught:
        load_machine(path)
    assert message in str(caught.value) and str(path) in str(caught.value)


def test_machine_file_that_is_not_json(tmp_path):
    path = tmp_path / "machine.json"
    path.write_text("alpha = 1e-6\n")
    with pytest.raises(InputError, match="not a JSON machine file"):
        load_machine(path)
    with pytest.raises(InputError, match="cannot read machine file"):
        load_machine(tmp_path / "missing.json")


# ------------------------------------------------------------- the model
def _example():
    a = sp.random(120, 120, density=0.05, random_state=2, format="csr") + sp.identity(120)
    return a, np.arange(120) * 3 // 120


def test_overhead_is_charged_once_per_halo_message():
    a, part = _example()
    base = estimate(a, part, alpha=1e-6, beta=1e9)
    more = estimate(a, part, alpha=1e-6, beta=1e9, overhead=3e-6)
    comm = spmv_communication(a, part)
    sent = np.bincount(comm.src, minlength=3)
    received = np.bincount(comm.dst, minlength=3)
    assert more.halo_time - base.halo_time == pytest.approx(3e-6 * max(sent.max(), received.max()), rel=1e-9)
    assert more.halo_bound - base.halo_bound == pytest.approx(3e-6 * comm.total_messages / 3, rel=1e-9)
    assert more.allreduce_time == base.allreduce_time  # the overhead is the halo's
    same = estimate(a, part, alpha=1e-6, beta=1e9, overhead=3e-6,
                    halo_segments=Segments((0,), (4e-6,), (1e9,)))
    assert same.halo_time == pytest.approx(more.halo_time, rel=1e-12)


def test_starts_are_charged_once_per_phase():
    a, part = _example()
    base = estimate(a, part, alpha=1e-6, beta=1e9, overhead=1e-6)
    more = estimate(a, part, alpha=1e-6, beta=1e9, overhead=1e-6, halo_start=4e-6, allreduce_start=3e-6)
    assert more.halo_time - base.halo_time == pytest.approx(4e-6, rel=1e-9)
    assert more.halo_bound - base.halo_bound == pytest.approx(4e-6, rel=1e-9)
    assert more.allreduce_time == base.allreduce_time  # per call: unchanged
    assert more.allreduce_phase_time == pytest.approx(3e-6 + 2 * base.allreduce_time, rel=1e-12)
    assert more.iteration_time - base.iteration_time == pytest.approx(7e-6, rel=1e-9)
    assert estimate(a, part, allreduces=0, allreduce_start=3e-6).allreduce_phase_time == 0.0
    alone = estimate(a, np.zeros(120, dtype=int), halo_start=4e-6, allreduce_start=3e-6)  # k = 1: nothing sent
    assert alone.halo_time == 0.0 and alone.iteration_time == 0.0
    with pytest.raises(InputError, match="halo start"):
        estimate(a, part, halo_start=-1.0)


def test_segments_pick_the_allreduce_and_halo_parameters_by_size():
    a, part = _example()
    segments = Segments((0, 1 << 20), (1e-6, 1e-3), (1e9, 1e10))  # the big segment never applies here
    assert estimate(a, part, alpha=5e-6, beta=1e8, segments=segments).to_dict()["allreduce_time"] == \
        pytest.approx(estimate(a, part, alpha=1e-6, beta=1e9).allreduce_time)
    assert estimate(a, part, alpha=5e-6, beta=1e8, segments=segments).halo_time == \
        pytest.approx(estimate(a, part, alpha=1e-6, beta=1e9).halo_time)


def test_halo_plan_sends_what_the_estimate_counts_and_gives_the_product():
    a, part = _example()
    comm = spmv_communication(a, part)
    plans = [halo_plan(a, part, 3, r, local_matrix=True) for r in range(3)]
    assert [p.send_words for p in plans] == comm.send_words.tolist()
    assert [p.ghosts for p in plans] == comm.recv_words.tolist()
    assert [p.send_to.size for p in plans] == comm.send_messages.tolist()
    x = np.random.default_rng(0).random(120)
    owned = [x[p.rows] for p in plans]
    for p in plans:  # what each source sends, in the order the receiver stores it
        ghost = [owned[q][plans[q].send_index[list(plans[q].send_to).index(p.rank)]] for q in p.recv_from]
        local = np.concatenate([owned[p.rank], *ghost])
        assert np.allclose(p.local @ local, (a @ x)[p.rows])


# ------------------------------------------------------------------ CLI
def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def bc2(data_dir, tmp_path):
    partfile = tmp_path / "bc.part"
    write_partition(partfile, np.arange(2003) * 2 // 2003)
    return data_dir / "bcsstk13.mtx", partfile


def test_estimate_reads_the_machine_file(capsys, tmp_path, bc2):
    matrix, partfile = bc2
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps({"alpha": 3e-6, "beta": 5e9, "topology": "full", "ports": 1}))
    status, out, _ = run(capsys, "estimate", matrix, partfile, "--machine", machine, "--json")
    assert status == 0
    expected = estimate(read_matrix(matrix), np.arange(2003) * 2 // 2003, alpha=3e-6, beta=5e9, topology="full")
    assert json.loads(out)["iteration_time"] == pytest.approx(expected.iteration_time, rel=1e-12)
    status, out, _ = run(capsys, "estimate", matrix, partfile, "--machine", machine, "--topology", "ring", "--json")
    assert json.loads(out)["topology"]["name"] == "ring"  # the command line overrides the file's topology
    status, out, _ = run(capsys, "compare", matrix, "-k", "2", "--methods", "block", "--machine", machine, "--json")
    assert status == 0 and json.loads(out)["methods"][0]["estimate"]["alpha"] == 3e-6


def test_estimate_refuses_a_bad_machine_file_or_both_kinds_of_parameters(capsys, tmp_path, bc2):
    matrix, partfile = bc2
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps({"alpha": 3e-6, "beta": -5e9}))
    status, _, err = run(capsys, "estimate", matrix, partfile, "--machine", machine)
    assert status == 2 and err.count("\n") == 1 and "'beta' must be positive" in err
    machine.write_text(json.dumps({"alpha": 3e-6, "beta": 5e9}))
    status, _, err = run(capsys, "estimate", matrix, partfile, "--machine", machine, "--beta", "1e9")
    assert status == 2 and "give --machine or --beta, not both" in err


def test_calibrate_needs_mpiexec(capsys):
    status, _, err = run(capsys, "calibrate", "-o", "unused.json")
    assert status == 2 and "at least 2 ranks" in err


# ------------------------------------------------------------ under MPI
def mpi(nprocs, *argv, timeout=180):
    command, environ = mpiexec_command(nprocs, [sys.executable, "-m", "partkit", *map(str, argv)])
    environ["PYTHONPATH"] = ROOT
    return subprocess.run(command, env=environ, capture_output=True, text=True, timeout=timeout)


@needs_mpi
def test_calibrate_writes_a_valid_machine_file_and_plot(tmp_path):
    out, plot = tmp_path / "machine.json", tmp_path / "fit.png"
    printed = run_mpi(2, [sys.executable, "-m", "partkit", "calibrate", "-o", str(out), "--plot", str(plot),
                          "--max-size", "16384", "--repetitions", "5"])
    machine = load_machine(out)
    assert machine["alpha"] >= 0 and machine["beta"] > 0 and machine["ranks"] == 2
    assert [level["level"] for level in machine["levels"]] == ["core"]  # one node: one level
    assert machine["levels"][0]["sizes"] == [2 ** e for e in range(3, 15)]
    assert len(machine["levels"][0]["residuals"]) == 12
    assert set(machine["collectives"]) == {"allreduce", "bcast", "alltoallv"}
    assert Segments.from_list(machine["halo_segments"]).starts[0] == 0
    assert sorted(set(machine["exchange"]["counts"])) == [1, 2, 4] and machine["halo_start"] >= 0
    assert len(machine["exchange"]["residuals"]) == len(machine["exchange"]["seconds"])
    assert machine["allreduce"]["counts"] == [1, 2, 4, 1, 2, 4] and machine["allreduce_start"] >= 0
    assert plot.stat().st_size > 0 and f"wrote {out} and {plot}" in printed
    matrix = Path(ROOT) / "data" / "bcsstk13.mtx"
    partfile = tmp_path / "bc.part"
    write_partition(partfile, np.arange(2003) * 2 // 2003)
    assert main(["estimate", str(matrix), str(partfile), "--machine", str(out)]) == 0
    halo = Segments.from_list(machine["halo_segments"])
    predicted = estimate(read_matrix(matrix), np.arange(2003) * 2 // 2003, alpha=machine["alpha"],
                         beta=machine["beta"], topology="full", halo_segments=halo,
                         segments=Segments.from_list(machine["pingpong_segments"]))
    biggest = predicted.communication.words.max() * 8  # one message each way: the bigger one counts
    assert predicted.halo_time == pytest.approx(float(halo.seconds(biggest)), rel=1e-12)


@needs_mpi
def test_measure_prints_measured_and_predicted_per_phase(tmp_path, bc2):
    matrix, partfile = bc2
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps({"alpha": 2e-6, "beta": 5e9, "overhead": 1e-6, "topology": "full"}))
    result = json.loads(run_mpi(2, [sys.executable, "-m", "partkit", "measure", str(matrix), str(partfile),
                                    "--iterations", "5", "--machine", str(machine), "--spmv", "--json"]))
    for key in ("measured_halo_s", "predicted_halo_s", "measured_allreduce_s", "predicted_allreduce_s",
                "measured_spmv_s", "halo_ratio", "allreduce_ratio"):
        assert result[key] > 0, key
    expected = estimate(read_matrix(matrix), np.arange(2003) * 2 // 2003, alpha=2e-6, beta=5e9, overhead=1e-6,
                        topology="full")
    assert result["predicted_halo_s"] == pytest.approx(expected.halo_time, rel=1e-12)
    assert result["predicted_allreduce_s"] == pytest.approx(2 * expected.allreduce_time, rel=1e-12)
    text = run_mpi(2, [sys.executable, "-m", "partkit", "measure", str(matrix), str(partfile), "--iterations", "3"])
    assert "halo exchange" in text and "allreduce x2" in text and "pred/meas" in text


@needs_mpi
def test_combine_refits_the_median_timings_of_several_calibrations(tmp_path):
    from partkit.machine.fitted import combine, machine_from_timings, timings_of

    files = []
    for i in range(3):
        files.append(tmp_path / f"m{i}.json")
        run_mpi(2, [sys.executable, "-m", "partkit", "calibrate", "-o", str(files[-1]), "--max-size", "65536",
                    "--repetitions", "3", "--no-collectives"])
    machines = [json.loads(f.read_text()) for f in files]
    assert machine_from_timings(timings_of(machines[0]))["halo_segments"] == machines[0]["halo_segments"]
    out = tmp_path / "combined.json"
    printed = subprocess.run([sys.executable, "-m", "partkit", "calibrate", "--combine", *map(str, files), "-o",
                              str(out)], capture_output=True, text=True)
    assert printed.returncode == 0 and f"wrote {out}" in printed.stdout, printed.stderr
    combined = json.loads(out.read_text())
    assert combined["combined"] == 3 and combined == {**combine(machines), "placement": combined["placement"]}
    seconds = np.array([m["exchange"]["seconds"] for m in machines])
    assert np.allclose(combined["exchange"]["seconds"], np.median(seconds, axis=0))
    other = tmp_path / "other.json"
    other.write_text(json.dumps({**machines[0], "pingpong": {**machines[0]["pingpong"], "sizes": [8]}}))
    refused = subprocess.run([sys.executable, "-m", "partkit", "calibrate", "--combine", str(files[0]), str(other),
                              "-o", str(tmp_path / "x.json")], capture_output=True, text=True)
    assert refused.returncode == 2 and "measured other configurations" in refused.stderr


@needs_mpi
def test_measure_times_several_partitions_in_one_launch(tmp_path, bc2):
    """Each partition gets its own plan and prediction; their iterations take turns in one launch."""
    matrix, partfile = bc2
    scattered = tmp_path / "bc.scattered"
    write_partition(scattered, np.arange(2003) % 2)
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps({"alpha": 2e-6, "beta": 5e9, "topology": "full"}))
    results = json.loads(run_mpi(2, [sys.executable, "-m", "partkit", "measure", str(matrix), str(partfile),
                                     str(scattered), "--iterations", "4", "--machine", str(machine), "--json"]))
    assert [r["partition"] for r in results] == [str(partfile), str(scattered)]
    a = read_matrix(matrix)
    for result, part in zip(results, (np.arange(2003) * 2 // 2003, np.arange(2003) % 2)):
        expected = estimate(a, part, alpha=2e-6, beta=5e9, topology="full")
        assert result["predicted_halo_s"] == pytest.approx(expected.halo_time, rel=1e-12)
        assert result["measured_halo_s"] > 0 and result["iterations"] == 4
    assert results[1]["estimate"]["total_words"] > results[0]["estimate"]["total_words"]
    text = run_mpi(2, [sys.executable, "-m", "partkit", "measure", str(matrix), str(partfile), str(scattered),
                       "--iterations", "3"])
    assert "2 partitions taking turns" in text and text.count("halo exchange   ") == 2
    bad = tmp_path / "bc3.part"
    write_partition(bad, np.arange(2003) * 3 // 2003)
    result = mpi(2, "measure", matrix, partfile, bad, "--iterations", "3")
    assert result.returncode == 2 and result.stderr.count("partkit: error:") == 1
    assert f"{bad}: the partition has k=3 parts" in result.stderr


@needs_mpi
def test_measure_refuses_a_rank_count_other_than_k_on_every_rank(tmp_path, data_dir):
    matrix = data_dir / "bcsstk13.mtx"
    partfile = tmp_path / "bc3.part"
    write_partition(partfile, np.arange(2003) * 3 // 2003)
    result = mpi(2, "measure", matrix, partfile, "--iterations", "3")
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("partkit: error:") == 1 and "k=3 parts but mpiexec started 2 ranks" in result.stderr
    assert result.stdout == ""


@needs_mpi
def test_bad_machine_file_is_refused_on_every_rank(tmp_path, bc2):
    matrix, partfile = bc2
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps({"alpha": 2e-6}))
    result = mpi(2, "measure", matrix, partfile, "--machine", machine)
    assert result.returncode == 2 and result.stderr.count("partkit: error:") == 1
    assert "missing field 'beta'" in result.stderr
    result = mpi(2, "calibrate", "-o", tmp_path / "no" / "such" / "dir.json")
    assert result.returncode == 2 and result.stderr.count("partkit: error:") == 1


@needs_mpi
def test_benchmark_runs_end_to_end(tmp_path):
    out, png, cal = tmp_path / "r.json", tmp_path / "r.png", tmp_path / "cal.png"
    run = subprocess.run([sys.executable, str(Path(ROOT) / "benchmarks" / "cost_model.py"), "--grid", "40",
                          "--ks", "2", "--iterations", "3", "--repetitions", "3", "--max-size", "65536",
                          "--data", str(tmp_path), "--json", str(out), "--plot", str(png),
                          "--calibration-plot", str(cal)],
                         capture_output=True, text=True, timeout=600, env={**os.environ, "PYTHONPATH": ROOT})
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(out.read_text())
    assert [(r["matrix"], r["method"]) for r in result["rows"]] == \
        [(m, method) for m in ("bcsstk13.mtx", "grid2d_40.mtx")
         for method in ("block", "random", "spectral", "multilevel", "hypergraph")]
    assert all(r["predicted_halo_s"] > 0 and r["measured_halo_s"] > 0 for r in result["rows"])
    assert [c["name"] for c in result["checks"]][:2] == ["ping-pong 1 KB..16 MB within 1.5",
                                                         "bcsstk13.mtx k=2 halo within 1.5"]
    assert png.stat().st_size > 0 and cal.stat().st_size > 0
    assert "ranking predicted:" in run.stdout and ("PASS" in run.stdout or "FAIL" in run.stdout)


def test_allreduce_overhead_is_charged_per_call():
    a, part = _example()
    base = estimate(a, part, alpha=1e-6, beta=1e9)
    more = estimate(a, part, alpha=1e-6, beta=1e9, allreduce_overhead=2e-6)
    assert more.allreduce_time - base.allreduce_time == pytest.approx(2e-6)
    assert more.iteration_time - base.iteration_time == pytest.approx(2 * 2e-6)
    assert more.allreduce_bound.total == base.allreduce_bound.total and more.halo_time == base.halo_time
    with pytest.raises(InputError):
        estimate(a, part, allreduce_overhead=-1.0)
