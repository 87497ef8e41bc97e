"""partkit's hypergraph partitioner (λ-1) against graph partitioners and the hypergraph tools, in one run.

For every matrix and k, each tool partitions the rows (imbalance 0.03, unit
vertex weights by default, one thread) and the partition is scored in the
column-net model of the matrix (with the diagonal for square matrices), the
exact words of a row-parallel ``y = A x``:

* ``partkit-hg``: :func:`partkit.hypergraph.partition` (this package);
* ``partkit-graph``: :func:`partkit.partition` on the graph of ``A + A^T``
  (of ``A A^T`` for a rectangular ``A``: rows sharing a column);
* ``metis``: pymetis on the same graph;
* ``mtkahypar``, ``mtkahypar-q``: Mt-KaHyPar, default and quality presets, km1;
* ``kahypar``: KaHyPar direct k-way, km1 preset (``km1_kKaHyPar_sea20.ini`` beside this file).

Reported per (matrix, k): λ-1, the largest volume one part sends
(:func:`partkit.hypergraph.part_volumes`), the imbalance, the SpMV halo time
predicted by :func:`partkit.estimate.estimate` (square matrices; default
machine), wall seconds of the partitioning call (input structures built
outside the timed region, Numba kernels compiled by a warm-up run). The
summary gives geometric means of the λ-1 and time ratios of partkit-hg to
Mt-KaHyPar default, and of the λ-1 ratio to partkit-graph on the
unsymmetric matrices, next to the issue's targets.

Matrices: data (bcsstk13, west0067, jagmesh7, power) and generated
ones: 2D 5-point and 3D 7-point finite-difference stencils, an unsymmetric
banded random matrix with long-range couplings, and a rectangular one.
``--skewed`` (issue 34) runs instead a directed R-MAT matrix of scale 16 (8
entries a row, rows and columns permuted), a Barabási-Albert matrix (60k
rows), a random unsymmetric one (50k rows, 5 entries a row), a block-angular
LP matrix (20k x 60k, 20 rows of density 0.2, 10 columns of density 0.3)
and a 224 x 224 Laplacian with 8 dense rows and 8 dense columns (density
0.5), all with fixed seeds. ``--large`` (issue 29) runs matrices of 10^5
rows and more the other sets never used, with fixed seeds: 2D 5-point and 3D
7-point Laplacians (320 x 320, 47^3), a random geometric graph and a
Barabási-Albert graph of 10^5 vertices (adjacency plus identity), a directed
R-MAT matrix of scale 17, the block-angular LP matrix (20k x 60k) and an
arrowhead of 50k rows (tridiagonal, the last 4 rows and columns dense); its
summary sets λ-1 and time ratios to Mt-KaHyPar default against the issue's
targets (both <= 1.0). Every (matrix, k) ends with the λ-1 and time
ratios of partkit-hg to the other tools; a row with an empty part is flagged.

Examples::

    python benchmarks/hypergraph.py                      # the full run (about 4 minutes)
    python benchmarks/hypergraph.py --quick              # seconds: two small matrices, k = 2, 8
    python benchmarks/hypergraph.py --tools partkit-hg,mtkahypar -k 8 --json out.json
    python benchmarks/hypergraph.py --skewed --tools partkit-hg,mtkahypar   # issue 34 (about 10 minutes)
    python benchmarks/hypergraph.py --large --tools partkit-hg,mtkahypar    # issue 29 (20-40 minutes a seed, shared machine)
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
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "data"
KAHYPAR_INI = Path(__file__).resolve().parent / "km1_kKaHyPar_sea20.ini"
ALL_TOOLS = ["partkit-hg", "partkit-graph", "metis", "mtkahypar", "mtkahypar-q", "kahypar"]
TARGETS = {"lambda_vs_mtkahypar": 1.03, "lambda_vs_graph_unsymmetric": 0.85, "time_vs_mtkahypar": 1.0}
#: issue 29's targets for the large set: λ-1 at most Mt-KaHyPar default's in at most its time
TARGETS_LARGE = {"lambda_vs_mtkahypar": 1.0, "time_vs_mtkahypar": 1.0}


# ---------------------------------------------------------------- matrices
def stencil(shape):
    """Finite-difference Laplacian (5-point in 2D, 7-point in 3D) on a grid of ``shape``."""
    a = None
    for axis, size in enumerate(shape):
        d = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(size, size))
        term = d
        for other, osize in enumerate(shape):
            if other != axis:
                term = sp.kron(term, sp.identity(osize)) if other > axis else sp.kron(sp.identity(osize), term)
        a = term if a is None else a + term
    return a.tocsr()


def banded_random(nrows, ncols, per_row, band, far, seed):
    """Rows with ``per_row`` entries near the diagonal (within ``band``) and a long-range entry with
    probability ``far``: unsymmetric, with the locality of a discretisation."""
    rng = np.random.default_rng(seed)
    centre = (np.arange(nrows) * (ncols / nrows)).astype(np.int64)
    rows = np.repeat(np.arange(nrows), per_row)
    cols = np.clip(np.repeat(centre, per_row) + rng.integers(-band, band + 1, rows.size), 0, ncols - 1)
    extra = np.flatnonzero(rng.random(nrows) < far)
    rows = np.concatenate([rows, extra, np.arange(min(nrows, ncols))])
    cols = np.concatenate([cols, rng.integers(0, ncols, extra.size), np.arange(min(nrows, ncols))])
    a = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(nrows, ncols))
    a.sum_duplicates()
    return a


def rmat_directed(scale, seed):
    """Directed R-MAT matrix, 8 entries a row (a = 0.57, b = c = 0.19), rows and columns permuted."""
    from partkit.generators import rmat_matrix

    return rmat_matrix(scale, 8, seed=seed)


def random_unsymmetric(nrows, per_row, seed):
    """``per_row`` entries a row in uniformly random columns, plus the diagonal."""
    rng = np.random.default_rng(seed)
    rows = np.concatenate([np.repeat(np.arange(nrows), per_row), np.arange(nrows)])
    cols = np.concatenate([rng.integers(0, nrows, nrows * per_row), np.arange(nrows)])
    a = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(nrows, nrows))
    a.sum_duplicates()
    return a


def adjacency_plus_identity(g):
    """Adjacency plus identity of a :class:`partkit.Graph` (symmetric)."""
    return (sp.csr_matrix((np.ones(g.adjncy.size), g.adjncy, g.xadj), shape=(g.n, g.n)) + sp.identity(g.n)).tocsr()


def barabasi_albert_matrix(n, m, seed):
    """Adjacency plus identity of a Barabási-Albert graph (power-law degrees, symmetric)."""
    from partkit.generators import barabasi_albert

    return adjacency_plus_identity(barabasi_albert(n, m, seed=seed))


def random_geometric_matrix(n, seed):
    """Adjacency plus identity of a random geometric graph (DIMACS10 radius, average degree about 11)."""
    from partkit.generators import random_geometric

    return adjacency_plus_identity(random_geometric(n, seed=seed))


def with_dense_lines(a, rows, row_density, cols, col_density, seed):
    """``a`` with ``rows`` random rows and ``cols`` random columns filled to the given densities."""
    rng = np.random.default_rng(seed)
    nrows, ncols = a.shape
    r = np.repeat(rng.choice(nrows, rows, replace=False), int(row_density * ncols))
    rc = np.concatenate([rng.choice(ncols, int(row_density * ncols), replace=False) for _ in range(rows)])
    c = np.repeat(rng.choice(ncols, cols, replace=False), int(col_density * nrows))
    cr = np.concatenate([rng.choice(nrows, int(col_density * nrows), replace=False) for _ in range(cols)])
    coo = sp.coo_matrix(a)
    out = sp.csr_matrix((np.ones(coo.nnz + r.size + c.size),
                         (np.concatenate([coo.row, r, cr]), np.concatenate([coo.col, rc, c]))), shape=a.shape)
    out.sum_duplicates()
    out.data[:] = 1.0
    return out


def block_angular(nrows, ncols, blocks, per_col, seed):
    """Block-angular LP matrix: ``blocks`` diagonal blocks, ``per_col`` entries a column in its block,
    then 20 linking rows of density 0.2 and 10 linking columns of density 0.3."""
    rng = np.random.default_rng(seed)
    block = np.arange(ncols) * blocks // ncols
    lo = block * nrows // blocks
    hi = (block + 1) * nrows // blocks
    rows = (np.repeat(lo, per_col) + rng.random(ncols * per_col) * np.repeat(hi - lo, per_col)).astype(np.int64)
    a = sp.csr_matrix((np.ones(rows.size), (rows, np.repeat(np.arange(ncols), per_col))), shape=(nrows, ncols))
    a.sum_duplicates()
    return with_dense_lines(a, 20, 0.2, 10, 0.3, seed + 1)


#: the skewed matrices of issue 34 (power-law, dense rows and columns), fixed seeds
SKEWED = {
    "rmat_s16": lambda: rmat_directed(16, seed=34),
    "ba_60k": lambda: barabasi_albert_matrix(60000, 3, seed=34),
    "random_unsym_50k": lambda: random_unsymmetric(50000, 5, seed=34),
    "lp_block_angular": lambda: block_angular(20000, 60000, 200, 3, seed=34),
    "laplace224_dense": lambda: with_dense_lines(stencil((224, 224)), 8, 0.5, 8, 0.5, seed=34),
}


def arrowhead(n, band, width):
    """Banded matrix (``band`` diagonals either side) whose last ``width`` rows and columns are dense."""
    a = sp.diags([np.ones(n - abs(d)) for d in range(-band, band + 1)], list(range(-band, band + 1)),
                 shape=(n, n), format="lil")
    a[n - width:, :] = 1.0
    a[:, n - width:] = 1.0
    return a.tocsr()


#: the matrices of issue 29 (10^5 rows and more, apart from the LP and the arrowhead), fixed seeds
LARGE = {
    "laplace2d_320": lambda: stencil((320, 320)),
    "laplace3d_47": lambda: stencil((47, 47, 47)),
    "rgg_100k": lambda: random_geometric_matrix(100000, seed=29),
    "ba_100k": lambda: barabasi_albert_matrix(100000, 3, seed=29),
    "rmat_s17": lambda: rmat_directed(17, seed=29),
    "lp_block_angular": lambda: block_angular(20000, 60000, 200, 3, seed=29),
    "arrowhead_50k": lambda: arrowhead(50000, 1, 4),
}


def matrices(quick, skewed=False, large=False):
    """``(name, loader)`` pairs: the quick pair, the regular set, the skewed set of issue 34 or the large one of 29."""
    from partkit.io import read_graph, read_matrix

    def graph_matrix(path):
        g = read_graph(path)
        return sp.csr_matrix((np.ones(g.adjncy.size), g.adjncy, g.xadj), shape=(g.n, g.n))

    if skewed:
        return list(SKEWED.items())
    if large:
        return list(LARGE.items())
    if quick:
        return [("west0067", lambda: read_matrix(SHARED / "west0067.mtx")),
                ("stencil2d_30x30", lambda: stencil((30, 30)))]
    return [("bcsstk13", lambda: read_matrix(SHARED / "bcsstk13.mtx")),
            ("west0067", lambda: read_matrix(SHARED / "west0067.mtx")),
            ("jagmesh7", lambda: read_matrix(SHARED / "jagmesh7.mtx")),
            ("power", lambda: graph_matrix(SHARED / "power.graph")),
            ("stencil2d_64x64", lambda: stencil((64, 64))),
            ("stencil3d_16^3", lambda: stencil((16, 16, 16))),
            ("unsym_banded_3000", lambda: banded_random(3000, 3000, 6, 40, 0.3, seed=1)),
            ("rect_2000x3000", lambda: banded_random(2000, 3000, 5, 40, 0.2, seed=2))]


class Instance:
    """A matrix with its hypergraph, its graph for the graph partitioners and the tools' inputs."""

    def __init__(self, name, a, vertex_weights):
        from partkit import Graph
        from partkit.hypergraph import Hypergraph

        self.name, self.a = name, sp.csr_matrix(a)
        self.square = a.shape[0] == a.shape[1]
        self.h = Hypergraph.from_matrix(self.a, vertex_weights=vertex_weights, name=name)
        pattern = sp.csr_matrix((np.ones(self.a.nnz), self.a.indices, self.a.indptr), shape=a.shape)
        self.symmetric = self.square and (pattern != pattern.T).nnz == 0
        adjacency = pattern + pattern.T if self.square else pattern @ pattern.T
        adjacency = sp.csr_matrix(adjacency)
        adjacency.setdiag(0)
        adjacency.eliminate_zeros()
        self.graph = Graph.from_scipy(adjacency, name=name)
        self.graph = Graph(self.graph.xadj, self.graph.adjncy, vwgt=self.h.vwgt, name=name)
        # the other tools get the same hypergraph without its empty nets (Mt-KaHyPar refuses them)
        sizes = np.diff(self.h.net_ptr)
        self.tool_ptr = np.concatenate([[0], np.cumsum(sizes[sizes > 0])])
        self.tool_cost = self.h.net_cost[sizes > 0]
        self.nets = [self.h.pins[self.tool_ptr[e]:self.tool_ptr[e + 1]].tolist() for e in range(self.tool_cost.size)]


