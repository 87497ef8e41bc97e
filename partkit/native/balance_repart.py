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
from numba import njit


@njit(cache=True)
def _connectivity(v, xadj, adjncy, adjwgt, part, conn, touched):
    """Accumulate the edge weight from ``v`` into each part; returns how many parts were touched."""
    count = 0
    for e in range(xadj[v], xadj[v + 1]):
        x = part[adjncy[e]]
        if conn[x] == 0:
            touched[count] = x
            count += 1
        conn[x] += adjwgt[e]
    return count


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
def _fits(b, v, vwgt, pw, bound):
    for c in range(vwgt.shape[1]):
        if pw[b, c] + vwgt[v, c] > bound[c]:
            return False
    return True


@njit(cache=True)
def _overweight(a, pw, bound):
    for c in range(pw.shape[1]):
        if pw[a, c] > bound[c]:
            return True
    return False


@njit(cache=True)
def _move(v, a, b, vwgt, pw, part):
    part[v] = b
    for c in range(vwgt.shape[1]):
        pw[a, c] -= vwgt[v, c]
        pw[b, c] += vwgt[v, c]


@njit(cache=True)
def flow_moves(xadj, adjncy, adjwgt, vwgt, part, home, vsize, pw, flow, itr, max_passes):
    """Move boundary vertices along a diffusion flow between parts.

    ``flow[a, b] > 0`` is the weight (constraint 0) part ``a`` should send to
    its neighbour part ``b``. Each pass collects, for every vertex, its best
    target among the neighbour parts that still owe enough flow (at least
    half the vertex weight), then applies the moves in decreasing gain
    order while the flow lasts. Passes repeat (reaching deeper layers) until
    the flow is spent or nothing moves. ``flow`` is consumed in place.

    Returns
    -------
    int
        Number of moves.
    """
    n = xadj.size - 1
    k = flow.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    cand_v = np.empty(n, dtype=np.int64)
    cand_b = np.empty(n, dtype=np.int64)
    cand_g = np.empty(n, dtype=np.float64)
    total = 0
    for _ in range(max_passes):
        nc = 0
        for v in range(n):
            w = vwgt[v, 0]
            if w <= 0:
                continue
            a = part[v]
            count = _connectivity(v, xadj, adjncy, adjwgt, part, conn, touched)
            best_b = -1
            best_g = -np.inf
            for i in range(count):
                b = touched[i]
                if b != a and 2.0 * flow[a, b] >= w:
                    g = _gain(v, a, b, conn, home, vsize, itr)
                    if g > best_g:
                        best_g = g
                        best_b = b
            _reset(conn, touched, count)
            if best_b >= 0:
                cand_v[nc] = v
                cand_b[nc] = best_b
                cand_g[nc] = best_g
                nc += 1
        if nc == 0:
            break
        order = np.argsort(-cand_g[:nc], kind="mergesort")
        moves = 0
        for i in order:
            v = cand_v[i]
            a = part[v]
            b = cand_b[i]
            w = vwgt[v, 0]
            if 2.0 * flow[a, b] >= w:
                _move(v, a, b, vwgt, pw, part)
                flow[a, b] -= w
                flow[b, a] += w
                moves += 1
        total += moves
        if moves == 0:
            break
    return total


@njit(cache=True)
def balance_moves(xadj, adjncy, adjwgt, vwgt, part, home, vsize, pw, bound, itr, max_passes):
    """Move vertices out of overweight parts, best gain first, until every part fits.

    A vertex of an overweight part goes to the neighbour part with the best
    gain that can take it. When a pass moves nothing while parts are still
    overweight (their neighbours are full), later passes also allow the
    lightest part that can take the vertex, adjacent or not.

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
            if _overweight(a, pw, bound):
                any_over = True
        if not any_over:
            break
        nc = 0
        for v in range(n):
            a = part[v]
            if not _overweight(a, pw, bound):
                continue
            count = _connectivity(v, xadj, adjncy, adjwgt, part, conn, touched)
            best_b = -1
            best_g = -np.inf
            for i in range(count):
                b = touched[i]
                if b != a and _fits(b, v, vwgt, pw, bound):
                    g = _gain(v, a, b, conn, home, vsize, itr)
                    if g > best_g:
                        best_g = g
                        best_b = b
            if best_b < 0 and far:
                lightest = -1
                for b in range(k):
                    if b != a and _fits(b, v, vwgt, pw, bound):
                        if lightest < 0 or pw[b, 0] < pw[lightest, 0]:
                            lightest = b
                if lightest >= 0:
                    best_b = lightest
                    best_g = _gain(v, a, lightest, conn, home, vsize, itr)
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
            if _overweight(a, pw, bound) and _fits(b, v, vwgt, pw, bound):
                _move(v, a, b, vwgt, pw, part)
                moves += 1
        total += moves
        if moves == 0:
            if far:
                break
            far = True
    return total


@njit(cache=True)
def refine_migration(xadj, adjncy, adjwgt, vwgt, part, home, vsize, pw, bound, itr, order,
                     max_passes):
    """Greedy k-way refinement of ``itr * cut + migration`` under the balance bound.

    Vertices are visited in ``order``; a boundary vertex moves to the
    neighbour part with the best positive gain that can take it (a zero
    gain is accepted only when it makes the two parts more even). No move
    breaks the bound. Stops after a pass without moves.

    Returns
    -------
    int
        Number of moves.
    """
    k = pw.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    total = 0
    for _ in range(max_passes):
        moves = 0
        for v in order:
            a = part[v]
            count = _connectivity(v, xadj, adjncy, adjwgt, part, conn, touched)
            best_b = -1
            best_g = 0.0
            for i in range(count):
                b = touched[i]
                if b == a or not _fits(b, v, vwgt, pw, bound):
                    continue
                g = _gain(v, a, b, conn, home, vsize, itr)
                if g > best_g or (g == best_g and pw[b, 0] + vwgt[v, 0] < pw[a, 0]
                                  and (best_b < 0 or pw[b, 0] < pw[best_b, 0])):
                    best_g = g
                    best_b = b
            _reset(conn, touched, count)
            if best_b >= 0:
                _move(v, a, best_b, vwgt, pw, part)
                moves += 1
        total += moves
        if moves == 0:
            break
    return total
