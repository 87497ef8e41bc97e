"""The rows of a distributed contraction: the edges routed to the owner of their source, merged."""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def merge_edges(edges, first, n_local):
    """CSR of ``(source, target, weight)`` rows with parallel edges summed: ``(xadj, adjncy, adjwgt)``.

    Sources are global ids ``first .. first + n_local - 1``; every row's
    targets come out in increasing order. A counting sort by source, then
    a sort of each (short) row: linear in the edges but for the rows' own
    ``d log d``.
    """
    m = edges.shape[0]
    start = np.zeros(n_local + 1, dtype=np.int64)
    for i in range(m):
        start[edges[i, 0] - first + 1] += 1
    for v in range(n_local):
        start[v + 1] += start[v]
    fill = start[:-1].copy()
    targets = np.empty(m, dtype=np.int64)
    weights = np.empty(m, dtype=np.int64)
    for i in range(m):
        v = edges[i, 0] - first
        targets[fill[v]] = edges[i, 1]
        weights[fill[v]] = edges[i, 2]
        fill[v] += 1
    xadj = np.zeros(n_local + 1, dtype=np.int64)
    adjncy = np.empty(m, dtype=np.int64)
    adjwgt = np.empty(m, dtype=np.int64)
    pos = 0
    for v in range(n_local):
        order = np.argsort(targets[start[v]:start[v + 1]])
        for i in order:
            e = start[v] + i
            if pos > xadj[v] and adjncy[pos - 1] == targets[e]:
                adjwgt[pos - 1] += weights[e]
            else:
                adjncy[pos] = targets[e]
                adjwgt[pos] = weights[e]
                pos += 1
        xadj[v + 1] = pos
    return xadj, adjncy[:pos].copy(), adjwgt[:pos].copy()
