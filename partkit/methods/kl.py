"""Kernighan-Lin bisection, extended to k parts by recursive bisection.

Every bisection starts from an initial split (breadth-first growing by
default, or random as in the original method; see
:func:`partkit.methods.fm.initial_bisection`) and is
improved by KL pair-swap passes (:func:`partkit.methods.kernels.kl.kl_refine`).
A KL pass costs O(n^2) (n/2 swaps, each an O(n) search for the best pair),
so graphs above ``max_vertices`` vertices are refused with a message
pointing to ``fm``. Swaps cannot repair an unbalanced start, so a start
that exceeds the side bounds (heavy vertices) is first repaired by FM
moves; ``refine="fm"`` also runs FM passes after KL.
"""

from __future__ import annotations

from partkit.errors import InputError
from partkit.methods.fm import INITS, initial_bisection
from partkit.multilevel.recursive import (
    bisection_bounds, check_refine, fm_refine_bisection, recursive_bisection)
from partkit.multilevel.kernels.initial_fm import overweight, side_weights
from partkit.methods.kernels.kl import kl_refine

#: Default size limit (a pass on 4elt, 15,606 vertices, takes about 0.1 s; the cost grows as n^2).
MAX_VERTICES = 20_000


def partition(graph, k, *, imbalance=0.03, seed=0, init="bfs", npasses=10,
              max_vertices=MAX_VERTICES, refine=None):
    """Partition ``graph`` into ``k`` parts by recursive Kernighan-Lin bisection.

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float
    seed : int
    init : {"bfs", "greedy", "random"}
        Initial bisection (see :func:`partkit.methods.fm.initial_bisection`);
        "random" is the original KL setting but needs many more passes.
    npasses : int
        Maximum KL passes per bisection.
    max_vertices : int
        Refuse graphs with more vertices (KL is O(n^2) per pass).
    refine : {None, "fm"}
        Run FM passes after KL.

    Returns
    -------
    numpy.ndarray of int64

    Raises
    ------
    InputError
        If the graph has more than ``max_vertices`` vertices or an option is invalid.
    """
    refine = check_refine(refine)
    if init not in INITS:
        raise InputError(f"kl: init must be one of {', '.join(INITS)}, got {init!r}")
    if graph.n > max_vertices:
        raise InputError(f"{graph.name}: kl costs O(n^2) per pass and is limited to {max_vertices} vertices "
                         f"(this graph has {graph.n}); use method fm, or raise max_vertices")

    def bisect(sub, fraction0, eps, bseed):
        part = initial_bisection(sub, fraction0, bseed, init)
        maxw = bisection_bounds(sub.total_vertex_weight(), fraction0, eps)
        if overweight(side_weights(sub.vwgt, part), maxw) > 0:
            part = fm_refine_bisection(sub, part, fraction0, eps, bseed, npasses=1)
        kl_refine(sub.xadj, sub.adjncy, sub.adjwgt, sub.vwgt, part, maxw, int(npasses))
        if refine == "fm":
            part = fm_refine_bisection(sub, part, fraction0, eps, bseed)
        return part

    return recursive_bisection(graph, k, bisect, imbalance=imbalance, seed=seed)
