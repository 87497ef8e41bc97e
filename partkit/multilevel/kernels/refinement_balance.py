"""Restoring the balance constraint of a k-way partition at the smallest cut cost.

:func:`rebalance` moves vertices out of overloaded parts into adjacent parts
with room. When every adjacent part is full, :func:`balance_along_paths`
moves weight along a shortest path of adjacent parts, one vertex per hop,
to a part with room: each part on the way gives a vertex and takes one, so
only the ends change weight, and every move crosses a boundary, so the cut
suffers little. Moves to non-adjacent parts (``rebalance(..., far=True)``)
are the last resort.
"""

import numpy as np
from numba import njit

from partkit._borrow import borrow
from partkit._heap import heap_pop, heap_set, new_heap
from partkit._threads import run_ranges
from partkit.multilevel.kernels.refinement_moves import (any_overloaded, boundary_vertices, fits_in, move_vertex,
                                                        on_boundary, overloaded, part_connections)


@njit(cache=True)
def _helps(vwgt, pw, maxw, v, p):
    """Whether moving ``v`` out of part ``p`` lowers an exceeded constraint."""
    for c in range(pw.shape[1]):
        if pw[p, c] > maxw[p, c] and vwgt[v, c] > 0:
            return True
    return False


@njit(cache=True)
def rebalance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, max_rounds, far):
    """Move vertices out of overloaded parts until every part meets ``maxw``.

    Each round rates every vertex of an overloaded part by the cut change of
    its best move to an adjacent part with room (with ``far``, when there
    is none, to the part with the most room anywhere, which costs cut) and
    makes the moves best-first while the source is still overloaded and
    the target still has room.

    Returns
    -------
    bool
        True when the partition is balanced at the end.
    """
    n = xadj.size - 1
    cand_to = np.empty(n, dtype=np.int64)
    key = np.empty(n, dtype=np.int64)
    items, keys, pos, size = new_heap(n)
    for _ in range(max_rounds):
        if not any_overloaded(pw, maxw):
            return True
        rate_for_balance_in_range(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, far, cand_to, key, np.int64(0), n)
        if apply_balance_moves(vwgt, part, pw, maxw, cand_to, key, items, keys, pos, size) <= 0:
            return False
    return not any_overloaded(pw, maxw)


#: Vertices remembered per ordered pair of parts: a path moves up to this many per hop in one round.
WAVES = 8


@njit(cache=True)
def _best_crossings(xadj, adjncy, adjwgt, part, k, vertices, nv, cand_v, cand_g, conn, touched):
    """For every ordered pair of parts ``(a, b)``, the ``WAVES`` vertices of ``a`` among
    ``vertices[:nv]`` whose moves to ``b`` gain the most cut, best first
    (``cand_v[a * k + b]``, -1 where there are fewer)."""
    cand_v[:, :] = -1
    waves = cand_v.shape[1]
    for i in range(nv):
        v = vertices[i]
        a = part[v]
        nt = part_connections(v, xadj, adjncy, adjwgt, part, conn, touched)
        internal = conn[a]
        for t in range(nt):
            b = touched[t]
            g = conn[b] - internal
            conn[b] = 0
            if b == a:
                continue
            idx = a * k + b
            # insertion into the short sorted list of the pair
            w = waves - 1
            if cand_v[idx, w] >= 0 and cand_g[idx, w] >= g:
                continue
            while w > 0 and (cand_v[idx, w - 1] < 0 or cand_g[idx, w - 1] < g):
                cand_v[idx, w] = cand_v[idx, w - 1]
                cand_g[idx, w] = cand_g[idx, w - 1]
                w -= 1
            cand_v[idx, w] = v
            cand_g[idx, w] = g
        conn[a] = 0


