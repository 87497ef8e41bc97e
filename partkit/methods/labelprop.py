"""Size-constrained label propagation partitioning (PuLP style), on the multilevel engine's kernels.

The k labels start as regions grown breadth-first from k random seed
vertices at the same time, each stopping at the balance bound (vertices
left over start new regions of the lightest label), then ``rounds`` rounds
each run

* the engine's balancer (:func:`partkit.multilevel.refinement.rebalance`,
  at most ``balance_sweeps`` rounds), which moves vertices out of overfull
  parts at the least cut increase, while a part is over the bound;
* the engine's label propagation
  (:func:`partkit.multilevel.kernels.label_propagation.parallel_label_propagation_refine`,
  at most ``cut_sweeps`` sweeps) from all vertices in a fresh random order:
  each vertex joins the neighbouring part it is most connected to, if that
  lowers the cut, or keeps it and evens out the two parts, and the part
  stays within the bound.

Everything random descends from ``seed``. ``nstarts`` independent runs are
made and the best is kept. This is a direct k-way method (no ``refine``
option).
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit._random import derive, permutation
from partkit.metrics import edge_cut, max_part_weights
from partkit.methods.kernels.labelprop import grow_regions
from partkit.multilevel.context import RefinementContext
from partkit.multilevel.kernels.label_propagation import parallel_label_propagation_refine
from partkit.multilevel.kernels.refinement_moves import part_weights
from partkit.multilevel.objectives import CUT
from partkit.multilevel.refinement import rebalance


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
        Per round, the balancer's rounds at most and the label propagation's
        sweeps at most (each stops early when a round or sweep moves nothing).

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
    sizes = part_weights(graph.vwgt, labels, k)
    batches = RefinementContext().lp_batches
    for r in range(rounds):
        if balance_sweeps > 0 and (sizes > bound).any():
            rebalance(graph, labels, sizes, bound, balance_sweeps, True)
        if cut_sweeps > 0:
            parallel_label_propagation_refine(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, labels, sizes, bound,
                                              CUT.code, CUT.data, permutation(graph.n, derive(key, r)), cut_sweeps,
                                              batches)
    return labels, sizes


def initial_regions(graph, k, cap, key):
    """k regions of weight at most ``cap`` grown breadth-first from k random seed vertices at once."""
    seeds = permutation(graph.n, key)[:k].copy()
    return grow_regions(graph.xadj, graph.adjncy, graph.vwgt, seeds, int(cap))
