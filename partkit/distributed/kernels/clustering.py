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
from partkit._random import draw
from partkit.distributed.kernels.routing import hash_slots, slot_of


@njit(cache=True)
def choose_clusters(xadj, adjacency, adjwgt, vwgt, label, label_weight, members, max_weight, key):
    """The cluster each vertex of ``members`` (owned, one batch) wants to join, or -1 to stay.

    The adjacency holds only the edges between different batches: the
    neighbours in the vertex's own batch move in the same round, so only
    the others tell which cluster it really is connected to. The rating is
    the serial clustering's
    (:func:`~partkit.multilevel.kernels.label_propagation.best_cluster`:
    the strongest connection among the clusters with room, if stronger
    than to its own), summed per global
    label in a small hash table of the vertex's own, emptied after it: no
    renumbering of the labels a round sees (on a randomly numbered Delaunay
    graph of 2^20 vertices that took three quarters of the round). Ties go
    to the cluster whose label draws less in stream ``key`` (the same draw
    on every rank and in every round), not to the one met first: the input
    lists neighbours by id, and clusters would then gather around the low
    ids, which rank 0 owns, and the coarse levels with them.

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
    key : int
        The stream that breaks ties.
    """
    most = 1
    for v in members:
        most = max(most, xadj[v + 1] - xadj[v])
    slots = hash_slots(most)
    table = np.full(slots, -1, dtype=np.int64)  # candidate index of every occupied slot
    where = np.empty(most, dtype=np.int64)  # the slot of every candidate, to empty the table
    cluster = np.empty(most, dtype=np.int64)  # candidates in order of first appearance
    conn = np.empty(most, dtype=np.int64)
    weight = np.empty(most, dtype=np.int64)
    target = np.full(members.size, -1, dtype=np.int64)
    for i in range(members.size):
        v = members[i]
        count = 0
        for e in range(xadj[v], xadj[v + 1]):
            u = adjacency[e]
            lab = label[u]
            s = slot_of(lab, table, cluster, slots)
            if table[s] < 0:
                table[s] = count
                where[count] = s
                cluster[count] = lab
                conn[count] = adjwgt[e]
                weight[count] = label_weight[u]
                count += 1
            else:
                conn[table[s]] += adjwgt[e]
        own = label[v]
        best = -1
        best_rating = 0
        for t in range(count):
            if cluster[t] == own:
                best_rating = max(conn[t], 0)
        for t in range(count):
            table[where[t]] = -1
            if cluster[t] == own or weight[t] + vwgt[v] > max_weight:
                continue
            if conn[t] > best_rating or (best >= 0 and conn[t] == best_rating
                                         and draw(key, cluster[t]) < draw(key, cluster[best])):
                best = t
                best_rating = conn[t]
        if best >= 0:
            target[i] = cluster[best]
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
