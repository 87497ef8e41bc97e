"""Fill-reducing orderings: partkit.order against METIS NodeND and SuperLU's COLAMD and MMD(A^T+A).

Every ordering is measured the same way, by partkit's symbolic Cholesky
(:func:`partkit.ordering.symbolic_cholesky`) of ``P A P^T`` for the graph's
pattern: nnz(L) (diagonal included) and flops ``sum_j c_j**2``. Seconds are
wall time of the ordering call (partkit warm: kernels compiled before
timing). SuperLU's orderings come from ``splu(A, permc_spec=...).perm_c``,
which needs a full LU factorization: its seconds include that
factorization, and it is run only where METIS's factor is small enough
(``--superlu-max-flops``). Separators: ``partkit.separator`` on the whole
graph against the top-level separator of METIS's ordering (the chain of
single-child columns at the root of its elimination tree; pymetis does not
bind METIS_ComputeVertexSeparator), and the same chain of partkit's
ordering. The summary gives geometric means of the ratios to METIS per
family (2D meshes, 3D meshes, shared matrices).

Examples::

    python benchmarks/ordering.py            # 2D/3D meshes up to 10^6 vertices + shared matrices
    python benchmarks/ordering.py --quick    # small meshes + shared matrices (under a minute)
    python benchmarks/ordering.py --graphs A.mtx B.graph
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "data"
SHARED_FILES = ["bcsstk13.mtx", "jagmesh7.mtx", "4elt.graph"]


def instances(quick, files=None):
    """``(family, name, loader)`` triples (``files``: these graphs only, family "file")."""
    from partkit.generators import delaunay, grid2d, grid3d
    from partkit.io import read_graph

    if files:
        return [("file", Path(f).name, lambda f=f: read_graph(f)) for f in files]
    if quick:
        meshes = [("2D", lambda: grid2d(100, 100)), ("2D", lambda: delaunay(2**14)),
                  ("3D", lambda: grid3d(15, 15, 15)), ("3D", lambda: grid3d(25, 25, 25))]
    else:
        meshes = [("2D", lambda: grid2d(300, 300)), ("2D", lambda: delaunay(2**17)),
                  ("2D", lambda: delaunay(2**20)), ("3D", lambda: grid3d(30, 30, 30)),
                  ("3D", lambda: grid3d(60, 60, 60)), ("3D", lambda: grid3d(100, 100, 100))]
    out = [(family, None, loader) for family, loader in meshes]
    out += [("shared", name, lambda name=name: read_graph(SHARED / name))
            for name in SHARED_FILES if (SHARED / name).exists()]
    return out


def run_partkit(graph):
    from partkit.ordering import order

    return order(graph, seed=0)[0]


def run_metis(graph):
    import pymetis

    perm, _ = pymetis.nested_dissection(pymetis.CSRAdjacency(graph.xadj, graph.adjncy))
    return np.asarray(perm, dtype=np.int64)


def superlu(spec):
    def run(graph):
        import scipy.sparse as sp
        from scipy.sparse.linalg import splu

        a = graph.to_scipy().astype(np.float64)
        a = (a + sp.diags(np.asarray(a.sum(axis=1)).ravel() + 1.0)).tocsc()
        lu = splu(a, permc_spec=spec, diag_pivot_thresh=0.0, options=dict(SymmetricMode=True))
        return np.argsort(lu.perm_c).astype(np.int64)  # perm_c[old] = new

    return run


TOOLS = {"partkit": run_partkit, "metis": run_metis, "colamd": superlu("COLAMD"),
         "mmd_ata": superlu("MMD_AT_PLUS_A")}


def top_separator(parent):
    """Length of the chain of single-child columns ending at the root (0 if several roots)."""
    roots = np.flatnonzero(parent == -1)
    if roots.size != 1:
        return 0
    children = np.bincount(parent[parent >= 0], minlength=parent.size)
    first_child = np.full(parent.size, -1, dtype=np.int64)
    first_child[parent[parent >= 0]] = np.flatnonzero(parent >= 0)
    j, size = roots[0], 1
    while children[j] == 1:
        j, size = first_child[j], size + 1
    return size


def measure(name, run, graph):
    from partkit.ordering import symbolic_cholesky

    start = time.perf_counter()
    perm = run(graph)
    seconds = time.perf_counter() - start
    fill = symbolic_cholesky(graph, perm)
    return {"tool": name, "nnz_L": fill.nnz, "flops": fill.flops, "seconds": seconds,
            "top_separator": top_separator(fill.parent)}


def geomean(values):
    values = [v for v in values if v and v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--quick", action="store_true", help="small meshes and the shared matrices")
    p.add_argument("--graphs", nargs="+", metavar="FILE", help="order these graph/matrix files instead")
    p.add_argument("--superlu-max-flops", type=float, default=5e9,
                   help="run SuperLU only where METIS's factor costs at most this many flops (default 5e9)")
    p.add_argument("--json", metavar="PATH", help="also write every measurement to this JSON file")
    return p.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    warnings.simplefilter("ignore", DeprecationWarning)
    from partkit.generators import grid2d
    from partkit.ordering import separator

    run_partkit(grid2d(30, 30))  # compile (or load) the kernels before timing
    separator(grid2d(30, 30))
    rows = []
    header = (f"{'graph':18s} {'n':>8s} {'tool':8s} {'nnz(L)':>12s} {'flops':>10s} {'seconds':>8s} "
              f"{'nnz/M':>6s} {'flop/M':>6s} {'time/M':>6s} {'topsep':>6s}")
    print(header)
    for family, name, load in instances(args.quick, args.graphs):
        graph = load()
        name = name or graph.name
        results = {}
        for tool, run in TOOLS.items():
            if tool in ("colamd", "mmd_ata") and results["metis"]["flops"] > args.superlu_max_flops:
                continue
            results[tool] = measure(tool, run, graph)
        start = time.perf_counter()
        sep = int((separator(graph) == 2).sum())
        sep_seconds = time.perf_counter() - start
        metis = results["metis"]
        for tool, r in results.items():
            r.update(nnz_ratio=r["nnz_L"] / metis["nnz_L"], flops_ratio=r["flops"] / metis["flops"],
                     time_ratio=r["seconds"] / metis["seconds"])
            print(f"{name:18s} {graph.n:8d} {tool:8s} {r['nnz_L']:12d} {r['flops']:10.3e} {r['seconds']:8.3f} "
                  f"{r['nnz_ratio']:6.3f} {r['flops_ratio']:6.3f} {r['time_ratio']:6.2f} {r['top_separator']:6d}")
        print(f"{name:18s} {'':8s} separator(): |S| = {sep} ({sep_seconds:.3f} s), METIS top-level |S| = "
              f"{metis['top_separator']}, ratio {sep / metis['top_separator']:.3f}")
        rows.append({"family": family, "graph": name, "n": graph.n, "m": graph.m, "results": results,
                     "separator": sep, "separator_seconds": sep_seconds})
        sys.stdout.flush()
    summary = {}
    for family in ("2D", "3D", "shared", "file", "all"):
        chosen = [r for r in rows if family in (r["family"], "all")]
        if not chosen:
            continue
        for tool in TOOLS:
            have = [r["results"][tool] for r in chosen if tool in r["results"]]
            if tool == "metis" or not have:
                continue
            summary[f"{family}/{tool}"] = {
                "instances": len(have),
                "nnz_ratio": geomean([h["nnz_ratio"] for h in have]),
                "flops_ratio": geomean([h["flops_ratio"] for h in have]),
                "time_ratio": geomean([h["time_ratio"] for h in have])}
        summary[f"{family}/separator_ratio"] = geomean(
            [r["separator"] / r["results"]["metis"]["top_separator"] for r in chosen
             if r["results"]["metis"]["top_separator"]])
    print("\nGeometric means of the ratios to METIS NodeND (nnz(L), flops, seconds):")
    for key, value in summary.items():
        if isinstance(value, dict):
            print(f"  {key:18s} instances {value['instances']}  nnz {value['nnz_ratio']:.3f}  "
                  f"flops {value['flops_ratio']:.3f}  time {value['time_ratio']:.2f}")
        else:
            print(f"  {key:18s} partkit.separator |S| / METIS top-level |S| = {value:.3f}")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": rows, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
