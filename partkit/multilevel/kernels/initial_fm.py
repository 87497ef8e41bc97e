"""Two-way Fiduccia-Mattheyses refinement with gain buckets.

:func:`fm_bisection` improves a bisection (a 0/1 ``part`` array) in place.
Each pass moves single vertices, each at most once, always taking a vertex
of highest gain from the bucket queue of one side (see
:mod:`partkit.multilevel.kernels.bucket_queue`); afterwards the pass is rolled back to
its best prefix. "Best" is lexicographic: the least total overweight (sum
over sides and constraints of the weight above ``maxw``, each as a fraction
of its bound, so that constraints of different scales count alike), then the lowest
cut, then the smaller relative difference of the two sides on the first
constraint. Passes repeat until one brings no improvement.

Balance-aware move selection: while the bisection is overweight the pass
moves vertices out of the side that is most overweight (out of the other
side once none of its vertices is left to try), and only moves that reduce
the overweight; once balanced, it takes the side whose best vertex
has the higher gain (the heavier side on ties) and only moves that keep
both sides within ``maxw`` on every constraint. Gains are edge-cut gains.

A pass starts from the boundary vertices (all vertices when the start is
overweight, so that a lopsided split can be repaired) and queues vertices
as they become boundary vertices. It stops after ``max_bad`` consecutive
moves that do not improve the best state. Its cost is O(m) plus the queue
work: each vertex is moved at most once and each move updates its
neighbours in O(1) per edge.
"""

import numpy as np

from partkit._jit import njit
from partkit._random import fill_permutation, subkey
from partkit.multilevel.kernels.refinement_moves import weighted_degree
from partkit.multilevel.kernels.stop_rule import adaptive_stop
from partkit.multilevel.kernels.bucket_queue import (
    _new_bucket_queues, bq_insert, bq_remove, bq_top, bq_update, gain_cap)


@njit(cache=True)
def edge_degrees(xadj, adjncy, adjwgt, part, ed, idg):
    """Fill external/internal weighted degrees of every vertex; return the cut."""
    n = xadj.size - 1
    cut = 0
    for v in range(n):
        e = 0
        i = 0
        pv = part[v]
        for j in range(xadj[v], xadj[v + 1]):
            if part[adjncy[j]] != pv:
                e += adjwgt[j]
            else:
                i += adjwgt[j]
        ed[v] = e
        idg[v] = i
        cut += e
    return cut // 2


@njit(cache=True)
def _max_weighted_degree(xadj, adjwgt):
    """Largest sum of edge weights at one vertex (bounds the FM gains)."""
    maxdeg = np.int64(0)
    for v in range(xadj.size - 1):
        maxdeg = max(maxdeg, weighted_degree(xadj, adjwgt, v))
    return maxdeg


@njit(cache=True)
def side_weights(vwgt, part):
    """Weight of each side per constraint, shape (2, ncon)."""
    n, ncon = vwgt.shape
    pw = np.zeros((2, ncon), dtype=np.int64)
    for v in range(n):
        for c in range(ncon):
            pw[part[v], c] += vwgt[v, c]
    return pw


@njit(cache=True, inline='always')
def _side_overweight(pw, maxw, side, relative):
    """The weight of ``side`` above its bounds, summed over the constraints (with ``relative``, each as a
    fraction of its bound, so that constraints of different scales count alike)."""
    s = 0.0
    for c in range(pw.shape[1]):
        d = pw[side, c] - maxw[side, c]
        if d > 0:
            s += d / max(maxw[side, c], 1) if relative else d
    return s


@njit(cache=True, inline='always')
def overweight(pw, maxw):
    """Total weight above the bounds, over both sides and all constraints."""
    return int(_side_overweight(pw, maxw, 0, False) + _side_overweight(pw, maxw, 1, False))


