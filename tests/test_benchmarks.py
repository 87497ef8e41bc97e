"""The benchmark scripts run end to end on small inputs (their numbers live in docs/)."""

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from partkit.generators import grid2d
from partkit.io import write_metis_graph

ROOT = Path(__file__).resolve().parents[1]


def load_compare():
    spec = importlib.util.spec_from_file_location("bench_compare", ROOT / "benchmarks" / "compare.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_compare_quick_writes_table_targets_json_and_plot(tmp_path):
    pytest.importorskip("pymetis")
    graph = tmp_path / "grid.graph"
    write_metis_graph(graph, grid2d(40, 30))
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "compare.py"), "--quick", "--graphs", str(graph),
                          "--tools", "partkit,metis", "--cold", "none", "--cli", "none", "--json", str(out),
                          "--plot", str(png)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    result = json.loads(out.read_text())
    assert [(r["class"], r["graph"], r["k"], r["epsilon"]) for r in result["rows"]] == [
        ("shared", "grid.graph", 8, 0.0), ("shared", "grid.graph", 8, 0.03),
        ("delaunay2d", "delaunay_n15", 8, 0.0), ("delaunay2d", "delaunay_n15", 8, 0.03)]
    metis = result["rows"][0]["tools"]["metis"]
    assert metis["valid"] is (metis["imbalance"] <= 1e-12)  # at eps = 0 a part may not weigh more than ceil(W/k)
    summary = result["summary"]
    assert set(summary["classes"]["metis"]) == {"shared", "delaunay2d", "all"}
    assert summary["classes"]["metis"]["all"]["instances"] == 4
    status = {t["target"]: t["status"] for t in summary["targets"]}
    assert status["eps=0.03: cut geometric mean partkit / METIS"] in ("PASS", "FAIL")
    assert status["warm time partkit / METIS on delaunay_n20 k=64 eps=0.03"] == "SKIP"
    assert status["first-run compile seconds"] == "SKIP"
    assert "# targets" in run.stdout and "per class, partkit / metis" in run.stdout
    import matplotlib.image

    assert matplotlib.image.imread(str(png)).shape[:2] == (400, 1000)


def row(graph, k, eps, partkit, metis, kaminpar, seconds=(1.0, 1.0)):
    """A result row: (cut, within eps, within the eps the tool was given) per tool."""
    def tool(cut, valid, given, sec):
        return {"cut": cut, "valid": valid, "valid_given": given, "seconds": sec}

    return {"class": "c", "graph": graph, "k": k, "epsilon": eps,
            "tools": {"partkit": tool(partkit, True, True, seconds[0]), "metis": tool(*metis, seconds[1]),
                      "kaminpar": tool(*kaminpar, 1.0)}}


def test_targets_count_metis_only_where_it_is_within_eps():
    compare = load_compare()
    rows = [row("a", 2, 0.03, 90, (100, True, True), (95, True, True)),
            row("b", 2, 0.03, 500, (100, False, False), (10, True, True)),  # METIS out of eps: not a reference
            row("c", 2, 0.0, 120, (100, False, True), (100, True, True), seconds=(4.0, 1.0)),  # METIS ufactor 1 ok
            row("delaunay_n20", 64, 0.03, 100, (100, True, True), (100, True, True), seconds=(1.2, 1.0))]
    result = {t["target"]: t for t in compare.targets(rows, {})}
    assert result["eps=0.03: cut geometric mean partkit / METIS"]["value"] == pytest.approx((0.9 * 1.0) ** 0.5)
    assert result["eps=0.03: cut geometric mean partkit / METIS"]["status"] == "PASS"
    assert result["eps=0.03: worst cut partkit / METIS"]["value"] == pytest.approx(1.0)
    bound = result["eps=0.03: worst cut / (1.10 x best valid cut of METIS and KaMinPar + 2)"]
    assert bound["value"] == pytest.approx(500 / 13) and bound["status"] == "FAIL" and "b k=2" in bound["detail"]
    tight = result["eps in {0, 0.001}: cut geometric mean partkit / METIS"]
    assert tight["value"] == pytest.approx(1.2) and tight["status"] == "FAIL"
    assert "1 of 1 instances" in tight["detail"] and "0 within eps itself" in tight["detail"]
    assert result["warm time worst partkit / METIS"]["value"] == 4.0
    assert result["warm time geometric mean partkit / METIS"]["value"] == pytest.approx((4.0 * 1.2) ** 0.25)
    assert result["warm time partkit / METIS on delaunay_n20 k=64 eps=0.03"]["status"] == "PASS"
    assert result["partkit partitions not within eps"]["value"] == 0
    assert result["first-run compile seconds"]["status"] == "SKIP"


def test_ordering_benchmark_runs_on_given_graphs(tmp_path):
    pytest.importorskip("pymetis")
    graph = tmp_path / "grid.graph"
    write_metis_graph(graph, grid2d(30, 20))
    out = tmp_path / "o.json"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "ordering.py"), "--graphs", str(graph),
                          "--json", str(out)], capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "file/partkit" in run.stdout
    result = json.loads(out.read_text())
    tools = result["rows"][0]["results"]
    assert set(tools) == {"partkit", "metis", "colamd", "mmd_ata"}
    assert tools["metis"]["nnz_ratio"] == 1.0 and tools["partkit"]["nnz_L"] > 600
    assert result["rows"][0]["separator"] == 20
