"""Initial partitioning: k parts of the coarsest graph by recursive multilevel bisection.

Every bisection (:func:`multilevel_bisection`) is itself multilevel: the
subgraph is coarsened to about ``bisection_coarsest`` vertices, split by
the best of several breadth-first grown starts refined by 2-way FM
(:func:`best_grown_bisection`), and refined by 2-way FM
on every level back up. The first, largest splits shape the whole
partition, so a bisection gets tries in proportion to its share of the
weight, and at least ``min_tries``. ``runs`` recursive bisections are made
and refined k-way; the best (balanced first, then lowest cut) is kept.

For a mapping objective (:func:`initial_mapping`) the coarsest graph is
split along the machine's hierarchy instead, and refined by the mapping
gains.
"""

from __future__ import annotations

import numpy as np

from partkit._random import derive, integers
from partkit._threads import current_threads, run_ranges
from partkit.multilevel.coarsening import coarsen
from partkit.multilevel.kernels.initial_fm import bisection_tries, fm_refine
from partkit.multilevel.kernels.refinement_moves import edge_cut, part_weights
from partkit.multilevel.recursive import bisection_bounds, recursive_bisection
from partkit.multilevel.refinement import coarse_paths, level_bounds, refine


def initial_partition(coarsest, k, maxw, imbalance, ctx, key, *, input_heaviest, finest=False):
    """Best of ``ctx.initial.runs`` refined recursive bisections of ``coarsest``.

    Parameters
    ----------
    coarsest : partkit.Graph
    k : int
    maxw : int64 array, shape (k, ncon)
        The bound of the final partition.
    imbalance : float
        The ε of the final partition (the bisections may use
        ``ctx.initial.imbalance_share`` times it).
    ctx : partkit.multilevel.context.Context
    key : int
        Random stream; run ``r`` uses ``derive(key, r)``.
    input_heaviest : int64 array, shape (ncon,)
        The input graph's heaviest vertex weight per constraint
        (:meth:`partkit.multilevel.coarsening.Hierarchy.input_heaviest`): the
        bound of ``coarsest`` is relaxed by what its vertices weigh more
        (:func:`partkit.multilevel.refinement.level_bounds`).
    finest : bool
        Whether ``coarsest`` is the input graph itself (the balancer may move
        weight along paths of parts).

    Runs are ranked balanced first, then by cut. For k > 16 half as many
    runs are made: each costs about k bisections, and its cut varies less
    because it adds up many independent splits.
    """
    init = ctx.initial
    runs = init.runs if k <= 16 else max(1, init.runs // 2)
    total = float(coarsest.total_vertex_weight().sum())
    bounds = level_bounds(coarsest, maxw, input_heaviest)
    # unequal bounds (target part weights): every bisection splits in proportion to its parts' bounds,
    # per constraint
    fractions = None if (maxw == maxw[0]).all() else maxw / np.maximum(maxw.sum(axis=0), 1)
    # the bisections may use the relaxed bound of the level, and at least the share of ε
    average = coarsest.total_vertex_weight() / k if fractions is None else fractions * coarsest.total_vertex_weight()
    eps = max(imbalance * init.imbalance_share, float(np.max(bounds / np.maximum(average, 1))) - 1.0, init.min_imbalance)

    def bisect(sub, fraction0, eps, bkey):
        share = float(sub.total_vertex_weight().sum()) / total if total > 0 else 1.0
        tries = max(init.min_tries, round(init.tries * share))
        return multilevel_bisection(sub, fraction0, eps, bkey, ctx.coarsening, init, tries)

    best, best_key = None, None
    for run in range(runs):
        run_key = derive(key, run)
        part = recursive_bisection(coarsest, k, bisect, imbalance=eps, seed=run_key, fractions=fractions,
                                   threads=current_threads())
        refine(coarsest, part, bounds, ctx.refinement, derive(run_key, "refine"),
               paths=finest or coarse_paths(bounds, maxw))
        if runs == 1:
            return part
        rank = (bool(np.any(part_weights(coarsest.vwgt, part, k) > bounds)),
                edge_cut(coarsest.xadj, coarsest.adjncy, coarsest.adjwgt, part))
        if best_key is None or rank < best_key:
            best, best_key = part, rank
    return best


def initial_mapping(coarsest, k, maxw, imbalance, ctx, key, objective, *, input_heaviest, finest=False):
    """The best initial partition of ``coarsest`` for a mapping ``objective``.

    The candidates are the cut's initial partition (:func:`initial_partition`,
    the same as without ``objective``) with its parts placed by
    :func:`partkit.mapping.place` and, on a hierarchy, ``ctx.initial.runs``
    splits along it (half as many for k > 16), outermost level first
    (:func:`partkit.mapping.multisection`: part ``i`` lands on PE ``i``
    with the heavy communication on short distances); each is refined for
    ``objective``, and the best, balanced first, then by the objective, is
    kept (on a 32 x 32 grid, 16 parts on 4:4 with distances 1:10, the
    k-way partition wins: J 768 against 888 to 962). Parameters as
    :func:`initial_partition`.
    """
    from partkit.mapping import multisection, place

    machine = objective.machine
    runs = ctx.initial.runs if k <= 16 else max(1, ctx.initial.runs // 2)
    bounds = level_bounds(coarsest, maxw, input_heaviest)
    average = coarsest.total_vertex_weight() / k
    eps = max(imbalance, float(np.max(bounds / np.maximum(average, 1))) - 1.0)
    kway = initial_partition(coarsest, k, maxw, imbalance, ctx, key, input_heaviest=input_heaviest, finest=finest)
    candidates = [place(coarsest, kway, machine, seed=key)[kway]]
    if len(machine.hierarchy) > 1:
        candidates += [multisection(coarsest, machine.hierarchy, eps, derive(key, "split", run)) for run in range(runs)]
    best, best_key = None, None
    for index, part in enumerate(candidates):
        if part is None:
            continue
        refine(coarsest, part, bounds, ctx.refinement, derive(key, "refine", index),
               paths=finest or coarse_paths(bounds, maxw), objective=objective)
        rank = objective.rank(coarsest, part, bounds)
        if best_key is None or rank < best_key:
            best, best_key = part, rank
    return best


#: Tries times (m + n) from which the tries of a bisection are spread over threads:
#: below it starting a thread costs more than it saves.
PARALLEL_TRIES_WORK = 100_000


def best_grown_bisection(graph, maxw, target0, starts, key, npasses, max_bad):
    """The first of the grown and FM-refined bisections of :func:`kernels.initial_fm.bisection_tries`
    (one per start) with the least overweight, then the lowest cut.

    The tries are spread over the thread count in effect in the calling
    thread (one inside the pool of :func:`partkit.multilevel.recursive.recursive_bisection`)
    when they are big enough; the result does not depend on it.
    """
    ntries = starts.size
    parts = np.ones((ntries, graph.n), dtype=np.int64)
    ows = np.zeros(ntries, dtype=np.int64)
    cuts = np.zeros(ntries, dtype=np.int64)
    args = (graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, maxw, target0, starts, key, npasses, max_bad, 0.0,
            parts, ows, cuts, True)
    big = ntries * (graph.adjncy.size + graph.n) >= PARALLEL_TRIES_WORK
    run_ranges(bisection_tries, args, ntries, current_threads() if big else 1)
    return parts[np.lexsort((cuts, ows))[0]]


def multilevel_bisection(graph, fraction0, imbalance, key, coarsening, init, tries):
    """A multilevel bisection putting about ``fraction0`` of the weight on side 0.

    Parameters
    ----------
    graph : partkit.Graph
    fraction0 : float or float array, shape (ncon,)
        Target share of side 0, one or one per constraint (see
        :func:`partkit.multilevel.recursive.bisection_bounds`).
    imbalance : float
        Allowed imbalance.
    key : int
        Random stream.
    coarsening : partkit.multilevel.context.CoarseningContext
    init : partkit.multilevel.context.InitialContext
    tries : int
        Grown starts on the coarsest graph.

    Returns
    -------
    int64 array of 0/1

    Notes
    -----
    The coarse levels of the bisection use the relaxed bound of
    :func:`partkit.multilevel.refinement.level_bounds` (a side may weigh
    its perfect share plus the heaviest vertex of the level, less one:
    the bisected graph is itself a coarse level, whose heavy vertices the
    bisection's levels must move); only the input level is held to the
    exact bound. Coarse vertices weigh up to ``1.5 / bisection_coarsest`` of the
    total, more than a deep bisection's share of ε: an exact bound there
    leaves the grown starts overweight and their FM passes spend their
    moves on balance instead of the cut.
    """
    hierarchy = coarsen(graph, coarsening, init.bisection_coarsest, derive(key, "coarsen"))
    maxw = bisection_bounds(graph.total_vertex_weight(), fraction0, imbalance)
    coarse = hierarchy.coarsest
    target = int(round(float(np.ravel(fraction0)[0]) * int(coarse.total_vertex_weight()[0])))  # grown on constraint 0
    starts = integers(derive(key, "starts"), coarse.n, tries)
    unit = np.ones(graph.vwgt.shape[1], dtype=np.int64)  # coarse levels: room for the heaviest vertex, less one
    part = best_grown_bisection(coarse, level_bounds(coarse, maxw, unit) if len(hierarchy) else maxw, target, starts,
                                derive(key, "tries"), init.start_fm_passes, max(init.min_bad_moves, coarse.n // 4))
    for depth in range(len(hierarchy) - 1, -1, -1):
        fine, cmap = hierarchy.levels[depth]
        part = part[cmap]
        bounds = level_bounds(fine, maxw, unit) if depth else maxw
        fm_refine(fine.xadj, fine.adjncy, fine.adjwgt, fine.vwgt, part, bounds, init.level_fm_passes,
                  max(init.min_bad_moves, fine.n // 50), derive(key, "level", depth))
    return part
