"""Induced subgraphs of the two sides of a bisection, in one O(n + m) pass.

Recursive bisection splits a graph into the subgraphs induced by side 0 and
side 1 of every bisection. :func:`split_sides` builds both at once without
going through scipy: vertices keep their relative order (side ``s`` is
renumbered ``0..n_s - 1`` in increasing original id), edges to the other
side disappear, and every adjacency list comes out sorted by neighbour id,
exactly as :meth:`partkit.Graph.subgraph` (which sorts through scipy) would
give it.
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def split_sides(xadj, adjncy, adjwgt, side):
    """The subgraphs induced by ``side == 0`` and ``side != 0``.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
        The graph in CSR form.
    side : int64 array, shape (n,)
        0 for side 0, anything else for side 1.

    Returns
    -------
    ids0, xadj0, adjncy0, adjwgt0, ids1, xadj1, adjncy1, adjwgt1 : int64 arrays
        For each side, its vertices (increasing original ids) and its CSR
        arrays with sorted adjacency lists.
    """
    n = xadj.size - 1
    local = np.empty(n, dtype=np.int64)
    n0 = 0
    n1 = 0
    m0 = 0
    m1 = 0
    for v in range(n):
        s = side[v] != 0
        if s:
            local[v] = n1
            n1 += 1
        else:
            local[v] = n0
            n0 += 1
        for j in range(xadj[v], xadj[v + 1]):
            if (side[adjncy[j]] != 0) == s:
                if s:
                    m1 += 1
                else:
                    m0 += 1
    ids0 = np.empty(n0, dtype=np.int64)
    ids1 = np.empty(n1, dtype=np.int64)
    xadj0 = np.zeros(n0 + 1, dtype=np.int64)
    xadj1 = np.zeros(n1 + 1, dtype=np.int64)
    adjncy0 = np.empty(m0, dtype=np.int64)
    adjncy1 = np.empty(m1, dtype=np.int64)
    adjwgt0 = np.empty(m0, dtype=np.int64)
    adjwgt1 = np.empty(m1, dtype=np.int64)
    p0 = 0
    p1 = 0
    for v in range(n):
        s = side[v] != 0
        if s:
            ids1[local[v]] = v
            for j in range(xadj[v], xadj[v + 1]):
                u = adjncy[j]
                if side[u] != 0:
                    adjncy1[p1] = local[u]
                    adjwgt1[p1] = adjwgt[j]
                    p1 += 1
            xadj1[local[v] + 1] = p1
        else:
            ids0[local[v]] = v
            for j in range(xadj[v], xadj[v + 1]):
                u = adjncy[j]
                if side[u] == 0:
                    adjncy0[p0] = local[u]
                    adjwgt0[p0] = adjwgt[j]
                    p0 += 1
            xadj0[local[v] + 1] = p0
    # sort every adjacency list by neighbour id (ids are distinct) and carry the weights along: a
    # Shell sort (gaps 1, 4, 13, 40, ...), so already sorted lists cost one scan and long unsorted
    # ones stay subquadratic (written out here, not as a kernel of its own: one compile less)
    for rows, nbrs, wgts in ((xadj0, adjncy0, adjwgt0), (xadj1, adjncy1, adjwgt1)):
        for v in range(rows.size - 1):
            lo = rows[v]
            hi = rows[v + 1]
            gap = 1
            while 3 * gap + 1 < hi - lo:
                gap = 3 * gap + 1
            while gap > 0:
                for j in range(lo + gap, hi):
                    a = nbrs[j]
                    if a >= nbrs[j - gap]:
                        continue
                    w = wgts[j]
                    i = j - gap
                    while i >= lo and nbrs[i] > a:
                        nbrs[i + gap] = nbrs[i]
                        wgts[i + gap] = wgts[i]
                        i -= gap
                    nbrs[i + gap] = a
                    wgts[i + gap] = w
                gap //= 3
    return ids0, xadj0, adjncy0, adjwgt0, ids1, xadj1, adjncy1, adjwgt1
