"""Distributed refinement: label propagation on the parts, and a balancer.

Refinement rounds visit one batch of vertices on every rank at once. Each
rank proposes the moves the serial engine's label propagation would make
(its rating and rule) into parts with room by the global part weights; an exclusive prefix sum (Exscan) of the weight proposed into each
part tells every rank how much room lower ranks already claimed, so the
moves accepted in rank order never overload a part. An Allreduce of the
weight moved keeps the part weights global, and a halo exchange the
ghosts' parts.

The balancer runs when a part is over the bound (after projection from a
coarser level, or from the initial partition): each rank lists its
vertices of overloaded parts with their best target, every rank gathers
the lists and takes the same moves, best gain first, until the sources
are within the bound.
"""

from __future__ import annotations

import numpy as np

from partkit._random import derive, permutation
from partkit.distributed.graph import LocalGraph
from partkit._threads import using_threads
from partkit.distributed.kernels.random import batch_of
from partkit.distributed.kernels.refinement import (accept_in_order, activate_neighbours, balance_candidates,
                                                    choose_moves, select_balancing_moves)
from partkit.multilevel.context import RefinementContext
from partkit.multilevel.kernels.refinement_moves import boundary_vertices
from partkit.multilevel.refinement import fm_degree_limit, kway_fm  # the serial engine's k-way FM, on each rank's block

#: Refinement sweeps per level and batches per sweep.
ITERATIONS = 2
BATCHES = 4
#: Balancer rounds per level before giving up (the partition is then reported infeasible).
BALANCE_ROUNDS = 8


def part_weights(graph: LocalGraph, part, k):
    """Global weight of every part (Allreduce)."""
    return graph.channel.allreduce(np.bincount(part[:graph.n_local], weights=graph.vwgt,
                                               minlength=k).astype(np.int64))


def refine(graph: LocalGraph, part, k, max_part_weight, seed):
    """Improve the cut of ``part`` (over owned and ghost vertices) in place; return the part weights.

    The first sweep visits the boundary vertices; a later sweep only the
    owned vertices next to a vertex (owned or ghost) that moved in the
    sweep before (an active set, as in KaMinPar): the others' best moves
    cannot have changed, unless room opened in a part.
    """
    channel = graph.channel
    n_local = graph.n_local
    weights = part_weights(graph, part, k)
    batch = batch_of(graph.global_ids()[:n_local], BATCHES, derive(seed, "refinement batches"))
    ghost_xadj, ghost_rows = graph.ghost_neighbours
    active = np.zeros(n_local, dtype=np.bool_)
    active[boundary_vertices(graph.xadj, graph.adjacency, part)] = True
    for _ in range(ITERATIONS):
        candidates = np.flatnonzero(active)
        active[:] = False
        moved_total = 0
        for current in range(BATCHES):
            mine = candidates[batch[candidates] == current]
            target = choose_moves(graph.xadj, graph.adjacency, graph.adjwgt, graph.vwgt, part, mine, weights,
                                  max_part_weight)
            proposing = target >= 0
            proposed = np.bincount(target[proposing], weights=graph.vwgt[mine[proposing]],
                                   minlength=k).astype(np.int64)
            room = max_part_weight - weights - channel.exscan(proposed)
            accepted = accept_in_order(target, graph.vwgt[mine], room)
            moved = mine[accepted >= 0]
            to = accepted[accepted >= 0]
            delta = (np.bincount(to, weights=graph.vwgt[moved], minlength=k)
                     - np.bincount(part[moved], weights=graph.vwgt[moved], minlength=k)).astype(np.int64)
            summary = channel.allreduce(np.concatenate([delta, [moved.size]]))
            weights += summary[:k]
            moved_total += summary[k]
            part[moved] = to
            ghosts = graph.halo.exchange(part[:n_local])
            changed = np.concatenate([moved, n_local + np.flatnonzero(ghosts != part[n_local:])])
            part[n_local:] = ghosts
            activate_neighbours(graph.xadj, graph.adjacency, n_local, changed, ghost_xadj, ghost_rows, active)
        if moved_total == 0:
            break
    return weights


