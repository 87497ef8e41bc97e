"""The part of a rank's rows that stays inside its block."""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def block_edges(xadj, adjacency, adjwgt, n_local):
    """CSR of the edges between owned vertices (local indices below ``n_local``): ``(xadj, adjacency, adjwgt)``.

    The edges to ghosts are left out; the rows keep their order.
    """
    bxadj = np.zeros(n_local + 1, dtype=np.int64)
    for v in range(n_local):
        count = 0
        for e in range(xadj[v], xadj[v + 1]):
            if adjacency[e] < n_local:
                count += 1
        bxadj[v + 1] = bxadj[v] + count
    badjacency = np.empty(bxadj[n_local], dtype=np.int64)
    badjwgt = np.empty(bxadj[n_local], dtype=np.int64)
    pos = 0
    for e in range(xadj[n_local]):
        if adjacency[e] < n_local:
            badjacency[pos] = adjacency[e]
            badjwgt[pos] = adjwgt[e]
            pos += 1
    return bxadj, badjacency, badjwgt


@njit(cache=True)
def ghost_neighbours(xadj, adjacency, n_local, n_ghost):
    """CSR of the owned neighbours of every ghost (local index ``n_local + j`` is ghost ``j``):
    ``(ghost_xadj, ghost_rows)``, each ghost's rows in increasing order."""
    ghost_xadj = np.zeros(n_ghost + 1, dtype=np.int64)
    for e in range(xadj[n_local]):
        if adjacency[e] >= n_local:
            ghost_xadj[adjacency[e] - n_local + 1] += 1
    for j in range(n_ghost):
        ghost_xadj[j + 1] += ghost_xadj[j]
    fill = ghost_xadj[:-1].copy()
    ghost_rows = np.empty(ghost_xadj[n_ghost], dtype=np.int64)
    for v in range(n_local):
        for e in range(xadj[v], xadj[v + 1]):
            u = adjacency[e]
            if u >= n_local:
                ghost_rows[fill[u - n_local]] = v
                fill[u - n_local] += 1
    return ghost_xadj, ghost_rows
