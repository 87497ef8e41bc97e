"""Vertex-separator kernels: grown bisection, König cover of the cut, node FM.

A separator is stored as ``where[v]`` in {0, 1, 2}: sides A (0), B (1) and
the separator S (2); no edge may join A and B. ``maxside`` bounds the weight
of A and of B.
"""

import numpy as np

from partkit._jit import njit
from partkit._random import shuffle, subkey

from partkit._heap import heap_clear, heap_push, heap_remove, heap_set
from partkit._lists import append_neighbours


@njit(cache=True)
def side_weights(vwgt, where):
    """Weights of A, B and S."""
    pw = np.zeros(3, np.int64)
    for v in range(where.size):
        pw[where[v]] += vwgt[v]
    return pw


@njit(cache=True)
def grow_bisection(xadj, adjncy, vwgt, order):
    """Breadth-first growth of side 0 from ``order[0]`` to half the weight (side 1 is the rest).

    When the growing region runs out of neighbours (disconnected graph) the
    next untouched vertex of ``order`` starts a new region.
    """
    n = xadj.size - 1
    where = np.ones(n, np.int64)
    touched = np.zeros(n, np.bool_)
    queue = np.empty(n, np.int64)
    half = vwgt.sum() // 2
    grown = 0
    first = last = 0
    scan = 0
    while grown < half:
        if first == last:
            while touched[order[scan]]:
                scan += 1
            queue[last] = order[scan]
            touched[order[scan]] = True
            last += 1
        v = queue[first]
        first += 1
        where[v] = 0
        grown += vwgt[v]
        last = append_neighbours(xadj, adjncy, v, touched, queue, last)
    return where


@njit(cache=True)
def cover_cut(xadj, adjncy, where):
    """Turn an edge bisection (0/1) into a vertex separator, in place.

    The cut edges form a bipartite graph between the boundary vertices of
    the two sides; its minimum vertex cover (König: from a maximum matching,
    the left vertices not reachable by alternating paths from free left
    vertices plus the right vertices that are) becomes S.
    """
    n = xadj.size - 1
    mate = np.full(n, -1, np.int64)
    left = np.empty(n, np.int64)
    nleft = 0
    for v in range(n):
        if where[v] != 0:
            continue
        for p in range(xadj[v], xadj[v + 1]):
            if where[adjncy[p]] == 1:
                left[nleft] = v
                nleft += 1
                break
    for i in range(nleft):  # greedy start
        v = left[i]
        for p in range(xadj[v], xadj[v + 1]):
            u = adjncy[p]
            if where[u] == 1 and mate[u] == -1:
                mate[u] = v
                mate[v] = u
                break
    stamp = np.full(n, -1, np.int64)
    stack = np.empty(n, np.int64)
    it = np.empty(n, np.int64)
    for i in range(nleft):  # augmenting paths by depth-first search
        root = left[i]
        if mate[root] != -1:
            continue
        top = 0
        stack[0] = root
        it[root] = xadj[root]
        while top >= 0:
            v = stack[top]
            found = -1
            while it[v] < xadj[v + 1]:
                u = adjncy[it[v]]
                it[v] += 1
                if where[u] == 1 and stamp[u] != root:
                    stamp[u] = root
                    if mate[u] == -1:
                        found = u
                        break
                    w = mate[u]
                    top += 1
                    stack[top] = w
                    it[w] = xadj[w]
                    break
            if found != -1:
                u = found
                while top >= 0:
                    v = stack[top]
                    previous = mate[v]
                    mate[v] = u
                    mate[u] = v
                    u = previous
                    top -= 1
                break
            if stack[top] == v and it[v] >= xadj[v + 1]:
                top -= 1
    reached = np.zeros(n, np.bool_)  # alternating reachability from free left vertices
    queue = np.empty(n, np.int64)
    last = 0
    for i in range(nleft):
        v = left[i]
        if mate[v] == -1:
            reached[v] = True
            queue[last] = v
            last += 1
    first = 0
    while first < last:
        v = queue[first]
        first += 1
        for p in range(xadj[v], xadj[v + 1]):
            u = adjncy[p]
            if where[u] == 1 and not reached[u]:
                reached[u] = True
                w = mate[u]
                if w != -1 and not reached[w]:
                    reached[w] = True
                    queue[last] = w
                    last += 1
    for i in range(nleft):
        v = left[i]
        if not reached[v]:
            where[v] = 2
    for v in range(n):
        if where[v] == 1 and reached[v]:
            where[v] = 2