# ------------------------------------------------------------------ tools
def run_partkit_hg(inst, k, eps, seed, state):
    from partkit.hypergraph import partition

    return partition(inst.h, k, imbalance=eps, seed=seed)


def run_partkit_graph(inst, k, eps, seed, state):
    from partkit import partition

    return partition(inst.graph, k, imbalance=eps, seed=seed)


def run_metis(inst, k, eps, seed, state):
    import pymetis

    g = inst.graph
    options = pymetis.Options(ufactor=int(round(eps * 1000)), seed=seed)
    _, part = pymetis.part_graph(k, xadj=g.xadj, adjncy=g.adjncy, vweights=g.vwgt[:, 0], options=options)
    return np.asarray(part, dtype=np.int64)


def make_mtkahypar(preset_name):
    def prepare(inst, k, eps, seed, state):
        import mtkahypar

        if "init" not in state:
            state["init"] = mtkahypar.initialize(1, False)
        context = state["init"].context_from_preset(getattr(mtkahypar.PresetType, preset_name))
        context.set_partitioning_parameters(k, eps, mtkahypar.Objective.KM1)
        context.logging = False
        mtkahypar.set_seed(seed)
        hg = state["init"].create_hypergraph(context, inst.h.n, len(inst.nets), inst.nets,
                                             inst.h.vwgt.tolist(), inst.tool_cost.tolist())
        return lambda: np.asarray(hg.partition(context).get_partition(), dtype=np.int64)

    return prepare


