"""Views of a rank's rows: the edges kept by a key, the owned neighbours of the ghosts."""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def edges_by_key(xadj, adjacency, adjwgt, key, same):
    """CSR of the edges of the owned rows whose two ends have equal ``key`` (``same``) or different ones
    (not ``same``): ``(xadj, adjacency, adjwgt)``, the rows in their order.

    ``key`` covers all local indices (owned vertices and ghosts): with
    ``key = local index >= n_local`` and ``same``, the edges inside the
    rank's block; with batch numbers and not ``same``, the edges between
    batches.
    """
    n_local = xadj.size - 1
    kxadj = np.zeros(n_local + 1, dtype=np.int64)
    for v in range(n_local):
        count = 0
        for e in range(xadj[v], xadj[v + 1]):
            if (key[adjacency[e]] == key[v]) == same:
                count += 1
        kxadj[v + 1] = kxadj[v] + count
    kadjacency = np.empty(kxadj[n_local], dtype=np.int64)
    kadjwgt = np.empty(kxadj[n_local], dtype=np.int64)
    pos = 0
    for v in range(n_local):
        for e in range(xadj[v], xadj[v + 1]):
            if (key[adjacency[e]] == key[v]) == same:
                kadjacency[pos] = adjacency[e]
                kadjwgt[pos] = adjwgt[e]
                pos += 1
    return kxadj, kadjacency, kadjwgt


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
