"""Kernels of distributed size-constrained label propagation (coarsening).

Cluster labels are global vertex ids (the cluster's leader). A rank decides
moves for its owned vertices with the serial engine's rating
(:func:`~partkit.multilevel.kernels.label_propagation.best_cluster`) from
the labels of their neighbours (owned and ghost) and the weights of those
clusters as last known; the rank owning a cluster's leader accepts joins
only while the cluster stays within the weight bound (:func:`accept_joins`).
"""

import numpy as np

from partkit._jit import njit
from partkit.distributed.kernels.routing import unique_inverse
from partkit.multilevel.kernels.label_propagation import best_cluster


@njit(cache=True)
def choose_clusters(xadj, adjacency, adjwgt, vwgt, label, label_weight, members, max_weight, slot):
    """The cluster each vertex of ``members`` (owned, one batch) wants to join, or -1 to stay.

    The adjacency holds only the edges between different batches: the
    neighbours in the vertex's own batch move in the same round, so only
    the others tell which cluster it really is connected to. The rating is
    the serial clustering's, on the clusters the batch sees renumbered
    locally (by hash, in time linear in the batch's edges: a renumbering of
    all labels took most of a round on scattered blocks).

    Parameters
    ----------
    xadj, adjacency, adjwgt : int64 arrays
        Edges between batches of the owned vertices; neighbours in local
        indices (ghosts after the owned vertices).
    vwgt : int64 array over the owned vertices
    label, label_weight : int64 arrays over all local indices
        Cluster (global id) of every owned and ghost vertex, and that
        cluster's weight as last known.
    members : int64 array
        The owned vertices of the batch that moves.
    slot : int64 array over all local indices
        Scratch; its entries for the batch and its neighbours are overwritten.
    """
    # the local indices whose clusters the ratings read: the batch's vertices and their neighbours
    count = members.size
    for v in members:
        count += xadj[v + 1] - xadj[v]
    seen = np.empty(count, dtype=np.int64)
    pos = 0
    for v in members:
        seen[pos] = v
        pos += 1
        for e in range(xadj[v], xadj[v + 1]):
            seen[pos] = adjacency[e]
            pos += 1
    clusters, inverse = unique_inverse(label[seen])
    weights = np.empty((clusters.size, 1), dtype=np.int64)
    for i in range(count):
        slot[seen[i]] = inverse[i]
        weights[inverse[i], 0] = label_weight[seen[i]]
    bounds = np.full((clusters.size, 1), max_weight, dtype=np.int64)
    conn = np.full(clusters.size, -1, dtype=np.int64)
    touched = np.empty(clusters.size, dtype=np.int64)
    target = np.full(members.size, -1, dtype=np.int64)
    for i in range(members.size):
        best = best_cluster(xadj, adjacency, adjwgt, vwgt.reshape(-1, 1), slot, weights, bounds, label[:0],
                            members[i], conn, touched)
        if best >= 0:
            target[i] = clusters[best]
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
