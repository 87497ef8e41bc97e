"""Contraction of a graph along a vertex-to-coarse-vertex map, in O(n + m)."""

import numpy as np
from numba import njit

#: Coarse vertices whose members have at most this many edges in total merge
#: parallel edges by scanning their (short) list instead of a marker array.
SCAN_LIMIT = 32


@njit(cache=True, nogil=True)
def contract(xadj, adjncy, adjwgt, vwgt, cmap, nc):
    """Build the coarse graph in which every group ``cmap == c`` becomes vertex ``c``.

    Vertex weights add up; parallel edges merge with their weights added;
    edges inside a group disappear. A marker array per coarse vertex finds
    the merged edges, so the work and memory are linear in ``n + m``.

    Returns
    -------
    cxadj, cadjncy, cadjwgt : int64 arrays
    cvwgt : int64 array, shape (nc, ncon)
    """
    n = xadj.size - 1
    ncon = vwgt.shape[1]
    start = np.zeros(nc + 1, dtype=np.int64)
    for v in range(n):
        start[cmap[v] + 1] += 1
    for c in range(nc):
        start[c + 1] += start[c]
    fill = start[:-1].copy()
    members = np.empty(n, dtype=np.int64)
    for v in range(n):
        c = cmap[v]
        members[fill[c]] = v
        fill[c] += 1
    cvwgt = np.zeros((nc, ncon), dtype=np.int64)
    cxadj = np.zeros(nc + 1, dtype=np.int64)
    cadjncy = np.empty(adjncy.size, dtype=np.int64)
    cadjwgt = np.empty(adjncy.size, dtype=np.int64)
    marker = np.full(nc, -1, dtype=np.int64)
    pos = 0
    for c in range(nc):
        first = pos
        degree = 0
        for i in range(start[c], start[c + 1]):
            v = members[i]
            degree += xadj[v + 1] - xadj[v]
        # short lists are searched directly: no random access to the marker array
        scan = degree <= SCAN_LIMIT
        for i in range(start[c], start[c + 1]):
            v = members[i]
            for j in range(ncon):
                cvwgt[c, j] += vwgt[v, j]
            for e in range(xadj[v], xadj[v + 1]):
                cu = cmap[adjncy[e]]
                if cu == c:
                    continue
                slot = -1
                if scan:
                    for t in range(first, pos):
                        if cadjncy[t] == cu:
                            slot = t
                            break
                elif marker[cu] >= first:
                    slot = marker[cu]
                if slot >= 0:
                    cadjwgt[slot] += adjwgt[e]
                else:
                    if not scan:
                        marker[cu] = pos
                    cadjncy[pos] = cu
                    cadjwgt[pos] = adjwgt[e]
                    pos += 1
        cxadj[c + 1] = pos
    # views: the unused tail (edges that fell inside groups) stays allocated,
    # which saves copying the coarse adjacency; memory stays linear in m
    return cxadj, cadjncy[:pos], cadjwgt[:pos], cvwgt


@njit(cache=True, nogil=True)
def compact_labels(labels):
    """Renumber arbitrary non-negative labels to ``0..nc-1``: ``(cmap, nc)``."""
    n = labels.size
    new_id = np.full(n, -1, dtype=np.int64)
    cmap = np.empty(n, dtype=np.int64)
    nc = 0
    for v in range(n):
        lab = labels[v]
        if new_id[lab] == -1:
            new_id[lab] = nc
            nc += 1
        cmap[v] = new_id[lab]
    return cmap, nc
