"""Refinement: improve the partition on every level on the way up.

On each level the partition is projected from the coarser graph and the
algorithms of :attr:`RefinementContext.algorithms` run in order:

``balance``
    restore the bound: direct moves into adjacent parts with room
    (:func:`rebalance`), then moves along paths
    of adjacent parts (:func:`kernels.refinement_balance.balance_along_paths`),
    and moves to non-adjacent parts only as a last resort; with several
    constraints, then trades between parts full on different constraints;
``lp``
    boundary label propagation (:func:`kernels.label_propagation.parallel_label_propagation_refine`);
``fm``
    k-way FM with a max-gain queue and rollback to the best prefix
    (:func:`kway_fm`: the candidates of a pass are rated in parallel, then
    moved by one sequential kernel); for k = 2, 2-way FM with bucket
    queues (:func:`kernels.initial_fm.fm_refine`);
``flow``
    the cheapest split of every two adjacent parts in a corridor around
    their boundary, by a maximum flow
    (:func:`kernels.refinement_flow.flow_refine`; every objective but the
    volume), on levels of at least ``flow_level`` vertices.

For k = 2 the list is :attr:`RefinementContext.bisection_algorithms`.

No ``lp``, ``fm`` or ``flow`` move breaks the bound. On coarse levels a part may
weigh its perfect share plus what the level's heaviest vertex weighs more than
the input's (less one for unit weights, as KaMinPar does) when that exceeds
the bound: a coarse vertex weighs many fine ones, and an exact bound there
would block the moves that the finer levels can still balance. Room beyond
that, as for the input's own heavy vertices, or beyond ε where ε leaves room
for the heaviest vertex, lets the coarse levels overfill parts that the finest
level must then empty at a high cost in cut (measurements in
``docs/history/tuning.md``).
"""

from __future__ import annotations

import numpy as np

from partkit._heap import new_heap
from partkit._random import derive, permutation
from partkit._threads import current_threads, for_work, run_calls
from partkit.multilevel.kernels.initial_fm import fm_refine
from partkit.multilevel.kernels.refinement_balance import (apply_balance_moves, balance_along_paths,
                                                          parallel_rate_for_balance, trade_for_balance)
from partkit.multilevel.kernels.refinement_fm import fm_pass, parallel_rate_candidates
from partkit.multilevel.kernels.refinement_flow import flow_refine
from partkit.multilevel.kernels.label_propagation import parallel_label_propagation_refine
from partkit.multilevel.kernels.refinement_moves import (boundary_after_moves, parallel_boundary_vertices,
                                                         part_weights, relaxed_bounds)
from partkit.multilevel.kernels.objectives import MIGRATION, VOLUME
from partkit.multilevel.objectives import CUT


def level_bounds(graph, maxw, input_heaviest):
    """The bound used on a level: ``maxw``, or at least the perfect share plus what the level's heaviest vertex
    weighs more than the input's.

    The perfect share of a part is its bound scaled to the level's total
    weight, ``maxw * total / maxw.sum(axis=0)``. ``input_heaviest`` (per
    constraint, :meth:`partkit.multilevel.coarsening.Hierarchy.input_heaviest`)
    is the heaviest vertex of the level that must meet ``maxw``: a coarse
    level gets room only for the weight its clusters add, so the input's
    own heavy vertices (weighted meshes, particle counts) are balanced on
    the coarse levels too, not left as overweight for the input level,
    whose balancer would pay for it in cut. On the input level itself the
    bound is ``maxw``.

    Examples
    --------
    >>> import numpy as np
    >>> from partkit.graph import Graph
    >>> g = Graph(np.array([0, 1, 2]), np.array([1, 0]), np.array([[30], [70]]))
    >>> level_bounds(g, np.array([[52], [52]]), np.array([1])).ravel().tolist()  # 50 + 69
    [119, 119]
    >>> level_bounds(g, np.array([[52], [52]]), np.array([70])).ravel().tolist()  # the input level
    [52, 52]
    """
    if graph.n == 0:
        return maxw
    return relaxed_bounds(graph.vwgt, maxw, np.asarray(input_heaviest, dtype=np.int64))


