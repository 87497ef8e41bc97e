"""Multilevel k-way partitioning (the default method), in the style of METIS and KaMinPar.

1. **Coarsening.** Heavy-edge matching (vertices visited in random
   order), with a two-hop
   pass that pairs unmatched vertices through a common neighbour when the
   matching leaves many vertices single, and size-constrained label
   propagation clustering when even that shrinks the graph by less than
   10%. ``coarsening="clustering"`` uses the clustering at every level
   (better for power-law graphs). Coarsening stops at ``C * k`` vertices or
   when a level shrinks the graph by less than 5%.
2. **Initial partitioning** of the coarsest graph by recursive bisection
   (:func:`partkit.methods.recursive.recursive_bisection`); every bisection
   is itself multilevel: the subgraph is coarsened to about 300 vertices,
   split by the best of several grown starts (:func:`partkit.methods.fm.initial_bisection`)
   refined by 2-way FM (:func:`partkit.native.fm.fm_refine`), and refined by
   2-way FM on the way back up. The first, largest splits get the most starts.
3. **Uncoarsening.** On every level the partition is projected, the balance
   bound is restored if needed (:func:`partkit.native.kway_balance.rebalance`),
   then refined by boundary label propagation and k-way FM with a max-gain
   queue and rollback to the best prefix (:mod:`partkit.native.kway_fm`).
4. **V-cycles** (preset ``strong``): the graph is coarsened again with
   matching restricted to vertices of the same part, so the current
   partition survives on the coarse levels, and refined back up.

Presets ``fast``, ``default`` and ``strong`` trade time for cut quality
(see :data:`PRESETS`).
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit.graph import Graph
from partkit.methods.fm import initial_bisection
from partkit.methods.recursive import bisection_bounds, recursive_bisection
from partkit.metrics import max_part_weights
from partkit.native.clustering import label_propagation_clustering
from partkit.native.contraction import compact_labels, contract
from partkit.native.fm import best_grown_bisection, fm_refine, overweight, side_weights
from partkit.native.kway_balance import rebalance
from partkit.native.kway_fm import kway_fm_refine
from partkit.native.kway_refine import boundary_vertices, edge_cut, label_propagation_refine, part_weights
from partkit.native.matching import heavy_edge_matching, matching_to_cmap, two_hop_matching

#: Parameters of each preset.
#:
#: ``coarse_per_part``: coarsening stops at about this many vertices per part;
#: ``init_tries``: grown starts (each refined by 2-way FM) of the first initial bisection;
#: ``bisect_fm_passes``: 2-way FM passes per level of a bisection;
#: ``lp_rounds``: label-propagation sweeps per level;
#: ``fm_passes``: k-way FM passes per level;
#: ``fm_bad_share``, ``fm_max_bad``: a k-way FM pass stops after
#: ``max(50, min(fm_max_bad, fm_bad_share * n))`` moves without a new best cut;
#: ``init_runs``: recursive bisections of the coarsest graph, the best is kept;
#: ``runs``: independent multilevel runs, the best is kept;
#: ``vcycles``: V-cycles refining the best run.
PRESETS = {
    "fast": dict(coarse_per_part=20, init_tries=4, bisect_fm_passes=2, lp_rounds=2, fm_passes=1, init_runs=1,
                 runs=1, vcycles=0, fm_max_bad=1000, fm_bad_share=0.01),
    "default": dict(coarse_per_part=160, init_tries=20, bisect_fm_passes=4, lp_rounds=4, fm_passes=3, init_runs=2,
                    runs=1, vcycles=0, fm_max_bad=1000, fm_bad_share=0.1),
    "strong": dict(coarse_per_part=160, init_tries=40, bisect_fm_passes=8, lp_rounds=6, fm_passes=8, init_runs=4,
                   runs=4, vcycles=3, fm_max_bad=100000, fm_bad_share=0.2),
}

COARSENINGS = ("matching", "clustering")

#: Coarsening of a single bisection stops at this many vertices.
BISECTION_COARSEST = 300

#: How initial bisections grow side 0 ("greedy" or "bfs", see :func:`partkit.methods.fm.initial_bisection`).
INITIAL_GROWTH = "bfs"

#: Fewest grown starts of a bisection deep in the recursion.
MIN_TRIES = 8

#: Label-propagation sweeps of one clustering step.
CLUSTER_ROUNDS = 3

#: Lower bound on the fruitless FM moves of a pass in an initial bisection.
BISECTION_MAX_BAD = 50

#: FM passes refining each grown start.
INIT_FM_PASSES = 10

#: The initial partition is made for this share of the allowed imbalance,
#: leaving room for the k-way refinement to move vertices.
INITIAL_IMBALANCE_SHARE = 2.0

#: A level must shrink the graph to at most this fraction, else coarsening stops.
STALL_RATIO = 0.95


def partition(graph, k, *, imbalance=0.03, seed=0, preset="default", coarsening="matching", progress=None):
    """Partition ``graph`` into ``k`` parts with the multilevel k-way scheme.

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float, default 0.03
        Allowed imbalance ε; the final partition respects
        :func:`partkit.metrics.max_part_weights` whenever the refinement can reach it.
    seed : int, default 0
        Same seed, same partition.
    preset : {"fast", "default", "strong"}
        Time/quality trade-off (see :data:`PRESETS`).
    coarsening : {"matching", "clustering"}
        Heavy-edge matching (with two-hop and clustering fallbacks when it
        stalls) or size-constrained label-propagation clustering throughout.
    progress : callable or None
        Called with short phase descriptions such as
        ``"coarsening level 5: 12034 vertices"``.

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
    """
    if preset not in PRESETS:
        raise InputError(f"multilevel: preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    if coarsening not in COARSENINGS:
        raise InputError(f"multilevel: coarsening must be one of {', '.join(COARSENINGS)}, got {coarsening!r}")
    params = PRESETS[preset]
    say = progress if progress is not None else _quiet
    k = int(k)
    rng = np.random.default_rng(seed)
    if k == 1 or graph.n == 0:
        return np.zeros(graph.n, dtype=np.int64)
    bound = max_part_weights(graph, k, imbalance)
    maxw = np.tile(bound, (k, 1))
    coarsest_size = max(params["coarse_per_part"] * k, BISECTION_COARSEST)

    part = _multilevel_run(graph, k, imbalance, maxw, coarsest_size, params, coarsening, rng, say)
    if params["runs"] == 1 and params["vcycles"] == 0:
        return part
    best_key = (not _balanced(graph, part, maxw), edge_cut(graph.xadj, graph.adjncy, graph.adjwgt, part))
    for run in range(1, params["runs"]):
        say(f"run {run + 1} of {params['runs']}")
        candidate = _multilevel_run(graph, k, imbalance, maxw, coarsest_size, params, coarsening, rng, say)
        key = (not _balanced(graph, candidate, maxw), edge_cut(graph.xadj, graph.adjncy, graph.adjwgt, candidate))
        if key < best_key:
            part, best_key = candidate, key
    best_cut = best_key[1]
    for cycle in range(params["vcycles"]):
        say(f"V-cycle {cycle + 1}: cut {best_cut}")
        levels, coarsest = coarsen(graph, coarsest_size, rng, coarsening=coarsening, group=part, say=say)
        if not levels:
            break
        coarse_part = np.empty(coarsest.n, dtype=np.int64)
        coarse_part[_compose(levels)] = part
        refine_kway(coarsest, coarse_part, maxw, params, rng)
        candidate = uncoarsen(levels, coarsest, coarse_part, maxw, params, rng, say)
        cut = edge_cut(graph.xadj, graph.adjncy, graph.adjwgt, candidate)
        if cut <= best_cut and _balanced(graph, candidate, maxw) >= _balanced(graph, part, maxw):
            part, best_cut = candidate, cut
    return part


def _multilevel_run(graph, k, imbalance, maxw, coarsest_size, params, coarsening, rng, say):
    """One coarsen / initial-partition / uncoarsen cycle."""
    levels, coarsest = coarsen(graph, coarsest_size, rng, coarsening=coarsening, say=say)
    say(f"initial partitioning: {coarsest.n} vertices into {k} parts")
    coarse_total = float(coarsest.total_vertex_weight().sum())

    def bisect(sub, fraction0, eps, bseed):
        # the first splits shape the whole partition: they get the most tries
        share = float(sub.total_vertex_weight().sum()) / coarse_total if coarse_total > 0 else 1.0
        tries = max(MIN_TRIES, round(params["init_tries"] * share))
        return multilevel_bisection(sub, fraction0, eps, bseed, dict(params, init_tries=tries))

    part = initial_partition(coarsest, k, bisect, imbalance * INITIAL_IMBALANCE_SHARE, maxw, params, rng)
    return uncoarsen(levels, coarsest, part, maxw, params, rng, say)


def _quiet(message):
    return None


def _balanced(graph, part, maxw):
    return bool(np.all(part_weights(graph.vwgt, part, maxw.shape[0]) <= maxw))


def _compose(levels):
    """Map from the finest vertices to the coarsest vertices of a hierarchy."""
    cmap = levels[0][1]
    for _, next_map in levels[1:]:
        cmap = next_map[cmap]
    return cmap


def coarsen(graph, coarsest_size, rng, *, coarsening="matching", group=None, say=_quiet):
    """Build the coarsening hierarchy of ``graph``.

    Parameters
    ----------
    graph : partkit.Graph
    coarsest_size : int
        Stop once the graph has at most this many vertices.
    rng : numpy.random.Generator
    coarsening : {"matching", "clustering"}
    group : int64 array, optional
        Only vertices of the same group are merged (a V-cycle passes the
        current partition).
    say : callable

    Returns
    -------
    levels : list of (Graph, cmap)
        Every finer graph with the map of its vertices to the next coarser graph.
    coarsest : Graph
    """
    total = graph.total_vertex_weight()
    maxvw = np.maximum(np.ceil(1.5 * total / max(coarsest_size, 1)), 1).astype(np.int64)
    group = np.zeros(graph.n, dtype=np.int64) if group is None else np.asarray(group, dtype=np.int64)
    levels = []
    g = graph
    while g.n > coarsest_size:
        cmap, nc = _coarse_map(g, maxvw, group, coarsening, rng)
        if nc > STALL_RATIO * g.n:
            break
        cxadj, cadjncy, cadjwgt, cvwgt = contract(g.xadj, g.adjncy, g.adjwgt, g.vwgt, cmap, nc)
        coarse = Graph(cxadj, cadjncy, cvwgt, cadjwgt, name=graph.name, validate=False)
        coarse_group = np.empty(nc, dtype=np.int64)
        coarse_group[cmap] = group
        levels.append((g, cmap))
        g, group = coarse, coarse_group
        say(f"coarsening level {len(levels)}: {g.n} vertices")
    return levels, g


def _visit_order(g, rng):
    """A random permutation (sorting it by degree, as METIS does, gave no better cuts here)."""
    return rng.permutation(g.n).astype(np.int64)


def _coarse_map(g, maxvw, group, coarsening, rng):
    """One coarsening step: ``(cmap, nc)``."""
    if coarsening == "matching":
        order = _visit_order(g, rng)
        match = heavy_edge_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, order, group)
        single = int(np.count_nonzero(match == np.arange(g.n)))
        if single > 0.25 * g.n:
            two_hop_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, order, group, match)
        cmap, nc = matching_to_cmap(match)
        if nc <= 0.9 * g.n:
            return cmap, nc
    order = rng.permutation(g.n).astype(np.int64)
    labels = label_propagation_clustering(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, order, group, CLUSTER_ROUNDS)
    return compact_labels(labels)


def initial_partition(coarsest, k, bisect, imbalance, maxw, params, rng):
    """Best of ``init_runs`` refined recursive bisections of the coarsest graph.

    Runs are ranked balanced first, then by cut. For k > 16 half as many
    runs are made: each run costs about k bisections, and its cut varies
    less because it adds up many independent splits.
    """
    runs = params["init_runs"] if k <= 16 else max(1, params["init_runs"] // 2)
    best, best_key = None, None
    for _ in range(runs):
        part = recursive_bisection(coarsest, k, bisect, imbalance=imbalance, seed=int(rng.integers(2**31 - 1)))
        refine_kway(coarsest, part, maxw, params, rng)
        key = (not _balanced(coarsest, part, maxw), edge_cut(coarsest.xadj, coarsest.adjncy, coarsest.adjwgt, part))
        if best_key is None or key < best_key:
            best, best_key = part, key
    return best


def uncoarsen(levels, coarsest, part, maxw, params, rng, say=_quiet):
    """Project ``part`` from the coarsest graph and refine it on every finer level."""
    coarse = coarsest
    for depth in range(len(levels) - 1, -1, -1):
        fine, cmap = levels[depth]
        say(f"refining level {depth}: {fine.n} vertices")
        # a fine boundary vertex belongs to a coarse boundary vertex: no scan of the fine graph
        on_boundary = np.zeros(coarse.n, dtype=bool)
        on_boundary[boundary_vertices(coarse.xadj, coarse.adjncy, part)] = True
        part = part[cmap]
        refine_kway(fine, part, maxw, params, rng, np.flatnonzero(on_boundary[cmap]))
        coarse = fine
    return part


def refine_kway(g, part, maxw, params, rng, candidates=None):
    """Balance (if needed), then label propagation and k-way FM, in place.

    ``candidates`` (default: the boundary vertices) must include every
    boundary vertex; the refinement starts from them.
    """
    k = maxw.shape[0]
    pw = part_weights(g.vwgt, part, k)
    if np.any(pw > maxw):
        rebalance(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, 20)
        candidates = None
    if candidates is None:
        candidates = boundary_vertices(g.xadj, g.adjncy, part)
    candidates = candidates.astype(np.int64, copy=False)
    label_propagation_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw,
                             candidates[rng.permutation(candidates.size)], params["lp_rounds"])
    max_bad = max(50, min(params["fm_max_bad"], int(params["fm_bad_share"] * g.n)))
    kway_fm_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, candidates[rng.permutation(candidates.size)],
                   params["fm_passes"], max_bad)


def multilevel_bisection(graph, fraction0, imbalance, seed, params):
    """A multilevel bisection putting about ``fraction0`` of the weight on side 0.

    Coarsens to about :data:`BISECTION_COARSEST` vertices, takes the best of
    ``init_tries`` greedy-growing + FM bisections, and refines with 2-way FM
    on every level back up.
    """
    rng = np.random.default_rng(seed)
    levels, coarsest = coarsen(graph, BISECTION_COARSEST, rng)
    maxw = bisection_bounds(graph.total_vertex_weight(), fraction0, imbalance)
    part = _best_grown_bisection(coarsest, fraction0, maxw, params, rng)
    for fine, cmap in reversed(levels):
        part = part[cmap]
        fm_refine(fine.xadj, fine.adjncy, fine.adjwgt, fine.vwgt, part, maxw, params["bisect_fm_passes"],
                  max(50, fine.n // 50), int(rng.integers(2**31 - 1)))
    return part


def _best_grown_bisection(graph, fraction0, maxw, params, rng):
    """Best of ``init_tries`` breadth-first grown bisections refined by 2-way FM.

    Ranked by overweight, then cut. FM passes stop after ``n // 4`` moves
    without improvement (full passes cost too much when k is large). The
    tries draw the same starts and seeds as
    :func:`partkit.methods.fm.initial_bisection` followed by
    :func:`partkit.native.fm.fm_refine`, and run in one kernel
    (:func:`partkit.native.fm.best_grown_bisection`).
    """
    if INITIAL_GROWTH != "bfs":
        return _best_grown_bisection_python(graph, fraction0, maxw, params, rng)
    tries = params["init_tries"]
    target = int(round(fraction0 * int(graph.total_vertex_weight()[0])))
    starts = np.empty(tries, dtype=np.int64)
    grow_seeds = np.empty(tries, dtype=np.int64)
    fm_seeds = np.empty(tries, dtype=np.int64)
    for t in range(tries):
        s = int(rng.integers(2**31 - 1))
        start_rng = np.random.default_rng(s)
        fm_seeds[t] = s
        starts[t] = start_rng.integers(graph.n)
        grow_seeds[t] = start_rng.integers(2**31 - 1)
    return best_grown_bisection(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, maxw, target, starts,
                                grow_seeds, fm_seeds, INIT_FM_PASSES, max(BISECTION_MAX_BAD, graph.n // 4))


def _best_grown_bisection_python(graph, fraction0, maxw, params, rng):
    """:func:`_best_grown_bisection` for any :data:`INITIAL_GROWTH`, one try at a time."""
    best, best_key = None, None
    for _ in range(params["init_tries"]):
        s = int(rng.integers(2**31 - 1))
        part = initial_bisection(graph, fraction0, s, INITIAL_GROWTH)
        cut = fm_refine(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, maxw, INIT_FM_PASSES,
                        max(BISECTION_MAX_BAD, graph.n // 4), s)
        key = (int(overweight(side_weights(graph.vwgt, part), maxw)), int(cut))
        if best_key is None or key < best_key:
            best, best_key = part, key
    return best
