"""Boundary label propagation for k-way refinement, and the shared move rating.

A partition is refined in place. ``pw`` (k, ncon) holds the current part
weights and is kept up to date; ``maxw`` (k, ncon) bounds every part
(targets may differ per part, as in recursive bisection). A move is only
made when the target part stays within its bound.
"""

import numpy as np

from partkit import _threads
from partkit._borrow import borrow
from partkit._jit import njit
from partkit._prefetch import MIN_VERTICES, prefetch_adjacency
from partkit._lists import append_neighbours
from partkit._threads import current_threads, run_ranges
from partkit.multilevel.kernels.objectives import CUT, move_gain


@njit(cache=True)
def fits_in(vwgt, pw, maxw, v, b):
    """Whether vertex ``v`` can join part ``b`` without exceeding ``maxw[b]``."""
    for c in range(vwgt.shape[1]):
        if pw[b, c] + vwgt[v, c] > maxw[b, c]:
            return False
    return True


@njit(cache=True)
def overloaded(pw, maxw, p):
    """Whether part ``p`` exceeds ``maxw[p]`` on some constraint."""
    for c in range(pw.shape[1]):
        if pw[p, c] > maxw[p, c]:
            return True
    return False


@njit(cache=True)
def part_connections(v, xadj, adjncy, adjwgt, part, conn, touched):
    """Add the edge weight from ``v`` to each part into ``conn`` (all 0 on entry for the parts
    it touches) and list those parts in ``touched``; returns how many there are."""
    count = 0
    for e in range(xadj[v], xadj[v + 1]):
        p = part[adjncy[e]]
        if conn[p] == 0:
            touched[count] = p
            count += 1
        conn[p] += adjwgt[e]
    return count


@njit(cache=True)
def connections(v, xadj, adjncy, adjwgt, part, conn, touched):
    """:func:`part_connections` for ``conn`` all -1 on entry (0 counts as a connection: zero edge weights);
    the entries of the listed parts are to be set back to -1."""
    nt = 0
    for e in range(xadj[v], xadj[v + 1]):
        p = part[adjncy[e]]
        if conn[p] < 0:
            conn[p] = 0
            touched[nt] = p
            nt += 1
        conn[p] += adjwgt[e]
    return nt


@njit(cache=True)
def any_overloaded(pw, maxw):
    """Whether some part exceeds its bound."""
    for p in range(pw.shape[0]):
        if overloaded(pw, maxw, p):
            return True
    return False


@njit(cache=True)
def slack(pw, maxw, b):
    """Smallest remaining room of part ``b`` over all constraints."""
    s = maxw[b, 0] - pw[b, 0]
    for c in range(1, pw.shape[1]):
        s = min(s, maxw[b, c] - pw[b, c])
    return s


@njit(cache=True)
def best_move(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, v, conn, touched, objective, data):
    """Best feasible move of ``v`` to an adjacent part under ``objective`` and its ``data``
    (:mod:`partkit.multilevel.kernels.objectives`).

    ``conn`` (k,) must be all -1 on entry and is left so; ``touched`` is
    scratch of length k. Ties in gain go to the part with more room.

    Returns
    -------
    target : int
        Best part, or -1 when ``v`` has no neighbour in another part with room.
    gain : int
        Decrease of the objective by the move (may be negative).
    """
    own = part[v]
    nt = connections(v, xadj, adjncy, adjwgt, part, conn, touched)
    internal = max(conn[own], 0)
    target = -1
    best = 0
    best_room = 0
    for t in range(nt):
        p = touched[t]
        if p == own or not fits_in(vwgt, pw, maxw, v, p):
            continue
        # the cut's gain (move_gain's first branch) spelled out in the engine's hottest loop: the call, which
        # takes its arrays by value, made partitions 2 % slower
        gain = conn[p] - internal if data is None or objective == CUT else \
            move_gain(objective, data, xadj, adjncy, part, v, conn, touched, nt, p, internal)
        room = slack(pw, maxw, p)
        if target == -1 or gain > best or (gain == best and room > best_room):
            target = p
            best = gain
            best_room = room
    for t in range(nt):
        conn[touched[t]] = -1
    return target, best


@njit(cache=True)
def move_vertex(vwgt, part, pw, v, to):
    """Move ``v`` to part ``to`` and update the part weights."""
    frm = part[v]
    for c in range(vwgt.shape[1]):
        pw[frm, c] -= vwgt[v, c]
        pw[to, c] += vwgt[v, c]
    part[v] = to


@njit(cache=True, inline="always")
def on_boundary(xadj, adjncy, part, v):
    """Whether ``v`` has a neighbour in another part."""
    p = part[v]
    for e in range(xadj[v], xadj[v + 1]):
        if part[adjncy[e]] != p:
            return True
    return False


@njit(cache=True)
def boundary_vertices(xadj, adjncy, part):
    """Vertices with a neighbour in another part, in increasing order."""
    return boundary_in_range(xadj, adjncy, part, np.int64(0), xadj.size - 1)  # not a literal 0: one signature


