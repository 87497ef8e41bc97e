"""Size-constrained label-propagation clustering, for coarsening irregular graphs.

Every vertex starts in its own cluster and repeatedly joins the neighbouring
cluster it is most strongly connected to, as long as that cluster stays
under a weight limit. On power-law graphs this shrinks the graph much faster
than a matching (a star collapses in one round), as in KaMinPar.
"""

import numpy as np
from numba import njit, prange

from partkit._threads import prange_only


@njit(cache=True, inline="always")
def _has_room(cw, vwgt, maxcw, cluster, v):
    """Whether ``v`` fits into ``cluster`` (of weight ``cw[cluster]``) under ``maxcw``, per constraint."""
    for c in range(maxcw.size):
        if cw[cluster, c] + vwgt[v, c] > maxcw[c]:
            return False
    return True


@njit(parallel=prange_only(), cache=True, nogil=True)
def parallel_label_propagation_clustering(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, rounds, batches,
                                          nchunks):
    """Cluster the vertices by size-constrained label propagation, in parallel, with the same
    result for any thread count.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
    vwgt : int64 array, shape (n, ncon)
    maxcw : int64 array, shape (ncon,)
        Upper bound on the weight of a cluster, per constraint.
    order : int64 array, shape (n,)
        Visiting order (a random permutation).
    group : int64 array, shape (n,)
        Vertices only join clusters of their own group.
    rounds : int
        Maximum number of sweeps; stops early when nothing moves.
    batches, nchunks : int
        See below.

    Each sweep visits ``order`` in ``batches`` consecutive batches (a fixed
    number, not the thread count). Within a batch every vertex picks its
    best cluster in parallel, reading the labels and cluster weights left
    by the previous batch; the moves are then made one by one in visiting
    order, each only if the cluster still has room. ``nchunks`` (the
    thread count) only splits a batch between threads, each with its own
    rating array.

    Returns
    -------
    labels : int64 array, shape (n,)
        Cluster id of every vertex (a vertex id, not compacted).
    """
    n = xadj.size - 1
    ncon = vwgt.shape[1]
    labels = np.arange(n, dtype=np.int64)
    cw = vwgt.copy()
    nchunks = max(nchunks, 1)
    rating = np.zeros((nchunks, n), dtype=np.int64)
    touched = np.empty((nchunks, n), dtype=np.int64)
    proposal = np.empty(n, dtype=np.int64)
    check_group = False
    for v in range(1, n):
        if group[v] != group[0]:
            check_group = True
            break
    for _ in range(rounds):
        moved = 0
        for b in range(batches):
            lo = b * n // batches
            hi = (b + 1) * n // batches
            for chunk in prange(nchunks):
                rate = rating[chunk]
                seen = touched[chunk]
                for idx in range(lo + chunk * (hi - lo) // nchunks, lo + (chunk + 1) * (hi - lo) // nchunks):
                    v = order[idx]
                    own = labels[v]
                    nt = 0
                    for e in range(xadj[v], xadj[v + 1]):
                        u = adjncy[e]
                        if check_group and group[u] != group[v]:
                            continue
                        lab = labels[u]
                        if rate[lab] == 0:
                            seen[nt] = lab
                            nt += 1
                        rate[lab] += adjwgt[e]
                    best = own
                    best_rating = rate[own]
                    for t in range(nt):
                        lab = seen[t]
                        r = rate[lab]
                        rate[lab] = 0
                        if lab == own or r <= best_rating:
                            continue
                        if _has_room(cw, vwgt, maxcw, lab, v):
                            best = lab
                            best_rating = r
                    rate[own] = 0
                    proposal[idx] = best
            for idx in range(lo, hi):
                v = order[idx]
                best = proposal[idx]
                own = labels[v]
                if best == own:
                    continue
                if not _has_room(cw, vwgt, maxcw, best, v):
                    continue
                for c in range(ncon):
                    cw[own, c] -= vwgt[v, c]
                    cw[best, c] += vwgt[v, c]
                labels[v] = best
                moved += 1
        if moved == 0:
            break
    return labels
