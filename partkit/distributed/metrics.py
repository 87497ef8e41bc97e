"""The summary of a distributed partition: cut, imbalance, communication volume, balance (collective)."""

from __future__ import annotations

import numpy as np

from partkit.distributed.halo import fetch
from partkit.distributed.multilevel import max_part_weight
from partkit.graph import entry_rows


def summary(channel, graph, part, k, imbalance):
    """Cut, imbalance, communication volume and balance of a distributed partition (collective).

    Parameters
    ----------
    channel : partkit.distributed.comm.Channel
    graph : partkit.distributed.DistributedGraph
    part : int64 array, shape (graph.n_local,)
    """
    vwgt = np.ones(graph.n_local, dtype=np.int64) if graph.vwgt is None else graph.vwgt
    adjwgt = np.ones(graph.adjncy.size, dtype=np.int64) if graph.adjwgt is None else graph.adjwgt
    neighbour_part = fetch(channel, graph.vtxdist, graph.adjncy, part)
    sources = entry_rows(graph.xadj)
    crossing = neighbour_part != part[sources]
    volume = np.unique(sources[crossing] * k + neighbour_part[crossing]).size
    weights = np.bincount(part, weights=vwgt, minlength=k).astype(np.int64)
    totals = channel.allreduce(np.concatenate([weights, [adjwgt[crossing].sum(), volume, adjwgt.size]]))
    weights, cut, volume, entries = totals[:k], int(totals[k]) // 2, int(totals[k + 1]), int(totals[k + 2])
    total = int(weights.sum())
    bound = max_part_weight(total, k, imbalance)
    return {"n": graph.n, "m": entries // 2, "k": k, "cut": cut,
            "imbalance": float(weights.max() / (total / k) - 1.0) if total else 0.0,
            "volume": volume, "balanced": bool(weights.max() <= bound),
            "max_part_weight": int(weights.max()), "bound": bound}
