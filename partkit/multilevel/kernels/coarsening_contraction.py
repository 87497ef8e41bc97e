"""Contraction of a graph along a vertex-to-coarse-vertex map, in O(n + m), in parallel."""

import numba
import numpy as np
from numba import njit, prange

from partkit._threads import prange_only

#: Coarse vertices whose members have at most this many edges in total merge
#: parallel edges by scanning their (short) list instead of a marker array.
SCAN_LIMIT = 32


def contract(xadj, adjncy, adjwgt, vwgt, cmap, nc):
    """Build the coarse graph in which every group ``cmap == c`` becomes vertex ``c``.

    Vertex weights add up; parallel edges merge with their weights added;
    edges inside a group disappear. A marker array finds the merged edges,
    so the work and memory are linear in ``n + m``.

    In parallel, with the same output for any thread count: the fine
    vertices are bucketed by coarse vertex (a stable counting sort), the
    coarse vertices are cut into one range per thread (equal member
    counts), and each range is built, coarse vertex after coarse vertex,
    into its own stretch of the output (at the sum of its members'
    degrees), with its own marker array; the stretches are then moved
    together. A coarse vertex's neighbours come in order of first
    appearance over its members in increasing id, whatever the ranges.

    Returns
    -------
    cxadj, cadjncy, cadjwgt : int64 arrays
    cvwgt : int64 array, shape (nc, ncon)
    """
    return contract_ranges(xadj, adjncy, adjwgt, vwgt, cmap, nc, numba.get_num_threads())


@njit(parallel=prange_only(), cache=True, nogil=True)
def contract_ranges(xadj, adjncy, adjwgt, vwgt, cmap, nc, nchunks):
    """:func:`contract` with ``nchunks`` ranges of coarse vertices (the output does not depend on it)."""
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
    nchunks = max(min(nchunks, nc), 1)
    bounds = np.empty(nchunks + 1, dtype=np.int64)
    for chunk in range(nchunks + 1):
        bounds[chunk] = np.searchsorted(start, chunk * n // nchunks)
    bounds[nchunks] = nc
    offsets = np.zeros(nchunks + 1, dtype=np.int64)
    for chunk in range(nchunks):
        degree = 0
        for i in range(start[bounds[chunk]], start[bounds[chunk + 1]]):
            v = members[i]
            degree += xadj[v + 1] - xadj[v]
        offsets[chunk + 1] = degree
    for chunk in range(nchunks):
        offsets[chunk + 1] += offsets[chunk]
    cadjncy = np.empty(offsets[nchunks], dtype=np.int64)
    cadjwgt = np.empty(offsets[nchunks], dtype=np.int64)
    cvwgt = np.zeros((nc, ncon), dtype=np.int64)
    cxadj = np.zeros(nc + 1, dtype=np.int64)
    ends = np.empty(nchunks, dtype=np.int64)
    for chunk in prange(nchunks):
        ends[chunk] = _contract_range(xadj, adjncy, adjwgt, vwgt, cmap, start, members, bounds[chunk],
                                      bounds[chunk + 1], offsets[chunk], cxadj, cadjncy, cadjwgt, cvwgt)
    # move the stretches together (in order: each moves down, never over a later one)
    pos = ends[0]
    for chunk in range(1, nchunks):
        for t in range(offsets[chunk], ends[chunk]):
            cadjncy[pos] = cadjncy[t]
            cadjwgt[pos] = cadjwgt[t]
            pos += 1
    for c in range(nc):
        cxadj[c + 1] += cxadj[c]
    # views: the unused tail (edges that fell inside groups) stays allocated,
    # which saves copying the coarse adjacency; memory stays linear in m
    return cxadj, cadjncy[:pos], cadjwgt[:pos], cvwgt


@njit(cache=True)
def _contract_range(xadj, adjncy, adjwgt, vwgt, cmap, start, members, first_c, last_c, offset, cxadj, cadjncy,
                    cadjwgt, cvwgt):
    """Build coarse vertices ``first_c .. last_c - 1`` of :func:`contract_ranges` from position ``offset`` on;
    returns the end of the stretch. A function of its own, so that the parallel loop's body (and its
    compile time) stays small."""
    nc = cvwgt.shape[0]
    ncon = vwgt.shape[1]
    mark = np.full(nc, -1, dtype=np.int64)
    pos = offset
    for c in range(first_c, last_c):
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
                else:
                    # a position inside this vertex's stretch was written for this vertex
                    s = mark[cu]
                    if first <= s < pos:
                        slot = s
                if slot >= 0:
                    cadjwgt[slot] += adjwgt[e]
                else:
                    if not scan:
                        mark[cu] = pos
                    cadjncy[pos] = cu
                    cadjwgt[pos] = adjwgt[e]
                    pos += 1
        cxadj[c + 1] = pos - first
    return pos


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