def local_fm(graph: LocalGraph, part, k, max_part_weight, weights, seed):
    """k-way FM on every rank's own vertices at once, ghosts pinned; update ``part`` in place.

    The serial engine's k-way FM as its default context runs it (one pass
    of localized searches from the boundary vertices). Each rank may fill
    a part only by its share (1 / size) of the room the part has left, so
    the simultaneous moves of all ranks keep every part within the bound.
    A rank's gains count the ghosts' parts as they were before the round;
    moves of two neighbours on different ranks in the same round can make
    the true gain smaller than the estimate, and the label-propagation
    rounds that follow repair such spots.

    Returns the new global part weights.
    """
    channel = graph.channel
    ctx = RefinementContext()
    xadj, vwgt = graph.pinned_ghosts
    local = weights.reshape(k, 1).copy()
    room = np.maximum(max_part_weight - weights, 0) // channel.size
    candidates = boundary_vertices(xadj, graph.adjacency, part)
    shuffle = permutation(candidates.size, derive(seed, "fm", channel.rank))
    with using_threads(1):  # the ranks are the parallelism
        kway_fm(xadj, graph.adjacency, graph.adjwgt, vwgt, part, local, (weights + room).reshape(k, 1),
                candidates, ctx.fm_passes, ctx.fm_max_bad, fm_degree_limit(xadj, ctx), shuffle=shuffle,
                local_bad=ctx.fm_local_bad, seed_loss=ctx.fm_seed_loss, stop_alpha=ctx.fm_stop_alpha)
    weights = weights + channel.allreduce(local[:, 0] - weights)
    part[graph.n_local:] = graph.halo.exchange(part[:graph.n_local])
    return weights


def balance(graph: LocalGraph, part, k, max_part_weight, weights):
    """Move vertices out of overloaded parts, best cut gain first; update ``part`` in place.

    Returns
    -------
    weights : int64 array
        The part weights afterwards (some may still exceed the bound when
        no move fits).
    """
    channel = graph.channel
    for _ in range(BALANCE_ROUNDS):
        if weights.max() <= max_part_weight:
            break
        rows = balance_candidates(graph.xadj, graph.adjacency, graph.adjwgt, graph.vwgt,
                                  part, weights, max_part_weight)
        rows = _enough_candidates(rows, weights - max_part_weight)
        tagged = np.concatenate([rows, np.full((rows.shape[0], 1), channel.rank)], axis=1)
        gathered, _ = channel.allgather(tagged.ravel())
        gathered = gathered.reshape(-1, 6)
        # best gain first, then lighter vertices; rank and vertex make the order total
        order = np.lexsort((gathered[:, 0], gathered[:, 5], gathered[:, 4], -gathered[:, 3]))
        gathered = gathered[order]
        taken = select_balancing_moves(gathered, weights, max_part_weight)
        mine = gathered[(taken == 1) & (gathered[:, 5] == channel.rank)]
        if not taken.any():  # the same on every rank: all ranks selected from the same rows
            break
        part[mine[:, 0]] = mine[:, 2]
        part[graph.n_local:] = graph.halo.exchange(part[:graph.n_local])
    return weights


def _enough_candidates(rows, excess):
    """Per overloaded part, the best candidates of this rank up to its excess weight (and one more)."""
    order = np.lexsort((rows[:, 4], -rows[:, 3], rows[:, 1]))
    rows = rows[order]
    starts = np.searchsorted(rows[:, 1], rows[:, 1], side="left")
    cumulative = np.cumsum(rows[:, 4])
    before = cumulative - rows[:, 4] - (cumulative[starts] - rows[starts, 4])
    return rows[before < excess[rows[:, 1]]]
