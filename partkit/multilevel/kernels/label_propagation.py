"""Label propagation: one batched sweep driver for clustering (coarsening) and refinement.

As in KaMinPar's label propagation template, the two uses share the
sweeps and differ only in how a vertex rates the labels of its neighbours:

* :data:`CLUSTER`: labels are clusters (every vertex starts in its own);
  a vertex joins the neighbouring cluster of its group it is most strongly
  connected to, when that cluster has room (:func:`best_cluster`). On
  power-law graphs this shrinks the graph much faster than a matching (a
  star collapses in one round).
* :data:`REFINE`: labels are the k parts; a vertex moves to the adjacent
  part of best gain under the objective
  (:func:`~partkit.multilevel.kernels.refinement_moves.best_move`, its
  ties to the part with more room) when the gain is positive, or zero and
  the move evens out the two parts (:func:`lp_accepts`). A new objective
  plugs in through :func:`~partkit.multilevel.kernels.objectives.move_gain`
  alone.
* :data:`BALANCE`: labels are the k parts; a vertex joins the adjacent part
  that light parts make most attractive (:func:`attracting_part`), for the
  PuLP-style method :mod:`partkit.methods.labelprop`.
* :data:`KM1_REFINE`: labels are the k parts of a hypergraph; a vertex on
  a cut net moves to the part of best positive λ-1 gain, read from the gain
  cache (:func:`~partkit.multilevel.kernels.refinement_km1.best_cached_move`,
  which may let a part past its bound: Mt-KaHyPar's unconstrained label
  propagation), and the move keeps the cache exact
  (:func:`~partkit.multilevel.kernels.refinement_km1.move_cached`).

The ratings of graphs propagate on the ``structure`` ``(xadj, adjncy,
adjwgt, vwgt)``; :data:`KM1_REFINE` on ``(net_ptr, pins, vptr, vnets,
nwgt, vwgt, pc, lam, benefit, conn, shed, slack, factor)``: the
hypergraph, its pin counts and spans, the gain cache and the arguments of
``best_cached_move`` that let parts past their bounds.

A sweep visits its vertices in a fixed number of consecutive batches. The
vertices of a batch are rated in parallel against the labels and weights
left by the previous batch (:func:`rate_batch`, in ranges, each with its
own scratch: the same result for any thread count); the moves are then
committed one by one in visiting order, each only if its label still has
room (the ratings of parts rate the vertex again first, so every move is
rated against the parts as they are).
Graph refinement visits the neighbours of the vertices that moved in the
previous sweep, the other ratings all vertices in every sweep. The sweeps
stop when one moves nothing.
"""

import numpy as np

from partkit._borrow import borrow
from partkit._jit import njit
from partkit._lists import append_neighbours
from partkit._prefetch import MIN_VERTICES, prefetch_adjacency
from partkit._threads import current_threads, run_calls
from partkit.multilevel.kernels.objectives import CUT
from partkit.multilevel.kernels.refinement_km1 import best_cached_move, move_cached, on_boundary
from partkit.multilevel.kernels.refinement_moves import best_move, connections, fits_in, move_vertex

#: Vertices below which a batch is not split into ranges for the threads (half
#: :data:`partkit._threads.MIN_RANGE`): a sweep's 16 batches of a level's boundary
#: are small, and with 1024 the 30 000 boundary vertices of delaunay_n20 at
#: k = 64 were all rated on one thread (label propagation of that level at 2
#: threads: 9.5 ms with 1024, 6.7 ms with 512; the same result, as for any count).
MIN_BATCH_RANGE = 512

#: Ratings of :func:`label_propagation`: size-constrained clustering, refinement by the objective's gain,
#: PuLP's balancing (:func:`attracting_part`), and refinement of a hypergraph partition by λ-1.
CLUSTER, REFINE, BALANCE, KM1_REFINE = 0, 1, 2, 3


