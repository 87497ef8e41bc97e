"""Initial partitioning: the coarsest graph on every rank, the serial engine, the best result kept."""

from __future__ import annotations

import warnings

import numpy as np

from partkit._random import derive
from partkit.api import partition as serial_partition
from partkit.distributed.graph import LocalGraph
from partkit.errors import InfeasibleBalanceWarning
from partkit.graph import Graph
from partkit.metrics import edge_cut, max_part_weights, part_weights

_RANK_BITS = 20
_CUT_BITS = 42


def replicate(graph: LocalGraph):
    """The whole (coarse) graph on every rank, as a :class:`partkit.Graph` (Allgatherv)."""
    channel = graph.channel
    ids = graph.global_ids()
    degrees, _ = channel.allgather(np.diff(graph.xadj))
    adjncy, _ = channel.allgather(ids[graph.adjacency])
    adjwgt, _ = channel.allgather(graph.adjwgt)
    vwgt, _ = channel.allgather(graph.vwgt)
    xadj = np.concatenate([[0], np.cumsum(degrees)]).astype(np.int64)
    return Graph(xadj, adjncy, vwgt=vwgt, adjwgt=adjwgt, name="coarsest", validate=False)


def initial_partition(graph: LocalGraph, k, imbalance, seed, preset="default"):
    """Part of every owned vertex of the coarsest ``graph``.

    Every rank partitions the replicated graph with the serial engine's
    ``preset`` and its own stream ``derive(seed, "initial", rank)`` (not
    ``seed + rank``, which would give rank 1 of seed ``s`` the partition of
    rank 0 of seed ``s + 1``); the feasible result with the smallest
    cut wins (one Allreduce of ``(infeasible, cut, rank)`` packed in an
    int64), then its owner broadcasts it.
    """
    channel = graph.channel
    whole = replicate(graph)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfeasibleBalanceWarning)
        part = serial_partition(whole, k, imbalance=imbalance, seed=derive(seed, "initial", channel.rank),
                               preset=preset, threads=1)
    infeasible = int(np.any(part_weights(whole, part, k) > max_part_weights(whole, k, imbalance)))
    cut = min(edge_cut(whole, part), 2**_CUT_BITS - 1)
    key = (infeasible << (_CUT_BITS + _RANK_BITS)) | (cut << _RANK_BITS) | channel.rank
    best = int(channel.allreduce(np.array([key]), op="min")[0])
    part = channel.bcast(part.astype(np.int64), root=best & (2**_RANK_BITS - 1))
    return part[graph.first:graph.first + graph.n_local]
