"""Kernels of :mod:`partkit.balance.repartition`: moves with a migration penalty.

Every kernel scores moving vertex ``v`` from part ``a`` to part ``b`` by

    gain = itr * (conn(v, b) - conn(v, a)) + vsize[v] * ([b == home[v]] - [a == home[v]])

where ``conn(v, x)`` is the weight of the edges from ``v`` into part ``x``
and ``home`` the partition before repartitioning: the first term is the
decrease of the edge cut (weighted by ``itr``, the ratio of communication to
redistribution cost, as in ParMETIS), the second the decrease of the
migration volume. Part weights ``pw`` (k, ncon) are kept up to date.
"""

from __future__ import annotations

import numpy as np

from partkit._jit import njit
from partkit.multilevel.kernels.refinement_moves import fits_in, overloaded, part_connections


@njit(cache=True)
def _reset(conn, touched, count):
    for i in range(count):
        conn[touched[i]] = 0


@njit(cache=True)
def _gain(v, a, b, conn, home, vsize, itr):
    g = itr * (conn[b] - conn[a])
    if home[v] == b:
        g += vsize[v]
    elif home[v] == a:
        g -= vsize[v]
    return g


@njit(cache=True)
def _move(v, a, b, vwgt, pw, part):
    part[v] = b
    for c in range(vwgt.shape[1]):
        pw[a, c] -= vwgt[v, c]
        pw[b, c] += vwgt[v, c]


@njit(cache=True)
def _new_heap(n):
    """Empty arrays ``(keys, verts, targets, stamps)`` of the move max-heap (grown by :func:`_push`)."""
    capacity = max(16, n)
    keys = np.empty(capacity, dtype=np.float64)
    verts = np.empty(capacity, dtype=np.int64)
    targets = np.empty(capacity, dtype=np.int64)
    stamps = np.empty(capacity, dtype=np.int64)
    return keys, verts, targets, stamps


@njit(cache=True)
def _push(keys, verts, targets, stamps, size, g, v, b, stamp):
    """Push an entry on the max-heap (growing the arrays when full); returns arrays and size."""
    if size == keys.size:
        keys = np.concatenate((keys, np.empty(keys.size, dtype=keys.dtype)))
        verts = np.concatenate((verts, np.empty(verts.size, dtype=verts.dtype)))
        targets = np.concatenate((targets, np.empty(targets.size, dtype=targets.dtype)))
        stamps = np.concatenate((stamps, np.empty(stamps.size, dtype=stamps.dtype)))
    i = size
    keys[i] = g
    verts[i] = v
    targets[i] = b
    stamps[i] = stamp
    while i > 0:
        parent = (i - 1) // 2
        if keys[parent] > keys[i] or (keys[parent] == keys[i] and verts[parent] <= verts[i]):
            break
        keys[i], keys[parent] = keys[parent], keys[i]
        verts[i], verts[parent] = verts[parent], verts[i]
        targets[i], targets[parent] = targets[parent], targets[i]
        stamps[i], stamps[parent] = stamps[parent], stamps[i]
        i = parent
    return keys, verts, targets, stamps, size + 1


@njit(cache=True)
def _pop(keys, verts, targets, stamps, size):
    """Remove the top entry of the max-heap; returns it and the new size."""
    g, v, b, st = keys[0], verts[0], targets[0], stamps[0]
    size -= 1
    keys[0], verts[0], targets[0], stamps[0] = keys[size], verts[size], targets[size], stamps[size]
    i = 0
    while True:
        left = 2 * i + 1
        best = i
        for c in (left, left + 1):
            if c < size and (keys[c] > keys[best] or (keys[c] == keys[best] and verts[c] < verts[best])):
                best = c
        if best == i:
            break
        keys[i], keys[best] = keys[best], keys[i]
        verts[i], verts[best] = verts[best], verts[i]
        targets[i], targets[best] = targets[best], targets[i]
        stamps[i], stamps[best] = stamps[best], stamps[i]
        i = best
    return g, v, b, st, size


