"""The multilevel k-way engine (partkit's default partitioner), in stages.

=================  ====================================  ===========================
stage              module                                context
=================  ====================================  ===========================
components         :mod:`partkit.multilevel.components`  (none: exact packing)
coarsening         :mod:`partkit.multilevel.coarsening`  :class:`CoarseningContext`
initial partition  :mod:`partkit.multilevel.initial`     :class:`InitialContext`
refinement         :mod:`partkit.multilevel.refinement`  :class:`RefinementContext`
=================  ====================================  ===========================

1. A disconnected graph whose components pack into the parts within the
   bound is partitioned with no cut edge; otherwise only its big
   components are partitioned and the small ones fill the parts around them.
2. **Coarsening** builds a hierarchy by heavy-edge matching or
   size-constrained label-propagation clustering (chosen by the degree
   skew and the share of closed triangles), down to about
   ``coarse_per_part * k`` vertices; a graph with skewed degrees is not
   coarsened here (``bisect_skewed``).
3. **Initial partitioning** cuts the coarsest graph into k parts by
   recursive multilevel bisection (each bisection with its own hierarchy).
4. **Refinement** projects the partition level by level and runs the
   context's algorithms on each: balancing (along paths of parts when
   needed), label propagation, k-way FM.
5. The ``strong`` preset adds independent runs and V-cycles (coarsening
   again within the parts of the best partition, refining back up).

Refinement lowers an objective (:mod:`partkit.multilevel.objectives`): the
edge cut, or with ``topology`` the mapping cost on a machine, for which, on
a hierarchy, a split of the input graph along it replaces the runs
(:func:`partkit.mapping.hierarchical_start`; on other machines the initial
partition is :func:`partkit.multilevel.initial.initial_mapping`), every
level is refined by the mapping gains, and the parts' PEs are improved by
swaps at the end (:func:`partkit.mapping.place`).

The kernels of every stage live in :mod:`partkit.multilevel.kernels`, named
after their stage. All randomness descends from ``seed`` through
:mod:`partkit._random`. Presets are data (:mod:`partkit.multilevel.context`).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from partkit._random import derive
from partkit._threads import using_threads
from partkit.errors import InputError
from partkit.metrics import max_part_weights, weight_bounds
from partkit.multilevel import compile_ahead
from partkit.multilevel import context as _context
from partkit.multilevel.coarsening import coarsen, skewed_degrees, uses_clustering
from partkit.multilevel.components import partition_by_components
from partkit.multilevel.context import (COARSENINGS, PRESETS, CoarseningContext, Context, InitialContext,
                                        RefinementContext, preset)
from partkit.multilevel.initial import initial_mapping, initial_partition
from partkit.multilevel.kernels.initial_packing import EVERY_EDGE, component_labels
from partkit.multilevel.kernels.refinement_moves import fill_empty_parts, part_weights
from partkit.multilevel.objectives import CUT, mapping
from partkit.multilevel.refinement import balance, even_out, refine, uncoarsen

__all__ = ["partition", "run", "preset", "Context", "CoarseningContext", "InitialContext", "RefinementContext",
           "PRESETS", "COARSENINGS"]


def partition(graph, k, *, imbalance=0.03, seed=0, preset="default", coarsening="auto", progress=None,
              tpwgts=None, ubvec=None, threads=0, topology=None):
    """Partition ``graph`` into ``k`` parts with the multilevel k-way engine.

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float, default 0.03
        Allowed imbalance ε; the final partition respects
        :func:`partkit.metrics.max_part_weights` whenever the balancer can
        reach it (always for unit weights, ε = 0 included).
    seed : int, default 0
        Same seed, same partition.
    preset : {"fast", "default", "strong"}
        Time/quality trade-off (see :mod:`partkit.multilevel.context`).
    coarsening : {"auto", "matching", "clustering"}, default "auto"
        The coarsening algorithm: ``auto`` clusters graphs with skewed
        degrees (power-law graphs) or strongly overlapping neighbourhoods
        (random geometric graphs) and matches the others.
    progress : callable or None
        Called with short phase descriptions such as
        ``"coarsening level 5: 12034 vertices"``.
    tpwgts : float array, shape (k,) or (k, ncon), optional
        Target share of every part (per constraint), each column summing
        to 1; default ``1 / k`` each. The initial bisections split in
        these proportions and every part is held to ``weight_bounds``.
    ubvec : float array, shape (ncon,), optional
        Allowed imbalance per constraint as in METIS (``1.05``: 5 %);
        replaces ``imbalance``.
    threads : int, default 0
        Threads of the parallel kernels (coarsening, contraction,
        refinement); 0 means every core this process may use
        (:func:`partkit._threads.resolve_threads`). Levels with fewer than
        :data:`partkit._threads.PARALLEL_MIN_WORK` vertices plus adjacency
        entries run on one thread (starting threads would cost more than
        it saves). The partition does not depend on it: the same seed
        gives the same partition for any thread count.
    topology : partkit.machine.Machine, optional
        Partition for this machine (``machine.k`` must be ``k``): part
        ``i`` runs on PE ``i`` and the engine lowers the mapping cost
        :func:`partkit.mapping.mapping_cost` instead of the cut.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.metrics import edge_cut
    >>> g = grid2d(20, 20)
    >>> part = partition(g, 4, imbalance=0.0, seed=1)
    >>> sorted(np.bincount(part).tolist()), edge_cut(g, part) <= 50  # the optimum is 40
    ([100, 100, 100, 100], True)
    """
    ctx = _context.preset(preset, coarsening=coarsening)
    objective = CUT
    if topology is not None:
        if topology.k != int(k):
            raise InputError(f"machine {topology.name} has {topology.k} processing elements for k={k} parts")
        objective = mapping(topology)
        ctx = replace(ctx, vcycles=max(ctx.vcycles, ctx.mapping_vcycles))
    if tpwgts is None and ubvec is None:
        maxw, eps = max_part_weights(graph, int(k), imbalance), imbalance
    else:
        eps = imbalance if ubvec is None else np.asarray(ubvec, dtype=np.float64) - 1.0
        fractions = np.full(int(k), 1.0 / int(k)) if tpwgts is None else tpwgts
        maxw, eps = weight_bounds(graph.total_vertex_weight(), fractions, eps), float(np.min(eps))
    compile_ahead.start(int(k), graph.n, ctx)  # a first run: a helper compiles the refinement meanwhile
    with using_threads(threads):
        return run(graph, int(k), maxw, eps, ctx, seed, progress, objective)


def run(graph, k, maxw, imbalance, ctx, seed, say=None, objective=CUT):
    """The engine on an explicit bound ``maxw`` (k, ncon) and :class:`Context` ``ctx``, lowering ``objective``
    (:mod:`partkit.multilevel.objectives`).

    An ``imbalance`` below ``ctx.working_imbalance`` is worked to at that
    one (:func:`working_bounds`), and ``maxw`` is restored on the input
    graph at the end by the refinement at ``maxw``; with ``imbalance`` 0 and
    equal bounds the parts are then evened out to ``floor`` or ``ceil`` of
    the average (:func:`partkit.multilevel.refinement.even_out`). For a
    mapping objective the parts' PEs are then improved by swaps
    (:func:`partkit.mapping.place`; with equal bounds, which a permutation
    of the parts keeps).
    """
    if k == 1 or graph.n == 0:
        return np.zeros(graph.n, dtype=np.int64)
    working = max(imbalance, ctx.working_imbalance)
    loose = working_bounds(graph, maxw, working) if working > imbalance else maxw
    part = _run(graph, k, loose, working, ctx, seed, say, objective)
    if loose is not maxw and (part_weights(graph.vwgt, part, k) > maxw).any():
        refine(graph, part, maxw, ctx.refinement, derive(seed, "final"), objective=objective)  # the final bound
    if imbalance == 0 and (maxw == maxw[0]).all():
        even_out(graph, part, k, ctx.refinement, objective)
    if objective.machine is not None and (maxw == maxw[0]).all():
        from partkit.mapping import place

        part = place(graph, part, objective.machine, seed=seed)[part]
    return part


def working_bounds(graph, maxw, imbalance):
    """``maxw`` raised to the bound of ``imbalance`` (:func:`partkit.metrics.weight_bounds`) for parts
    whose shares of the total weight are those of ``maxw``.

    Examples
    --------
    >>> import numpy as np
    >>> from partkit.generators import grid2d
    >>> working_bounds(grid2d(10, 100), np.array([[500], [500]]), 0.003).ravel().tolist()
    [501, 501]
    """
    shares = maxw / np.maximum(maxw.sum(axis=0), 1)
    return np.maximum(maxw, weight_bounds(graph.total_vertex_weight(), shares, imbalance))


def _run(graph, k, maxw, imbalance, ctx, seed, say, objective):
    """The engine on ``maxw`` and ``imbalance``: components first when the input is disconnected, else the
    runs and V-cycles of the context.

    Unless the input has isolated vertices (then it is disconnected for
    sure and its components are searched first), the first run's hierarchy
    is built before anything else: its coarsest graph is connected exactly
    when the input is (coarsening merges only along edges, and isolated
    vertices with each other), so only a disconnected input pays for a
    search of the fine graph. No part is left empty while a vertex can move
    to it within the bound.
    """
    isolated = graph.has_isolated_vertices()
    hierarchy = None if isolated else _hierarchy(graph, maxw, imbalance, ctx, derive(seed, "run", 0), say)
    part = None
    if isolated or component_labels(hierarchy.coarsest.xadj, hierarchy.coarsest.adjncy, EVERY_EDGE)[0] > 1:
        ncomp, labels = component_labels(graph.xadj, graph.adjncy, EVERY_EDGE)
        part = partition_by_components(
            graph, maxw, labels, ncomp,
            lambda core, core_ids, core_imbalance: _best_of_runs(
                core, k, maxw, core_imbalance, ctx, seed, say, objective,
                None if hierarchy is None else hierarchy.restricted(core_ids)), imbalance)
    if part is None:
        part = _best_of_runs(graph, k, maxw, imbalance, ctx, seed, say, objective, hierarchy)
    else:
        pw = part_weights(graph.vwgt, part, k)
        if np.any(pw > maxw):  # small components that fitted nowhere around the core
            balance(graph, part, pw, maxw, ctx.refinement, objective=objective)
    if np.bincount(part, minlength=k).min() == 0:  # rare: the kernel compiles only for the runs that need it
        fill_empty_parts(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, maxw)
    return part


def _hierarchy(graph, maxw, imbalance, ctx, key, say, group=None):
    """The coarsening of one run (stream ``key``) down to ``max(coarse_per_part * k, coarsest_min)`` vertices
    (at least ``min(matched_coarsest, matched_coarsest_share * n)`` when it matches; none for a graph with skewed
    degrees and ``bisect_skewed``, unless ``group`` is given: see :class:`CoarseningContext`).

    A cluster may weigh ``cluster_weight_share`` times ε times the perfect
    share of the lightest part (``maxw`` scaled to the total weight).
    """
    k = maxw.shape[0]
    c = ctx.coarsening
    size = max(c.coarse_per_part * k, c.coarsest_min)
    clustering = uses_clustering(graph, c)
    if clustering and group is None and c.bisect_skewed and skewed_degrees(graph, c):
        size = graph.n  # no k-way levels: the initial partitioning's multilevel bisections of the input
    if not clustering:
        size = max(size, min(c.matched_coarsest, int(c.matched_coarsest_share * graph.n)))
    lightest = maxw.min(axis=0) * graph.total_vertex_weight() / np.maximum(maxw.sum(axis=0), 1)
    cluster_weight = (ctx.coarsening.cluster_weight_share * imbalance * lightest).astype(np.int64)
    return coarsen(graph, c, size, derive(key, "coarsen"), group=group, cluster_weight=cluster_weight, say=say,
                   clustering=clustering)


def _best_of_runs(graph, k, maxw, imbalance, ctx, seed, say, objective, first=None):
    """The best of ``ctx.runs`` multilevel cycles (for a mapping objective on a hierarchy, and the split along
    it, :func:`partkit.mapping.hierarchical_start`, which replaces them on large graphs), improved by
    ``ctx.vcycles`` V-cycles.

    ``first`` is the hierarchy of run 0 when the caller has built it already.
    """
    best, best_rank = None, None
    runs = ctx.runs
    if objective.machine is not None:  # on a hierarchy, a split along it on this graph; the runs compete if small
        from partkit.mapping import RUNS_COMPETE_BELOW, hierarchical_start

        best = hierarchical_start(graph, objective, maxw, imbalance, ctx, derive(seed, "hierarchical"))
        best_rank = None if best is None else objective.rank(graph, best, maxw)
        runs = ctx.runs if best is None or graph.n < RUNS_COMPETE_BELOW else 0
    for r in range(runs):
        if say is not None and ctx.runs > 1:
            say(f"run {r + 1} of {ctx.runs}")
        key = derive(seed, "run", r)
        hierarchy = first if r == 0 and first is not None else _hierarchy(graph, maxw, imbalance, ctx, key, say)
        part = _cycle(hierarchy, k, maxw, imbalance, ctx, key, say, objective)
        if ctx.runs == 1 and not ctx.vcycles:
            return part  # nothing to compare it with
        rank = objective.rank(graph, part, maxw)
        if best_rank is None or rank < best_rank:
            best, best_rank = part, rank
    for cycle in range(ctx.vcycles):
        if say is not None:
            say(f"V-cycle {cycle + 1}: {objective.name} {best_rank[1]}")
        candidate = vcycle(graph, best, maxw, imbalance, ctx, derive(seed, "vcycle", cycle), objective, group=best,
                           say=say)
        if candidate is None:
            break
        rank = objective.rank(graph, candidate, maxw)
        if rank <= best_rank:
            best, best_rank = candidate, rank
    return best


def vcycle(graph, part, maxw, imbalance, ctx, key, objective, *, group, say=None, relaxed_coarsest=False):
    """One V-cycle from ``part``: a hierarchy that merges only vertices of one ``group``, ``part`` projected
    onto its coarsest graph and refined there and on every level back up. Returns the refined partition, or
    None when the graph does not coarsen.

    ``group`` must refine ``part`` (vertices of one group in one part), so that ``part`` is a partition of
    every level. The objective gets each level's data (:meth:`~partkit.multilevel.objectives.Objective.on`).
    The coarsest graph is refined under ``maxw``, or with ``relaxed_coarsest`` under its level bound
    (:func:`partkit.multilevel.refinement.level_bounds`).
    """
    from partkit.multilevel.refinement import level_bounds

    hierarchy = _hierarchy(graph, maxw, imbalance, ctx, key, say, group=group)
    if not len(hierarchy):
        return None
    leveled = objective.on(hierarchy)
    coarse_part = np.empty(hierarchy.coarsest.n, dtype=np.int64)
    coarse_part[hierarchy.to_coarsest()] = part
    bound = level_bounds(hierarchy.coarsest, maxw, hierarchy.input_heaviest()) if relaxed_coarsest else maxw
    refine(hierarchy.coarsest, coarse_part, bound, ctx.refinement, derive(key, "coarsest"), objective=leveled)
    return uncoarsen(hierarchy, coarse_part, maxw, ctx.refinement, derive(key, "uncoarsen"), say, leveled)


def _cycle(hierarchy, k, maxw, imbalance, ctx, key, say, objective):
    """Initial partitioning of the coarsest graph of ``hierarchy``, then refinement up to the input."""
    if say is not None:
        say(f"initial partitioning: {hierarchy.coarsest.n} vertices into {k} parts")
    if objective.machine is None:
        part = initial_partition(hierarchy.coarsest, k, maxw, imbalance, ctx, derive(key, "initial"),
                                 input_heaviest=hierarchy.input_heaviest(), finest=not len(hierarchy))
    else:
        part = initial_mapping(hierarchy.coarsest, k, maxw, imbalance, ctx, derive(key, "initial"), objective,
                               input_heaviest=hierarchy.input_heaviest(), finest=not len(hierarchy))
    return uncoarsen(hierarchy, part, maxw, ctx.refinement, derive(key, "uncoarsen"), say, objective)
