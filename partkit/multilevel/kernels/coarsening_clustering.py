"""Size-constrained label-propagation clustering, for coarsening irregular graphs.

Every vertex starts in its own cluster and repeatedly joins the neighbouring
cluster it is most strongly connected to, as long as that cluster stays
under a weight limit. On power-law graphs this shrinks the graph much faster
than a matching (a star collapses in one round), as in KaMinPar.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def label_propagation_clustering(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, rounds):
    """Cluster the vertices by size-constrained label propagation.

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

    Returns
    -------
    labels : int64 array, shape (n,)
        Cluster id of every vertex (a vertex id, not compacted).
    """
    n = xadj.size - 1
    ncon = vwgt.shape[1]
    labels = np.arange(n, dtype=np.int64)
    cw = vwgt.copy()
    rating = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    check_group = False
    for v in range(1, n):
        if group[v] != group[0]:
            check_group = True
            break
    for _ in range(rounds):
        moved = 0
        for idx in range(n):
            v = order[idx]
            own = labels[v]
            nt = 0
            for e in range(xadj[v], xadj[v + 1]):
                u = adjncy[e]
                if check_group and group[u] != group[v]:
                    continue
                lab = labels[u]
                if rating[lab] == 0:
                    touched[nt] = lab
                    nt += 1
                rating[lab] += adjwgt[e]
            best = own
            best_rating = rating[own]
            for t in range(nt):
                lab = touched[t]
                r = rating[lab]
                rating[lab] = 0
                if lab == own or r <= best_rating:
                    continue
                fits = True
                for c in range(ncon):
                    if cw[lab, c] + vwgt[v, c] > maxcw[c]:
                        fits = False
                        break
                if fits:
                    best = lab
                    best_rating = r
            rating[own] = 0
            if best != own:
                for c in range(ncon):
                    cw[own, c] -= vwgt[v, c]
                    cw[best, c] += vwgt[v, c]
                labels[v] = best
                moved += 1
        if moved == 0:
            break
    return labels
