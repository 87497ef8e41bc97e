"""Edge cut and time of the classic partitioners on the development graphs.

Usage::

    python benchmarks/methods_table.py [--data data] [--k 2 8 64] [--json]

Prints a Markdown table (one row per method variant, one column per graph
and k, each cell "cut / seconds"); ``--json`` prints the raw records
instead. The METIS .graph inputs have no coordinates, so the geometric
methods (inertial, rcb) get 2D coordinates from
:func:`partkit.layout.spectral_layout`; computing them is not included in
their times. KL is O(n^2) per pass and refuses graphs above 20,000
vertices by default; here it runs with ``max_vertices`` raised so that
every cell is filled. A cell marked ``*`` missed the balance bound. Every
run uses imbalance 0.03 and seed 0; times include the Numba kernels'
first call only through one untimed warm-up run.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import warnings
from pathlib import Path

import partkit
from partkit import Graph
from partkit.errors import InfeasibleBalanceWarning
from partkit.io import read_graph
from partkit.layout import spectral_layout
from partkit.metrics import edge_cut, is_balanced

GRAPHS = ["4elt.graph", "bcsstk13.mtx", "rgg_n_2_15_s0.graph"]

#: (label, method, options)
VARIANTS = [
    ("kl", "kl", {"max_vertices": 10**6}),
    ("kl + fm", "kl", {"max_vertices": 10**6, "refine": "fm"}),
    ("fm", "fm", {}),
    ("spectral", "spectral", {}),
    ("spectral + fm", "spectral", {"refine": "fm"}),
    ("spectral multilevel + fm", "spectral", {"refine": "fm", "multilevel": True}),
    ("inertial", "inertial", {}),
    ("inertial + fm", "inertial", {"refine": "fm"}),
    ("rcb", "rcb", {}),
    ("rcb + fm", "rcb", {"refine": "fm"}),
    ("labelprop", "labelprop", {}),
    ("metis (reference)", "metis", {}),
]


def load(data, name):
    """The graph ``data/name`` with spectral-layout coordinates added."""
    g = read_graph(Path(data) / name)
    return Graph(g.xadj, g.adjncy, vwgt=g.vwgt, adjwgt=g.adjwgt, coords=spectral_layout(g),
                 name=g.name, validate=False)


def run(graph, k, method, options):
    """Partition once; return (cut, seconds, balanced)."""
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfeasibleBalanceWarning)
        part = partkit.partition(graph, k, method, imbalance=0.03, seed=0, **options)
    seconds = time.perf_counter() - start
    return edge_cut(graph, part), seconds, is_balanced(graph, part, k, 0.03)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", default=str(Path(__file__).resolve().parents[1] / "data"))
    parser.add_argument("--k", type=int, nargs="+", default=[2, 8, 64])
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    graphs = {name: load(args.data, name) for name in GRAPHS}
    warm = graphs["bcsstk13.mtx"]
    for _, method, options in VARIANTS:  # compile / load the kernels outside the timings
        run(warm, 2, method, options)
    records = []
    for label, method, options in VARIANTS:
        for name, graph in graphs.items():
            for k in args.k:
                cut, seconds, balanced = run(graph, k, method, options)
                records.append({"variant": label, "graph": name, "k": k, "cut": int(cut),
                                "seconds": round(seconds, 3), "balanced": bool(balanced)})
                print(f"{label:26s} {name:22s} k={k:<3d} cut={cut:<7d} {seconds:7.2f}s", file=sys.stderr)
    if args.json:
        print(json.dumps(records))
        return 0
    columns = [(name, k) for name in graphs for k in args.k]
    print("| method | " + " | ".join(f"{name.split('.')[0]} k={k}" for name, k in columns) + " |")
    print("|---|" + "---|" * len(columns))
    cells = {(r["variant"], r["graph"], r["k"]): r for r in records}
    for label, _, _ in VARIANTS:
        row = []
        for name, k in columns:
            r = cells[(label, name, k)]
            row.append(f"{r['cut']}{'' if r['balanced'] else '*'} / {r['seconds']:.2f}")
        print(f"| {label} | " + " | ".join(row) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
