"""Coarsening: the hierarchy of ever smaller graphs.

Each level maps the vertices of a graph to the vertices of the next coarser
one (``cmap``) and contracts it (:func:`kernels.coarsening_contraction.contract`).
The map comes from

* heavy-edge matching along locally dominant edges in parallel rounds
  (:func:`kernels.coarsening_matching.parallel_matching`), with a two-hop
  pass pairing unmatched vertices (leaves of stars) through a common
  neighbour when many stay single; or
* size-constrained label-propagation clustering, when matching shrinks the
  graph too little, or the degrees are skewed or most paths of length two
  close a triangle (``algorithm="auto"`` on a power-law or a random
  geometric graph), or when asked for;

and in both cases isolated vertices are merged with each other, as METIS does.
Matching, clustering and contraction run on the threads in effect
(:func:`partkit._threads.using_threads`), with the same result for any
number of them; a level matched on one thread is matched and contracted by
one compiled call (:func:`matched`).

Coarsening stops at ``coarsest_size`` vertices or when a level shrinks the
graph by less than ``1 - stall_ratio``. Vertex weights of a coarse vertex
are capped at ``1.5 * total / coarsest_size`` so that the coarsest graph
can still be balanced.
"""

from __future__ import annotations

import numpy as np

from partkit._random import derive, permutation
from partkit._threads import PARALLEL_MIN_WORK, for_work
from partkit.graph import Graph
from partkit.multilevel.kernels.coarsening_clustering import sampled_transitivity
from partkit.multilevel.kernels.label_propagation import parallel_label_propagation_clustering
from partkit.multilevel.kernels.coarsening_contraction import contract
from partkit.multilevel.kernels.coarsening_level import matched_level
from partkit.multilevel.kernels.coarsening_matching import matching_map, numbered_clusters, parallel_matching
from partkit.multilevel.recursive import split_graph


class Hierarchy:
    """The levels of a coarsening: ``levels[i] = (graph_i, cmap_i)`` and the coarsest graph.

    ``cmap_i`` maps the vertices of ``graph_i`` to those of ``graph_{i+1}``
    (the last one to :attr:`coarsest`).
    """

    def __init__(self, levels, coarsest):
        self.levels = levels
        self.coarsest = coarsest

    def __len__(self):
        return len(self.levels)

    def input_heaviest(self):
        """The heaviest vertex weight of the input graph, per constraint (the bound of every level is relaxed
        by what its vertices weigh more: :func:`partkit.multilevel.refinement.level_bounds`)."""
        graph = self.levels[0][0] if self.levels else self.coarsest
        return graph.vwgt.max(axis=0, initial=0)

    def to_coarsest(self):
        """Map from the finest vertices to the coarsest vertices."""
        cmap = self.levels[0][1]
        for _, next_map in self.levels[1:]:
            cmap = next_map[cmap]
        return cmap

    def restricted(self, ids):
        """The hierarchy of the subgraph induced by the finest vertices ``ids`` (increasing), or None.

        Every level becomes its subgraph induced by the vertices that hold
        ``ids``, with the maps renumbered; this is a hierarchy of the
        subgraph when no coarse vertex merges vertices in and out of
        ``ids``, as for a union of components (coarsening merges along
        edges only). None when some coarse vertex does.
        """
        levels = []
        keep = np.asarray(ids, dtype=np.int64)
        for g, cmap in self.levels:
            inside = np.zeros(g.n, dtype=bool)
            inside[keep] = True
            coarse_inside = np.zeros(int(cmap.max()) + 1 if cmap.size else 0, dtype=bool)
            coarse_inside[cmap[keep]] = True
            if np.any(coarse_inside[cmap[~inside]]):
                return None
            coarse_keep = np.flatnonzero(coarse_inside)
            renumber = np.cumsum(coarse_inside) - 1
            (_, sub), _ = split_graph(g, (~inside).astype(np.int64))
            levels.append((sub, renumber[cmap[keep]]))
            keep = coarse_keep
        inside = np.zeros(self.coarsest.n, dtype=np.int64) + 1
        inside[keep] = 0
        (_, coarsest), _ = split_graph(self.coarsest, inside)
        return Hierarchy(levels, coarsest)