@njit(cache=True)
def _wave_fits(vwgt, pw, maxw, cand_v, prev, k, target, w):
    """Whether wave ``w`` of the path ending at ``target`` can move: every hop has a
    ``w``-th vertex, the last one fits into ``target``, and every inner part of the path
    stays within its bound (or no heavier than before)."""
    q = target
    w_in = -1
    while prev[q] != -1:
        p = prev[q]
        v = cand_v[p * k + q, w]
        if v < 0:
            return False
        if w_in < 0:
            if not fits_in(vwgt, pw, maxw, v, q):
                return False
        else:
            for c in range(vwgt.shape[1]):
                after = pw[q, c] + vwgt[w_in, c] - vwgt[v, c]
                if after > maxw[q, c] and after > pw[q, c]:
                    return False
        w_in = v
        q = p
    return True


@njit(cache=True)
def balance_along_paths(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, max_rounds):
    """Move weight out of overloaded parts along shortest paths of adjacent parts.

    Every round finds, for each pair of adjacent parts, the ``WAVES``
    vertices whose moves between them gain the most cut; then, for every
    overloaded part, a shortest path (breadth-first over the quotient graph
    of parts) to a part that can take the last vertex, and moves up to
    ``WAVES`` vertices per hop, one wave at a time while the source is
    overloaded. The parts of a path are not reused in the same round.
    Stops when every part meets ``maxw``, when a round moves nothing, or
    after ``max_rounds`` rounds.

    Returns
    -------
    bool
        True when the partition is balanced at the end.
    """
    k = pw.shape[0]
    cand_v = np.full((k * k, WAVES), -1, dtype=np.int64)
    cand_g = np.zeros((k * k, WAVES), dtype=np.int64)
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    prev = np.empty(k, dtype=np.int64)
    fifo = np.empty(k, dtype=np.int64)
    used = np.zeros(k, dtype=np.bool_)
    nbr_start = np.zeros(k + 1, dtype=np.int64)
    nbr = np.empty(k * k, dtype=np.int64)
    # the vertices that can cross: the boundary, and the neighbours of every moved vertex
    n = xadj.size - 1
    vertices = np.empty(n, dtype=np.int64)
    listed = np.zeros(n, dtype=np.bool_)
    boundary = boundary_vertices(xadj, adjncy, part)
    nv = boundary.size
    for i in range(nv):
        vertices[i] = boundary[i]
        listed[boundary[i]] = True
    for _ in range(max_rounds):
        if not any_overloaded(pw, maxw):
            return True
        _best_crossings(xadj, adjncy, adjwgt, part, k, vertices, nv, cand_v, cand_g, conn, touched)
        # the quotient graph of parts as adjacency lists
        count = 0
        for p in range(k):
            nbr_start[p] = count
            for q in range(k):
                if cand_v[p * k + q, 0] >= 0:
                    nbr[count] = q
                    count += 1
        nbr_start[k] = count
        used[:] = False
        moved = False
        for a in range(k):
            if used[a] or not overloaded(pw, maxw, a):
                continue
            prev[:] = -2
            prev[a] = -1
            head = 0
            tail = 1
            fifo[0] = a
            target = -1
            while head < tail and target < 0:
                p = fifo[head]
                head += 1
                for i in range(nbr_start[p], nbr_start[p + 1]):
                    q = nbr[i]
                    if prev[q] != -2 or used[q]:
                        continue
                    prev[q] = p
                    if fits_in(vwgt, pw, maxw, cand_v[p * k + q, 0], q):
                        target = q
                        break
                    fifo[tail] = q
                    tail += 1
            if target < 0:
                continue
            for w in range(WAVES):
                if not overloaded(pw, maxw, a) or not _wave_fits(vwgt, pw, maxw, cand_v, prev, k, target, w):
                    break
                q = target
                while prev[q] != -1:
                    p = prev[q]
                    v = cand_v[p * k + q, w]
                    move_vertex(vwgt, part, pw, v, q)
                    for e in range(xadj[v], xadj[v + 1]):
                        u = adjncy[e]
                        if not listed[u]:
                            listed[u] = True
                            vertices[nv] = u
                            nv += 1
                    used[p] = True
                    used[q] = True
                    q = p
                moved = True
        if not moved:
            return False
    return not any_overloaded(pw, maxw)