@njit(cache=True)
def flow_moves(xadj, adjncy, adjwgt, vwgt, part, home, vsize, pw, load, flow, itr):
    """Move boundary vertices along a diffusion flow between parts, best gain first.

    ``flow[a, b] > 0`` is the load part ``a`` should send to its neighbour
    part ``b``, ``load[v]`` the load of vertex ``v`` (its weight, or a
    combination of its weights over the constraints). A max-heap holds, for every vertex next to a
    part its own part still owes flow to, the gain of that move; the best
    move is applied if more than half the vertex load is still owed (so the
    residual flow back is below half: a vertex never bounces), then
    the vertex and its neighbours are re-scored (older heap entries are
    recognised as stale by a per-vertex stamp). Moving one vertex at a time
    with updated gains grows the receiving part compactly. ``flow`` is
    consumed in place.

    Returns
    -------
    int
        Number of moves.
    """
    n = xadj.size - 1
    k = flow.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    stamp = np.zeros(n, dtype=np.int64)
    keys, verts, targets, stamps = _new_heap(n)
    size = 0
    for v in range(n):
        a = part[v]
        if load[v] <= 0:
            continue
        count = part_connections(v, xadj, adjncy, adjwgt, part, conn, touched)
        for i in range(count):
            b = touched[i]
            if b != a and 2.0 * flow[a, b] > load[v]:
                g = _gain(v, a, b, conn, home, vsize, itr)
                keys, verts, targets, stamps, size = _push(keys, verts, targets, stamps, size,
                                                           g, v, b, stamp[v])
        _reset(conn, touched, count)
    moves = 0
    while size > 0:
        _, v, b, st, size = _pop(keys, verts, targets, stamps, size)
        a = part[v]
        w = load[v]
        if st != stamp[v] or 2.0 * flow[a, b] <= w:
            continue
        _move(v, a, b, vwgt, pw, part)
        flow[a, b] -= w
        flow[b, a] += w
        moves += 1
        stamp[v] += 1
        for e in range(xadj[v], xadj[v + 1] + 1):
            u = adjncy[e] if e < xadj[v + 1] else v
            if load[u] <= 0:
                continue
            if u != v:
                stamp[u] += 1
            c = part[u]
            count = part_connections(u, xadj, adjncy, adjwgt, part, conn, touched)
            for i in range(count):
                x = touched[i]
                if x != c and 2.0 * flow[c, x] > load[u]:
                    g = _gain(u, c, x, conn, home, vsize, itr)
                    keys, verts, targets, stamps, size = _push(keys, verts, targets, stamps,
                                                               size, g, u, x, stamp[u])
            _reset(conn, touched, count)
    return moves


@njit(cache=True)
def _overload_change(v, a, b, vwgt, pw, maxw):
    """Change of the total relative overload ``sum_c max(0, pw[p, c] - maxw[p, c]) / maxw[p, c]`` of parts ``a`` and ``b``."""
    delta = 0.0
    for c in range(vwgt.shape[1]):
        w = vwgt[v, c]
        if w == 0:
            continue
        if maxw[a, c] > 0:
            delta += (max(0, pw[a, c] - w - maxw[a, c]) - max(0, pw[a, c] - maxw[a, c])) / maxw[a, c]
        if maxw[b, c] > 0:
            delta += (max(0, pw[b, c] + w - maxw[b, c]) - max(0, pw[b, c] - maxw[b, c])) / maxw[b, c]
    return delta


@njit(cache=True)
def balance_moves(xadj, adjncy, adjwgt, vwgt, part, home, vsize, pw, maxw, itr, max_passes):
    """Move vertices out of overweight parts, best gain first, until every part fits.

    Near passes: a vertex of an overweight part goes to the neighbour part
    with the best gain that can take it without exceeding the maxw, if that
    lowers the total overload. When a near pass moves nothing while parts
    are still overweight (full neighbours, or several constraints pulling
    apart), far passes allow any part, adjacent or not, as long as the move
    lowers the total relative overload (summed over parts and constraints),
    which therefore decreases strictly and the loop ends.

    Returns
    -------
    int
        Number of moves.
    """
    n = xadj.size - 1
    k = pw.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    cand_v = np.empty(n, dtype=np.int64)
    cand_b = np.empty(n, dtype=np.int64)
    cand_g = np.empty(n, dtype=np.float64)
    far = False
    total = 0
    for _ in range(max_passes):
        any_over = False
        for a in range(k):
            if overloaded(pw, maxw, a):
                any_over = True
        if not any_over:
            break
        nc = 0
        for v in range(n):
            a = part[v]
            if not overloaded(pw, maxw, a):
                continue
            count = part_connections(v, xadj, adjncy, adjwgt, part, conn, touched)
            best_b = -1
            best_g = -np.inf
            best_d = 0.0
            if not far:
                for i in range(count):
                    b = touched[i]
                    if (b != a and fits_in(vwgt, pw, maxw, v, b)
                            and _overload_change(v, a, b, vwgt, pw, maxw) < 0):
                        g = _gain(v, a, b, conn, home, vsize, itr)
                        if g > best_g:
                            best_g = g
                            best_b = b
            else:
                for b in range(k):
                    if b == a:
                        continue
                    d = _overload_change(v, a, b, vwgt, pw, maxw)
                    if d >= 0:
                        continue
                    g = _gain(v, a, b, conn, home, vsize, itr)
                    if d < best_d - 1e-12 or (d <= best_d + 1e-12 and g > best_g):
                        best_d = d
                        best_g = g
                        best_b = b
            _reset(conn, touched, count)
            if best_b >= 0:
                cand_v[nc] = v
                cand_b[nc] = best_b
                cand_g[nc] = best_g
                nc += 1
        order = np.argsort(-cand_g[:nc], kind="mergesort")
        moves = 0
        for i in order:
            v = cand_v[i]
            a = part[v]
            b = cand_b[i]
            if not overloaded(pw, maxw, a):
                continue
            if _overload_change(v, a, b, vwgt, pw, maxw) >= 0:
                continue
            if not far and not fits_in(vwgt, pw, maxw, v, b):
                continue
            _move(v, a, b, vwgt, pw, part)
            moves += 1
        total += moves
        if moves == 0:
            if far:
                break
            far = True
    return total


