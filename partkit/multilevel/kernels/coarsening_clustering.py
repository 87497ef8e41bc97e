"""Whether to coarsen by clustering: the sampled transitivity of a graph.

The clustering itself is label propagation's :data:`~partkit.multilevel.kernels.label_propagation.CLUSTER`
rating (:func:`~partkit.multilevel.kernels.label_propagation.parallel_label_propagation_clustering`).
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def sampled_transitivity(xadj, adjncy, step, neighbours):
    """Estimate the share of the paths of length two that close a triangle (the transitivity).

    Parameters
    ----------
    xadj, adjncy : int64 arrays
        A graph without self-loops or repeated edges.
    step : int
        Vertices ``0, step, 2 step, ...`` are the centres of the paths.
    neighbours : int
        At a centre ``v`` of degree ``d``, the paths through this many
        consecutive neighbours ``u`` (from an offset hashed from ``v``, all
        of them if ``d`` is smaller) are checked: ``u`` and ``v`` share
        ``c_u`` neighbours, and ``d`` times the mean ``c_u`` estimates the
        closed paths at ``v`` out of ``d (d - 1)``. A centre costs the
        adjacency lists of ``v`` and of the checked neighbours.

    Returns
    -------
    float
        Estimated closed paths over all paths at the centres (exact when
        ``step = 1`` and ``neighbours`` is at least the maximum degree); 0
        when no centre has two neighbours.
    """
    n = xadj.size - 1
    mark = np.zeros(n, dtype=np.int64)
    closed = 0.0
    paths = 0
    for v in range(0, n, step):
        degree = xadj[v + 1] - xadj[v]
        if degree < 2:
            continue
        for e in range(xadj[v], xadj[v + 1]):
            mark[adjncy[e]] = v + 1
        checked = min(degree, neighbours)
        offset = (v * 2654435761) % degree
        common = 0
        for j in range(checked):
            u = adjncy[xadj[v] + (offset + j) % degree]
            for f in range(xadj[u], xadj[u + 1]):
                if mark[adjncy[f]] == v + 1:
                    common += 1
        closed += degree * common / checked
        paths += degree * (degree - 1)
    return closed / paths if paths > 0 else 0.0