def coarse_paths(bounds, maxw):
    """Whether the balancer of a coarse level with ``bounds`` may move weight along paths of parts.

    Only where the level's bound is relaxed beyond the final ``maxw`` (ε
    tight against the coarse vertex weights): finer levels have tighter
    bounds there, so weight left in excess would grow. Where the level's
    bound is already the final one, the finer levels keep it and have
    lighter vertices, which adjacent moves place more easily; the paths
    are then rarely needed, and a first call skips the compilation of
    their kernels. Skipping them on every coarse level would cost cut.

    Examples
    --------
    >>> import numpy as np
    >>> coarse_paths(np.array([[119], [119]]), np.array([[52], [52]]))
    True
    >>> coarse_paths(np.array([[52], [52]]), np.array([[52], [52]]))
    False
    """
    return bool((bounds > maxw).any())


def refine(graph, part, maxw, ctx, key, candidates=None, paths=True, objective=CUT, boundary=False):
    """Run the refinement algorithms of ``ctx`` on ``part`` in place, for ``objective``.

    Parameters
    ----------
    graph : partkit.Graph
    part : int64 array
    maxw : int64 array, shape (k, ncon)
        The bound of every part.
    ctx : partkit.multilevel.context.RefinementContext
    key : int
        Random stream of the visiting orders.
    candidates : int64 array, optional
        Must include every boundary vertex (default: the boundary vertices);
        label propagation and FM start from them.
    paths : bool
        Whether the balancer may move weight along paths of parts (see
        :func:`balance` and :func:`coarse_paths`).
    objective : partkit.multilevel.objectives.Objective
        What the moves lower (default the cut). 2-way FM (k = 2) lowers
        the cut, which is every objective's on two parts up to a factor but
        the migration's: that one gets k-way FM.
    boundary : bool
        Return the boundary vertices of the refined partition (in
        increasing order), found near the moves of label propagation and
        k-way FM (:func:`kernels.refinement_moves.boundary_after_moves`);
        None when the balancer, flows or 2-way FM changed the partition
        after them (or ``boundary`` is False): :func:`uncoarsen` projects
        the boundary to the next level instead of scanning this one again.
    """
    with for_work(graph.n + graph.adjncy.size):
        return _refine(graph, part, maxw, ctx, key, candidates, paths, objective, boundary)


def _refine(graph, part, maxw, ctx, key, candidates, paths, objective, boundary):
    objective = objective.at(graph)
    k = maxw.shape[0]
    g = graph
    pw = part_weights(g.vwgt, part, k)
    # the candidates hold every boundary vertex of ``listed``, the partition when they were listed: the boundary
    # after later moves is found near them (boundary_after_moves), for grouped FM and for ``boundary``
    keep = boundary or fm_groups(ctx, g.n, k, objective) > 1
    listed = part.copy() if keep and candidates is not None else None
    moved = False  # whether label propagation moved vertices since the candidates were listed
    for name in _algorithms(ctx, k):
        if name == "balance":
            if (pw > maxw).any():
                balance(g, part, pw, maxw, ctx, paths, objective)
                candidates = None
            continue
        if name == "flow":  # the cheapest splits of adjacent parts in corridors around their boundaries
            if objective.code != VOLUME and g.n >= ctx.flow_level:
                found = parallel_boundary_vertices(g.xadj, g.adjncy, part)
                if flow_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, found, ctx.flow_rounds,
                               ctx.flow_share, fm_degree_limit(g.xadj, ctx), objective.code, objective.data):
                    candidates = None
            continue
        if name == "fm" and k == 2 and objective.code != MIGRATION:  # 2-way FM lowers the cut, not the migration
            fm_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, ctx.bisection_fm_passes,
                      max(50, int(ctx.bisection_bad_share * g.n)), derive(key, name), ctx.bisection_stop_alpha)
            pw[:] = part_weights(g.vwgt, part, k)
            candidates = None
            continue
        groups = fm_groups(ctx, g.n, k, objective) if name == "fm" else 1
        if candidates is None:
            candidates = parallel_boundary_vertices(g.xadj, g.adjncy, part)
            listed, moved = (part.copy() if keep else None), False
        elif groups > 1 and moved:
            # grouped FM must lock every vertex with a neighbour in another group, all of them candidates, and
            # label propagation's moves make new boundary vertices: found near its moves
            candidates = boundary_after_moves(g.xadj, g.adjncy, part, listed, candidates)
            listed, moved = part.copy(), False
        shuffle = permutation(candidates.size, derive(key, name))
        if name == "lp":
            parallel_label_propagation_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, objective.code,
                                              objective.data, candidates[shuffle], ctx.lp_rounds, ctx.lp_batches)
            moved = True
        elif name == "fm":
            max_bad = max(50, min(ctx.fm_max_bad, int(ctx.fm_bad_share * g.n)))
            npasses = ctx.fm_passes if not ctx.fm_large_level or g.n < ctx.fm_large_level else ctx.fm_large_passes
            kway_fm(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, candidates, npasses, max_bad,
                    fm_degree_limit(g.xadj, ctx), shuffle, objective, groups, ctx.fm_local_bad, ctx.fm_seed_loss,
                    ctx.fm_stop_alpha)
    if not boundary or candidates is None:
        return None
    return boundary_after_moves(g.xadj, g.adjncy, part, listed, candidates)


