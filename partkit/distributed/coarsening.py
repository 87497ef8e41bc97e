"""Distributed coarsening: matching inside each rank's block, or size-constrained label propagation.

A level first tries the serial engine's coarsening on each rank's own
vertices and the edges between them (:func:`contract_within_blocks`): no
communication but one halo exchange of the coarse ids, and the serial
kernels' speed. When the blocks are so scattered that this shrinks the
graph too little (a vertex's neighbours mostly on other ranks), the level
clusters across ranks instead (:func:`cluster` and :func:`contract`):

clustering runs in synchronous rounds over batches of vertices. In a round
every rank picks, for its vertices of the batch, the neighbouring cluster
with the strongest connection among those light enough by the weights last
known, as the serial clustering rates them
(:func:`~partkit.distributed.kernels.clustering.choose_clusters`).
Joins go to the rank owning the cluster's leader, which accepts them in
rank order while the cluster stays within the weight bound, so cluster
weights never exceed it; departures from a cluster reach its owner with
the next round's joins. After a round the ghosts' labels and the weights of
all visible clusters are refreshed.

Contraction numbers the non-empty clusters of each rank consecutively
(coarse vertices stay on the rank owning the leader), contracts each
rank's rows with the serial kernel (the edges between two clusters that
one rank holds become one), sends these edges to the owner of their source
cluster, and merges parallel edges there.
"""

from __future__ import annotations

import numpy as np

from partkit._random import derive
from partkit._threads import using_threads
from partkit.distributed.graph import LocalGraph
from partkit.distributed.halo import fetch, owner_of
from partkit.distributed.kernels.blocks import edges_by_key
from partkit.distributed.kernels.clustering import accept_joins, choose_clusters
from partkit.distributed.kernels.contraction import merge_edges
from partkit.distributed.kernels.random import batch_of
from partkit.distributed.kernels.routing import group_by_destination, unique_inverse
from partkit.graph import Graph
from partkit.multilevel.coarsening import level_map
from partkit.multilevel.context import CoarseningContext
from partkit.multilevel.kernels.coarsening_contraction import contract as contract_serial

#: Label propagation sweeps per level, and batches per sweep (rounds = their product).
ITERATIONS = 3
BATCHES = 8


def cluster(graph: LocalGraph, max_weight, seed):
    """Cluster labels (global ids of leaders) of the owned vertices.

    No cluster weighs more than ``max_weight`` (unless a single vertex does).
    """
    channel = graph.channel
    label = graph.global_ids()
    cluster_weight = graph.vwgt.copy()  # clusters led by owned vertices
    label_weight = graph.halo.extend(graph.vwgt)
    batch = batch_of(label, BATCHES, derive(seed, "coarsening batches"))
    ties = derive(seed, "coarsening ties")
    # a batch is rated without its own vertices
    xadj, adjacency, adjwgt = edges_by_key(graph.xadj, graph.adjacency, graph.adjwgt, batch, False)
    by_batch, sizes = group_by_destination(batch[:graph.n_local], BATCHES)  # the batches' vertices, ascending
    starts = np.concatenate([[0], np.cumsum(sizes)])
    departures = np.empty((0, 3), dtype=np.int64)
    for _ in range(ITERATIONS):
        for current in range(BATCHES):
            members = by_batch[starts[current]:starts[current + 1]]
            choice = choose_clusters(xadj, adjacency, adjwgt, graph.vwgt, label, label_weight, members, max_weight,
                                     ties)
            movers, target = members[choice >= 0], choice[choice >= 0]
            joins = np.stack([target, graph.vwgt[movers], np.ones_like(movers)], axis=1)
            records = np.concatenate([joins, departures])
            received, order, counts, recv_counts = channel.route(owner_of(graph.vtxdist, records[:, 0]),
                                                                 records)
            answers = accept_joins(received, cluster_weight, graph.first, max_weight)
            replies, _ = channel.exchange(answers, recv_counts, recv_counts=counts)
            accepted = np.empty_like(replies)
            accepted[order] = replies
            joined = accepted[:movers.size] == 1
            moved = movers[joined]
            departures = np.stack([label[moved], -graph.vwgt[moved], np.zeros_like(moved)], axis=1)
            label[moved] = target[joined]
            # the ghosts' labels and the weights of everyone's clusters, in one halo exchange
            weights = fetch(channel, graph.vtxdist, label[:graph.n_local], cluster_weight)
            ghosts = graph.halo.exchange(np.stack([label[:graph.n_local], weights], axis=1))
            label[graph.n_local:] = ghosts[:, 0]
            label_weight = np.concatenate([weights, ghosts[:, 1]])
    return label[:graph.n_local]


