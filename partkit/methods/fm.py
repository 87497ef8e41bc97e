"""Fiduccia-Mattheyses partitioning: multi-start grown bisections refined by FM.

Each bisection tries ``nstarts`` initial splits (grown from a random vertex,
greedily or breadth-first, or a random assignment), refines each with
classic full FM passes (:func:`partkit.multilevel.kernels.initial_fm.fm_refine`), and keeps the
best: balanced first, then the lowest cut. k parts come from
:func:`partkit.multilevel.recursive.recursive_bisection`.
"""

from __future__ import annotations

import numpy as np

from partkit._random import derive, integers, permutation
from partkit.errors import InputError
from partkit.multilevel.recursive import bisection_bounds, recursive_bisection
from partkit.multilevel.kernels.initial_fm import fm_refine, grow_bisection, overweight, side_weights

INITS = ("bfs", "greedy", "random")


def partition(graph, k, *, imbalance=0.03, seed=0, init="bfs", nstarts=4, npasses=20):
    """Partition ``graph`` into ``k`` parts with multi-start FM and recursive bisection.

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float
    seed : int
    init : {"bfs", "greedy", "random"}
        Initial bisection: breadth-first growing from a random vertex,
        greedy graph growing (adds the frontier vertex of best cut gain;
        good on meshes, poor on random geometric graphs where it grows
        ragged regions), or a random split.
    nstarts : int
        Initial bisections tried per split; the best refined one is kept.
    npasses : int
        Maximum FM passes per start.

    Returns
    -------
    numpy.ndarray of int64
    """
    if init not in INITS:
        raise InputError(f"fm: init must be one of {', '.join(INITS)}, got {init!r}")
    if int(nstarts) < 1 or int(npasses) < 1:
        raise InputError("fm: nstarts and npasses must be at least 1")

    def bisect(sub, fraction0, eps, bseed):
        return multistart_fm_bisection(sub, fraction0, eps, bseed, init=init, nstarts=int(nstarts),
                                       npasses=int(npasses))

    return recursive_bisection(graph, k, bisect, imbalance=imbalance, seed=seed)


def initial_bisection(graph, fraction0, seed, init="bfs"):
    """An unrefined bisection with about ``fraction0`` of the first-constraint weight on side 0."""
    target = int(round(fraction0 * int(graph.total_vertex_weight()[0])))
    if init == "random":
        order = permutation(graph.n, seed)
        cum = np.cumsum(graph.vwgt[order, 0])
        part = np.ones(graph.n, dtype=np.int64)
        part[order[: int(np.searchsorted(cum, target, side="right"))]] = 0
        return part
    start = int(integers(derive(seed, "start"), graph.n, 1)[0])
    return grow_bisection(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, start, target,
                          init == "greedy", derive(seed, "grow"))


def multistart_fm_bisection(graph, fraction0, imbalance, seed, *, init="bfs", nstarts=4, npasses=20):
    """Best of ``nstarts`` FM-refined initial bisections (least overweight, then lowest cut)."""
    maxw = bisection_bounds(graph.total_vertex_weight(), fraction0, imbalance)
    best, best_key = None, None
    for t in range(nstarts):
        s = derive(seed, "try", t)
        part = initial_bisection(graph, fraction0, s, init)
        cut = fm_refine(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, maxw, npasses, graph.n, s)
        key = (int(overweight(side_weights(graph.vwgt, part), maxw)), int(cut))
        if best_key is None or key < best_key:
            best, best_key = part, key
    return best
