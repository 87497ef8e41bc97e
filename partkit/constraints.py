"""METIS's fixed vertices, contiguous parts and volume objective, as passes after any partitioner.

:func:`constrain` runs them in this order on the partition a method
returned, all within the bound ``maxw`` (k, ncon):

1. **Fixed vertices** (:func:`fix`): the method's partition of the graph,
   and its partition of the graph with the fixed vertices of each part
   merged into one vertex (:func:`contract_fixed`: the free vertices gather
   around them), both go through these passes and the caller keeps the
   better (:func:`rank`). In each, the parts are renumbered so that as
   much fixed weight as possible is already in its part (an assignment
   problem between equally bounded parts), every fixed vertex is put in its
   part, and greedy cut-improving moves of the free vertices restore the
   bound and repair the cut around them. No later pass moves a fixed
   vertex, so each ends in its part, exactly.
   Without fixed vertices, parts below a least weight (given with target
   part weights) take weight from the others along paths of parts (:func:`fill`).
2. **Volume objective** (:func:`refine_volume`): greedy moves of boundary
   vertices that lower the total communication volume (METIS
   ``objtype=vol``: the number of (vertex, other adjacent part) pairs,
   weighted by vertex size), or keep it and lower the cut, within the bound.
3. **Contiguous parts** (:func:`make_contiguous`): every piece of a part
   other than its heaviest connected piece (or its heaviest piece holding
   fixed vertices) joins the adjacent part it shares most edge weight with
   (as METIS's contiguity enforcement does; pieces with fixed vertices stay),
   and the bound is restored along paths of parts (by greedy moves of the
   free vertices when some are fixed), a few times over; last, boundary
   moves lower the cut, each made only when the vertex's neighbours in its
   part are connected among themselves, so no part falls apart again. When the graph is connected every part
   ends connected; the bound may then be exceeded, which the caller reports.

The moves are the kernels of :mod:`partkit.multilevel.kernels.constraints_moves`.
"""

from __future__ import annotations

import numpy as np

from partkit.multilevel.kernels.coarsening_contraction import contract
from partkit.multilevel.kernels.constraints_moves import greedy_moves, unload
from partkit.multilevel.kernels.objectives import CUT, VOLUME
from partkit.graph import Graph
from partkit.multilevel import objectives
from partkit.multilevel.context import preset
from partkit.multilevel.kernels.refinement_balance import balance_along_paths
from partkit.multilevel.kernels.initial_packing import component_labels
from partkit.multilevel.kernels.refinement_moves import boundary_vertices, part_weights
from partkit.multilevel.refinement import rebalance

#: Rounds of greedy moves per pass (each visits every vertex once).
MAX_ROUNDS = 20
#: Times :func:`make_contiguous` rejoins pieces and rebalances along paths of parts.
CONTIGUITY_ROUNDS = 4


def constrain(graph, part, maxw, *, fixed=None, contiguous=False, objective="cut", lower=None):
    """``part`` with the fixed vertices in their parts, refined for ``objective``, parts made contiguous.

    Parameters
    ----------
    graph : partkit.Graph
    part : int64 array, shape (n,)
    maxw : int64 array, shape (k, ncon)
    fixed : int64 array, shape (n,), optional
        The part of every fixed vertex, -1 for a free one.
    contiguous : bool
    objective : {"cut", "volume"}
    lower : int64 array, shape (k, ncon), optional
        Least weight of every part (target part weights): parts below it
        get weight along paths of parts first (see :func:`fill`).

    Returns
    -------
    int64 array
        A new array (``part`` itself when nothing is asked).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.metrics import max_part_weights
    >>> g = grid2d(4, 4)
    >>> fixed = np.full(16, -1); fixed[0] = 1
    >>> part = constrain(g, np.repeat([0, 1], 8), max_part_weights(g, 2, 0.0), fixed=fixed)
    >>> int(part[0]), np.bincount(part).tolist()
    (1, [8, 8])
    """
    movable = np.ones(graph.n, dtype=np.bool_) if fixed is None else fixed < 0
    if fixed is not None:
        part = fix(graph, part, fixed, maxw)
    elif lower is not None:
        part = fill(graph, part, lower, maxw)
    if objective == "volume":
        part = refine_volume(graph, part, maxw, movable, None if fixed is not None else lower)
    if contiguous:
        part = make_contiguous(graph, part, maxw, movable)
    return part


def rank(graph, part, maxw, objective="cut"):
    """``(over the bound, objective value)`` for an objective of :func:`partkit.partition` by name.

    The volume counts vertex sizes, as METIS does.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> g = grid2d(2, 2)
    >>> rank(g, np.array([0, 0, 1, 1]), np.array([[2], [2]]), "volume")
    (False, 4)
    """
    return objectives.BY_NAME[objective].rank(graph, part, maxw)