def prepare_kahypar(inst, k, eps, seed, state):
    import kahypar

    hg = kahypar.Hypergraph(inst.h.n, len(inst.nets), inst.tool_ptr.tolist(), inst.h.pins.tolist(), k,
                            inst.tool_cost.tolist(), inst.h.vwgt.tolist())
    context = kahypar.Context()
    context.loadINIconfiguration(str(KAHYPAR_INI))
    context.setK(k)
    context.setEpsilon(eps)
    context.setSeed(seed)
    context.suppressOutput(True)

    def run():
        kahypar.partition(hg, context)
        return np.array([hg.blockID(v) for v in range(inst.h.n)], dtype=np.int64)

    return run


#: name -> (module needed, prepare(inst, k, eps, seed, state) -> callable) ; plain runners are wrapped
TOOLS = {
    "partkit-hg": (None, lambda i, k, e, s, st: lambda: run_partkit_hg(i, k, e, s, st)),
    "partkit-graph": (None, lambda i, k, e, s, st: lambda: run_partkit_graph(i, k, e, s, st)),
    "metis": ("pymetis", lambda i, k, e, s, st: lambda: run_metis(i, k, e, s, st)),
    "mtkahypar": ("mtkahypar", make_mtkahypar("DEFAULT")),
    "mtkahypar-q": ("mtkahypar", make_mtkahypar("QUALITY")),
    "kahypar": ("kahypar", prepare_kahypar),
}