def fm_refine(xadj, adjncy, adjwgt, vwgt, part, maxw, npasses, max_bad, key, stop_alpha=0.0):
    """FM refinement of a bisection with a bound on fruitless moves per pass.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
        The graph in CSR form with edge weights.
    vwgt : int64 array, shape (n, ncon)
        Vertex weights; balance is checked on every constraint.
    part : int64 array, shape (n,)
        0/1 side of every vertex; refined in place.
    maxw : int64 array, shape (2, ncon)
        Maximum weight of each side per constraint.
    npasses : int
        Maximum number of passes.
    max_bad : int
        A pass stops after this many consecutive moves that do not improve
        its best state.
    key : int
        Random stream (:mod:`partkit._random`) of the order in which
        equal-gain vertices are queued (as try 0 of :func:`bisection_tries`).
    stop_alpha : float, default 0.0
        With more than 0, a pass on a balanced bisection also stops by the
        adaptive rule with this ``alpha``
        (:func:`~partkit.multilevel.kernels.stop_rule.adaptive_stop`).

    Returns
    -------
    int
        The edge cut of the refined bisection.
    """
    ows = np.zeros(1, dtype=np.int64)
    cuts = np.zeros(1, dtype=np.int64)
    bisection_tries(xadj, adjncy, adjwgt, vwgt, maxw, 0, np.zeros(1, dtype=np.int64), key, npasses, max_bad,
                    float(stop_alpha), part[np.newaxis], ows, cuts, False, 0, 1)  # a view: part is refined in place
    return int(cuts[0])