def _moves(graph, part, maxw, movable, objective, connected=False, minw=None):
    """Greedy moves (in place) for ``objective`` keeping parts at ``minw`` (default 0), then, unless parts
    must stay ``connected``, the last-resort unloading of overloaded parts."""
    pw = part_weights(graph.vwgt, part, maxw.shape[0])
    minw = np.zeros_like(maxw) if minw is None else minw
    greedy_moves(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, objectives.VOLUME.at(graph).data, part, pw, minw,
                 maxw, movable, objective, MAX_ROUNDS, connected)
    if not connected:
        unload(graph.vwgt, part, pw, maxw, movable)


def contract_fixed(graph, fixed):
    """``(contracted, cmap)``: ``graph`` with the fixed vertices of each part merged into one vertex.

    A partition of ``contracted`` that keeps the merged vertices apart cuts,
    once expanded (``part[cmap]``), exactly as many edges on ``graph`` as on
    ``contracted``: partitioning it puts the free vertices around the fixed
    ones. The free vertices come first in their order, then one vertex per
    part with fixed vertices, in part order (weights summed, edges merged,
    coordinates averaged).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> contracted, cmap = contract_fixed(grid2d(3, 3), np.array([0, -1, 0, -1, -1, -1, 1, -1, 1]))
    >>> contracted.n, contracted.vwgt[-2:, 0].tolist(), cmap.tolist()
    (7, [2, 2], [5, 0, 5, 1, 2, 3, 6, 4, 6])
    """
    free = fixed < 0
    nfree = int(free.sum())
    used, rank = np.unique(fixed[~free], return_inverse=True)
    cmap = np.empty(graph.n, dtype=np.int64)
    cmap[free] = np.arange(nfree)
    cmap[~free] = nfree + rank
    nc = nfree + used.size
    xadj, adjncy, adjwgt, vwgt = contract(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, cmap, nc)
    coords = None
    if graph.coords is not None:
        coords = np.zeros((nc, graph.coords.shape[1]))
        np.add.at(coords, cmap, graph.coords)
        coords /= np.bincount(cmap, minlength=nc)[:, None]
    contracted = Graph(xadj, adjncy, vwgt=vwgt, adjwgt=adjwgt, coords=coords, name=graph.name, validate=False)
    return contracted, cmap


def fix(graph, part, fixed, maxw):
    """A copy of ``part`` with every fixed vertex (``fixed >= 0``) in its part, within ``maxw`` where possible.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> g = grid2d(2, 4)
    >>> fix(g, np.array([0, 0, 0, 0, 1, 1, 1, 1]), np.array([-1, -1, -1, -1, -1, -1, -1, 0]),
    ...     np.array([[4], [4]])).tolist()  # the parts are renumbered rather than a vertex moved
    [1, 1, 1, 1, 0, 0, 0, 0]
    """
    from scipy.optimize import linear_sum_assignment
    k = maxw.shape[0]
    on = fixed >= 0
    overlap = np.zeros((k, k))
    np.add.at(overlap, (part[on], fixed[on]), graph.vwgt[on].sum(axis=1) + 1)
    same_bound = np.all(maxw[:, None, :] == maxw[None, :, :], axis=2)
    rows, cols = linear_sum_assignment(np.where(same_bound, -overlap, overlap.sum() + 1.0))
    relabel = np.empty(k, dtype=np.int64)
    relabel[rows] = cols
    part = relabel[part]
    part[on] = fixed[on]
    _moves(graph, part, maxw, ~on, CUT)
    return part


def fill(graph, part, lower, maxw):
    """A copy of ``part`` in which parts below ``lower`` (k, ncon) took weight from the others along paths of parts.

    Partitioners bound parts from above only; with unequal targets a small
    part may end well below its target, or empty (it then starts from a
    boundary vertex of the part with most weight to spare). The path balancer
    (:func:`kernels.refinement_balance.balance_along_paths`) run with
    ``lower`` as the bound moves weight from the parts above it into those
    below it, so no part gains more than ``lower`` and none loses below it;
    greedy moves within ``[lower, maxw]`` then repair the cut.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> g = grid2d(4, 4)
    >>> np.bincount(fill(g, np.array([0] * 2 + [1] * 14), np.array([[4], [12]]), np.array([[5], [13]]))).tolist()
    [4, 12]
    """
    part = np.array(part, dtype=np.int64)
    k = lower.shape[0]
    pw = part_weights(graph.vwgt, part, k)
    for p in np.flatnonzero(~pw.any(axis=1) & lower.any(axis=1)):  # an empty part grows from a boundary vertex
        donor = int(np.argmax((pw - lower).min(axis=1)))
        boundary = boundary_vertices(graph.xadj, graph.adjncy, part)
        v = boundary[part[boundary] == donor][0] if np.any(part[boundary] == donor) else np.flatnonzero(part == donor)[0]
        part[v] = p
        pw[donor] -= graph.vwgt[v]
        pw[p] += graph.vwgt[v]
    if np.any(pw < lower):
        balance_along_paths(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, pw, lower, objectives.CUT.code,
                            objectives.CUT.data, 10 * preset("default").refinement.balance_rounds)
        _moves(graph, part, maxw, np.ones(graph.n, dtype=bool), CUT, minw=lower)
    return part