def available(names):
    import importlib

    out = []
    for name in names:
        if name not in TOOLS:
            raise SystemExit(f"unknown tool {name!r} (choose from {', '.join(TOOLS)})")
        module = TOOLS[name][0]
        try:
            if module:
                importlib.import_module(module)
            out.append(name)
        except ImportError:
            print(f"# {name}: {module} is not installed, skipped", file=sys.stderr)
    return out


# ---------------------------------------------------------------- measuring
def score(inst, part, k, eps):
    """λ-1, max part volume, imbalance, within-ε flag and the predicted SpMV halo time."""
    from partkit.estimate import estimate
    from partkit.hypergraph.metrics import summary

    s = summary(inst.h, part, k)
    empty = int(s["empty_parts"])
    total = inst.h.vwgt.sum()
    bound = max(math.floor((1 + eps) * total / k + 1e-9), math.ceil(total / k))
    heaviest = int(np.bincount(part, weights=inst.h.vwgt, minlength=k).max())
    spmv = estimate(inst.a, part, k).halo_time if inst.square else None
    return {"lambda": s["connectivity_minus_one"], "max_volume": s["max_volume"], "imbalance": s["imbalance"],
            "balanced": heaviest <= bound, "empty_parts": empty, "spmv_us": None if spmv is None else spmv * 1e6}