def uses_clustering(graph, ctx):
    """Whether ``ctx.algorithm`` means label-propagation clustering on ``graph``.

    ``auto`` clusters graphs of over 1000 vertices with skewed degrees or
    strongly overlapping neighbourhoods (see :class:`CoarseningContext`).

    Examples
    --------
    >>> from partkit.generators import delaunay, random_geometric
    >>> from partkit.multilevel.context import CoarseningContext
    >>> ctx = CoarseningContext()
    >>> uses_clustering(random_geometric(5000), ctx), uses_clustering(delaunay(5000), ctx)
    (True, False)
    """
    if ctx.algorithm != "auto":
        return ctx.algorithm == "clustering"
    if graph.n <= 1000 or graph.m == 0:
        return False
    if skewed_degrees(graph, ctx):
        return True
    step = max(ctx.triangle_step, graph.n // ctx.triangle_sample)
    return sampled_transitivity(graph.xadj, graph.adjncy, step, ctx.triangle_neighbours) > ctx.triangle_share


def skewed_degrees(graph, ctx):
    """Whether the maximum degree of ``graph`` exceeds ``ctx.skew`` times its mean degree (a power-law graph).

    Examples
    --------
    >>> from partkit.generators import barabasi_albert, delaunay
    >>> from partkit.multilevel.context import CoarseningContext
    >>> ctx = CoarseningContext()
    >>> skewed_degrees(barabasi_albert(5000, 3), ctx), skewed_degrees(delaunay(5000), ctx)
    (True, False)
    """
    return graph.m > 0 and float(graph.degrees().max()) > ctx.skew * (graph.adjncy.size / graph.n)  # the mean degree


def coarsen(graph, ctx, coarsest_size, key, *, group=None, cluster_weight=None, say=None, clustering=None):
    """Build the coarsening hierarchy of ``graph``.

    Parameters
    ----------
    graph : partkit.Graph
    ctx : partkit.multilevel.context.CoarseningContext
    coarsest_size : int
        Stop once the graph has at most this many vertices.
    key : int
        Random stream (:mod:`partkit._random`); level ``i`` uses ``derive(key, i)``.
    group : int64 array, optional
        Only vertices of the same group are merged (a V-cycle passes the
        current partition).
    cluster_weight : int64 array, shape (ncon,), optional
        When the graph is clustered, a cluster may weigh this much where
        it exceeds the cap of every coarse vertex (the engine passes
        ``cluster_weight_share`` times ε times a part's perfect weight).
    say : callable, optional
        Progress messages.
    clustering : bool, optional
        :func:`uses_clustering` of ``graph`` when the caller knows it already.

    Returns
    -------
    Hierarchy

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.multilevel.context import CoarseningContext
    >>> h = coarsen(grid2d(40, 40), CoarseningContext(), 100, key=0)
    >>> h.coarsest.n <= 100 < 1600, int(h.coarsest.total_vertex_weight()[0])
    (True, 1600)
    """
    total = graph.total_vertex_weight()
    maxvw = np.maximum(np.ceil(1.5 * total / max(coarsest_size, 1)), 1).astype(np.int64)
    grouped = group is not None
    group = np.asarray(group, dtype=np.int64) if grouped else np.zeros(graph.n, dtype=np.int64)
    if clustering is None:
        clustering = uses_clustering(graph, ctx)
    if clustering and cluster_weight is not None:
        maxvw = np.maximum(maxvw, cluster_weight)
    levels = []
    g = graph
    while g.n > coarsest_size:
        with for_work(g.n + g.adjncy.size):
            step = coarse_level(g, maxvw, group, ctx, clustering, derive(key, len(levels)))
        if step is None:
            break
        cmap, nc, (cxadj, cadjncy, cadjwgt, cvwgt) = step
        coarse = Graph(cxadj, cadjncy, cvwgt, cadjwgt, name=graph.name, validate=False)
        if grouped:
            coarse_group = np.empty(nc, dtype=np.int64)
            coarse_group[cmap] = group
        else:  # one group: the coarse graph's is a prefix of the zeros
            coarse_group = group[:nc]
        levels.append((g, cmap))
        g, group = coarse, coarse_group
        if say is not None:
            say(f"coarsening level {len(levels)}: {g.n} vertices")
    return Hierarchy(levels, g)


def coarse_level(g, maxvw, group, ctx, clustering, key):
    """One coarsening step of ``g`` and its contraction, ``(cmap, nc, coarse arrays)``, or None when the
    step keeps more than ``ctx.stall_ratio`` of the vertices (coarsening stops).

    A matching that keeps more than ``ctx.cluster_fallback`` of the
    vertices gives way to label-propagation clustering (:func:`matched`).
    """
    cmap, nc, coarse = _level_map(g, maxvw, group, ctx, clustering, key)
    if nc > ctx.stall_ratio * g.n:
        return None
    if coarse is None:
        coarse = contract(g.xadj, g.adjncy, g.adjwgt, g.vwgt, cmap, nc)
    return cmap, nc, coarse


def level_map(g, maxvw, group, ctx, clustering, key):
    """The coarse map of one coarsening step of ``g``, ``(cmap, nc)``, as :func:`coarse_level` makes it.

    (The distributed engine's step within each rank's block uses it.)
    """
    cmap, nc, _ = _level_map(g, maxvw, group, ctx, clustering, key)
    return cmap, nc


def _level_map(g, maxvw, group, ctx, clustering, key):
    """``(cmap, nc, coarse arrays or None)`` of :func:`coarse_level`."""
    if not clustering:
        cmap, nc, coarse = matched(g, maxvw, group, ctx, key)
        if nc <= ctx.cluster_fallback * g.n:
            return cmap, nc, coarse
    order = permutation(g.n, key)
    labels = parallel_label_propagation_clustering(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, order, group,
                                                   ctx.cluster_rounds, ctx.cluster_batches)
    cmap, nc = numbered_clusters(g.xadj, g.vwgt, maxvw, group, labels, order, key)
    return cmap, nc, None


def matched(g, maxvw, group, ctx, key):
    """The matching of a coarsening step and its coarse map: ``(cmap, nc, coarse)``.

    ``coarse`` holds the arrays of the contracted graph when they were made
    in the same call, else None. A level below
    :data:`partkit._threads.PARALLEL_MIN_WORK` runs on one thread anyway,
    and one compiled call (:func:`kernels.coarsening_level.matched_level`,
    the same kernels) matches and contracts it: about 10 us less per level,
    8 % of a partition of jagmesh7 (1 138 vertices) at k = 2. The
    contraction is wasted on the rare small level whose matching gives way
    to clustering or stalls the coarsening.
    """
    if g.n + g.adjncy.size < PARALLEL_MIN_WORK:
        cmap, nc, *coarse = matched_level(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, key,
                                          derive(key, "matching"), ctx.matching_rounds, ctx.two_hop_share)
        return cmap, nc, coarse
    match = parallel_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, derive(key, "matching"),
                              ctx.matching_rounds)
    cmap, nc = matching_map(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, match, key, ctx.two_hop_share)
    return cmap, nc, None
