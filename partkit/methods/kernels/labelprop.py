"""Size-constrained label propagation sweeps.

:func:`lp_sweep` visits vertices in a given order and moves each one to the
label it is most strongly connected to (the sum of edge weights to the
neighbours carrying that label), subject to a hard size bound on every
constraint. It serves two callers:

* PuLP-style partitioning (:mod:`partkit.methods.labelprop`): ``k`` labels,
  alternating a *balance* objective (connection weighted by how far a
  label is below the balance target) and a *cut* objective (plain
  connection, strict improvements only);
* size-constrained clustering for coarsening (every vertex starts as its
  own label), used by the multilevel spectral method.

Ties between equally good labels other than the current one are broken at
random (reservoir sampling with draws of the caller's stream ``key``); the
current label wins ties, so sweeps converge. A vertex whose label is over
the bound leaves for the best label with room even if that loses
connection. One sweep costs O(n + m).
"""

import numpy as np

from partkit._jit import njit
from partkit._random import below, subkey


@njit(cache=True)
def lp_sweep(xadj, adjncy, adjwgt, vwgt, labels, sizes, maxsize, order, balance, target, key):
    """Run one label propagation sweep; update ``labels`` and ``sizes`` in place.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
        The graph in CSR form.
    vwgt : int64 array, shape (n, ncon)
    labels : int64 array, shape (n,)
        Label of every vertex, in ``[0, nlabels)``.
    sizes : int64 array, shape (nlabels, ncon)
        Total vertex weight of every label; kept consistent with ``labels``.
    maxsize : int64 array, shape (ncon,)
        No label may grow beyond this weight by a move.
    order : int64 array
        The vertices to visit, in order.
    balance : bool
        Balance objective: the connection to label ``l`` is weighted by
        ``max(target / sizes[l, 0] - 1, 0)`` (labels below ``target`` attract,
        labels above it do not). Otherwise the plain connection is used and
        only strict improvements are taken.
    target : float
        The label weight the balance objective aims at (first constraint).
    key : int
        Random stream (:mod:`partkit._random`) of the tie breaking; vertex
        ``v`` draws from its sub-stream ``v``, whatever the visiting order.

    Returns
    -------
    int
        Number of vertices that changed label.
    """
    nlabels, ncon = sizes.shape
    conn = np.zeros(nlabels, dtype=np.int64)
    mark = np.full(nlabels, -1, dtype=np.int64)
    touched = np.empty(nlabels, dtype=np.int64)
    moves = 0
    for idx in range(order.size):
        v = order[idx]
        lv = labels[v]
        nt = 0
        for j in range(xadj[v], xadj[v + 1]):
            lab = labels[adjncy[j]]
            if mark[lab] != v:
                mark[lab] = v
                conn[lab] = 0
                touched[nt] = lab
                nt += 1
            conn[lab] += adjwgt[j]
        over = False
        for c in range(ncon):
            if sizes[lv, c] > maxsize[c]:
                over = True
        cur = conn[lv] if mark[lv] == v else 0
        if balance:
            best_score = cur * max(target / max(sizes[lv, 0] - vwgt[v, 0], 1) - 1.0, 0.0)
        else:
            best_score = float(cur)
        best = -1 if over else lv
        ties = 0
        for i in range(nt):
            lab = touched[i]
            if lab == lv:
                continue
            fits = True
            for c in range(ncon):
                if sizes[lab, c] + vwgt[v, c] > maxsize[c]:
                    fits = False
                    break
            if not fits:
                continue
            if balance:
                score = conn[lab] * max(target / max(sizes[lab, 0], 1) - 1.0, 0.0)
            else:
                score = float(conn[lab])
            if best == -1 or score > best_score:
                best = lab
                best_score = score
                ties = 1
            elif score == best_score and best != lv:
                ties += 1
                if below(subkey(key, v), ties, ties) == 0:
                    best = lab
        if best != -1 and best != lv:
            labels[v] = best
            for c in range(ncon):
                sizes[lv, c] -= vwgt[v, c]
                sizes[best, c] += vwgt[v, c]
            moves += 1
    return moves


@njit(cache=True)
def label_sizes(vwgt, labels, nlabels):
    """Total vertex weight of every label, shape (nlabels, ncon)."""
    n, ncon = vwgt.shape
    sizes = np.zeros((nlabels, ncon), dtype=np.int64)
    for v in range(n):
        for c in range(ncon):
            sizes[labels[v], c] += vwgt[v, c]
    return sizes


@njit(cache=True)
def grow_regions(xadj, adjncy, vwgt, seeds, cap):
    """Label every vertex by breadth-first searches grown from all ``seeds`` at once.

    Seed ``i`` gets label ``i``; a vertex takes the label of the region that
    reaches it first, unless that would push the region's weight (first
    constraint) above ``cap``. Vertices no region reaches (other components,
    or pockets enclosed by full regions) start new searches, each with the
    currently lightest label. Returns the label array.
    """
    n = xadj.size - 1
    nlabels = seeds.size
    labels = np.full(n, -1, dtype=np.int64)
    sizes = np.zeros(nlabels, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    qtail = 0
    for i in range(nlabels):
        v = seeds[i]
        if labels[v] == -1:
            labels[v] = i
            sizes[i] += vwgt[v, 0]
            queue[qtail] = v
            qtail += 1
    qhead = 0
    next_root = 0
    while True:
        while qhead < qtail:
            v = queue[qhead]
            qhead += 1
            lab = labels[v]
            for j in range(xadj[v], xadj[v + 1]):
                u = adjncy[j]
                if labels[u] == -1 and sizes[lab] + vwgt[u, 0] <= cap:
                    labels[u] = lab
                    sizes[lab] += vwgt[u, 0]
                    queue[qtail] = u
                    qtail += 1
        while next_root < n and labels[next_root] != -1:
            next_root += 1
        if next_root == n:
            break
        lab = np.argmin(sizes)
        labels[next_root] = lab
        sizes[lab] += vwgt[next_root, 0]
        queue[qtail] = next_root
        qtail += 1
    return labels