def _algorithms(ctx, k):
    """The refinement algorithms of a level with ``k`` parts (a bisection has a list of its own)."""
    return ctx.bisection_algorithms if k == 2 else ctx.algorithms


def _starts_from_boundary(ctx, k):
    """Whether an algorithm of the level starts from the boundary vertices (label propagation, k-way FM);
    the balancer and 2-way FM find the vertices they move themselves."""
    return any(name == "lp" or (name == "fm" and k > 2) for name in _algorithms(ctx, k))


def kway_fm(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, candidates, npasses, max_bad, degree_limit, shuffle=None,
            objective=CUT, groups=1, local_bad=0, seed_loss=0.0, stop_alpha=0.0):
    """Refine ``part`` in place by k-way FM passes for ``objective``; returns its total reduction.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
    vwgt : int64 array, shape (n, ncon)
    part : int64 array, shape (n,)
        Partition, modified in place.
    pw : int64 array, shape (k, ncon)
        Current part weights, kept up to date.
    maxw : int64 array, shape (k, ncon)
        Bound on every part; only moves that respect it are made, so a
        balanced partition stays balanced.
    candidates : int64 array
        Distinct vertices queued in the first pass, in the order
        ``candidates[shuffle]`` (the shuffled boundary vertices; the order
        breaks ties between equal gains). Later passes queue the boundary
        vertices of their starting partition.
    npasses : int
        Maximum number of passes.
    max_bad : int
        A pass stops after this many moves without a new best cut.
    local_bad : int
        With more than 0, a pass is localized: one search from each
        candidate in turn, stopped after this many moves without a new best
        of its own (:func:`kernels.refinement_fm.fm_pass`); ``max_bad`` is
        then unused.
    seed_loss : float
        A localized search starts only from a candidate whose best move
        loses at most this share of its weighted degree.
    stop_alpha : float
        With more than 0, a localized search also stops by the adaptive
        rule (:func:`kernels.stop_rule.adaptive_stop`) with this ``alpha``.
    degree_limit : int
        Vertices with more edges than this (the hubs of a power-law graph)
        are left where they are: rating them after every move of a
        neighbour would cost O(deg * max deg) per move. Label propagation
        still moves them.
    shuffle : int64 array, optional
        Order of the first pass's candidates (default: as given). The
        candidates are rated in their given (increasing) order, which
        reads the graph far faster, and the ratings then shuffled.
    objective : partkit.multilevel.objectives.Objective
        What the moves lower (default the cut).
    groups : int
        With more than one (the cut only), every pass is ``groups``
        independent passes, one per group of consecutive parts, which
        leave the vertices with a neighbour in another group where they
        are (:func:`kernels.refinement_fm.parallel_rate_candidates` finds
        them among the candidates, which must then include every boundary
        vertex); they run at once on the threads in effect, with the same
        result for any number. A pass from those vertices between the
        groups follows.

    The rating of the candidates that starts a pass, the boundary scan of
    later passes and the groups' passes run on several threads; the moves
    of a pass are sequential and the groups share nothing they write, so
    the result does not depend on the thread count.

    A pass also stops once re-rating neighbours has visited more than
    twice the graph's edges (dense coarse graphs of power-law inputs would
    otherwise cost O(m * average degree) per pass).
    """
    n, k = xadj.size - 1, maxw.shape[0]
    groups = groups if objective.code == CUT.code else 1
    locked = np.zeros(n, dtype=np.bool_)
    # the work arrays of each group's pass: heap, moves, connection scratch
    work = [(*new_heap(n), locked, np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64),
             np.full(k, -1, dtype=np.int64), np.empty(k, dtype=np.int64)) for _ in range(groups)]
    total = 0
    for npass in range(npasses):
        if npass > 0:
            candidates = parallel_boundary_vertices(xadj, adjncy, part)
        # rated (and grouped) in the given (increasing) order: the graph reads far faster
        targets, gains, group = parallel_rate_candidates(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective.code,
                                                         objective.data, candidates, degree_limit, groups, locked)
        if npass == 0 and shuffle is not None:
            candidates, targets, gains = candidates[shuffle], targets[shuffle], gains[shuffle]
            group = None if group is None else group[shuffle]
        common = (xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective.code, objective.data)
        search = (max_bad, degree_limit, local_bad, seed_loss, stop_alpha)  # how each search stops
        if groups == 1:
            calls = [(*common, candidates, targets, gains, *search, *work[0])]
        else:
            calls = [(*common, candidates[mine], targets[mine], gains[mine], *search, *work[g])
                     for g, mine in enumerate(group == g for g in range(groups))]
        if current_threads() > 1:
            bests = run_calls(fm_pass, calls)
        else:
            bests = [fm_pass(*call) for call in calls]
        if groups > 1:  # then one pass from the vertices between the groups, on this thread
            locked[:] = False
            seam = candidates[group < 0]
            targets, gains, _ = parallel_rate_candidates(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective.code,
                                                         objective.data, seam, degree_limit)
            bests.append(fm_pass(*common, seam, targets, gains, *search, *work[0]))
        best = sum(bests)
        total += best
        if best <= 0:
            break
    return total


