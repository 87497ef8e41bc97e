"""The volume objective: ``partkit.partition(..., objective="volume")`` against METIS ``objtype=vol``.

Both run with the same imbalance (ε = 0.03, METIS ``ufactor=30``) and the
same seeds on the shared meshes (4elt, rgg_n_2_15_s0) and a generated 2D
Delaunay mesh of 2^15 vertices, for k = 8 and 64. For each case the total
communication volume (:func:`partkit.metrics.communication_volume`), the
cut and the seconds are averaged over the seeds; partkit's cut objective is
shown too. Kernels are compiled before timing.

Examples::

    python benchmarks/volume.py                 # seeds 0 1 2
    python benchmarks/volume.py --seeds 0 --ks 8
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def graphs():
    from partkit.generators import delaunay
    from partkit.io import read_graph

    out = [read_graph(SHARED / name) for name in ("4elt.graph", "rgg_n_2_15_s0.graph") if (SHARED / name).exists()]
    return out + [delaunay(2**15, seed=0)]


def metis_volume(graph, k, seed):
    import pymetis

    options = pymetis.Options(ufactor=30, seed=int(seed), objtype=1)  # METIS_OBJTYPE_VOL
    _, part = pymetis.part_graph(k, pymetis.CSRAdjacency(graph.xadj, graph.adjncy), vweights=graph.vwgt.ravel(),
                                 eweights=graph.adjwgt, recursive=False, options=options)
    return np.asarray(part, dtype=np.int64)


def main(argv=None):
    import partkit
    from partkit.generators import grid2d
    from partkit.metrics import communication_volume, edge_cut, is_balanced

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--ks", type=int, nargs="+", default=[8, 64])
    args = parser.parse_args(argv)
    partkit.partition(grid2d(20, 20), 4, objective="volume")  # compile
    runs = {"partkit cut": lambda g, k, s: partkit.partition(g, k, seed=s),
            "partkit volume": lambda g, k, s: partkit.partition(g, k, seed=s, objective="volume"),
            "METIS objtype=vol": metis_volume}
    print("| graph | k | " + " | ".join(f"{name}: volume, cut, s" for name in runs) + " | volume partkit / METIS |")
    print("|---|---|" + "---|" * (len(runs) + 1))
    for graph in graphs():
        for k in args.ks:
            row = {}
            for name, run in runs.items():
                figures = []
                for seed in args.seeds:
                    start = time.perf_counter()
                    part = run(graph, k, seed)
                    seconds = time.perf_counter() - start
                    assert is_balanced(graph, part, k, 0.03), (graph.name, k, name, seed)
                    figures.append((communication_volume(graph, part, k)[0], edge_cut(graph, part), seconds))
                row[name] = np.mean(figures, axis=0)
            ratio = row["partkit volume"][0] / row["METIS objtype=vol"][0]
            cells = " | ".join(f"{v:.0f}, {c:.0f}, {s:.2f}" for v, c, s in row.values())
            print(f"| {graph.name} | {k} | {cells} | {ratio:.3f} |", flush=True)


if __name__ == "__main__":
    main()
