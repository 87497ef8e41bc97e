"""``partkit estimate`` and ``partkit compare`` through the command-line entry point."""

import json

import numpy as np
import pytest

from partkit.cli import main
from partkit.estimate import estimate
from partkit.io import read_matrix, write_partition


def run(capsys, *argv):
    status = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def bcsstk13(data_dir):
    return data_dir / "bcsstk13.mtx"


def test_estimate_json_matches_the_library(capsys, bcsstk13, tmp_path):
    a = read_matrix(bcsstk13)
    part = np.arange(a.shape[0]) * 8 // a.shape[0]
    partfile = tmp_path / "bc.part"
    write_partition(partfile, part)
    status, out, _ = run(capsys, "estimate", bcsstk13, partfile, "--alpha", "2e-6", "--beta", "1e10",
                         "--topology", "torus2d", "--ports", "2", "--json")
    assert status == 0
    result = json.loads(out)
    expected = estimate(a, part, alpha=2e-6, beta=1e10, topology="torus2d", ports=2).to_dict()
    assert {key: result[key] for key in expected} == json.loads(json.dumps(expected))
    assert result["k"] == 8 and result["topology"]["dims"] == [4, 2]


def test_estimate_text_table(capsys, bcsstk13, tmp_path):
    partfile = tmp_path / "bc.part"
    write_partition(partfile, np.arange(2003) * 4 // 2003)
    status, out, _ = run(capsys, "estimate", bcsstk13, partfile, "--topology", "ring")
    assert status == 0
    assert "bcsstk13.mtx: n=2003" in out and "k=4" in out
    lines = {line.split()[0]: line for line in out.splitlines() if line.startswith("  ")}
    assert {"halo", "allreduce", "CG"} <= set(lines)
    predicted, bound = (float(x) for x in lines["CG"].split()[2:5:2])
    assert predicted >= bound > 0


def test_estimate_on_a_metis_graph(capsys, tmp_path):
    from partkit.generators import grid2d
    from partkit.io import write_metis_graph

    g = grid2d(6, 4)
    graphfile = tmp_path / "grid.graph"
    write_metis_graph(graphfile, g)
    partfile = tmp_path / "grid.part"
    write_partition(partfile, (np.arange(g.n) % 6 >= 3).astype(int))
    status, out, _ = run(capsys, "estimate", graphfile, partfile, "--json", "--alpha", "0",
                         "--beta", "8", "--allreduces", "0")
    assert status == 0
    result = json.loads(out)
    # two halves of a 6x4 grid: each side sends its 4 interface values, 1 word = 1 s
    assert result["total_words"] == 8 and result["total_messages"] == 2
    assert result["halo_time"] == pytest.approx(4.0)


def test_estimate_bad_input(capsys, bcsstk13, tmp_path):
    partfile = tmp_path / "short.part"
    write_partition(partfile, [0, 1, 1])
    status, _, err = run(capsys, "estimate", bcsstk13, partfile)
    assert status == 2 and "3 part ids for 2003 vertices" in err
    write_partition(partfile, np.zeros(2003, dtype=int))
    status, _, err = run(capsys, "estimate", bcsstk13, partfile, "--beta", "0")
    assert status == 2 and "beta" in err and err.count("\n") == 1


def test_compare_ranks_methods_and_skips_unknown(capsys, bcsstk13):
    pytest.importorskip("pymetis")
    status, out, _ = run(capsys, "compare", bcsstk13, "-k", "8", "--methods", "metis,nosuch,block",
                         "--topology", "fattree", "--json")
    assert status == 0
    result = json.loads(out)
    methods = [row["method"] for row in result["methods"]]
    assert sorted(methods) == ["block", "metis"]
    times = [row["predicted_time"] for row in result["methods"]]
    assert times == sorted(times)
    assert [s["method"] for s in result["skipped"]] == ["nosuch"]
    for row in result["methods"]:
        assert row["predicted_time"] >= row["bound"] > 0
        assert row["words"] <= row["cut"]  # x_j is sent once per part, not per cut edge
        assert row["estimate"]["topology"]["name"] == "fattree"
    status, out, _ = run(capsys, "compare", bcsstk13, "-k", "8", "--methods", "block,metis,nosuch")
    assert status == 0
    rows = [line.split()[0] for line in out.splitlines()[3:5]]
    assert rows == methods
    assert "skipped nosuch: unknown method 'nosuch'" in out


def test_compare_with_no_usable_method(capsys, bcsstk13):
    status, _, err = run(capsys, "compare", bcsstk13, "-k", "4", "--methods", "nosuch")
    assert status == 2 and "no method could partition" in err


# ------------------------------------------------------------ on a machine
@pytest.fixture
def bc8(bcsstk13, tmp_path):
    partfile = tmp_path / "bc8.part"
    write_partition(partfile, np.arange(2003) * 8 // 2003)
    return partfile


def test_estimate_on_a_machine_prints_J_and_time_in_order_and_placed(capsys, bcsstk13, tmp_path):
    from partkit.graph import Graph
    from partkit.machine import parse_machine
    from partkit.mapping import mapping_cost, place

    a = read_matrix(bcsstk13)
    part = np.random.default_rng(4).permutation(8)[np.arange(2003) * 8 // 2003]  # blocks on scrambled PEs
    partfile = tmp_path / "bc8.part"
    write_partition(partfile, part)
    status, out, _ = run(capsys, "estimate", bcsstk13, partfile, "--topology", "ring:8", "--json")
    assert status == 0
    result = json.loads(out)
    machine = parse_machine(topology="ring:8")
    graph = Graph.from_scipy(a)
    pe = place(graph, part, machine)
    assert result["machine"] == "ring:8" and result["J"] == mapping_cost(graph, part, machine)
    placed = result["mapping"]["placed"]
    assert placed["placement"] == pe.tolist() and placed["J"] == mapping_cost(graph, part, machine, pe)
    assert placed["J"] < result["J"]  # the scrambled blocks come back in order
    assert placed["iteration_time"] == pytest.approx(
        estimate(a, part, topology=machine, placement=pe).iteration_time, rel=1e-12)
    assert placed["iteration_time"] < result["iteration_time"]
    status, out, _ = run(capsys, "estimate", bcsstk13, partfile, "--topology", "ring:8")
    lines = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("  J ")}
    assert "on machine ring:8 (8 PEs)" in out and "in order" in out and "placed" in out
    assert float(lines["J"][1]) == result["J"] and float(lines["J"][2]) == placed["J"]


def test_a_torus_machine_charges_hops(bcsstk13):
    from partkit.hypergraph import spmv_communication
    from partkit.machine import parse_machine

    a = read_matrix(bcsstk13)
    part = np.arange(2003) * 8 // 2003
    machine = parse_machine(topology="torus3d:2x2x2")
    result = estimate(a, part, alpha=1e-6, beta=1e9, topology=machine)
    comm = spmv_communication(a, part)
    hops = np.array([bin(int(p) ^ int(q)).count("1") for p, q in zip(comm.src, comm.dst)])  # 2x2x2: bit flips
    assert np.array_equal(result.distances, hops) and hops.max() == 3
    flat = estimate(a, part, alpha=1e-6, beta=1e9, topology=machine.network)  # the network alone: no distances
    assert result.halo_time > flat.halo_time and result.distances is not None and flat.distances is None
    send = np.bincount(comm.src, weights=1e-6 + hops * comm.words * 8 / 1e9, minlength=8)
    recv = np.bincount(comm.dst, weights=1e-6 + hops * comm.words * 8 / 1e9, minlength=8)
    assert result.halo_time == pytest.approx(max(send.max(), recv.max()), rel=1e-12)
    assert estimate(a, part, topology="torus3d").distances.tolist() == result.distances.tolist()  # the same machine
    hierarchy = estimate(a, part, alpha=1e-6, beta=1e9, topology=parse_machine(hierarchy="4:2", distance="5:50"))
    assert set(np.unique(hierarchy.distances / 5)) <= {1.0, 10.0}  # relative to the nearest pair


@pytest.mark.parametrize("options, message", [
    (["--topology", "torus3d:2xx2"], "extents"),
    (["--topology", "hypercube:8"], "unknown topology"),
    (["--topology", "torus3d:4x4x4"], "64 processing elements, but k = 8"),
    (["--hierarchy", "4:4", "--distance", "1:10"], "16 processing elements, but k = 8"),
    (["--distance", "1:10"], "describe the machine one way"),
])
def test_estimate_refuses_a_bad_machine_in_one_line(capsys, bcsstk13, bc8, options, message):
    status, out, err = run(capsys, "estimate", bcsstk13, bc8, *options)
    assert status == 2 and out == "" and err.count("\n") == 1 and message in err, err


def test_estimate_refuses_a_distance_file_of_the_wrong_shape(capsys, bcsstk13, bc8, tmp_path):
    distances = tmp_path / "d.txt"
    distances.write_text("0 1 2\n1 0 1\n2 1 0\n")  # 3 PEs for k = 8
    status, _, err = run(capsys, "estimate", bcsstk13, bc8, "--distance-file", distances)
    assert status == 2 and err.count("\n") == 1 and "3 processing elements, but k = 8" in err
    distances.write_text("0 1\n1 0 1\n")
    status, _, err = run(capsys, "estimate", bcsstk13, bc8, "--distance-file", distances)
    assert status == 2 and err.count("\n") == 1 and "row 2 has 3" in err


def test_compare_on_a_machine_ranks_by_the_placed_time(capsys, bcsstk13):
    status, out, _ = run(capsys, "compare", bcsstk13, "-k", "8", "--methods", "block,multilevel,spectral",
                         "--topology", "torus3d", "--json")
    assert status == 0
    rows = json.loads(out)["methods"]
    assert len(rows) == 3 and all(r["J_placed"] <= r["J"] for r in rows)
    times = [r["predicted_time_placed"] for r in rows]
    assert times == sorted(times) and all(r["estimate"]["machine"] == "torus3d:2x2x2" for r in rows)
    status, out, _ = run(capsys, "compare", bcsstk13, "-k", "8", "--methods", "block", "--topology", "torus3d")
    assert "J placed" in out.splitlines()[2]
    status, out, err = run(capsys, "compare", bcsstk13, "-k", "8", "--methods", "block", "--topology", "ring:4")
    assert status == 2 and out == "" and err.count("\n") == 1 and "4 processing elements, but k = 8" in err


def test_a_machine_file_topology_is_a_machine(capsys, bcsstk13, bc8, tmp_path):
    machine = tmp_path / "machine.json"
    machine.write_text(json.dumps({"alpha": 3e-6, "beta": 5e9, "topology": "torus2d"}))
    status, out, _ = run(capsys, "estimate", bcsstk13, bc8, "--machine", machine, "--json")
    assert status == 0 and json.loads(out)["machine"] == "torus2d:4x2"
    status, out, _ = run(capsys, "estimate", bcsstk13, bc8, "--machine", machine, "--topology", "full", "--json")
    assert json.loads(out)["machine"] == "full:8"  # the command line overrides the file
