"""Contiguous blocks of vertices in input order: the trivial baseline."""

import numpy as np


def partition(graph, k, *, imbalance=0.03, seed=0):
    """Assign vertices to parts in input order, cutting the prefix sums of weight.

    Vertex ``v`` goes to part ``floor(k * W(v) / W)`` where ``W(v)`` is the
    weight (first constraint) of the vertices before ``v`` plus half its own.
    ``imbalance`` and ``seed`` are accepted for the common signature; the
    result does not depend on them.
    """
    w = graph.vwgt[:, 0].astype(np.float64)
    total = w.sum()
    if total == 0:
        w = np.ones(graph.n)
        total = float(graph.n)
    midpoints = np.cumsum(w) - 0.5 * w
    return np.minimum((k * midpoints / total).astype(np.int64), k - 1)
