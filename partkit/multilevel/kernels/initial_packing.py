"""Connected components, and packing whole components into parts (no edge is cut)."""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def pack_largest_first(cw, order, maxw, pw):
    """Put components into parts, heaviest first, each into the lightest part it fits.

    Parameters
    ----------
    cw : int64 array, shape (ncomp, ncon)
        Weight of every component.
    order : int64 array, shape (ncomp,)
        Components from heaviest to lightest.
    maxw : int64 array, shape (k, ncon)
        The bound of every part.
    pw : int64 array, shape (k, ncon)
        The weight already in every part; updated in place.

    Returns
    -------
    where : int64 array, shape (ncomp,)
        The part of every component, or -1 for a component that fits in no part.
    """
    k, ncon = maxw.shape
    where = np.full(cw.shape[0], -1, dtype=np.int64)
    for i in range(order.size):
        comp = order[i]
        best = -1
        best_load = 0.0
        for p in range(k):
            fits = True
            load = 0.0
            for c in range(ncon):
                if pw[p, c] + cw[comp, c] > maxw[p, c]:
                    fits = False
                    break
                load += pw[p, c] / max(maxw[p, c], 1)
            if fits and (best < 0 or load < best_load):
                best = p
                best_load = load
        if best >= 0:
            where[comp] = best
            for c in range(ncon):
                pw[best, c] += cw[comp, c]
    return where


#: The ``part`` of :func:`component_labels` that joins along every edge.
EVERY_EDGE = np.empty(0, dtype=np.int64)
EVERY_EDGE.flags.writeable = False


@njit(cache=True)
def component_labels(xadj, adjncy, part):
    """Label the connected components by breadth-first search: ``(ncomp, labels)``.

    With a non-empty ``part`` only the edges inside a part join vertices (the
    pieces of the parts); an empty one (:data:`EVERY_EDGE`) takes every edge.
    Components are numbered in the order of their smallest vertex.
    """
    n = xadj.size - 1
    within = part.size > 0
    labels = np.full(n, -1, dtype=np.int64)
    fifo = np.empty(n, dtype=np.int64)
    ncomp = 0
    for root in range(n):
        if labels[root] >= 0:
            continue
        labels[root] = ncomp
        fifo[0] = root
        head = 0
        tail = 1
        while head < tail:
            v = fifo[head]
            head += 1
            for e in range(xadj[v], xadj[v + 1]):
                u = adjncy[e]
                if labels[u] < 0 and (not within or part[u] == part[v]):
                    labels[u] = ncomp
                    fifo[tail] = u
                    tail += 1
        ncomp += 1
    return ncomp, labels