@njit(cache=True)
def _rate_for_balance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, far, v, conn):
    """:func:`rebalance`'s rating of ``v``: ``(target, key)``, target -1 when ``v`` does not move."""
    k = pw.shape[0]
    own = part[v]
    if not overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
        return -1, 0
    if not far and not on_boundary(xadj, adjncy, part, v):
        return -1, 0  # no adjacent part: most vertices, told apart in one early-exit scan
    for e in range(xadj[v], xadj[v + 1]):
        conn[part[adjncy[e]]] += adjwgt[e]
    target = -1
    gain = 0
    for e in range(xadj[v], xadj[v + 1]):
        p = part[adjncy[e]]
        if p != own and fits_in(vwgt, pw, maxw, v, p) and (target < 0 or conn[p] > gain):
            target = p
            gain = conn[p]
    if target < 0 and far:
        room = -1
        for p in range(k):
            if p == own or not fits_in(vwgt, pw, maxw, v, p):
                continue
            r = 0
            for c in range(pw.shape[1]):
                r += maxw[p, c] - pw[p, c]
            if r > room:
                room = r
                target = p
        gain = 0
    internal = conn[own]
    for e in range(xadj[v], xadj[v + 1]):
        conn[part[adjncy[e]]] = 0
    if target < 0:
        return -1, 0
    w = 0
    for c in range(pw.shape[1]):
        w += vwgt[v, c]
    # cut change per unit of weight moved (heavier vertices fix more), in 1/1024 units
    return target, ((gain - internal) << 10) // max(w, 1)


def parallel_rate_for_balance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, far, nchunks=None):
    """One round's ratings of :func:`rebalance` for every vertex, in ``nchunks`` ranges in parallel (default:
    the threads in effect): ``(cand_to, key)`` with ``cand_to[v] = -1`` where ``v`` does not move."""
    n = xadj.size - 1
    cand_to = np.empty(n, dtype=np.int64)
    key = np.empty(n, dtype=np.int64)
    run_ranges(rate_for_balance_in_range, (xadj, adjncy, adjwgt, vwgt, part, pw, maxw, far, cand_to, key), n,
               nchunks)
    return cand_to, key


@njit(cache=True, nogil=True)
def rate_for_balance_in_range(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, far, cand_to, key, lo, hi):
    """:func:`_rate_for_balance` of the vertices ``lo .. hi - 1`` into ``cand_to`` and ``key``."""
    conn = np.zeros(pw.shape[0], dtype=np.int64)
    # borrowed views: no reference counting per call of the rating (partkit._borrow)
    xadj, adjncy, adjwgt, vwgt, part = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(part)
    pw, maxw = borrow(pw), borrow(maxw)
    for v in range(lo, hi):
        cand_to[v], key[v] = _rate_for_balance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, far, v, conn)


@njit(cache=True)
def apply_balance_moves(vwgt, part, pw, maxw, cand_to, key, items, keys, pos, size):
    """One round's moves of :func:`rebalance` from its ratings, best first; returns the number
    moved, or -1 when no vertex was rated (``items, keys, pos, size``: an empty heap, left so)."""
    n = cand_to.size
    for v in range(n):
        if cand_to[v] >= 0:
            heap_set(items, keys, pos, size, v, key[v])
    if size[0] == 0:
        return -1
    moved = 0
    while size[0] > 0:
        v = heap_pop(items, keys, pos, size)
        own = part[v]
        to = cand_to[v]
        if not overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
            continue
        if not fits_in(vwgt, pw, maxw, v, to):
            continue
        move_vertex(vwgt, part, pw, v, to)
        moved += 1
    return moved


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (rate_for_balance_in_range,)
