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

from partkit.multilevel.kernels.heap import heap_push, heap_remove
from partkit.multilevel.kernels.refinement_moves import fits_in, move_vertex, overloaded


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
    k = pw.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    cand_to = np.empty(n, dtype=np.int64)
    heap = np.empty(n, dtype=np.int64)
    key = np.empty(n, dtype=np.int64)
    pos = np.full(n, -1, dtype=np.int64)
    for _ in range(max_rounds):
        any_over = False
        for p in range(k):
            if overloaded(pw, maxw, p):
                any_over = True
                break
        if not any_over:
            return True
        size = 0
        for v in range(n):
            own = part[v]
            if not overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
                continue
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
                continue
            w = 0
            for c in range(pw.shape[1]):
                w += vwgt[v, c]
            cand_to[v] = target
            # cut change per unit of weight moved (heavier vertices fix more), in 1/1024 units
            size = heap_push(heap, key, pos, size, v, ((gain - internal) << 10) // max(w, 1))
        if size == 0:
            return False
        moved = 0
        while size > 0:
            v = heap[0]
            size = heap_remove(heap, key, pos, size, v)
            own = part[v]
            to = cand_to[v]
            if not overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
                continue
            if not fits_in(vwgt, pw, maxw, v, to):
                continue
            move_vertex(vwgt, part, pw, v, to)
            moved += 1
        if moved == 0:
            return False
    for p in range(k):
        if overloaded(pw, maxw, p):
            return False
    return True


@njit(cache=True)
def _best_crossings(xadj, adjncy, adjwgt, part, k, best_v, best_g, conn, touched):
    """For every ordered pair of parts ``(a, b)``, the vertex of ``a`` whose move to ``b``
    gains the most cut (``best_v[a * k + b]``, -1 if ``a`` does not touch ``b``)."""
    best_v[:] = -1
    for v in range(xadj.size - 1):
        a = part[v]
        nt = 0
        for e in range(xadj[v], xadj[v + 1]):
            p = part[adjncy[e]]
            if conn[p] == 0:
                touched[nt] = p
                nt += 1
            conn[p] += adjwgt[e]
        internal = conn[a]
        for t in range(nt):
            b = touched[t]
            g = conn[b] - internal
            conn[b] = 0
            if b == a:
                continue
            idx = a * k + b
            if best_v[idx] < 0 or g > best_g[idx]:
                best_v[idx] = v
                best_g[idx] = g
        conn[a] = 0


@njit(cache=True)
def _path_fits(vwgt, pw, maxw, best_v, prev, k, target):
    """Whether moving one vertex per hop along the path ending at ``target`` keeps every
    inner part of the path within its bound (or no heavier than before)."""
    q = target
    w_in = -1
    while prev[q] != -1:
        p = prev[q]
        v = best_v[p * k + q]
        if w_in >= 0:
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

    Every round finds, for each pair of adjacent parts, the vertex whose
    move between them gains the most cut; then, for every overloaded part,
    a shortest path (breadth-first over the quotient graph of parts) to a
    part that can take the last vertex, and moves one vertex per hop. The
    parts of a path are not reused in the same round. Stops when every
    part meets ``maxw``, when a round moves nothing, or after
    ``max_rounds`` rounds.

    Returns
    -------
    bool
        True when the partition is balanced at the end.
    """
    k = pw.shape[0]
    best_v = np.full(k * k, -1, dtype=np.int64)
    best_g = np.zeros(k * k, dtype=np.int64)
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    prev = np.empty(k, dtype=np.int64)
    fifo = np.empty(k, dtype=np.int64)
    used = np.zeros(k, dtype=np.bool_)
    for _ in range(max_rounds):
        any_over = False
        for p in range(k):
            if overloaded(pw, maxw, p):
                any_over = True
                break
        if not any_over:
            return True
        _best_crossings(xadj, adjncy, adjwgt, part, k, best_v, best_g, conn, touched)
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
                for q in range(k):
                    if prev[q] != -2 or used[q] or best_v[p * k + q] < 0:
                        continue
                    prev[q] = p
                    if fits_in(vwgt, pw, maxw, best_v[p * k + q], q):
                        target = q
                        break
                    fifo[tail] = q
                    tail += 1
            if target < 0 or not _path_fits(vwgt, pw, maxw, best_v, prev, k, target):
                continue
            q = target
            while prev[q] != -1:
                p = prev[q]
                move_vertex(vwgt, part, pw, best_v[p * k + q], q)
                used[p] = True
                used[q] = True
                q = p
            moved = True
        if not moved:
            return False
    for p in range(k):
        if overloaded(pw, maxw, p):
            return False
    return True
