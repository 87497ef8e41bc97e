"""Contraction of a graph along a vertex-to-coarse-vertex map, in O(n + m), in parallel ranges."""

import numpy as np

from partkit._borrow import borrow
from partkit._jit import njit
from partkit._prefetch import MIN_VERTICES, prefetch_adjacency
from partkit._threads import chunk_count, run_ranges

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
    return contract_ranges(xadj, adjncy, adjwgt, vwgt, cmap, nc)


def contract_ranges(xadj, adjncy, adjwgt, vwgt, cmap, nc, nchunks=None):
    """:func:`contract` with ``nchunks`` ranges of coarse vertices (default: the threads in effect,
    :func:`partkit._threads.chunk_count`; the output does not depend on it)."""
    nchunks = chunk_count(nc, nchunks)
    start, members, bounds, offsets, cxadj, cadjncy, cadjwgt, cvwgt = _contract_prepare(xadj, vwgt, cmap, nc, nchunks)
    ends = np.empty(nchunks, dtype=np.int64)
    run_ranges(_contract_chunks, (xadj, adjncy, adjwgt, vwgt, cmap, start, members, bounds, offsets, cxadj, cadjncy,
                                  cadjwgt, cvwgt, ends), nchunks, nchunks)
    return _contract_finish(cxadj, cadjncy, cadjwgt, cvwgt, offsets, ends)


@njit(cache=True, inline="always")
def contract_one_range(xadj, adjncy, adjwgt, vwgt, cmap, nc):
    """:func:`contract_ranges` with one range, for a kernel (the same coarse graph).

    Inlined into its caller, :func:`~partkit.multilevel.kernels.coarsening_level.matched_level`, and
    not called from Python: a compiled function of its own would cost its compile and, Numba
    optimizing and compiling a callee again inside every kernel that calls it, the contraction's
    code once more (about 0.5 s of the first call's compile).
    """
    # np.int64, not literals: the kernels' signatures of the calls from Python (a literal compiles them again)
    zero, one = np.int64(0), np.int64(1)
    start, members, bounds, offsets, cxadj, cadjncy, cadjwgt, cvwgt = _contract_prepare(xadj, vwgt, cmap, nc, one)
    ends = np.empty(1, dtype=np.int64)
    _contract_chunks(xadj, adjncy, adjwgt, vwgt, cmap, start, members, bounds, offsets, cxadj, cadjncy, cadjwgt,
                     cvwgt, ends, zero, one)
    return _contract_finish(cxadj, cadjncy, cadjwgt, cvwgt, offsets, ends)


@njit(cache=True)
def _contract_prepare(xadj, vwgt, cmap, nc, nchunks):
    """The fine vertices bucketed by coarse vertex (``start``, ``members``), the ``nchunks`` ranges of
    coarse vertices (``bounds``, equal member counts) with the start of each one's stretch (``offsets``),
    and the outputs to fill."""
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
    bounds = np.empty(nchunks + 1, dtype=np.int64)
    c = 0
    for chunk in range(nchunks):
        # the first coarse vertex whose members start at or after this range's share of the fine vertices
        while c < nc and start[c] < chunk * n // nchunks:
            c += 1
        bounds[chunk] = c
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
    return start, members, bounds, offsets, cxadj, cadjncy, cadjwgt, cvwgt


@njit(cache=True)
def _contract_finish(cxadj, cadjncy, cadjwgt, cvwgt, offsets, ends):
    """Move the stretches together and sum up ``cxadj``: the coarse graph."""
    nc = cvwgt.shape[0]
    nchunks = ends.size
    # in order: each stretch moves down, never over a later one
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
def _contract_chunks(xadj, adjncy, adjwgt, vwgt, cmap, start, members, bounds, offsets, cxadj, cadjncy, cadjwgt,
                     cvwgt, ends, lo, hi):
    """Build the ranges ``lo .. hi - 1`` of coarse vertices of :func:`contract_ranges`, range ``r`` (coarse
    vertices ``bounds[r] .. bounds[r + 1] - 1``) into the stretch from ``offsets[r]`` on; ``ends[r]`` gets
    the end of that stretch."""
    # borrowed views: no reference counting per call of the inlined prefetch (partkit._borrow)
    xadj, adjncy, adjwgt, vwgt, cmap = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(cmap)
    start, members = borrow(start), borrow(members)
    for r in range(lo, hi):
        ends[r] = _contract_stretch(xadj, adjncy, adjwgt, vwgt, cmap, start, members, bounds[r], bounds[r + 1],
                                    offsets[r], cxadj, cadjncy, cadjwgt, cvwgt)


@njit(cache=True, inline="always")
def _contract_stretch(xadj, adjncy, adjwgt, vwgt, cmap, start, members, first_c, last_c, offset, cxadj, cadjncy,
                      cadjwgt, cvwgt):
    """Build coarse vertices ``first_c .. last_c - 1`` from position ``offset`` on; returns the end."""
    nc = cvwgt.shape[0]
    ncon = vwgt.shape[1]
    mark = np.full(nc, -1, dtype=np.int64)
    fetch = xadj.size > MIN_VERTICES
    last_member = start[last_c]
    pos = offset
    for c in range(first_c, last_c):
        first = pos
        degree = 0
        for i in range(start[c], start[c + 1]):
            if fetch:  # the members' adjacency is scattered over memory, their neighbours' coarse ids too
                prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, cmap, members, i, last_member)
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


@njit(cache=True, inline="always")
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


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them; the
#: contraction that :func:`contract_ranges` makes in one call with one range):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (_contract_chunks,)
