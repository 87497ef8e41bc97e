"""Size-constrained label propagation partitioning (PuLP style).

The k labels start as regions grown breadth-first from k random seed
vertices at the same time, each stopping at the balance bound (vertices
left over start new regions of the lightest label), then ``rounds`` rounds alternate two objectives with the sweeps of
:func:`partkit.methods.kernels.labelprop.lp_sweep`:

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
from partkit._random import derive, permutation
from partkit.metrics import edge_cut, max_part_weights
from partkit.methods.kernels.labelprop import grow_regions, label_sizes, lp_sweep


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
    bound = max_part_weights(graph, k, imbalance)
    best, best_key = None, None
    for start in range(int(nstarts)):
        labels, sizes = propagate(graph, k, bound, derive(seed, "labelprop", start), int(rounds),
                                  int(balance_sweeps), int(cut_sweeps))
        key = (int(np.maximum(sizes - bound, 0).sum()), edge_cut(graph, labels))
        if best_key is None or key < best_key:
            best, best_key = labels, key
    return best


def propagate(graph, k, bound, key, rounds, balance_sweeps, cut_sweeps):
    """One label propagation run from grown regions (random stream ``key``); returns ``(labels, sizes)``."""
    labels = initial_regions(graph, k, bound[0, 0], derive(key, "regions"))
    sizes = label_sizes(graph.vwgt, labels, k)
    target = float(bound[0, 0])
    for r in range(rounds):
        for balance, sweeps in ((True, balance_sweeps), (False, cut_sweeps)):
            for sweep in range(sweeps):
                sweep_key = derive(key, r, int(balance), sweep)
                moved = lp_sweep(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, labels, sizes, bound[0],
                                 permutation(graph.n, sweep_key), balance, target, sweep_key)
                if moved == 0 and not balance:
                    break
    return labels, sizes


def initial_regions(graph, k, cap, key):
    """k regions of weight at most ``cap`` grown breadth-first from k random seed vertices at once."""
    seeds = permutation(graph.n, key)[:k].copy()
    return grow_regions(graph.xadj, graph.adjncy, graph.vwgt, seeds, int(cap))
