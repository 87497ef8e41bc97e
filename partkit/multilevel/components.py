"""Disconnected inputs: whole components packed into parts when they fit.

A graph made of many small components (a matrix with thousands of
independent blocks, isolated vertices) has a partition with no cut edge
whenever the components can be packed into ``k`` parts within the bound.
:func:`pack_components` tries that first, heaviest component first into the
lightest part it fits (largest processing time first); the multilevel
engine handles the graph only when the packing fails. The engine itself
merges isolated vertices while coarsening
(:func:`partkit.multilevel.kernels.coarsening_matching.group_isolated`).
"""

from __future__ import annotations

import numpy as np
from partkit.multilevel.kernels.initial_packing import component_labels, pack_largest_first


def pack_components(graph, maxw):
    """A partition with no cut edge, or None when the components do not pack within ``maxw``.

    Parameters
    ----------
    graph : partkit.Graph
    maxw : int64 array, shape (k, ncon)

    Returns
    -------
    int64 array or None

    Examples
    --------
    >>> from partkit.graph import Graph
    >>> from partkit.metrics import max_part_weights
    >>> g = Graph.from_edges(6, [(0, 1), (2, 3), (4, 5)])
    >>> pack_components(g, max_part_weights(g, 3, 0.0)).tolist()
    [0, 0, 1, 1, 2, 2]
    """
    ncomp, labels = component_labels(graph.xadj, graph.adjncy)
    if ncomp < 2:
        return None
    cw = np.zeros((ncomp, graph.ncon), dtype=np.int64)
    np.add.at(cw, labels, graph.vwgt)
    relative = (cw / np.maximum(maxw[0], 1)).max(axis=1)
    order = np.argsort(-relative, kind="stable").astype(np.int64)
    where = pack_largest_first(cw, order, maxw)
    if np.any(where < 0):
        return None
    return where[labels]