def contract(graph: LocalGraph, labels):
    """The coarse graph of the clustering ``labels`` and the fine-to-coarse map.

    Returns
    -------
    coarse : LocalGraph
    cmap : int64 array, shape (n_local,)
        Global coarse id of every owned fine vertex.
    """
    channel = graph.channel
    records = np.stack([labels, graph.vwgt], axis=1)
    received, order, counts, recv_counts = channel.route(owner_of(graph.vtxdist, labels), records)
    leaders, slot = np.unique(received[:, 0], return_inverse=True)
    coarse_first = int(channel.exscan(np.array([leaders.size]))[0])
    sizes, _ = channel.allgather(np.array([leaders.size]))
    vtxdist = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    coarse_vwgt = np.bincount(slot, weights=received[:, 1], minlength=leaders.size).astype(np.int64)
    replies, _ = channel.exchange(coarse_first + slot, recv_counts, recv_counts=counts)
    cmap = np.empty(graph.n_local, dtype=np.int64)
    cmap[order] = replies
    # the rows merged here first (the edges of a fine vertex's cluster mates to one cluster are one), then
    # sent to the owners of their source clusters
    ids, local = unique_inverse(graph.halo.extend(cmap))
    cxadj, cadjncy, cadjwgt, _ = _contract_rows(graph, local, ids.size)
    del local
    edges = np.stack([np.repeat(ids, np.diff(cxadj)), ids[cadjncy], cadjwgt], axis=1)
    del cxadj, cadjncy, cadjwgt
    received, _, _, _ = channel.route(owner_of(vtxdist, edges[:, 0]), edges)
    del edges
    xadj, adjncy, adjwgt = merge_edges(received, coarse_first, leaders.size)
    return LocalGraph(channel, vtxdist, xadj, adjncy, coarse_vwgt, adjwgt), cmap


def contract_within_blocks(graph: LocalGraph, max_weight, seed, min_share, stall_ratio):
    """The coarse graph of a serial coarsening step on every rank's block, and the fine-to-coarse map.

    Each rank matches (or clusters) its own vertices along the edges
    between them with the serial engine's kernels on one thread
    (:func:`partkit.multilevel.coarsening.level_map`, default context),
    coarse vertices capped at ``max_weight``, and contracts its rows: a
    fine edge to a ghost becomes an edge to the ghost's coarse vertex,
    whose id one halo exchange brings. Coarse vertices stay on their rank.

    Clusters that cannot cross blocks are poor ones when the blocks are
    scattered over the graph (on randomly numbered vertices, half the
    edges leave a block of two ranks, and the blocks' clusters are
    stringy): the step is only taken when at least ``min_share`` of the
    edge weight lies inside the blocks.

    Returns
    -------
    (coarse, cmap) or None
        ``coarse`` : LocalGraph; ``cmap`` : int64 array, shape (n_local,),
        global coarse id of every owned fine vertex. None (on every rank)
        when less than ``min_share`` of the edge weight lies inside the
        blocks, or the coarse graph would keep more than ``stall_ratio``
        of the vertices.
    """
    channel = graph.channel
    n_local = graph.n_local
    ghost = (np.arange(n_local + graph.halo.n_ghost) >= n_local).astype(np.int64)  # int64 keys: one signature
    xadj, adjacency, adjwgt = edges_by_key(graph.xadj, graph.adjacency, graph.adjwgt, ghost, True)
    weight_inside, weight = channel.allreduce(np.array([adjwgt.sum(), graph.adjwgt.sum()]))
    if weight_inside < min_share * weight:
        return None
    block = Graph(xadj, adjacency, graph.vwgt, adjwgt, validate=False)
    maxvw = np.array([max_weight], dtype=np.int64)
    # a vertex whose neighbours are all ghosts is isolated in the block, not in the graph: in a group of its
    # own, or the serial step would merge such vertices with each other wherever they lie
    cut_off = (np.diff(xadj) == 0) & (np.diff(graph.xadj) > 0)
    group = np.where(cut_off, 1 + np.arange(n_local), 0)
    with using_threads(1):  # the ranks are the parallelism
        cmap, nc = level_map(block, maxvw, group, CoarseningContext(), False,
                             derive(seed, "block coarsening", channel.rank))
    del block, xadj, adjacency, adjwgt, ghost  # the block's copy of the edges, before the contraction's arrays
    sizes, _ = channel.allgather(np.array([nc]))
    if sizes.sum() > stall_ratio * graph.n:
        return None
    vtxdist = np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64)
    first = vtxdist[channel.rank]
    ghost_ids = graph.halo.exchange(first + cmap)
    distinct, slot = unique_inverse(ghost_ids)
    # a ghost's coarse vertex comes after the own ones
    cxadj, cadjncy, cadjwgt, cvwgt = _contract_rows(graph, np.concatenate([cmap, nc + slot]), nc + distinct.size)
    size = cxadj[nc]
    global_id = np.concatenate([np.arange(first, first + nc), distinct])
    coarse = LocalGraph(channel, vtxdist, cxadj[:nc + 1].copy(), global_id[cadjncy[:size]],
                        cvwgt[:nc, 0].copy(), cadjwgt[:size].copy())
    return coarse, first + cmap


def _contract_rows(graph: LocalGraph, local_of, n_coarse):
    """The owned rows of ``graph`` contracted along ``local_of`` (a coarse vertex ``0 .. n_coarse - 1`` for
    every owned vertex and ghost) by the serial contraction, the ghosts being vertices without rows:
    ``(cxadj, cadjncy, cadjwgt, cvwgt)``, parallel edges merged and edges inside a coarse vertex dropped."""
    n_ghost = graph.halo.n_ghost
    xadj = np.concatenate([graph.xadj, np.full(n_ghost, graph.xadj[-1])])
    vwgt = np.concatenate([graph.vwgt, np.zeros(n_ghost, dtype=np.int64)]).reshape(-1, 1)
    return contract_serial(xadj, graph.adjacency, graph.adjwgt, vwgt, local_of, n_coarse)
