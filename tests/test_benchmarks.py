"""The benchmark scripts run end to end on small inputs (their numbers live in docs/)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

from partkit.generators import grid2d
from partkit.io import write_metis_graph

ROOT = Path(__file__).resolve().parents[1]


def test_compare_writes_table_json_and_plot(tmp_path):
    pytest.importorskip("pymetis")
    graph = tmp_path / "grid.graph"
    write_metis_graph(graph, grid2d(40, 30))
    out, png = tmp_path / "r.json", tmp_path / "r.png"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "compare.py"), "--graphs", str(graph),
                          "--delaunay", "-k", "2", "4", "--seeds", "0", "--tools", "partkit,metis",
                          "--cold", "none", "--json", str(out), "--plot", str(png)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "geomean_cut_ratio_vs_metis" in run.stdout
    result = json.loads(out.read_text())
    assert [row["k"] for row in result["rows"]] == [2, 4]
    assert result["summary"]["partkit_all_balanced"] is True
    import matplotlib.image

    assert matplotlib.image.imread(str(png)).shape[:2] == (400, 1000)


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
