"""Multilevel vertex separators: parts A, B and a separator S with no edge between A and B.

The graph is coarsened by heavy-edge matching (the engine's coarsening);
on the coarsest graph several breadth-first-grown edge bisections are
turned into vertex separators by a minimum vertex cover of their cut edges
(König's theorem, through a maximum bipartite matching) and refined by
node-separator FM; the best is projected back level by level and refined by
node FM on every level (as METIS's ``MlevelNodeBisection`` and KaHIP do).
Graphs of :data:`LARGE` vertices or more are first coarsened to
``n / 30`` vertices and the rest of the work is repeated :data:`RUNS`
times from there, keeping the best separator.
"""

from __future__ import annotations

import numpy as np

from partkit._random import KeyStream, permutation
from partkit.errors import InputError
from partkit.ordering._engine import coarsen
from partkit._heap import new_heap
from partkit.ordering.kernels.separator import initial_separator, node_fm, separator_better, side_weights
from partkit.ordering.validate import as_graph

#: Grown starts tried on the coarsest graph (half as many on an uncoarsened graph of
#: more than 100 vertices).
INITIAL_TRIES = 5

#: Grown starts in each of the :data:`RUNS` runs of a large graph.
RUN_TRIES = 7

#: Node-FM passes per level.
FM_PASSES = 10

#: Node-FM passes refining each grown start.
INITIAL_PASSES = 4

#: One-sided node FM (METIS's default for orderings) rather than two-sided
#: (two-sided gave about 4% more nnz(L) in nested dissection).
ONE_SIDED = True

#: Graphs of at most this many vertices are separated without coarsening.
DIRECT = 1000

#: Graphs with at least this many vertices get :data:`RUNS` coarse runs.
LARGE = 5000

#: Independent runs from the ``n / 30`` level of a large graph.
RUNS = 5

#: :func:`separator` keeps the best of this many multilevel separators
#: (nested dissection makes one per piece).
SEPARATOR_RUNS = 4


def separator(graph, *, imbalance=0.2, seed=0):
    """A small balanced vertex separator of ``graph``.

    Parameters
    ----------
    graph : partkit.Graph or scipy.sparse matrix
        Vertex weights (first constraint) are the weights balanced and summed.
    imbalance : float, default 0.2
        A and B each weigh at most ``(1 + imbalance) / 2`` times the total
        vertex weight (METIS's node-separator bound; its default ``ufactor``
        of 200 is 0.2).
    seed : int, default 0
        The same seed gives the same separator.

    The best (smallest S within the bound) of :data:`SEPARATOR_RUNS`
    multilevel separators is returned.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        0 for A, 1 for B, 2 for the separator S. No edge joins A and B.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.ordering import separator
    >>> where = separator(grid2d(20, 10))
    >>> int((where == 2).sum())
    10
    """
    graph = as_graph(graph)
    if not (0 <= imbalance < 1) or not np.isfinite(imbalance):
        raise InputError(f"imbalance must be in [0, 1), got {imbalance}")
    if graph.n == 0:
        return np.zeros(0, dtype=np.int64)
    keys = KeyStream(seed)
    return _best_of(lambda: separate(graph, imbalance, keys), SEPARATOR_RUNS, graph,
                    _max_side(graph, imbalance))


def separate(graph, imbalance, keys):
    """One multilevel separator, without the checks (``keys`` a :class:`partkit._random.KeyStream`)."""
    maxside = _max_side(graph, imbalance)
    if graph.n < LARGE:
        return _multilevel(graph, maxside, keys, INITIAL_TRIES)
    levels, coarse = coarsen(graph, max(100, graph.n // 30), keys)
    best = _best_of(lambda: _multilevel(coarse, maxside, keys, RUN_TRIES), RUNS, coarse, maxside)
    return _refine_up(levels, best, maxside, keys)


def _max_side(graph, imbalance):
    return int((1 + imbalance) / 2 * graph.vwgt[:, 0].sum())


def _best_of(make, count, graph, maxside):
    """The best of ``count`` separators of ``graph`` made by ``make()`` (see ``separator_better``)."""
    vwgt = np.ascontiguousarray(graph.vwgt[:, 0])
    best, best_pw = None, None
    for _ in range(count):
        where = make()
        pw = side_weights(vwgt, where)
        if best is None or separator_better(pw, best_pw, maxside):
            best, best_pw = where, pw
    return best


def _multilevel(graph, maxside, keys, tries):
    if graph.n <= DIRECT:
        levels, coarse = [], graph
    else:
        levels, coarse = coarsen(graph, int(np.clip(graph.n // 8, 40, 100)), keys)
    if not levels and coarse.n > 100:  # uncoarsened: each start costs more, make half as many
        tries = max(1, tries // 2)
    orders = np.stack([permutation(coarse.n, keys.next()) for _ in range(tries)])
    heap0, heap1 = new_heap(coarse.n), new_heap(coarse.n)
    where = initial_separator(coarse.xadj, coarse.adjncy, np.ascontiguousarray(coarse.vwgt[:, 0]),
                              maxside, orders, INITIAL_PASSES, ONE_SIDED, keys.next(), heap0, heap1)
    return _refine_up(levels, where, maxside, keys)


def _refine_up(levels, where, maxside, keys):
    """Project ``where`` through ``levels`` (finest first), refining by node FM on each."""
    for fine, cmap in reversed(levels):
        where = where[cmap]
        heap0, heap1 = new_heap(fine.n), new_heap(fine.n)
        node_fm(fine.xadj, fine.adjncy, np.ascontiguousarray(fine.vwgt[:, 0]), where, maxside,
                FM_PASSES, ONE_SIDED, keys.next(), heap0, heap1)
    return where


