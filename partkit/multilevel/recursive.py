"""Recursive bisection: k parts from any 2-way splitter.

:func:`recursive_bisection` splits ``k`` into ``k0 = k // 2`` and
``k1 = k - k0`` parts, asks a bisection function for a split that puts the
fraction ``k0 / k`` of the weight on side 0, and recurses on the two
induced subgraphs, so ``k`` need not be a power of two.

The balance allowance is spread over the levels adaptively. A final part
may weigh at most ``B = max_part_weights(graph, k, imbalance)``. A
subgraph of weight ``W`` that is still to be cut into ``k'`` parts over
``d = ceil(log2 k')`` more levels gets the per-level allowance
``eps' = (B k' / W) ** (1 / d) - 1`` (the minimum over constraints), so
that ``d`` levels at ``eps'`` land exactly on ``B``; a level that used less
than its allowance leaves more to the levels below it. At the last level
(``d = 1``) the bound of each side is exactly ``k_side * B``.

A bisection function has the signature
``bisect(graph, fraction0, imbalance, seed) -> int64 array of 0/1`` and
should keep side ``s`` within :func:`bisection_bounds`. :func:`make_bisector`
builds one from a plain splitter and optional FM refinement.
"""

from __future__ import annotations

import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from partkit.errors import InputError
from partkit.graph import Graph
from partkit._random import derive
from partkit._threads import single_threaded
from partkit.metrics import edge_cut, max_part_weights, weight_bounds
from partkit.multilevel.kernels.initial_fm import fm_refine
from partkit.multilevel.kernels.initial_split import split_sides

#: Default number of FM passes when refining a bisection.
FM_PASSES = 10


def bisection_bounds(total, fraction0, imbalance):
    """Maximum weight of each side of a bisection, shape ``(2, ncon)``.

    Side 0 targets ``fraction0 * total`` and side 1 the rest (see
    :func:`partkit.metrics.weight_bounds`); ``fraction0`` is one share or
    one per constraint.

    Examples
    --------
    >>> bisection_bounds([100, 100], np.array([0.4, 0.1]), 0.0).tolist()
    [[40, 10], [60, 90]]
    """
    fraction0 = np.asarray(fraction0, dtype=np.float64)
    return weight_bounds(total, np.stack([fraction0, 1.0 - fraction0]), imbalance)