@njit(cache=True)
def _excess(pw, maxside):
    return max(0, max(pw[0], pw[1]) - maxside)


@njit(cache=True)
def node_fm(xadj, adjncy, vwgt, where, maxside, npasses, onesided, seed, heap0, heap1):
    """FM refinement of a vertex separator, in place (METIS's FM_2WayNodeRefine1Sided/2Sided).

    A move takes a separator vertex v to side ``to`` and pulls its
    neighbours on the other side into S; its gain is ``vwgt[v]`` minus the
    weight pulled. Each pass moves vertices by highest gain, each at most
    once, then rolls back to the best prefix: smallest excess over
    ``maxside``, then smallest S, then smallest weight difference of A and B.
    Two-sided passes pick the side by gain (keeping ``to`` within
    ``maxside``; the lighter side while unbalanced); one-sided passes move
    towards one side, alternating, and stop after a pass towards the second
    side without gain. Separator vertices enter the queues in a random
    order (``seed``) so that ties are broken randomly. Returns the side
    weights.
    """
    n = xadj.size - 1
    pw = side_weights(vwgt, where)
    ed = np.zeros((n, 2), np.int64)  # weight of a separator vertex's neighbours in A and B
    moved = np.full(n, -1, np.int64)
    swaps = np.empty(n, np.int64)
    pulled = np.empty(adjncy.size + 1, np.int64)  # a move pulls at most its degree
    mptr = np.empty(n + 1, np.int64)
    seps = np.empty(n, np.int64)
    heaps = (heap0, heap1)
    fixed = 0 if pw[0] < pw[1] else 1
    for npass in range(2 * npasses if onesided else npasses):
        fixed = 1 - fixed
        nsep = 0
        for v in range(n):
            moved[v] = -1
            if where[v] == 2:
                seps[nsep] = v
                nsep += 1
        shuffle(seps, nsep, subkey(seed, npass))
        for t in range(nsep):
            v = seps[t]
            ed[v, 0] = 0
            ed[v, 1] = 0
            for p in range(xadj[v], xadj[v + 1]):
                u = adjncy[p]
                if where[u] != 2:
                    ed[v, where[u]] += vwgt[u]
            if not onesided or fixed == 0:
                heap_push(heap0[0], heap0[1], heap0[2], heap0[3], v, vwgt[v] - ed[v, 1])
            if not onesided or fixed == 1:
                heap_push(heap1[0], heap1[1], heap1[2], heap1[3], v, vwgt[v] - ed[v, 0])
        limit = min(max(3 * nsep, 20), 300)
        best_excess = _excess(pw, maxside)
        best_sep = pw[2]
        best_diff = abs(pw[0] - pw[1])
        best = 0
        nswaps = 0
        npulled = 0
        mptr[0] = 0
        while True:
            size0 = heap0[3][0]
            size1 = heap1[3][0]
            if size0 == 0 and size1 == 0:
                break
            if onesided:
                to = fixed
                if pw[to] + vwgt[heaps[to][0][0]] > maxside and pw[to] >= pw[1 - to]:
                    break
            elif max(pw[0], pw[1]) > maxside:
                to = 0 if pw[0] < pw[1] else 1
                if heaps[to][3][0] == 0:
                    break
            elif size0 > 0 and size1 > 0:
                g0 = heap0[1][0]
                g1 = heap1[1][0]
                to = 0 if g0 > g1 else (1 if g0 < g1 else (0 if pw[0] <= pw[1] else 1))
                if pw[to] + vwgt[heaps[to][0][0]] > maxside:
                    to = 1 - to
                    if pw[to] + vwgt[heaps[to][0][0]] > maxside:
                        break
            elif size0 > 0 and pw[0] + vwgt[heap0[0][0]] <= maxside:
                to = 0
            elif size1 > 0 and pw[1] + vwgt[heap1[0][0]] <= maxside:
                to = 1
            else:
                break
            other = 1 - to
            hto = heaps[to]
            hot = heaps[other]
            v = hto[0][0]
            heap_remove(hto[0], hto[1], hto[2], hto[3], v)
            if hot[2][v] != -1:
                heap_remove(hot[0], hot[1], hot[2], hot[3], v)
            where[v] = to
            pw[2] -= vwgt[v]
            pw[to] += vwgt[v]
            moved[v] = nswaps
            swaps[nswaps] = v
            for p in range(xadj[v], xadj[v + 1]):
                k = adjncy[p]
                if where[k] == 2:
                    ed[k, to] += vwgt[v]
                    if hot[2][k] != -1:
                        heap_set(hot[0], hot[1], hot[2], hot[3], k, vwgt[k] - ed[k, to])
                elif where[k] == other:
                    where[k] = 2
                    pw[other] -= vwgt[k]
                    pw[2] += vwgt[k]
                    pulled[npulled] = k
                    npulled += 1
                    ed[k, 0] = 0
                    ed[k, 1] = 0
                    for q in range(xadj[k], xadj[k + 1]):
                        kk = adjncy[q]
                        if where[kk] != 2:
                            ed[k, where[kk]] += vwgt[kk]
                        else:
                            ed[kk, other] -= vwgt[k]
                            if hto[2][kk] != -1:
                                heap_set(hto[0], hto[1], hto[2], hto[3], kk, vwgt[kk] - ed[kk, other])
                    if moved[k] == -1:
                        heap_push(hto[0], hto[1], hto[2], hto[3], k, vwgt[k] - ed[k, other])
                        moved[k] = -2
            nswaps += 1
            mptr[nswaps] = npulled
            excess = _excess(pw, maxside)
            diff = abs(pw[0] - pw[1])
            if (excess < best_excess or (excess == best_excess and (
                    pw[2] < best_sep or (pw[2] == best_sep and diff < best_diff)))):
                best_excess, best_sep, best_diff, best = excess, pw[2], diff, nswaps
            elif nswaps - best > 3 * limit or (nswaps - best > limit and pw[2] > 1.1 * best_sep):
                break
        heap_clear(heap0[0], heap0[1], heap0[2], heap0[3])
        heap_clear(heap1[0], heap1[1], heap1[2], heap1[3])
        for s in range(nswaps - 1, best - 1, -1):  # roll back to the best prefix
            v = swaps[s]
            to = where[v]
            other = 1 - to
            where[v] = 2
            pw[to] -= vwgt[v]
            pw[2] += vwgt[v]
            for i in range(mptr[s], mptr[s + 1]):
                k = pulled[i]
                where[k] = other
                pw[2] -= vwgt[k]
                pw[other] += vwgt[k]
        if best == 0 and (npass % 2 == 1 or not onesided):
            break
    return pw