def fm_groups(ctx, n, k, objective=CUT):
    """The groups of parts whose k-way FM passes run at once on a level of ``n`` vertices (see
    :class:`RefinementContext`): ``ctx.fm_groups`` on levels of at least ``ctx.fm_group_level`` vertices
    with at least ``ctx.fm_group_parts`` parts a group, for the cut; else 1."""
    if objective.code != CUT.code or n < ctx.fm_group_level or k < ctx.fm_groups * ctx.fm_group_parts:
        return 1
    return ctx.fm_groups


def fm_degree_limit(xadj, ctx):
    """The degree above which k-way FM leaves a vertex alone (see :class:`RefinementContext`)."""
    n = max(xadj.size - 1, 1)
    return max(ctx.fm_degree_min, int(ctx.fm_degree_factor * int(xadj[-1]) / n))


def balance(graph, part, pw, maxw, ctx, paths=True, objective=CUT):
    """Restore the bound in place: adjacent moves, then paths of parts, then any part with room, then (with
    several constraints) trades of vertices between adjacent parts; the moves cost as little of ``objective``
    as they can.

    Without ``paths`` only the adjacent moves are made (see
    :func:`coarse_paths`).

    Returns
    -------
    bool
        True when every part meets ``maxw``.
    """
    g = graph
    objective = objective.at(g)
    if rebalance(g, part, pw, maxw, ctx.balance_rounds, False, objective) or not paths:
        return not (pw > maxw).any()
    return (balance_along_paths(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, objective.code, objective.data,
                                10 * ctx.balance_rounds)
            or rebalance(g, part, pw, maxw, ctx.balance_rounds, True, objective)
            or (g.ncon > 1 and trade_for_balance(g.xadj, g.adjncy, g.vwgt, part, pw, maxw, 10 * ctx.balance_rounds)))