@njit(cache=True)
def boundary_in_range(xadj, adjncy, part, lo, hi):
    """The boundary vertices among ``lo .. hi - 1``, in increasing order."""
    out = np.empty(hi - lo, dtype=np.int64)
    nb = 0
    for v in range(lo, hi):
        if on_boundary(xadj, adjncy, part, v):
            out[nb] = v
            nb += 1
    return out[:nb].copy()


def parallel_boundary_vertices(xadj, adjncy, part, nchunks=None):
    """:func:`boundary_vertices` in ``nchunks`` ranges in parallel (default: the threads in effect; same output)."""
    found = run_ranges(boundary_in_range, (xadj, adjncy, part), xadj.size - 1, nchunks)
    return found[0] if len(found) == 1 else np.concatenate(found)


@njit(cache=True)
def part_weights(vwgt, part, k):
    """Weight of every part per constraint, shape (k, ncon)."""
    pw = np.zeros((k, vwgt.shape[1]), dtype=np.int64)
    for v in range(part.size):
        for c in range(vwgt.shape[1]):
            pw[part[v], c] += vwgt[v, c]
    return pw


@njit(cache=True)
def relaxed_bounds(vwgt, maxw):
    """``maxw`` raised, per constraint, to every part's perfect share of the weight of ``vwgt`` (its bound
    scaled to that total, rounded up) plus the heaviest vertex less one: the bound of a coarse level
    (:func:`partkit.multilevel.refinement.level_bounds`), in one pass over the weights."""
    n, ncon = vwgt.shape
    k = maxw.shape[0]
    out = np.empty_like(maxw)
    for c in range(ncon):
        total = 0
        heaviest = 0
        for v in range(n):
            total += vwgt[v, c]
            heaviest = max(heaviest, vwgt[v, c])
        bound_sum = 0
        for p in range(k):
            bound_sum += maxw[p, c]
        bound_sum = max(bound_sum, 1)
        for p in range(k):
            perfect = -(-maxw[p, c] * total // bound_sum)
            out[p, c] = max(maxw[p, c], perfect + max(heaviest - 1, 0))
    return out


@njit(cache=True)
def edge_cut(xadj, adjncy, adjwgt, part):
    """Total weight of the edges between different parts."""
    cut = 0
    for v in range(xadj.size - 1):
        for e in range(xadj[v], xadj[v + 1]):
            if part[adjncy[e]] != part[v]:
                cut += adjwgt[e]
    return cut // 2


@njit(cache=True)
def _lp_accepts(vwgt, part, pw, v, target, gain):
    """Label propagation's rule: a move that lowers the cut, or keeps it and evens out the two parts."""
    if target < 0 or gain < 0:
        return False
    if gain > 0:
        return True
    own = part[v]
    for c in range(vwgt.shape[1]):
        if pw[own, c] - vwgt[v, c] < pw[target, c] + vwgt[v, c]:
            return False
    return True


def parallel_label_propagation_refine(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, candidates, rounds,
                                      batches, nchunks=None):
    """Greedy boundary refinement: move vertices to the best adjacent part, in parallel, with the
    same result for any thread count.

    Moves are rated by ``objective`` and its ``data``
    (:mod:`partkit.multilevel.kernels.objectives`; the cut below stands for
    it). A vertex moves when the move reduces the cut, or keeps it and leaves the
    source part heavier than the target afterwards (evening out the load).
    The first sweep visits ``candidates`` (distinct vertices, usually the
    shuffled boundary vertices); every later sweep visits the neighbours of
    the vertices that moved in the previous one. Stops when a sweep moves
    nothing or after ``rounds`` sweeps.

    A sweep visits its vertices in ``batches`` consecutive batches (a fixed
    number). Within a batch the vertices are rated in parallel against the
    partition left by the previous batch (:func:`_lp_rate`, in ``nchunks``
    ranges, default the threads in effect, each range with at least
    :data:`partkit._threads.MIN_RANGE` vertices); those whose best move passes
    the rule are then rated again and moved one by one in visiting order
    (so every move is exact and respects the bound). The sweeps run in
    :func:`_lp_sweeps`, which rates the batches itself on one thread (one
    call for the whole refinement).

    Returns
    -------
    int
        Total reduction of the objective.
    """
    grain = _threads.MIN_RANGE if nchunks is None else 1
    if nchunks is None:
        nchunks = current_threads()
    n = xadj.size - 1
    size = max(n, candidates.size, 1)
    current = np.empty(size, dtype=np.int64)
    current[:candidates.size] = candidates
    following = np.empty(size, dtype=np.int64)
    wants = np.zeros(size, dtype=np.bool_)
    queued = np.zeros(n, dtype=np.bool_)
    state = np.zeros(_LP_STATE_SIZE, dtype=np.int64)
    state[_LP_SIZE] = candidates.size
    while _lp_sweeps(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, current, following, wants, queued,
                     state, rounds, batches, nchunks, grain):
        lo, hi = int(state[_LP_LO]), int(state[_LP_HI])
        run_ranges(_lp_rate, (xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, current, wants), hi - lo,
                   min(nchunks, (hi - lo) // grain), lo)
        state[_LP_RATED] = 1
    return int(state[_LP_IMPROVEMENT])


# fields of the state of a label propagation between calls of _lp_sweeps
_LP_ROUND, _LP_BATCH, _LP_SIZE, _LP_NEXT, _LP_RATED, _LP_LO, _LP_HI, _LP_IMPROVEMENT, _LP_STATE_SIZE = range(9)


@njit(cache=True)
def _lp_sweeps(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, current, following, wants, queued, state,
               rounds, batches, nchunks, grain):
    """Run the sweeps of :func:`parallel_label_propagation_refine` from ``state``: the vertices of a sweep
    are ``current[:state[_LP_SIZE]]``. Returns True when batch ``state[_LP_LO] .. state[_LP_HI] - 1`` is to
    be rated in parallel (``nchunks > 1`` and at least two ranges of ``grain`` vertices), False when done.
    Rates the other batches itself."""
    k = pw.shape[0]
    conn = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    # borrowed views: no reference counting per call of best_move (partkit._borrow)
    xadj, adjncy, adjwgt, vwgt, part = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(part)
    pw, maxw, data = borrow(pw), borrow(maxw), borrow(data)
    while state[_LP_ROUND] < rounds:
        size = state[_LP_SIZE]
        while state[_LP_BATCH] < batches:
            b = state[_LP_BATCH]
            lo = b * size // batches
            hi = (b + 1) * size // batches
            if state[_LP_RATED] == 0:
                if nchunks > 1 and hi - lo >= 2 * grain:
                    state[_LP_LO] = lo
                    state[_LP_HI] = hi
                    return True
                _lp_rate(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, current, wants, lo, hi)
            nnext = state[_LP_NEXT]
            for idx in range(lo, hi):
                if not wants[idx]:
                    continue
                v = current[idx]
                target, gain = best_move(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, v, conn, touched, objective, data)
                if not _lp_accepts(vwgt, part, pw, v, target, gain):
                    continue
                move_vertex(vwgt, part, pw, v, target)
                state[_LP_IMPROVEMENT] += gain
                nnext = append_neighbours(xadj, adjncy, v, queued, following, nnext)
            state[_LP_NEXT] = nnext
            state[_LP_RATED] = 0
            state[_LP_BATCH] += 1
        nnext = state[_LP_NEXT]
        if nnext == 0:
            break
        for idx in range(nnext):
            u = following[idx]
            queued[u] = False
            current[idx] = u
        state[_LP_SIZE] = nnext
        state[_LP_NEXT] = 0
        state[_LP_BATCH] = 0
        state[_LP_ROUND] += 1
    return False


@njit(cache=True)
def _lp_rate(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, current, wants, lo, hi):
    """Whether each vertex of ``current[lo:hi]`` wants to move under label propagation's rule, into ``wants``."""
    k = pw.shape[0]
    conn = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    # borrowed views: no reference counting per call of best_move (partkit._borrow)
    xadj, adjncy, adjwgt, vwgt, part = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(part)
    pw, maxw, current, data = borrow(pw), borrow(maxw), borrow(current), borrow(data)
    fetch = xadj.size > MIN_VERTICES
    for idx in range(lo, hi):
        if fetch:
            prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, part, current, idx, hi)
        v = current[idx]
        target, gain = best_move(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, v, conn, touched, objective, data)
        wants[idx] = _lp_accepts(vwgt, part, pw, v, target, gain)


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (_lp_sweeps, boundary_in_range)


@njit(cache=True)
def fill_empty_parts(xadj, adjncy, adjwgt, vwgt, part, maxw):
    """Give every empty part one vertex, in place: the one of least cut increase (edge weight to its
    own part) among those that fit the part's bound and whose part keeps another vertex, as METIS and
    KaMinPar do. Returns the parts left empty (none while such a vertex exists)."""
    n = part.size
    k = maxw.shape[0]
    count = np.zeros(k, dtype=np.int64)
    empty = 0
    for v in range(n):
        count[part[v]] += 1
    for t in range(k):  # a loop, not count.min(): Numba's array reductions cost compile time
        empty += count[t] == 0
    if empty == 0:  # the usual case: no pass over the edges
        return 0
    pw = part_weights(vwgt, part, k)  # not ``pw[part[v]] += vwgt[v]``: a row assignment compiles Numba's
    internal = np.zeros(n, dtype=np.int64)  # shape-mismatch message (about 2 s of a first call)
    for v in range(n):
        for j in range(xadj[v], xadj[v + 1]):
            if part[adjncy[j]] == part[v]:
                internal[v] += adjwgt[j]
    left = 0
    for t in range(k):
        if count[t] > 0:
            continue
        best = -1
        for v in range(n):
            if count[part[v]] > 1 and fits_in(vwgt, pw, maxw, v, t) and (best < 0 or internal[v] < internal[best]):
                best = v
        if best < 0:
            left += 1
            continue
        p = part[best]
        for j in range(xadj[best], xadj[best + 1]):
            if part[adjncy[j]] == p:
                internal[adjncy[j]] -= adjwgt[j]
        internal[best] = 0
        count[p] -= 1
        count[t] += 1
        move_vertex(vwgt, part, pw, best, t)
    return left