def parallel_label_propagation_clustering(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, rounds, batches,
                                          nchunks=None):
    """Cluster the vertices by size-constrained label propagation (:data:`CLUSTER`), in parallel, with
    the same result for any thread count.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
    vwgt : int64 array, shape (n, ncon)
    maxcw : int64 array, shape (ncon,)
        Upper bound on the weight of a cluster, per constraint.
    order : int64 array, shape (n,)
        Visiting order (a random permutation).
    group : int64 array, shape (n,)
        Vertices only join clusters of their own group.
    rounds, batches, nchunks : int
        Sweeps at most, batches per sweep, ranges of a batch (see :func:`label_propagation`).

    Returns
    -------
    labels : int64 array, shape (n,)
        Cluster id of every vertex (a vertex id, not compacted).
    """
    n = xadj.size - 1
    labels = np.arange(n, dtype=np.int64)
    bounds = np.broadcast_to(maxcw, (n, maxcw.size))  # every cluster has the same bound
    restricted = group if n > 0 and (group != group[0]).any() else group[:0]
    label_propagation(CLUSTER, (xadj, adjncy, adjwgt, vwgt), labels, vwgt.copy(), bounds, restricted, CUT, None,
                      order, rounds, batches, nchunks)
    return labels


def parallel_label_propagation_refine(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, candidates, rounds,
                                      batches, nchunks=None):
    """Greedy boundary refinement (:data:`REFINE`) of ``part`` and its weights ``pw`` (k, ncon) within the
    bounds ``maxw`` (k, ncon), in place, in parallel, with the same result for any thread count.

    Moves are rated by ``objective`` and its ``data``
    (:mod:`partkit.multilevel.kernels.objectives`). The first sweep visits
    ``candidates`` (distinct vertices, usually the shuffled boundary
    vertices). ``rounds``, ``batches`` and ``nchunks`` are those of
    :func:`label_propagation`.

    Returns
    -------
    int
        Total reduction of the objective.
    """
    return label_propagation(REFINE, (xadj, adjncy, adjwgt, vwgt), part, pw, maxw, part[:0], objective, data,
                             candidates, rounds, batches, nchunks)


