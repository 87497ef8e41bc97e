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