@njit(cache=True)
def _best_fitting(v, a, xadj, adjncy, adjwgt, part, home, vsize, vwgt, pw, maxw, itr, conn,
                  touched):
    """Best neighbour part of ``v`` that can take it within the bound: ``(part, gain)`` or ``(-1, 0)``."""
    count = part_connections(v, xadj, adjncy, adjwgt, part, conn, touched)
    best_b = -1
    best_g = 0.0
    for i in range(count):
        b = touched[i]
        if b == a or not fits_in(vwgt, pw, maxw, v, b):
            continue
        g = _gain(v, a, b, conn, home, vsize, itr)
        if best_b < 0 or g > best_g:
            best_g = g
            best_b = b
    _reset(conn, touched, count)
    return best_b, best_g


@njit(cache=True)
def refine_migration(xadj, adjncy, adjwgt, vwgt, part, home, vsize, pw, maxw, itr, order,
                     max_passes, max_stall):
    """k-way Fiduccia-Mattheyses refinement of ``itr * cut + migration`` under the bound.

    Each pass moves, one at a time, the unlocked vertex with the best gain
    (negative gains allowed, to climb out of local minima) to its best
    neighbour part that can take it, locks it and re-scores its neighbours;
    after ``max_stall`` moves without a new best it stops and rolls back to
    the best prefix. No move breaks the bound. Passes repeat while they
    improve. ``order`` (a permutation) breaks ties between equal gains.

    Returns
    -------
    float
        Total decrease of the objective.
    """
    n = xadj.size - 1
    k = pw.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    rank = np.empty(n, dtype=np.int64)
    for i in range(n):
        rank[order[i]] = i
    stamp = np.zeros(n, dtype=np.int64)
    locked = np.zeros(n, dtype=np.bool_)
    log_v = np.empty(n, dtype=np.int64)
    log_a = np.empty(n, dtype=np.int64)
    keys, verts, targets, stamps = _new_heap(n)
    improvement = 0.0
    for _ in range(max_passes):
        size = 0
        locked[:] = False
        for v in order:
            a = part[v]
            b, g = _best_fitting(v, a, xadj, adjncy, adjwgt, part, home, vsize, vwgt, pw, maxw,
                                 itr, conn, touched)
            if b >= 0:
                keys, verts, targets, stamps, size = _push(keys, verts, targets, stamps, size,
                                                           g, rank[v], b, stamp[v])
        nlog = 0
        total = 0.0
        best_total = 0.0
        best_len = 0
        while size > 0 and nlog - best_len < max_stall:
            g, r, b, st, size = _pop(keys, verts, targets, stamps, size)
            v = order[r]
            if locked[v] or st != stamp[v]:
                continue
            a = part[v]
            if not fits_in(vwgt, pw, maxw, v, b):
                # the target filled up since this entry was made: re-score
                stamp[v] += 1
                b, g = _best_fitting(v, a, xadj, adjncy, adjwgt, part, home, vsize, vwgt, pw,
                                     maxw, itr, conn, touched)
                if b >= 0:
                    keys, verts, targets, stamps, size = _push(keys, verts, targets, stamps,
                                                               size, g, r, b, stamp[v])
                continue
            _move(v, a, b, vwgt, pw, part)
            locked[v] = True
            log_v[nlog] = v
            log_a[nlog] = a
            nlog += 1
            total += g
            if total > best_total + 1e-9:
                best_total = total
                best_len = nlog
            for e in range(xadj[v], xadj[v + 1]):
                u = adjncy[e]
                if locked[u]:
                    continue
                stamp[u] += 1
                bu, gu = _best_fitting(u, part[u], xadj, adjncy, adjwgt, part, home, vsize, vwgt,
                                       pw, maxw, itr, conn, touched)
                if bu >= 0:
                    keys, verts, targets, stamps, size = _push(keys, verts, targets, stamps,
                                                               size, gu, rank[u], bu, stamp[u])
        for i in range(nlog - 1, best_len - 1, -1):
            v = log_v[i]
            _move(v, part[v], log_a[i], vwgt, pw, part)
        improvement += best_total
        if best_len == 0:
            break
    return improvement