def label_propagation(rating, structure, labels, weights, bounds, group, objective, data, visit, rounds, batches,
                      nchunks=None):
    """Run label propagation with ``rating`` (:data:`CLUSTER`, :data:`REFINE`, :data:`BALANCE` or
    :data:`KM1_REFINE`) over ``structure`` (the module docstring says which) on ``labels`` and their
    ``weights`` (L, ncon; L for :data:`KM1_REFINE`) within ``bounds`` (of the same shape), in place; returns
    the total gain of the moves under the objective (refinement; 0 for the other ratings).

    ``group`` restricts a cluster to one group (empty: no restriction);
    ``objective`` and ``data`` rate refinement's moves. The first sweep
    visits ``visit`` (distinct vertices), at most ``rounds`` sweeps run,
    each in ``batches`` batches (a fixed number, not the thread count). A
    batch is rated in ``nchunks`` ranges, default the threads in effect
    with at least :data:`MIN_BATCH_RANGE` vertices a range.
    The sweeps run in the rating's copy of :func:`sweeps` (and the batches
    of several ranges in its copy of :func:`rate_batch`), which rates the
    batches itself on one thread (one call for the whole propagation).
    """
    grain = MIN_BATCH_RANGE if nchunks is None else 1
    if nchunks is None:
        nchunks = current_threads()
    n = labels.size
    size = max(n, visit.size, 1)
    current = np.empty(size, dtype=np.int64)
    current[:visit.size] = visit
    follow = n if rating == REFINE else 0  # refinement's next sweep visits the neighbours of the moved vertices
    following = np.empty(follow, dtype=np.int64)
    queued = np.zeros(follow, dtype=np.bool_)
    proposal = np.empty(size, dtype=np.int64)
    conn = np.full((nchunks, weights.shape[0]), -1, dtype=np.int64)  # each range rates with its own scratch
    touched = np.empty((nchunks, weights.shape[0]), dtype=np.int64)
    state = np.zeros(_STATE_SIZE, dtype=np.int64)
    state[_SIZE] = visit.size
    args = (structure, labels, weights, bounds, group, objective, data, current, proposal)
    run_sweeps, run_batch = _KERNELS[rating]
    while run_sweeps(*args, conn[0], touched[0], following, queued, state, rounds, batches, nchunks, grain):
        lo, hi = int(state[_LO]), int(state[_HI])
        count = min(nchunks, (hi - lo) // grain)
        run_calls(run_batch, [(*args, conn[i], touched[i], lo + i * (hi - lo) // count,
                               lo + (i + 1) * (hi - lo) // count) for i in range(count)])
        state[_RATED] = 1
    return int(state[_GAIN])


# fields of the state of a label propagation between calls of sweeps
_ROUND, _BATCH, _SIZE, _NEXT, _MOVED, _RATED, _LO, _HI, _GAIN, _STATE_SIZE = range(10)


@njit(cache=True, inline="always")
def sweeps(rating, structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
           following, queued, state, rounds, batches, nchunks, grain):
    """Run the sweeps of :func:`label_propagation` from ``state``: the vertices of a sweep are
    ``current[:state[_SIZE]]``. Returns True when batch ``state[_LO] .. state[_HI] - 1`` is to be rated in
    parallel (``nchunks > 1`` and at least two ranges of ``grain`` vertices), False when done. Rates the
    other batches itself; ``conn`` (all -1, left so) and ``touched`` are scratch of length L."""
    # borrowed views: no reference counting per call of the rating (partkit._borrow)
    structure, labels = borrowed(rating, structure), borrow(labels)
    weights, bounds, data = borrow(weights), borrow(bounds), borrow(data)
    while state[_ROUND] < rounds:
        size = state[_SIZE]
        while state[_BATCH] < batches:
            b = state[_BATCH]
            lo = b * size // batches
            hi = (b + 1) * size // batches
            if state[_RATED] == 0:
                if nchunks > 1 and hi - lo >= 2 * grain:
                    state[_LO] = lo
                    state[_HI] = hi
                    return True
                rate_batch(rating, structure, labels, weights, bounds, group, objective, data, current, proposal,
                           conn, touched, lo, hi)
            for idx in range(lo, hi):
                target = proposal[idx]
                if target < 0:
                    continue
                v = current[idx]
                gain = 0
                if rating != CLUSTER:  # the parts changed since the rating: rate again
                    target, gain = rate_vertex(rating, structure, labels, weights, bounds, group, objective, data, v,
                                               conn, touched)
                    if target < 0:
                        continue
                elif not fits_in(structure[3], weights, bounds, v, target):
                    continue
                commit(rating, structure, labels, weights, v, target)
                state[_MOVED] += 1
                state[_GAIN] += gain
                if rating == REFINE:
                    state[_NEXT] = append_neighbours(structure[0], structure[1], v, queued, following, state[_NEXT])
            state[_RATED] = 0
            state[_BATCH] += 1
        if state[_MOVED] == 0:
            break
        if rating == REFINE:
            for idx in range(state[_NEXT]):
                u = following[idx]
                queued[u] = False
                current[idx] = u
            state[_SIZE] = state[_NEXT]
            state[_NEXT] = 0
        state[_MOVED] = 0
        state[_BATCH] = 0
        state[_ROUND] += 1
    return False


@njit(cache=True, inline="always")
def rate_batch(rating, structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
               lo, hi):
    """The label each vertex of ``current[lo:hi]`` proposes to join under ``rating``, or -1 to stay, into
    ``proposal[lo:hi]``; ``conn`` (all -1, left so) and ``touched`` are scratch of length L."""
    structure, labels = borrowed(rating, structure), borrow(labels)
    weights, bounds, current, data = borrow(weights), borrow(bounds), borrow(current), borrow(data)
    fetch = labels.size >= MIN_VERTICES
    for idx in range(lo, hi):
        if rating != KM1_REFINE:
            if fetch:
                xadj, adjncy, adjwgt, vwgt = structure
                prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, labels, current, idx, hi)
        proposal[idx], _ = rate_vertex(rating, structure, labels, weights, bounds, group, objective, data,
                                       current[idx], conn, touched)


@njit(cache=True, inline="always")
def rate_vertex(rating, structure, labels, weights, bounds, group, objective, data, v, conn, touched):
    """The label ``v`` moves to under ``rating`` and the gain of the move (refinement; else 0), or ``(-1, 0)``
    to stay; ``conn`` (all -1, left so) and ``touched`` are scratch of length L."""
    if rating == KM1_REFINE:
        _, _, vptr, vnets, _, vwgt, _, lam, benefit, gains, shed, slack, factor = structure
        if not on_boundary(v, vptr, vnets, lam):
            return -1, 0
        gain, target = best_cached_move(v, benefit, gains, vwgt, labels, weights, bounds, False, slack, shed, factor)
        if target >= 0 and gain > 0:
            return target, gain
        return -1, 0
    xadj, adjncy, adjwgt, vwgt = structure
    if rating == REFINE:
        target, gain = best_move(xadj, adjncy, adjwgt, vwgt, labels, weights, bounds, v, conn, touched, objective,
                                 data)
        if lp_accepts(vwgt, labels, weights, v, target, gain):
            return target, gain
        return -1, 0
    if rating == BALANCE:
        return attracting_part(xadj, adjncy, adjwgt, vwgt, labels, weights, bounds, v, conn, touched), 0
    return best_cluster(xadj, adjncy, adjwgt, vwgt, labels, weights, bounds, group, v, conn, touched), 0


@njit(cache=True, inline="always")
def commit(rating, structure, labels, weights, v, target):
    """Move ``v`` to label ``target`` and update the labels' weights (and, for :data:`KM1_REFINE`, the pin
    counts, spans and gain cache)."""
    if rating == KM1_REFINE:
        net_ptr, pins, vptr, vnets, nwgt, vwgt, pc, lam, benefit, gains, _, _, _ = structure
        none = benefit[:0]  # no large nets to list (large_net -1): no stamps, no list
        move_cached(v, target, net_ptr, pins, vptr, vnets, nwgt, vwgt, labels, pc, lam, weights, benefit, gains, -1,
                    none, 0, none)
    else:
        move_vertex(structure[3], labels, weights, v, target)


@njit(cache=True, inline="always")
def borrowed(rating, structure):
    """The graph ratings' ``structure`` with its arrays borrowed (:mod:`partkit._borrow`); a hypergraph's as
    it is."""
    if rating == KM1_REFINE:
        return structure
    xadj, adjncy, adjwgt, vwgt = structure
    return borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt)


@njit(cache=True)
def best_cluster(xadj, adjncy, adjwgt, vwgt, labels, weights, bounds, group, v, conn, touched):
    """The neighbouring cluster of its group (any when ``group`` is empty) that ``v`` is most strongly
    connected to among those with room, if more strongly than to its own; -1 when there is none. Ties go to
    the cluster listed first. ``conn`` (all -1, left so) and ``touched`` are scratch of length n."""
    own = labels[v]
    nt = 0
    for e in range(xadj[v], xadj[v + 1]):
        u = adjncy[e]
        if group.size > 0 and group[u] != group[v]:
            continue
        lab = labels[u]
        if conn[lab] < 0:
            conn[lab] = 0
            touched[nt] = lab
            nt += 1
        conn[lab] += adjwgt[e]
    best = -1
    best_rating = max(conn[own], 0)
    for t in range(nt):
        lab = touched[t]
        r = conn[lab]
        conn[lab] = -1
        if lab != own and r > best_rating and fits_in(vwgt, weights, bounds, v, lab):
            best = lab
            best_rating = r
    return best


@njit(cache=True)
def attracting_part(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, v, conn, touched):
    """PuLP's balancing rating: the adjacent part with room that maximises the connection of ``v`` times
    ``max(B / w - 1, 0)`` (``B`` its bound, ``w`` its weight, first constraint: light parts attract), if
    more than its own part without ``v``; -1 when there is none. ``conn`` (all -1, left so) and
    ``touched`` are scratch of length k."""
    own = part[v]
    nt = connections(v, xadj, adjncy, adjwgt, part, conn, touched)
    best = -1
    best_score = max(conn[own], 0) * max(maxw[own, 0] / max(pw[own, 0] - vwgt[v, 0], 1) - 1.0, 0.0)
    for t in range(nt):
        p = touched[t]
        score = conn[p] * max(maxw[p, 0] / max(pw[p, 0], 1) - 1.0, 0.0)
        conn[p] = -1
        if p != own and score > best_score and fits_in(vwgt, pw, maxw, v, p):
            best = p
            best_score = score
    return best


@njit(cache=True)
def lp_accepts(vwgt, part, pw, v, target, gain):
    """Refinement's rule: a move that lowers the objective, or keeps it and evens out the two parts."""
    if target < 0 or gain < 0:
        return False
    if gain > 0:
        return True
    own = part[v]
    for c in range(vwgt.shape[1]):
        if pw[own, c] - vwgt[v, c] < pw[target, c] + vwgt[v, c]:
            return False
    return True


# One compiled pair of sweeps and batch rating per rating: the constant rating prunes the other ratings'
# branches before typing, so a signature compiles only its own rating (a shared pair compiled the three graph
# ratings, about 4 s more of a first partition).
@njit(cache=True)
def _cluster_sweeps(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
                    following, queued, state, rounds, batches, nchunks, grain):
    return sweeps(CLUSTER, structure, labels, weights, bounds, group, objective, data, current, proposal, conn,
                  touched, following, queued, state, rounds, batches, nchunks, grain)


@njit(cache=True)
def _cluster_batch(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched, lo,
                   hi):
    rate_batch(CLUSTER, structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
               lo, hi)


@njit(cache=True)
def _refine_sweeps(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
                   following, queued, state, rounds, batches, nchunks, grain):
    return sweeps(REFINE, structure, labels, weights, bounds, group, objective, data, current, proposal, conn,
                  touched, following, queued, state, rounds, batches, nchunks, grain)


@njit(cache=True)
def _refine_batch(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched, lo,
                  hi):
    rate_batch(REFINE, structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
               lo, hi)


@njit(cache=True)
def _balance_sweeps(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
                    following, queued, state, rounds, batches, nchunks, grain):
    return sweeps(BALANCE, structure, labels, weights, bounds, group, objective, data, current, proposal, conn,
                  touched, following, queued, state, rounds, batches, nchunks, grain)


@njit(cache=True)
def _balance_batch(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched, lo,
                   hi):
    rate_batch(BALANCE, structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
               lo, hi)


@njit(cache=True)
def _km1_sweeps(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
                following, queued, state, rounds, batches, nchunks, grain):
    return sweeps(KM1_REFINE, structure, labels, weights, bounds, group, objective, data, current, proposal, conn,
                  touched, following, queued, state, rounds, batches, nchunks, grain)


@njit(cache=True)
def _km1_batch(structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched, lo,
               hi):
    rate_batch(KM1_REFINE, structure, labels, weights, bounds, group, objective, data, current, proposal, conn, touched,
               lo, hi)


_KERNELS = {CLUSTER: (_cluster_sweeps, _cluster_batch), REFINE: (_refine_sweeps, _refine_batch),
            BALANCE: (_balance_sweeps, _balance_batch), KM1_REFINE: (_km1_sweeps, _km1_batch)}

#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (_cluster_sweeps, _refine_sweeps, _balance_sweeps, _km1_sweeps)