def fm_refine_bisection(graph, part, fraction0, imbalance, seed, *, npasses=FM_PASSES, max_bad=None):
    """Refine a bisection of ``graph`` with 2-way FM and return the refined copy.

    Parameters
    ----------
    graph : partkit.Graph
    part : array_like of int, shape (n,)
        0/1 side of every vertex.
    fraction0, imbalance : float
        Target share of side 0 and allowed imbalance (see :func:`bisection_bounds`).
    seed : int
    npasses : int
        Maximum number of FM passes.
    max_bad : int, optional
        Consecutive non-improving moves after which a pass stops; default
        ``max(100, n // 20)``. ``graph.n`` gives classic full passes.

    Returns
    -------
    numpy.ndarray of int64
    """
    part = np.array(part, dtype=np.int64)
    maxw = bisection_bounds(graph.total_vertex_weight(), fraction0, imbalance)
    if max_bad is None:
        max_bad = max(100, graph.n // 20)
    fm_refine(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, maxw,
              int(npasses), int(max_bad), int(seed))
    return part


def make_bisector(split, refine=None, *, npasses=FM_PASSES):
    """A bisection function from a splitter and an optional refiner.

    Parameters
    ----------
    split : callable
        ``split(graph, fraction0, seed) -> 0/1 array`` putting about the
        fraction ``fraction0`` of the (first-constraint) weight on side 0.
    refine : {None, "fm"}
        ``"fm"`` refines every split with :func:`fm_refine_bisection`.
    npasses : int
        FM passes when refining.

    Returns
    -------
    callable
        ``bisect(graph, fraction0, imbalance, seed) -> 0/1 int64 array``.
    """
    refine = check_refine(refine)

    def bisect(graph, fraction0, imbalance, seed):
        part = np.asarray(split(graph, fraction0, seed), dtype=np.int64)
        if refine == "fm":
            part = fm_refine_bisection(graph, part, fraction0, imbalance, seed, npasses=npasses)
        return part

    return bisect


def check_refine(refine):
    """Validate the ``refine`` option: None (or "none") or "fm"."""
    if refine in (None, "none"):
        return None
    if refine != "fm":
        raise InputError(f"refine must be 'fm' or None, got {refine!r}")
    return refine


def recursive_bisection(graph, k, bisect, *, imbalance=0.03, seed=0, fractions=None, threads=1,
                        split_sides=None):
    """Partition ``graph`` into ``k`` parts by recursive bisection.

    Parameters
    ----------
    graph : partkit.Graph
        Or any object with ``n`` and ``total_vertex_weight()`` that
        ``bisect`` and ``split_sides`` take (the hypergraph partitioner
        passes its coarsest hypergraph).
    k : int
        Number of parts (any value from 1 to n).
    bisect : callable
        ``bisect(graph, fraction0, imbalance, seed) -> 0/1 int64 array``.
    imbalance : float
        Allowed imbalance of the final k-way partition.
    seed : int
        Seeds every bisection: the split of the sub-problem holding parts
        ``offset .. offset + kk - 1`` gets the stream ``derive(seed, offset, kk)``
        (:mod:`partkit._random`), whatever order the sub-problems run in.
    fractions : array_like of float, shape (k,) or (k, ncon), optional
        Target share of every part (default ``1 / k`` each), the same for
        every constraint or one column per constraint; each split then
        targets the share of the parts on its side, per constraint (a
        ``fraction0`` of shape ``(ncon,)`` for ``bisect`` when the columns
        differ).
    threads : int
        The independent sub-problems of a recursion level are bisected by
        this many Python threads when the level has at least
        :data:`PARALLEL_LEVEL_WORK` vertices plus adjacency entries
        (``bisect`` must release the GIL for this to pay, as Numba kernels
        compiled with ``nogil=True`` do). The result is the same for any
        number.
    split_sides : callable, optional
        ``split_sides(graph, side) -> ((on0, sub0), (on1, sub1))``, the
        sub-problems of the two sides (default :func:`split_graph`).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Part ids in ``[0, k)``.
    """
    part = np.zeros(graph.n, dtype=np.int64)
    split_sides = split_graph if split_sides is None else split_sides
    if fractions is None:
        bounds = max_part_weights(graph, k, imbalance).astype(np.float64)
    else:
        bounds = weight_bounds(graph.total_vertex_weight(), fractions, imbalance).astype(np.float64)
    # one share per split unless the targets differ between constraints
    per_part = fractions is None or np.ndim(fractions) == 1 or np.allclose(fractions, np.asarray(fractions)[:, :1])

    def final(task):
        """Whether a sub-problem is a set of final parts (then they are written)."""
        sub, ids, kk, offset = task
        if kk == 1 or sub.n == 0:
            part[ids] = offset
        elif sub.n <= kk:
            part[ids] = offset + np.arange(sub.n)
        return kk == 1 or sub.n <= kk

    def split(task):
        """The two halves of a bisected sub-problem."""
        sub, ids, kk, offset = task
        k0 = kk // 2
        eps = level_imbalance(sub.total_vertex_weight(), bounds[offset:offset + kk].sum(axis=0) / kk, kk)  # the mean
        if fractions is not None:  # unequal targets: the lighter side's shortfall is held to eps of its target
            shares = bounds[offset:offset + k0].sum(axis=0) / np.maximum(bounds[offset:offset + kk].sum(axis=0), 1.0)
            fraction0 = float(shares[0]) if per_part else shares
            side0 = np.atleast_1d(fraction0)
            eps *= float(np.min(np.minimum(side0, 1.0 - side0) / np.maximum(np.maximum(side0, 1.0 - side0), 1e-12)))
        else:
            fraction0 = k0 / kk
        side = np.asarray(bisect(sub, fraction0, eps, derive(seed, offset, kk)), dtype=np.int64)
        if kk == 2:  # two final parts: no subgraph needed
            return (None, ids[side == 0], 1, offset), (None, ids[side == 1], 1, offset + 1)
        (on0, sub0), (on1, sub1) = split_sides(sub, side)
        return (sub0, ids[on0], k0, offset), (sub1, ids[on1], kk - k0, offset + k0)

    level = [(graph, np.arange(graph.n, dtype=np.int64), int(k), 0)]
    with _LevelPool(threads) as pool:
        while level:
            level = [task for task in level if not final(task)]
            halves = pool.map(split, level, lambda: sum(task[0].n + task[0].adjncy.size for task in level))
            level = [half for pair in halves for half in pair]
    return part


#: Vertices plus adjacency entries of a recursion level from which its sub-problems are
#: spread over threads: below it handing them over costs more than the bisections.
PARALLEL_LEVEL_WORK = 20_000


class _LevelPool:
    """Up to ``threads`` Python threads, started on first use, whose Numba kernels run single-threaded."""

    def __init__(self, threads):
        self.threads, self.pool = threads, None

    def map(self, function, tasks, work):
        """``function`` over ``tasks``, on the threads when there are several tasks and ``work()`` is big
        enough; a lone sub-problem stays on this thread, where its kernels may use every thread."""
        if self.threads <= 1 or len(tasks) <= 1 or work() < PARALLEL_LEVEL_WORK:
            return map(function, tasks)
        if self.pool is None:
            self.pool = ThreadPoolExecutor(self.threads, initializer=single_threaded)
        return self.pool.map(function, tasks)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        if self.pool is not None:
            self.pool.shutdown()


def split_graph(graph, side):
    """The subgraphs induced by the two sides of a bisection: ``((on0, sub0), (on1, sub1))``.

    ``on0`` and ``on1`` are the vertices of each side in increasing order;
    ``sub0`` and ``sub1`` equal ``graph.subgraph(on0)`` and ``graph.subgraph(on1)``
    (vertex weights and coordinates carried over, sorted adjacency lists), built
    in one Numba pass instead of through scipy.
    """
    ids0, xadj0, adjncy0, adjwgt0, ids1, xadj1, adjncy1, adjwgt1 = split_sides(
        graph.xadj, graph.adjncy, graph.adjwgt, np.ascontiguousarray(side, dtype=np.int64))
    out = []
    for ids, xadj, adjncy, adjwgt in ((ids0, xadj0, adjncy0, adjwgt0), (ids1, xadj1, adjncy1, adjwgt1)):
        coords = None if graph.coords is None else graph.coords[ids]
        out.append((ids, Graph(xadj, adjncy, vwgt=graph.vwgt[ids], adjwgt=adjwgt, coords=coords,
                               name=graph.name, validate=False)))
    return out


def level_imbalance(total, bound, kk):
    """Per-level imbalance for a subgraph of weight ``total`` still to be cut into ``kk`` parts of (mean) bound ``bound``."""
    depth = max(1, math.ceil(math.log2(kk)))
    # Python floats over the few constraints: numpy on arrays of one or two entries cost 9 us a call
    ratios = [b * kk / t for b, t in zip(np.asarray(bound, dtype=np.float64).tolist(),
                                        np.asarray(total, dtype=np.float64).tolist()) if t > 0]
    if not ratios:
        return 0.0
    return max(0.0, min(ratios) ** (1.0 / depth) - 1.0)


def prefix_split(graph, values, need):
    """Bisect by sorting: side 0 is a prefix of the vertices ordered by ``values``.

    The prefix holds the first-constraint weight closest to ``need``; both
    the ascending and the descending order are tried and the one with the
    smaller edge cut is returned (a 0/1 int64 array).
    """
    best, best_cut = None, None
    for order in (np.argsort(values, kind="stable"), np.argsort(-np.asarray(values), kind="stable")):
        cum = np.concatenate([[0], np.cumsum(graph.vwgt[order, 0])])
        t = min(int(np.searchsorted(cum, need)), graph.n)
        if t > 0 and need - cum[t - 1] <= cum[t] - need:
            t -= 1
        part = np.ones(graph.n, dtype=np.int64)
        part[order[:t]] = 0
        cut = edge_cut(graph, part)
        if best_cut is None or cut < best_cut:
            best, best_cut = part, cut
    return best
