"""Kernighan-Lin pair-swap refinement of a bisection.

Each pass computes the D-values ``D(v) = external(v) - internal(v)`` and
repeatedly swaps the unlocked pair ``a`` (side 0), ``b`` (side 1) of
largest gain ``D(a) + D(b) - 2 w(a, b)`` among the swaps that keep both
sides within ``maxw``, locks them and updates the D-values of their
neighbours. The pass then keeps the prefix of its swap sequence with the
largest total gain (rolling back the rest); passes repeat while that gain
is positive.

Finding the best pair is exact but avoids the O(n^2) pair scan per step:
the candidates ``a`` are visited in decreasing order of ``D(a)`` and each is
paired with its best partner by one O(n) scan of side 1 (``w(a, b)`` from
the neighbour list of ``a``); the visit stops as soon as ``D(a) + max D(b)``
cannot beat the best pair found. A step therefore costs O(n) times the
(usually tiny) number of candidates visited, and a pass of up to n/2 steps
costs O(n^2): KL is practical up to a few tens of thousands of vertices.
"""

import numpy as np

from partkit._jit import njit
from partkit.multilevel.kernels.initial_fm import edge_degrees, side_weights


@njit(cache=True)
def _swap_fits(pw, maxw, vwgt, a, b):
    for c in range(pw.shape[1]):
        if pw[0, c] - vwgt[a, c] + vwgt[b, c] > maxw[0, c]:
            return False
        if pw[1, c] - vwgt[b, c] + vwgt[a, c] > maxw[1, c]:
            return False
    return True


@njit(cache=True)
def _flip(xadj, adjncy, adjwgt, part, d, v):
    """Move ``v`` to the other side and update the D-values of its neighbours."""
    t = 1 - part[v]
    part[v] = t
    d[v] = -d[v]
    for j in range(xadj[v], xadj[v + 1]):
        u = adjncy[j]
        if part[u] == t:
            d[u] -= 2 * adjwgt[j]
        else:
            d[u] += 2 * adjwgt[j]


@njit(cache=True)
def kl_refine(xadj, adjncy, adjwgt, vwgt, part, maxw, npasses):
    """Refine the bisection ``part`` in place by Kernighan-Lin passes; return the cut.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
        The graph in CSR form.
    vwgt : int64 array, shape (n, ncon)
    part : int64 array, shape (n,)
        0/1 side of every vertex; refined in place.
    maxw : int64 array, shape (2, ncon)
        Maximum weight of each side; only swaps keeping both sides within it
        are made (the start should already respect it).
    npasses : int
        Maximum number of passes.
    """
    n = xadj.size - 1
    ed = np.zeros(n, dtype=np.int64)
    d = np.zeros(n, dtype=np.int64)
    cut = edge_degrees(xadj, adjncy, adjwgt, part, ed, d)
    if n < 2:
        return cut
    wto = np.zeros(n, dtype=np.int64)
    tried = np.full(n, -1, dtype=np.int64)
    free = np.empty((2, n), dtype=np.int64)  # unlocked vertices of each side
    pos = np.empty(n, dtype=np.int64)
    nfree = np.zeros(2, dtype=np.int64)
    swaps = np.empty((n // 2 + 1, 2), dtype=np.int64)
    for _ in range(npasses):
        nfree[:] = 0
        for v in range(n):
            d[v] = ed[v] - d[v]
            s = part[v]
            pos[v] = nfree[s]
            free[s, nfree[s]] = v
            nfree[s] += 1
        pw = side_weights(vwgt, part)
        tried[:] = -1
        total = 0
        best_total = 0
        nbest = 0
        nswaps = 0
        while nfree[0] > 0 and nfree[1] > 0:
            maxb = d[free[1, 0]]
            for i in range(1, nfree[1]):
                maxb = max(maxb, d[free[1, i]])
            best_a = -1
            best_b = -1
            best_gain = 0
            while True:
                a = -1
                for i in range(nfree[0]):
                    v = free[0, i]
                    if tried[v] != nswaps and (a == -1 or d[v] > d[a]):
                        a = v
                if a == -1 or (best_a != -1 and d[a] + maxb <= best_gain):
                    break
                tried[a] = nswaps
                for j in range(xadj[a], xadj[a + 1]):
                    wto[adjncy[j]] = adjwgt[j]
                for i in range(nfree[1]):
                    b = free[1, i]
                    g = d[a] + d[b] - 2 * wto[b]
                    if (best_a == -1 or g > best_gain) and _swap_fits(pw, maxw, vwgt, a, b):
                        best_a = a
                        best_b = b
                        best_gain = g
                for j in range(xadj[a], xadj[a + 1]):
                    wto[adjncy[j]] = 0
            if best_a == -1:
                break
            for side, v in ((0, best_a), (1, best_b)):
                last = free[side, nfree[side] - 1]
                free[side, pos[v]] = last
                pos[last] = pos[v]
                nfree[side] -= 1
            _flip(xadj, adjncy, adjwgt, part, d, best_a)
            _flip(xadj, adjncy, adjwgt, part, d, best_b)
            for c in range(vwgt.shape[1]):
                pw[0, c] += vwgt[best_b, c] - vwgt[best_a, c]
                pw[1, c] += vwgt[best_a, c] - vwgt[best_b, c]
            swaps[nswaps, 0] = best_a
            swaps[nswaps, 1] = best_b
            nswaps += 1
            total += best_gain
            if total > best_total:
                best_total = total
                nbest = nswaps
        for i in range(nswaps - 1, nbest - 1, -1):
            part[swaps[i, 0]] = 0
            part[swaps[i, 1]] = 1
        cut = edge_degrees(xadj, adjncy, adjwgt, part, ed, d)
        if best_total <= 0:
            break
    return cut
