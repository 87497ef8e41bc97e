"""Size-constrained label propagation partitioning (PuLP style), on the multilevel engine's label propagation.

The k labels start as regions grown breadth-first from k random seed
vertices at the same time, each stopping at the balance bound (vertices
left over start new regions of the lightest label), then ``rounds`` rounds
each run the sweeps of
:func:`partkit.multilevel.kernels.label_propagation.label_propagation`
with two ratings:

* balance (:data:`~partkit.multilevel.kernels.label_propagation.BALANCE`,
  ``balance_sweeps`` sweeps): each vertex joins the neighbouring label that
  maximises its connection times ``max(B / size - 1, 0)`` (``B`` the bound
  on a part), which pulls vertices toward light parts; then, while a part
  is over the bound, the engine's balancer
  (:func:`partkit.multilevel.refinement.rebalance`);
* cut (the engine's refinement, at most ``cut_sweeps`` sweeps from all
  vertices): each vertex joins the neighbouring label it is most connected
  to, if that lowers the cut, or keeps it and evens out the two parts.

No move overfills a part on any constraint. Vertices are visited in a
fresh random order every round, from ``seed``. ``nstarts`` independent
runs are made and the best is kept. This is a direct k-way method (no
``refine`` option).
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit._random import derive, permutation
from partkit.metrics import edge_cut, max_part_weights
from partkit.methods.kernels.labelprop import grow_regions
from partkit.multilevel.context import RefinementContext
from partkit.multilevel.kernels.label_propagation import (BALANCE, label_propagation,
                                                          parallel_label_propagation_refine)
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
        Sweeps per round with each rating; a round's sweeps stop early when
        a sweep moves nothing.

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
    ctx = RefinementContext()
    structure = (graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt)
    arrays = (*structure, labels, sizes, bound)
    for r in range(rounds):
        label_propagation(BALANCE, structure, labels, sizes, bound, labels[:0], CUT.code, CUT.data,
                          permutation(graph.n, derive(key, "balance", r)), balance_sweeps, ctx.lp_batches)
        if (sizes > bound).any():  # the grown regions' left-overs
            rebalance(graph, labels, sizes, bound, ctx.balance_rounds, True)
        parallel_label_propagation_refine(*arrays, CUT.code, CUT.data, permutation(graph.n, derive(key, r)),
                                          cut_sweeps, ctx.lp_batches)
    return labels, sizes


def initial_regions(graph, k, cap, key):
    """k regions of weight at most ``cap`` grown breadth-first from k random seed vertices at once."""
    seeds = permutation(graph.n, key)[:k].copy()
    return grow_regions(graph.xadj, graph.adjncy, graph.vwgt, seeds, int(cap))