def fm_bisection(xadj, adjncy, adjwgt, vwgt, part, maxw, npasses, key):
    """Refine the bisection ``part`` in place with 2-way FM; return its edge cut.

    Passes stop early after ``max(100, n // 20)`` consecutive moves that do
    not improve the best state; see :func:`fm_refine` for the parameters
    and the move rules.
    """
    n = xadj.size - 1
    return fm_refine(xadj, adjncy, adjwgt, vwgt, part, maxw, npasses, max(100, n // 20), key)


@njit(cache=True)
def grow_bisection(xadj, adjncy, adjwgt, vwgt, start, target0, greedy, key):
    """Grow side 0 from ``start`` until it holds ``target0`` weight (first constraint).

    With ``greedy`` false the region grows in breadth-first order; with
    ``greedy`` true it always adds the frontier vertex whose move to side 0
    reduces the cut the most (greedy graph growing, using a gain bucket
    queue). When the frontier runs dry before the target is reached (a
    disconnected graph), growth restarts from a random vertex of side 1
    (in the order of the permutation drawn from stream ``key``).
    The last vertex is taken only if that brings side 0 closer to the
    target. Returns the 0/1 ``part`` array.
    """
    n = xadj.size - 1
    part = np.ones(n, dtype=np.int64)
    if not greedy:
        _grow_bfs(xadj, adjncy, vwgt, start, target0, key, part, np.empty(n, dtype=np.int64),
                  np.empty(n, dtype=np.int64), np.zeros(n, dtype=np.bool_))
        return part
    if n == 0 or target0 <= 0:
        return part
    order = np.empty(n, dtype=np.int64)
    fill_permutation(order, key)
    next_root = 0
    cap = gain_cap(_max_weighted_degree(xadj, adjwgt))
    head, top, nxt, prv, where, bucket = _new_bucket_queues(n, 1, cap)
    gain = np.zeros(n, dtype=np.int64)
    w0 = 0
    v = start
    while True:
        if v == -1:
            while next_root < n and part[order[next_root]] == 0:
                next_root += 1
            if next_root == n:
                break
            v = order[next_root]
        wv = vwgt[v, 0]
        if w0 + wv > target0 and (w0 + wv - target0) > (target0 - w0):
            break
        part[v] = 0
        w0 += wv
        if w0 >= target0:
            break
        for j in range(xadj[v], xadj[v + 1]):
            u = adjncy[j]
            if part[u] == 0:
                continue
            if where[u] >= 0:
                gain[u] += 2 * adjwgt[j]
                bq_update(head, top, nxt, prv, where, bucket, u, gain[u])
            else:
                g = 0
                for i in range(xadj[u], xadj[u + 1]):
                    g += adjwgt[i] if part[adjncy[i]] == 0 else -adjwgt[i]
                gain[u] = g
                bq_insert(head, top, nxt, prv, where, bucket, 0, u, g)
        v = bq_top(head, top, 0)
        if v != -1:
            bq_remove(head, top, nxt, prv, where, bucket, v)
    return part


@njit(cache=True, inline="always")
def _flip(xadj, adjncy, adjwgt, part, ed, idg, v):
    """Move ``v`` to the other side of the bisection ``part``, updating the external and internal
    weighted degrees ``ed`` and ``idg`` of ``v`` and its neighbours."""
    t = 1 - part[v]
    part[v] = t
    ed[v], idg[v] = idg[v], ed[v]
    for j in range(xadj[v], xadj[v + 1]):
        u = adjncy[j]
        if part[u] == t:
            ed[u] -= adjwgt[j]
            idg[u] += adjwgt[j]
        else:
            ed[u] += adjwgt[j]
            idg[u] -= adjwgt[j]


@njit(cache=True)
def _grow_bfs(xadj, adjncy, vwgt, start, target0, key, part, order, fifo, seen):
    """Breadth-first growth of :func:`grow_bisection` (``greedy`` false) into work arrays.

    Fills ``part`` with the 0/1 bisection; ``order``, ``fifo`` and ``seen``
    are scratch of length n. The random restart order (stream ``key``) is
    only drawn when the frontier runs dry (a disconnected graph).
    """
    n = xadj.size - 1
    part[:] = 1
    if n == 0 or target0 <= 0:
        return
    have_order = False
    seen[:] = False
    next_root = 0
    qhead = 0
    qtail = 0
    w0 = 0
    v = start
    while True:
        if v == -1:
            if not have_order:
                fill_permutation(order, key)
                have_order = True
            while next_root < n and part[order[next_root]] == 0:
                next_root += 1
            if next_root == n:
                break
            v = order[next_root]
        wv = vwgt[v, 0]
        if w0 + wv > target0 and (w0 + wv - target0) > (target0 - w0):
            break
        part[v] = 0
        seen[v] = True
        w0 += wv
        if w0 >= target0:
            break
        for j in range(xadj[v], xadj[v + 1]):
            u = adjncy[j]
            if part[u] != 0 and not seen[u]:
                seen[u] = True
                fifo[qtail] = u
                qtail += 1
        if qhead < qtail:
            v = fifo[qhead]
            qhead += 1
        else:
            v = -1


@njit(cache=True)
def bisection_tries(xadj, adjncy, adjwgt, vwgt, maxw, target0, starts, key, npasses, max_bad, stop_alpha, parts,
                    ows, cuts, grow, first, last):
    """Tries ``first .. last - 1`` of a best-of-several bisection, each refined by 2-way FM.

    With ``grow``, try ``t`` first grows side 0 from ``starts[t]`` to
    ``target0`` weight (as ``grow_bisection(..., starts[t], target0, False,
    subkey(key, t))``) into ``parts[t]``; otherwise ``parts[t]`` is refined
    as given. FM uses ``maxw``, ``npasses``, ``max_bad``, ``stop_alpha``
    (with more than 0, a balanced pass also stops by the adaptive rule of
    :func:`~partkit.multilevel.kernels.stop_rule.adaptive_stop`, ``beta =
    ln n``) and the stream ``subkey(key, t)``; ``ows[t]`` and ``cuts[t]`` receive the overweight
    and cut. A try depends only on its start and stream, so disjoint ranges
    of tries can run on different threads (the kernel releases the GIL; the
    range comes last, as :func:`partkit._threads.run_ranges` passes it); the
    tries of one call share one set of work arrays.

    This is the one compiled entry to the FM passes (:func:`fm_refine` and
    :func:`fm_bisection` call it), and the passes are written out in it, not
    in a kernel of their own: Numba optimizes and compiles a callee again
    inside every kernel that calls it, and the passes are the largest code
    here (as a separate kernel they cost about 0.5 s more of the first
    call's compile). The bucket-queue operations, the balance checks and the
    move are written out too: as functions, the reference counting of their
    array arguments cost more than the moves themselves.
    """
    n = xadj.size - 1
    if n == 0:
        return
    ed = np.zeros(n, dtype=np.int64)
    idg = np.zeros(n, dtype=np.int64)
    locked = np.zeros(n, dtype=np.bool_)
    moves = np.empty(n, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    fifo = np.empty(n, dtype=np.int64)
    seen = np.zeros(n, dtype=np.bool_)
    ncon = vwgt.shape[1]
    beta = np.log(n)
    for trial in range(first, last):
        tkey = subkey(key, trial)
        part = parts[trial]
        if grow:
            _grow_bfs(xadj, adjncy, vwgt, starts[trial], target0, tkey, part, order, fifo, seen)
        # the FM passes on the work arrays above; the cut goes to cuts[trial]
        cut = edge_degrees(xadj, adjncy, adjwgt, part, ed, idg)
        if trial == first:
            # the queues' gain range: the largest weighted degree ed + idg (no pass over the edges of its own)
            maxdeg = np.int64(0)  # not a literal 0: gain_cap compiled a second time, for it
            for v in range(n):
                maxdeg = max(maxdeg, ed[v] + idg[v])
            cap = gain_cap(maxdeg)
            head, top, nxt, prv, where, bucket = _new_bucket_queues(n, 2, cap)
        for npass in range(npasses):
            pw = side_weights(vwgt, part)
            ow0 = _side_overweight(pw, maxw, 0, True)
            ow1 = _side_overweight(pw, maxw, 1, True)
            ow = ow0 + ow1
            repair = ow > 0
            locked[:] = False
            head[:, :] = -1
            top[:] = -1
            where[:] = -1
            fill_permutation(order, subkey(tkey, npass))
            for i in range(n):
                v = order[i]
                if repair or ed[v] > 0:
                    # insert v into queue part[v]
                    q = part[v]
                    bk = min(max(ed[v] - idg[v], -cap), cap) + cap
                    front = head[q, bk]
                    nxt[v] = front
                    prv[v] = -1
                    if front != -1:
                        prv[front] = v
                    head[q, bk] = v
                    where[v] = q
                    bucket[v] = bk
                    if bk > top[q]:
                        top[q] = bk
            best_ow = ow
            best_cut = cut
            best_dev = abs(pw[0, 0] / max(maxw[0, 0], 1) - pw[1, 0] / max(maxw[1, 0], 1))
            nbest = 0
            nmoves = 0
            bad = 0
            total = 0.0  # sum and sum of squares of the cut gains since the best
            squares = 0.0
            while bad < max_bad:
                if ow > 0:
                    # the more overweight side first; with several constraints its moves may all raise the
                    # other side's overweight, which the other side's moves may then lower
                    s = 0 if ow0 >= ow1 else 1
                    for _ in range(2):
                        bk = top[s]
                        while bk >= 0 and head[s, bk] == -1:
                            bk -= 1
                        top[s] = bk
                        if bk >= 0:
                            break
                        s = 1 - s
                    if bk < 0:
                        break
                    v = head[s, bk]
                    locked[v] = True
                    t = 1 - s
                    after = 0.0
                    for c in range(ncon):
                        after += max(pw[s, c] - vwgt[v, c] - maxw[s, c], 0) / max(maxw[s, c], 1)
                        after += max(pw[t, c] + vwgt[v, c] - maxw[t, c], 0) / max(maxw[t, c], 1)
                    move_it = after < ow - 1e-12
                else:
                    bk = top[0]
                    while bk >= 0 and head[0, bk] == -1:
                        bk -= 1
                    top[0] = bk
                    v0 = -1 if bk < 0 else head[0, bk]
                    bk = top[1]
                    while bk >= 0 and head[1, bk] == -1:
                        bk -= 1
                    top[1] = bk
                    v1 = -1 if bk < 0 else head[1, bk]
                    if v0 == -1 and v1 == -1:
                        break
                    if v0 == -1:
                        front, second = v1, -1
                    elif v1 == -1:
                        front, second = v0, -1
                    else:
                        g0 = ed[v0] - idg[v0]
                        g1 = ed[v1] - idg[v1]
                        heavier0 = maxw[0, 0] - pw[0, 0] <= maxw[1, 0] - pw[1, 0]
                        if g0 > g1 or (g0 == g1 and heavier0):
                            front, second = v0, v1
                        else:
                            front, second = v1, v0
                    v = front
                    move_it = True
                    to = 1 - part[v]
                    for c in range(ncon):
                        if pw[to, c] + vwgt[v, c] > maxw[to, c]:
                            move_it = False
                            break
                    if not move_it and second != -1:
                        to = 1 - part[second]
                        move_it = True
                        for c in range(ncon):
                            if pw[to, c] + vwgt[second, c] > maxw[to, c]:
                                move_it = False
                                break
                        if move_it:
                            v = second
                    locked[v] = True
                # remove v from its queue
                q = where[v]
                bk = bucket[v]
                pv = prv[v]
                sv = nxt[v]
                if pv != -1:
                    nxt[pv] = sv
                else:
                    head[q, bk] = sv
                if sv != -1:
                    prv[sv] = pv
                where[v] = -1
                if not move_it:
                    continue
                # move v to the other side
                s = part[v]
                t = 1 - s
                gain = ed[v] - idg[v]
                cut -= gain
                part[v] = t
                tmp = ed[v]
                ed[v] = idg[v]
                idg[v] = tmp
                for c in range(ncon):
                    pw[s, c] -= vwgt[v, c]
                    pw[t, c] += vwgt[v, c]
                for j in range(xadj[v], xadj[v + 1]):
                    u = adjncy[j]
                    w = adjwgt[j]
                    if part[u] == t:
                        ed[u] -= w
                        idg[u] += w
                    else:
                        ed[u] += w
                        idg[u] -= w
                    if locked[u]:
                        continue
                    qu = where[u]
                    if qu < 0 and ed[u] <= 0:
                        continue
                    nb = min(max(ed[u] - idg[u], -cap), cap) + cap
                    if qu >= 0:
                        if nb == bucket[u]:
                            continue
                        # remove u from its bucket
                        bk = bucket[u]
                        pu = prv[u]
                        su = nxt[u]
                        if pu != -1:
                            nxt[pu] = su
                        else:
                            head[qu, bk] = su
                        if su != -1:
                            prv[su] = pu
                    else:
                        qu = part[u]
                    # insert u into queue qu at bucket nb
                    front = head[qu, nb]
                    nxt[u] = front
                    prv[u] = -1
                    if front != -1:
                        prv[front] = u
                    head[qu, nb] = u
                    where[u] = qu
                    bucket[u] = nb
                    if nb > top[qu]:
                        top[qu] = nb
                moves[nmoves] = v
                nmoves += 1
                ow0 = _side_overweight(pw, maxw, 0, True)
                ow1 = _side_overweight(pw, maxw, 1, True)
                ow = ow0 + ow1
                dev = abs(pw[0, 0] / max(maxw[0, 0], 1) - pw[1, 0] / max(maxw[1, 0], 1))
                if (ow < best_ow or (ow == best_ow and cut < best_cut)
                        or (ow == best_ow and cut == best_cut and dev < best_dev - 1e-12)):
                    best_ow = ow
                    best_cut = cut
                    best_dev = dev
                    nbest = nmoves
                    bad = 0
                    total = 0.0
                    squares = 0.0
                else:
                    bad += 1
                    total += gain
                    squares += gain * gain
                    if stop_alpha > 0 and ow == 0 and adaptive_stop(bad, total, squares, stop_alpha, beta):
                        break
            # roll back to the best prefix, undoing the degree updates of every undone move
            for i in range(nmoves - 1, nbest - 1, -1):
                _flip(xadj, adjncy, adjwgt, part, ed, idg, moves[i])
            cut = best_cut
            if nbest == 0:
                break
        cuts[trial] = cut
        ows[trial] = overweight(side_weights(vwgt, part), maxw)
