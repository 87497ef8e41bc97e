"""Size-constrained label propagation partitioning (PuLP style).

The k labels start as regions grown breadth-first from k random seed
vertices at the same time, each stopping at the balance bound (vertices
left over start new regions of the lightest label), then ``rounds`` rounds alternate two objectives with the sweeps of
:func:`partkit.native.labelprop.lp_sweep`:

* balance: each vertex joins the neighbouring label that maximises its
  connection times ``max(B / size - 1, 0)`` (``B`` the bound on a part),
  which pulls vertices toward light parts;
* cut: each vertex joins the neighbouring label it is most connected to,
  if that strictly improves on its current label.

Both objectives keep every part within the balance bound on every
constraint (a move that would overfill a part is never made; a vertex in
an overfull part leaves for the best part with room). Vertices are visited
in a fresh random order every sweep and ties are broken at random, all
from ``seed``. ``nstarts`` independent runs are made and the best is kept.
This is a direct k-way method (no ``refine`` option).
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit.metrics import edge_cut, max_part_weights
from partkit.native.labelprop import grow_regions, label_sizes, lp_sweep


def partition(graph, k, *, imbalance=0.03, seed=0, nstarts=4, rounds=3, balance_sweeps=2, cut_sweeps=6):
    """Partition ``graph`` into ``k`` parts by size-constrained label propagation.

    Parameters
    ----------
    graph : partkit.Graph
    k : int
    imbalance : float
    seed : int
    nstarts : int
        Independent runs from different seed vertices; the best is kept
        (least weight above the bound, then the lowest cut).
    rounds : int
        Number of (balance, cut) rounds per run.
    balance_sweeps, cut_sweeps : int
        Sweeps per round with each objective; a round's cut sweeps stop early
        when a sweep moves nothing.

    Returns
    -------
    numpy.ndarray of int64
    """
    if int(nstarts) < 1:
        raise InputError("labelprop: nstarts must be at least 1")
    rng = np.random.default_rng(seed)
    bound = max_part_weights(graph, k, imbalance)
    best, best_key = None, None
    for _ in range(int(nstarts)):
        labels, sizes = propagate(graph, k, bound, int(rng.integers(2**31 - 1)), int(rounds),
                                  int(balance_sweeps), int(cut_sweeps))
        key = (int(np.maximum(sizes - bound, 0).sum()), edge_cut(graph, labels))
        if best_key is None or key < best_key:
            best, best_key = labels, key
    return best


def propagate(graph, k, bound, seed, rounds, balance_sweeps, cut_sweeps):
    """One label propagation run from grown regions; returns ``(labels, sizes)``."""
    rng = np.random.default_rng(seed)
    labels = initial_regions(graph, k, bound[0], int(rng.integers(2**31 - 1)))
    sizes = label_sizes(graph.vwgt, labels, k)
    target = float(bound[0])
    for _ in range(rounds):
        for balance, sweeps in ((True, balance_sweeps), (False, cut_sweeps)):
            for _ in range(sweeps):
                order = rng.permutation(graph.n).astype(np.int64)
                moved = lp_sweep(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, labels, sizes, bound,
                                 order, balance, target, int(rng.integers(2**31 - 1)))
                if moved == 0 and not balance:
                    break
    return labels, sizes


def initial_regions(graph, k, cap, seed):
    """k regions of weight at most ``cap`` grown breadth-first from k random seed vertices at once."""
    seeds = np.random.default_rng(seed).choice(graph.n, size=k, replace=False).astype(np.int64)
    return grow_regions(graph.xadj, graph.adjncy, graph.vwgt, seeds, int(cap))
