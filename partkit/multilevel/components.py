"""Disconnected inputs: whole components packed into parts, small ones around a partitioned core.

A graph made of many small components (a matrix with thousands of
independent blocks, isolated vertices) has a partition with no cut edge
whenever the components can be packed into ``k`` parts within the bound:
:func:`partition_by_components` tries that first, heaviest component first
into the lightest part it fits (largest processing time first).

When some components are too big to pack, only those (the *core*) are
partitioned by the engine, and the small components are packed around it
afterwards, as KaMinPar does with isolated vertices. The small ones are
free weight for balance: the core may fill any part up to the bound, so
it is partitioned with the looser imbalance that the bound allows for its
own weight, which cuts fewer edges. If the room the small components add
is under a tenth of ε (:data:`REST_SHARE`: a few stray vertices beside one
giant component), the caller partitions the whole graph instead, reusing
the hierarchy it has built. A small component that fits nowhere around the
core (with ε = 0 the room is one vertex here and there) goes to the
lightest part, and the caller's balancer moves the excess.
"""

from __future__ import annotations

import numpy as np

from partkit.multilevel.kernels.initial_packing import pack_largest_first
from partkit.multilevel.recursive import split_graph

#: A component is part of the core when it weighs more than this share of a part's bound.
CORE_SHARE = 0.25

#: The small components are packed around a partitioned core only when the room they add, their
#: share of the graph's weight, is at least this share of ε (in some constraint); less room
#: does not pay for coarsening the core again, and the whole graph is partitioned instead.
REST_SHARE = 0.1


def partition_by_components(graph, maxw, labels, ncomp, partition_core, imbalance):
    """A partition built from whole components, or None when the graph should be partitioned whole.

    Parameters
    ----------
    graph : partkit.Graph
    maxw : int64 array, shape (k, ncon)
        The bound of every part.
    labels : int64 array, shape (n,)
        The component of every vertex, in ``[0, ncomp)``.
    ncomp : int
    partition_core : callable
        ``partition_core(core, core_ids, imbalance)`` partitions the
        subgraph ``core`` of the big components (the vertices ``core_ids``
        of ``graph``, increasing) into k parts within ``maxw``, where
        ``imbalance`` is the ε that ``maxw`` allows for the core's own weight.
    imbalance : float
        The ε of ``maxw``.

    Returns
    -------
    int64 array or None
        None when the whole graph should be partitioned instead. A small
        component that fits nowhere around the core goes to the lightest
        part, which may then exceed ``maxw``: the caller balances.

    Examples
    --------
    >>> from partkit.graph import Graph
    >>> from partkit.metrics import max_part_weights
    >>> from partkit.multilevel.kernels.initial_packing import EVERY_EDGE, component_labels
    >>> g = Graph.from_edges(6, [(0, 1), (2, 3), (4, 5)])
    >>> ncomp, labels = component_labels(g.xadj, g.adjncy, EVERY_EDGE)
    >>> partition_by_components(g, max_part_weights(g, 3, 0.0), labels, ncomp, None, 0.0).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    k, ncon = maxw.shape
    cw = np.zeros((ncomp, ncon), dtype=np.int64)
    np.add.at(cw, labels, graph.vwgt)
    relative = (cw / np.maximum(maxw[0], 1)).max(axis=1)
    order = np.argsort(-relative, kind="stable").astype(np.int64)
    where = pack_largest_first(cw, order, maxw, np.zeros((k, ncon), dtype=np.int64))
    if np.all(where >= 0):
        return where[labels]
    big = relative > CORE_SHARE
    if big.all() or not big.any() or np.all(cw[~big].sum(axis=0) < REST_SHARE * imbalance * cw.sum(axis=0)):
        return None
    (core_ids, core), (rest_ids, _) = split_graph(graph, (~big[labels]).astype(np.int64))
    core_total = core.total_vertex_weight().astype(np.float64)
    imbalance = float(np.min(maxw[0] * k / np.maximum(core_total, 1))) - 1.0
    part = np.empty(graph.n, dtype=np.int64)
    part[core_ids] = partition_core(core, core_ids, max(imbalance, 0.0))
    pw = np.zeros((k, ncon), dtype=np.int64)
    np.add.at(pw, part[core_ids], core.vwgt)
    small = order[~big[order]]
    where = pack_largest_first(cw, small, maxw, pw)
    for comp in small[where[small] < 0]:  # no room left for it: the lightest part, for the caller to balance
        lightest = int(np.argmin((pw / np.maximum(maxw, 1)).max(axis=1)))
        where[comp] = lightest
        pw[lightest] += cw[comp]
    part[rest_ids] = where[labels[rest_ids]]
    return part