def measure(tool, inst, k, eps, seed, state):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        run = TOOLS[tool][1](inst, k, eps, seed, state)
        start = time.perf_counter()
        part = run()
        seconds = time.perf_counter() - start
    return {**score(inst, part, k, eps), "seconds": seconds}


def geomean(values):
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else float("nan")


def summarize(rows, tools, targets=TARGETS):
    """Geometric means of the ratios that the ``targets`` are about."""
    out = {}
    by_case = {}
    for row in rows:
        by_case.setdefault((row["matrix"], row["k"]), {})[row["tool"]] = row
    def ratio(a, b, key, only=None):
        vals = [c[a][key] / c[b][key] for (m, k), c in by_case.items() if a in c and b in c
                and c[b][key] > 0 and (only is None or only(c[a]))]
        return geomean(vals), len(vals)
    if "mtkahypar" in tools:
        out["lambda_vs_mtkahypar"], _ = ratio("partkit-hg", "mtkahypar", "lambda")
        out["time_vs_mtkahypar"], _ = ratio("partkit-hg", "mtkahypar", "seconds")
    if "partkit-graph" in tools:
        out["lambda_vs_graph_unsymmetric"], _ = ratio("partkit-hg", "partkit-graph", "lambda",
                                                      only=lambda r: not r["symmetric"])
        out["lambda_vs_graph_all"], _ = ratio("partkit-hg", "partkit-graph", "lambda")
    for tool in tools:
        if tool != "partkit-hg":
            out[f"lambda_partkit_hg_over_{tool}"], _ = ratio("partkit-hg", tool, "lambda")
    out["all_balanced"] = {tool: all(r["balanced"] for r in rows if r["tool"] == tool) for tool in tools}
    out["empty_parts"] = {tool: sum(r["empty_parts"] for r in rows if r["tool"] == tool) for tool in tools}
    out["targets"] = {name: {"target": t, "measured": out.get(name),
                             "met": out.get(name) is not None and out[name] <= t} for name, t in targets.items()}
    return out


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("-k", type=int, nargs="+", default=[2, 8, 64], help="part counts (default 2 8 64)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0], help="seeds (default 0)")
    p.add_argument("--imbalance", type=float, default=0.03)
    p.add_argument("--vertex-weights", choices=["unit", "nnz"], default="unit",
                   help="vertex weights of every tool (default unit, as in issue 14's table)")
    p.add_argument("--tools", default=",".join(ALL_TOOLS), help="comma-separated subset of " + ", ".join(ALL_TOOLS))
    p.add_argument("--quick", action="store_true", help="two small matrices, k = 2 8, no KaHyPar (seconds)")
    p.add_argument("--skewed", action="store_true",
                   help="the power-law and dense-line matrices of issue 34 instead (" + ", ".join(SKEWED) + ")")
    p.add_argument("--large", action="store_true",
                   help="the matrices of issue 29 instead, against its targets (" + ", ".join(LARGE) + ")")
    p.add_argument("--matrices", help="comma-separated names: run only these of the chosen set")
    p.add_argument("--json", metavar="FILE", help="write every row and the summary to FILE")
    args = p.parse_args(argv)
    if args.quick:
        args.k = [2, 8]
        args.tools = ",".join(t for t in args.tools.split(",") if t != "kahypar")
    return args


def main(argv=None):
    args = parse_args(argv)
    tools = available([t.strip() for t in args.tools.split(",") if t.strip()])
    state = {}
    warm = Instance("warm-up", stencil((40, 40)), args.vertex_weights)
    for tool in tools:  # compile the Numba kernels, load the libraries
        for k in (2, 8):
            measure(tool, warm, k, args.imbalance, 0, state)
    rows = []
    header = f"{'matrix':<20}{'k':>4} {'tool':<14}{'λ-1':>9}{'max vol':>9}{'imbal':>8}{'SpMV us':>10}{'seconds':>9}"
    print(header)
    print("-" * len(header))
    chosen = None if args.matrices is None else set(args.matrices.split(","))
    for name, load in matrices(args.quick, args.skewed, args.large):
        if chosen is not None and name not in chosen:
            continue
        inst = Instance(name, load(), args.vertex_weights)
        for k in args.k:
            if k > inst.h.n:
                continue
            for tool in tools:
                results = [measure(tool, inst, k, args.imbalance, seed, state) for seed in args.seeds]
                row = {"matrix": name, "shape": list(inst.a.shape), "nnz": int(inst.a.nnz),
                       "symmetric": inst.symmetric, "k": k, "tool": tool,
                       "lambda": float(np.median([r["lambda"] for r in results])),
                       "max_volume": float(np.median([r["max_volume"] for r in results])),
                       "imbalance": max(r["imbalance"] for r in results),
                       "balanced": all(r["balanced"] for r in results),
                       "empty_parts": max(r["empty_parts"] for r in results),
                       "spmv_us": None if results[0]["spmv_us"] is None
                       else float(np.median([r["spmv_us"] for r in results])),
                       "seconds": float(np.median([r["seconds"] for r in results])), "runs": results}
                rows.append(row)
                spmv = "-" if row["spmv_us"] is None else f"{row['spmv_us']:.2f}"
                print(f"{name:<20}{k:>4} {tool:<14}{row['lambda']:>9.0f}{row['max_volume']:>9.0f}"
                      f"{row['imbalance']:>8.3f}{spmv:>10}{row['seconds']:>9.3f}"
                      + ("" if row["balanced"] else "  NOT within ε")
                      + (f"  EMPTY PARTS {row['empty_parts']}" if row["empty_parts"] else ""), flush=True)
            ours = next((r for r in rows[-len(tools):] if r["tool"] == "partkit-hg"), None)
            if ours and len(tools) > 1:
                ratios = "  ".join(f"{r['tool']} {ours['lambda'] / r['lambda']:.3f}" for r in rows[-len(tools):]
                                   if r["tool"] != "partkit-hg" and r["lambda"] > 0)
                times = "  ".join(f"{r['tool']} {ours['seconds'] / r['seconds']:.2f}" for r in rows[-len(tools):]
                                  if r["tool"] != "partkit-hg" and r["seconds"] > 0)
                print(f"{'':<25}λ-1 ratio partkit-hg / {ratios}")
                print(f"{'':<25}time ratio partkit-hg / {times}")
    summary = summarize(rows, tools, TARGETS_LARGE if args.large else TARGETS)
    print()
    for key, value in summary.items():
        if key == "targets":
            for name, t in value.items():
                measured = "n/a" if t["measured"] is None else f"{t['measured']:.3f}"
                print(f"target {name}: <= {t['target']}  measured {measured}  {'met' if t['met'] else 'NOT met'}")
        elif isinstance(value, float):
            print(f"{key}: {value:.3f}")
        else:
            print(f"{key}: {value}")
    if args.json:
        Path(args.json).write_text(json.dumps({"args": vars(args), "rows": rows, "summary": summary}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