def refine_volume(graph, part, maxw, movable, minw=None):
    """A copy of ``part`` refined by greedy moves for the total communication volume (parts kept at ``minw``).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.metrics import communication_volume, max_part_weights
    >>> g = grid2d(4, 4)
    >>> part = np.array([0, 0, 1, 1] * 4)  # two columns each: 8 boundary vertices, volume 8
    >>> better = refine_volume(g, part, max_part_weights(g, 2, 0.25), np.ones(16, dtype=bool))
    >>> communication_volume(g, better)[0]  # a staircase boundary
    7
    """
    part = np.array(part, dtype=np.int64)
    _moves(graph, part, maxw, movable, VOLUME, minw=minw)
    return part


def make_contiguous(graph, part, maxw, movable):
    """A copy of ``part`` whose parts are connected when the graph is (see the module notes).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.metrics import disconnected_parts
    >>> g = grid2d(4, 4)
    >>> part = np.array([0, 0, 1, 1] * 4)
    >>> part[15] = 0  # a corner of part 1 given to part 0
    >>> joined = make_contiguous(g, part, np.full((2, 1), 9), np.ones(16, dtype=bool))
    >>> disconnected_parts(g, part, 2), disconnected_parts(g, joined, 2), int(joined[15])
    (1, 0, 1)
    """
    part = np.array(part, dtype=np.int64)
    k = maxw.shape[0]
    rounds = preset("default").refinement.balance_rounds
    for _ in range(CONTIGUITY_ROUNDS):
        _join_pieces(graph, part, k, movable)
        pw = part_weights(graph.vwgt, part, k)
        if np.all(pw <= maxw):
            break
        if movable.all():
            args = (graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, pw, maxw, objectives.CUT.code,
                    objectives.CUT.data)
            rebalance(graph, part, pw, maxw, rounds, False) or balance_along_paths(*args, 10 * rounds)
        else:  # the path balancer would move fixed vertices
            _moves(graph, part, maxw, movable, CUT)
    _join_pieces(graph, part, k, movable)
    _moves(graph, part, maxw, movable, CUT, connected=True)
    return part


def _join_pieces(graph, part, k, movable):
    """Move, in place, every movable piece of a part to the adjacent part it is joined to most, until none moves."""
    src = graph.edge_sources()
    while True:
        inside = part[src] == part[graph.adjncy]
        ncomp, labels = component_labels(graph.xadj, graph.adjncy, part)
        first = np.unique(labels, return_index=True)[1]
        owner = part[first]
        weight = np.bincount(labels, weights=graph.vwgt.sum(axis=1) + 1, minlength=ncomp)
        pinned = np.zeros(ncomp, dtype=bool)
        pinned[labels[~movable]] = True
        order = np.lexsort((-weight, ~pinned, owner))  # per part: pinned pieces first, then the heaviest
        kept = np.zeros(ncomp, dtype=bool)
        kept[order[np.r_[True, owner[order][1:] != owner[order][:-1]]]] = True
        cross = (~kept[labels[src]]) & (~pinned[labels[src]]) & kept[labels[graph.adjncy]] & ~inside
        if not cross.any():
            return
        keys, joined = np.unique(labels[src[cross]] * k + part[graph.adjncy[cross]], return_inverse=True)
        strength = np.bincount(joined, weights=graph.adjwgt[cross] + 1)
        piece, target = keys // k, keys % k
        best = np.lexsort((-strength, piece))
        first_of_piece = best[np.r_[True, piece[best][1:] != piece[best][:-1]]]
        destination = np.full(ncomp, -1, dtype=np.int64)
        destination[piece[first_of_piece]] = target[first_of_piece]
        moving = destination[labels] >= 0
        part[moving] = destination[labels[moving]]