@njit(cache=True)
def separator_better(pw, best_pw, maxside):
    """Whether side weights ``pw`` beat ``best_pw``: less excess, then smaller S, then better balance."""
    e, be = _excess(pw, maxside), _excess(best_pw, maxside)
    if e != be:
        return e < be
    if pw[2] != best_pw[2]:
        return pw[2] < best_pw[2]
    return abs(pw[0] - pw[1]) < abs(best_pw[0] - best_pw[1])


@njit(cache=True)
def initial_separator(xadj, adjncy, vwgt, maxside, orders, npasses, onesided, seed, heap0, heap1):
    """Best separator over the grown bisections starting from each row of ``orders``.

    Each start is grown to half the weight, its cut covered (:func:`cover_cut`)
    and refined by :func:`node_fm`.
    """
    best = np.empty(0, np.int64)
    best_pw = np.zeros(3, np.int64)
    for t in range(orders.shape[0]):
        where = grow_bisection(xadj, adjncy, vwgt, orders[t])
        cover_cut(xadj, adjncy, where)
        pw = node_fm(xadj, adjncy, vwgt, where, maxside, npasses, onesided, subkey(seed, t), heap0, heap1)
        if t == 0 or separator_better(pw, best_pw, maxside):
            best = where
            best_pw = pw
    return best