def rebalance(g, part, pw, maxw, rounds, far, objective=CUT):
    """Move vertices out of overloaded parts until every part meets ``maxw``, in place; True when it does.

    Each round rates every vertex that may move by the change of ``objective`` (default the cut) of its
    best move to an adjacent part with room (with ``far``, when there is
    none, to the part with the most room anywhere, which costs cut), in
    parallel, and makes the moves best-first while the source is still
    overloaded and the target still has room. Without ``far`` only the
    boundary can move: the rounds rate a list of the boundary vertices and
    the neighbours of every vertex moved, not the whole graph. Gives up
    after ``rounds`` rounds or a round without a move.
    """
    first = np.arange(g.n) if far else parallel_boundary_vertices(g.xadj, g.adjncy, part)
    vertices, listed, nv = _balance_candidates(g.n, first)
    cand_to = np.empty(g.n, dtype=np.int64)
    key = np.empty(g.n, dtype=np.int64)
    items, keys, pos, size = new_heap(g.n)
    for _ in range(rounds):
        if not (pw > maxw).any():
            return True
        parallel_rate_for_balance(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, objective.code, objective.data,
                                  far, vertices[:nv], cand_to, key)
        moved, nv = apply_balance_moves(g.xadj, g.adjncy, g.vwgt, part, pw, maxw, cand_to, key, vertices, nv, listed,
                                        items, keys, pos, size)
        if moved <= 0:
            return False
    return not (pw > maxw).any()


def _balance_candidates(n, first):
    """The vertices :func:`rebalance` rates, to start with ``first``: ``(vertices, listed, nv)``, a list
    ``vertices[:nv]`` with room for all ``n`` vertices and ``listed[v]`` true for those in it."""
    vertices = np.empty(n, dtype=np.int64)
    vertices[:first.size] = first
    listed = np.zeros(n, dtype=np.bool_)
    listed[first] = True
    return vertices, listed, first.size


def even_out(graph, part, k, ctx, objective=CUT):
    """Raise every part to at least ``floor(total / k)`` where the weights allow, in place.

    With ε = 0 the bound ``ceil(total / k)`` alone lets a part fall below
    ``floor(total / k)``; moving weight from the parts above the floor
    along paths of parts into those below it leaves every part at the
    floor or the ceiling when the vertices have unit weights.
    """
    g = graph
    floor = g.total_vertex_weight() // k
    pw = part_weights(g.vwgt, part, k)
    if (pw >= floor).all():
        return
    balance_along_paths(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, np.tile(floor, (k, 1)), objective.code,
                        objective.data, 10 * ctx.balance_rounds)


def uncoarsen(hierarchy, part, maxw, ctx, key, say=None, objective=CUT):
    """Project ``part`` from the coarsest graph of ``hierarchy`` and refine it for ``objective`` on every finer
    level."""
    coarse = hierarchy.coarsest
    heaviest = hierarchy.input_heaviest()
    from_boundary = _starts_from_boundary(ctx, maxw.shape[0])
    boundary = None  # the boundary of ``coarse``, when its refinement found it
    for depth in range(len(hierarchy) - 1, -1, -1):
        fine, cmap = hierarchy.levels[depth]
        if say is not None:
            say(f"refining level {depth}: {fine.n} vertices")
        candidates = None
        if from_boundary:  # a fine boundary vertex belongs to a coarse boundary vertex: no scan of the fine graph
            if boundary is None:
                with for_work(coarse.n + coarse.adjncy.size):
                    boundary = parallel_boundary_vertices(coarse.xadj, coarse.adjncy, part)
            on_boundary = np.zeros(coarse.n, dtype=bool)
            on_boundary[boundary] = True
            candidates = np.flatnonzero(on_boundary[cmap])
        part = part[cmap]
        bounds = level_bounds(fine, maxw, heaviest) if depth else maxw  # the input: its own heaviest, so maxw
        boundary = refine(fine, part, bounds, ctx, derive(key, depth), candidates,
                          paths=depth == 0 or coarse_paths(bounds, maxw), objective=objective,
                          boundary=from_boundary and depth > 0)
        coarse = fine
    return part
