"""benchmarks/hypergraph.py runs end to end in its quick mode (its numbers live in docs/history/benchmarks.md)."""

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_hypergraph_benchmark_quick(tmp_path, data_dir):
    pytest.importorskip("pymetis")
    out = tmp_path / "hg.json"
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "hypergraph.py"), "--quick",
                          "--tools", "partkit-hg,partkit-graph,metis", "--json", str(out)],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr
    assert "λ-1 ratio partkit-hg / partkit-graph" in run.stdout
    result = json.loads(out.read_text())
    assert {(r["matrix"], r["k"]) for r in result["rows"]} == {
        (m, k) for m in ("west0067", "stencil2d_30x30") for k in (2, 8)}
    assert result["summary"]["all_balanced"]["partkit-hg"] is True
    target = result["summary"]["targets"]["lambda_vs_graph_unsymmetric"]
    assert target["measured"] < 1.0
