"""Placement of the parts of a quotient graph on processing elements: greedy construction and swaps.

The quotient graph is CSR (``qptr``, ``qidx``, ``qw``: the weight between
two parts), ``dist`` the machine's ``(k, k)`` distance matrix and ``pe``
the processing element of every part. The cost of a placement is
``sum over quotient edges {a, b} of qw * dist[pe[a], pe[b]]``.
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def swap_delta(qptr, qidx, qw, dist, pe, a, b):
    """Change of the cost if parts ``a`` and ``b`` exchange their processing elements."""
    pa, pb = pe[a], pe[b]
    delta = 0.0
    for e in range(qptr[a], qptr[a + 1]):
        j = qidx[e]
        if j != b:
            delta += qw[e] * (dist[pb, pe[j]] - dist[pa, pe[j]])
    for e in range(qptr[b], qptr[b + 1]):
        j = qidx[e]
        if j != a:
            delta += qw[e] * (dist[pa, pe[j]] - dist[pb, pe[j]])
    return delta


@njit(cache=True)
def swap_round(qptr, qidx, qw, dist, pe):
    """One round of swaps: every part in turn takes the exchange that lowers the cost most.

    Returns the total decrease of the cost (0 when no exchange helps).
    """
    k = pe.size
    gained = 0.0
    for a in range(k):
        if qptr[a] == qptr[a + 1]:
            continue  # a part that talks to nobody gains nothing by moving
        best, best_b = -1e-9, -1
        for b in range(k):
            if b != a:
                delta = swap_delta(qptr, qidx, qw, dist, pe, a, b)
                if delta < best:
                    best, best_b = delta, b
        if best_b >= 0:
            pe[a], pe[best_b] = pe[best_b], pe[a]
            gained -= best
    return gained


@njit(cache=True)
def greedy_placement(qptr, qidx, qw, dist):
    """Place parts one by one: next the part that talks most to the placed ones, on the free PE closest to them.

    The first part is the one with the largest communication, on the PE with
    the smallest total distance to all others (the centre of the machine).
    """
    k = qptr.size - 1
    pe = np.full(k, -1, dtype=np.int64)
    free = np.ones(k, dtype=np.bool_)
    pull = np.zeros(k)  # communication of every unplaced part with the placed ones
    volume = np.zeros(k)
    for a in range(k):
        for e in range(qptr[a], qptr[a + 1]):
            volume[a] += qw[e]
    centre = np.argmin(dist.sum(axis=1))
    for step in range(k):
        a = -1
        for b in range(k):
            if pe[b] < 0 and (a < 0 or pull[b] > pull[a] or (pull[b] == pull[a] and volume[b] > volume[a])):
                a = b
        if step == 0:
            target = centre
        else:
            target, best = -1, np.inf
            for p in range(k):
                if free[p]:
                    cost = 0.0
                    for e in range(qptr[a], qptr[a + 1]):
                        j = qidx[e]
                        if pe[j] >= 0:
                            cost += qw[e] * dist[p, pe[j]]
                    if cost < best:
                        target, best = p, cost
        pe[a] = target
        free[target] = False
        for e in range(qptr[a], qptr[a + 1]):
            pull[qidx[e]] += qw[e]
    return pe
