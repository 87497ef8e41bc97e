"""Kernels of distributed size-constrained label propagation (coarsening).

Cluster labels are global vertex ids (the cluster's leader). A rank decides
moves for its owned vertices from the labels of their neighbours (owned and
ghost) and the weights of those clusters as last known; the rank owning a
cluster's leader accepts joins only while the cluster stays within the
weight bound (:func:`accept_joins`).
"""

import numpy as np

from partkit._jit import njit
from partkit._random import pair_draw


@njit(cache=True)
def choose_clusters(xadj, adjacency, adjwgt, vwgt, label, label_weight, batch, current_batch,
                    max_weight, seed):
    """The cluster each owned vertex of ``current_batch`` wants to join, or -1 to stay.

    Only neighbours outside the batch count: they do not move in this
    round, so the vertex really is connected to the cluster it joins.
    A vertex picks the neighbouring cluster it is most strongly connected to
    among those whose known weight plus its own stays within
    ``max_weight``; its current cluster wins ties, other ties are broken by
    a hash of ``(seed, cluster, vertex label)``.

    Parameters
    ----------
    adjacency : int64 array
        Neighbours in local indices (ghosts after the owned vertices).
    label, label_weight : int64 arrays over all local indices
        Cluster (global id) of every owned and ghost vertex, and that
        cluster's weight as last known.
    batch : int64 array over all local indices
        Batch of every vertex; only owned vertices of ``current_batch`` move.
    """
    n_local = xadj.size - 1
    target = np.full(n_local, -1, dtype=np.int64)
    candidates = np.empty(64, dtype=np.int64)
    strength = np.empty(64, dtype=np.int64)
    cweight = np.empty(64, dtype=np.int64)
    for v in range(n_local):
        if batch[v] != current_batch:
            continue
        degree = xadj[v + 1] - xadj[v]
        if degree > candidates.size:
            candidates = np.empty(2 * degree, dtype=np.int64)
            strength = np.empty(2 * degree, dtype=np.int64)
            cweight = np.empty(2 * degree, dtype=np.int64)
        count = 0
        own = label[v]
        own_strength = 0
        for e in range(xadj[v], xadj[v + 1]):
            u = adjacency[e]
            if batch[u] == current_batch:
                continue
            c = label[u]
            if c == own:
                own_strength += adjwgt[e]
                continue
            if label_weight[u] + vwgt[v] > max_weight:
                continue
            found = -1
            for i in range(count):
                if candidates[i] == c:
                    found = i
                    break
            if found < 0:
                candidates[count] = c
                strength[count] = adjwgt[e]
                cweight[count] = label_weight[u]
                count += 1
            else:
                strength[found] += adjwgt[e]
        best, best_strength, best_key = own, own_strength, -1
        for i in range(count):
            key = -cweight[i] * 2**40 + pair_draw(seed, candidates[i], own) % 2**40
            if strength[i] > best_strength or (strength[i] == best_strength and best != own
                                                and key > best_key):
                best, best_strength, best_key = candidates[i], strength[i], key
        if best != own:
            target[v] = best
    return target


@njit(cache=True)
def accept_joins(records, cluster_weight, first, max_weight):
    """Apply weight records to the clusters led by this rank; accept joins that fit.

    ``records`` rows are ``(cluster, weight, is_join)``: rows with
    ``is_join == 0`` are departures already made (negative weight) and are
    applied first; then joins are accepted in row order while the cluster
    stays within ``max_weight``. Updates ``cluster_weight`` in place and
    returns 1 for an accepted join, 0 otherwise.
    """
    accepted = np.zeros(records.shape[0], dtype=np.int64)
    for i in range(records.shape[0]):
        if records[i, 2] == 0:
            cluster_weight[records[i, 0] - first] += records[i, 1]
    for i in range(records.shape[0]):
        if records[i, 2] == 1:
            c = records[i, 0] - first
            if cluster_weight[c] + records[i, 1] <= max_weight:
                cluster_weight[c] += records[i, 1]
                accepted[i] = 1
    return accepted
