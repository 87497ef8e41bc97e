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
def choose_clusters(xadj, adjacency, adjwgt, vwgt, label, label_weight, batch, current_batch, max_weight):
    """The cluster each owned vertex of ``current_batch`` wants to join, or -1 to stay.

    The adjacency holds only the edges between different batches: the
    neighbours in the vertex's own batch move in the same round, so only
    the others tell which cluster it really is connected to. The rating is
    the serial clustering's, on the clusters renumbered locally.

    Parameters
    ----------
    xadj, adjacency, adjwgt : int64 arrays
        Edges between batches of the owned vertices; neighbours in local
        indices (ghosts after the owned vertices).
    vwgt : int64 array over the owned vertices
    label, label_weight : int64 arrays over all local indices
        Cluster (global id) of every owned and ghost vertex, and that
        cluster's weight as last known.
    batch : int64 array over all local indices
        Batch of every vertex; only owned vertices of ``current_batch`` move.
    """
    n_local = xadj.size - 1
    # the clusters renumbered in linear time (a sort of the labels took most of a round on scattered blocks)
    clusters, slot = unique_inverse(label)
    weights = np.empty((clusters.size, 1), dtype=np.int64)
    for u in range(label.size):
        weights[slot[u], 0] = label_weight[u]
    bounds = np.full((clusters.size, 1), max_weight, dtype=np.int64)
    conn = np.full(clusters.size, -1, dtype=np.int64)
    touched = np.empty(clusters.size, dtype=np.int64)
    target = np.full(n_local, -1, dtype=np.int64)
    for v in range(n_local):
        if batch[v] == current_batch:
            best = best_cluster(xadj, adjacency, adjwgt, vwgt.reshape(-1, 1), slot, weights, bounds, label[:0], v,
                                conn, touched)
            if best >= 0:
                target[v] = clusters[best]
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
