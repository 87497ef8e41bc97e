"""Label propagation of hypergraph partitions: the engine's sweeps with the λ-1 rating, in rounds that may
let parts past their bounds."""

import numpy as np

from partkit._heap import new_heap
from partkit._random import fill_permutation, subkey
from partkit.hypergraph.kernels.refinement import close_loose_round, open_loose_round, restore
from partkit.multilevel.kernels.label_propagation import KM1_REFINE
from partkit.multilevel.kernels.label_propagation import label_propagation as propagate
from partkit.multilevel.kernels.objectives import CUT
from partkit.multilevel.kernels.refinement_km1 import connectivity_cost, no_shed


def label_propagation(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, rounds, slack,
                      interior, factor, rebalance_rounds, batches, seed):
    """Rounds of label propagation over all vertices in random order: a vertex on a cut net takes its best
    positive λ-1 move (:data:`~partkit.multilevel.kernels.label_propagation.KM1_REFINE`, in ``batches``
    batches a round; 0: one vertex a batch, every vertex rated as the moves before it left the parts).

    Gains are read from the gain cache ``benefit, conn``
    (:func:`~partkit.multilevel.kernels.refinement_km1.gain_cache`), kept
    exact by the moves, as are the pin counts ``pc``, the spans ``lam`` and
    the part weights ``pw``. Returns the total λ-1 reduction.

    With ``slack`` > 0 the rounds are *unconstrained* (Mt-KaHyPar's): moves
    may fill a part to ``1 + slack`` times its bound ``maxw`` as in
    :func:`~partkit.hypergraph.kernels.refinement.localized_fm` (the shed
    table of the vertices with at least ``interior`` of their nets' weight
    inside their part, the penalty ``factor``), and the rebalancer
    (``rebalance_rounds``) restores the bound after each round; a round that
    then did not lower λ-1, or left more weight above the bounds than it
    found, is undone and ends the rounds.

    Examples
    --------
    Two blocks of three vertices on three nets each, one vertex of each block
    on the other's side; each move takes a vertex home:

    >>> import numpy as np
    >>> import scipy.sparse as sp
    >>> from partkit.hypergraph import Hypergraph
    >>> from partkit.multilevel.kernels.refinement_km1 import connectivity_cost, gain_cache, pin_counts
    >>> h = Hypergraph.from_matrix(sp.csr_matrix(np.kron(np.eye(2), np.ones((3, 3)))), vertex_weights="unit")
    >>> part = np.array([0, 0, 1, 1, 1, 0])
    >>> pc, lam = pin_counts(h.net_ptr, h.pins, part, 2)
    >>> pw, maxw = np.array([3, 3]), np.array([4, 4])
    >>> benefit, conn = gain_cache(h.net_ptr, h.pins, h.net_cost, part, pc, 2)
    >>> arrays = (h.net_ptr, h.pins, h.vertex_ptr, h.vertex_nets, h.net_cost, h.vwgt)
    >>> label_propagation(*arrays, part, pc, lam, pw, maxw, benefit, conn, 3, 0.0, 0.7, 1.0, 4, 0, seed=1)
    6
    >>> int(connectivity_cost(h.net_cost, lam)), part.tolist()
    (0, [0, 0, 0, 1, 1, 1])
    """
    n = vwgt.size
    order = np.empty(n, dtype=np.int64)
    saved = np.empty(n if slack > 0 else 0, dtype=part.dtype)
    heap = new_heap(n if slack > 0 else 0)
    stamp = np.full(n if slack > 0 else 0, -1, dtype=np.int64)
    shed = no_shed()
    current = connectivity_cost(nwgt, lam)
    excess = 0
    total = 0
    for r in range(rounds):
        if slack > 0:
            shed, excess = open_loose_round(vwgt, part, pw, maxw, benefit, conn, interior, saved)
        fill_permutation(order, subkey(seed, r))
        structure = (net_ptr, pins, vptr, vnets, nwgt, vwgt, pc, lam, benefit, conn, shed, float(slack),
                     float(factor))
        gained = propagate(KM1_REFINE, structure, part, pw, maxw, part[:0], CUT, None, order, 1,
                           batches if batches > 0 else max(n, 1))
        if gained == 0:  # every move gains: none was made
            break
        if slack > 0:
            gained, grew = close_loose_round(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw,
                                             benefit, conn, heap, stamp, rebalance_rounds, current, excess)
            if gained <= 0 or grew:
                restore(saved, net_ptr, pins, nwgt, vwgt, part, pc, lam, pw, benefit, conn)
                break
            current -= gained
        total += gained
    return int(total)
