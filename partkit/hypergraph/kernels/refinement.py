"""Kernels of k-way refinement of hypergraph partitions on the λ-1 objective: FM, localized FM and the
rebalancer.

Their gains are the engine's λ-1 gain type
(:mod:`partkit.multilevel.kernels.refinement_km1`: pin counts ``pc``,
spans ``lam``, part weights ``pw`` and the gain cache ``benefit, conn``);
label propagation is the engine's too
(:func:`partkit.hypergraph.refinement.label_propagation`). The caller
builds one cache a level and passes ``benefit, conn`` to every kernel after
``maxw``; each keeps it exact, roll-backs included. No move empties a part.
"""

import numpy as np

from partkit._jit import njit
from partkit._random import fill_permutation, subkey
from partkit._heap import heap_clear, heap_pop, heap_push, heap_remove, heap_set, new_heap
from partkit.multilevel.kernels.refinement_km1 import (best_cached_move, connectivity_cost, gain_cache, move_cached,
                                                       no_shed, on_boundary, pin_counts, shed_table)
from partkit.multilevel.kernels.stop_rule import adaptive_stop


@njit(cache=True)
def part_weights(vwgt, part, k):
    """Weight of every part."""
    pw = np.zeros(k, dtype=np.int64)
    for v in range(vwgt.size):
        pw[part[v]] += vwgt[v]
    return pw


@njit(cache=True)
def _recheck_move(v, was, a, b, benefit, conn, vwgt, part, pw, maxw, slack, shed, factor):
    """:func:`best_cached_move` of ``v`` rating only parts ``was``, ``a`` and ``b`` (Mt-KaHyPar's
    ``bestOfThree``): after a move from ``a`` to ``b``, when ``v``'s best move went to ``was``, only
    these can be best (exactly so when nothing else changed since ``was`` was read); ties go to the
    lighter part, then the lower."""
    best_gain, best = best_cached_move(v, benefit, conn, vwgt, part, pw, maxw, False, slack, shed, factor, was, was + 1)
    for t in (a, b):
        g, u = best_cached_move(v, benefit, conn, vwgt, part, pw, maxw, False, slack, shed, factor, t, t + 1)
        if u >= 0 and (best < 0 or g > best_gain or (g == best_gain and (pw[u], u) < (pw[best], best))):
            best_gain, best = g, u
    return best_gain, best


@njit(cache=True)
def _pop_move(items, keys, pos, size, benefit, conn, vwgt, part, pw, maxw, any_part, slack, shed, factor):
    """Pop the top vertex of the heap and re-read its best move: ``(vertex, gain, part)``. Part -1 when
    it has none (dropped) or its gain fell below its key (pushed back with the gain read)."""
    key = keys[0]
    u = heap_pop(items, keys, pos, size)
    g, t = best_cached_move(u, benefit, conn, vwgt, part, pw, maxw, any_part, slack, shed, factor)
    if t >= 0 and g < key:
        heap_push(items, keys, pos, size, u, g)
        t = -1
    return u, g, t


@njit(cache=True)
def _search_buffers(n):
    """Empty heap, locks, stamps, touched list and move records of :func:`_search` for ``n`` vertices."""
    return (new_heap(n), np.zeros(n, dtype=np.bool_), np.full(n, -1, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.full(n, -1, dtype=np.int64))


@njit(cache=True)
def _search(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, heap, locked,
            stamp, visit, touched, moved_v, moved_from, target, stop, large_net, alpha, slack, shed, factor):
    """FM moves from ``heap`` until it is empty, ``stop`` moves in a row did not improve, or (``alpha`` > 0)
    the adaptive rule (:func:`partkit.multilevel.kernels.stop_rule.adaptive_stop`, ``beta = ln n``) says so.

    The popped vertex's move is re-read (its key may be stale through the
    balance or a large net); a lower gain sends it back to the heap, else
    it moves and is locked. A move updates the cache by the delta rules and
    (re-)keys the unlocked vertices whose entries changed, which brings the
    neighbours of a moved vertex into the heap. ``target[v]`` is the part of
    the move a queued vertex ``v`` is keyed by (-1: unknown; the callers set
    it for the vertices they queue); when it is neither part of the move, only
    it and those two parts are rated again (Mt-KaHyPar's ``bestOfThree``; a
    move may touch hundreds of vertices), else every part. Moves are recorded in
    ``moved_v``/``moved_from`` (stamps ``visit, visit + 1, ...``). Returns
    ``(moves, length of the best prefix, its λ-1 reduction)``.
    """
    items, keys, pos, size = heap
    nm = 0
    cur = 0
    best = 0
    best_nm = 0
    since = 0
    total = 0.0  # sum and sum of squares of the gains since the last improvement
    squares = 0.0
    beta = np.log(max(vwgt.size, 2))
    while size[0] > 0 and since < stop and not (alpha > 0 and adaptive_stop(since, total, squares, alpha, beta)):
        u, g, t = _pop_move(items, keys, pos, size, benefit, conn, vwgt, part, pw, maxw, False, slack, shed,
                            factor)
        if t < 0:
            target[u] = -1
            continue
        p = part[u]
        nt = move_cached(u, t, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, benefit, conn,
                         large_net, stamp, visit + nm, touched)
        locked[u] = True
        moved_v[nm] = u
        moved_from[nm] = p
        nm += 1
        cur += g
        if cur > best:
            best, best_nm, since, total, squares = cur, nm, 0, 0.0, 0.0
        else:
            since += 1
            total += g
            squares += g * g
        for i in range(nt):
            v = touched[i]
            if locked[v]:
                continue
            was = target[v]
            if pos[v] >= 0 and was >= 0 and was != p and was != t:
                g2, t2 = _recheck_move(v, was, p, t, benefit, conn, vwgt, part, pw, maxw, slack, shed, factor)
            else:
                g2, t2 = best_cached_move(v, benefit, conn, vwgt, part, pw, maxw, False, slack, shed, factor)
            target[v] = t2
            if t2 >= 0:
                heap_set(items, keys, pos, size, v, g2)
            else:
                heap_remove(items, keys, pos, size, v)
    return nm, best_nm, best


@njit(cache=True)
def fm(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, stop, large_net):
    """One k-way FM pass on λ-1 gains; keeps its best prefix of moves and returns its λ-1 reduction.

    Boundary vertices wait in a max-heap keyed by their best move's gain,
    read from the gain cache (:func:`gain_cache`) in O(k); :func:`_search`
    moves them (re-keying the pins of the nets whose counts crossed, except
    on nets with more than ``large_net`` pins, left to the lazy check) until
    ``stop`` moves without improvement. One pass a call: the caller loops,
    and Ctrl-C is handled between passes.
    """
    n = vwgt.size
    heap, locked, stamp, touched, moved_v, moved_from, target = _search_buffers(n)
    none = no_shed()
    for u in range(n):
        if on_boundary(u, vptr, vnets, lam):
            g, t = best_cached_move(u, benefit, conn, vwgt, part, pw, maxw, False, 0.0, none, 0.0)
            if t >= 0:
                heap_push(heap[0], heap[1], heap[2], heap[3], u, g)
                target[u] = t
    nm, best_nm, best = _search(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn,
                                heap, locked, stamp, 0, touched, moved_v, moved_from, target, stop, large_net, 0.0,
                                0.0, none, 0.0)
    for i in range(nm - 1, best_nm - 1, -1):
        move_cached(moved_v[i], moved_from[i], net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, benefit,
                    conn, -1, stamp, 0, stamp[:0])
    return best


@njit(cache=True)
def localized_fm(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, rounds, seeds,
                 stop, alpha, min_share, large_net, slack, interior, first_factor, last_factor, rebalance_rounds,
                 seed):
    """Rounds of localized k-way FM (Mt-KaHyPar's): many small searches that together cover the boundary.

    In a round, boundary vertices are taken in random order, ``seeds``
    unlocked ones at a time, to start a search (:func:`_search`) whose heap
    holds only them and grows by the neighbours its moves touch; it ends
    after ``stop`` moves without improvement, or earlier by the adaptive
    rule with ``alpha`` (> 0), and keeps its best prefix
    (rolled back through the gain cache, which stays exact for the next
    search, round and kernel). A vertex moved by a search stays
    locked for the round. The rounds stop early when one lowers λ-1 by no
    more than ``min_share`` of its value at the round's start (nothing,
    with 0). Returns the λ-1 reduction.

    With ``slack`` > 0 the rounds start *unconstrained* (Mt-KaHyPar's): a
    part may be filled to ``1 + slack`` times its bound, a move paying the
    estimated cost of shedding its excess (:func:`shed_table` over the
    vertices with at least ``interior`` of their nets' weight inside their
    part, made anew each round) times a factor growing from
    ``first_factor`` in the first round to ``last_factor`` in the last, and
    the rebalancer (``rebalance_rounds``) restores the bound after the round. A
    round that does not end below the λ-1 it started from is undone and
    ends the rounds (as in Mt-KaHyPar); one that cannot be rebalanced is
    undone and the rounds go on within the bound.
    """
    n = vwgt.size
    heap, locked, stamp, touched, moved_v, moved_from, target = _search_buffers(n)
    items, keys, pos, size = heap
    order = np.empty(n, dtype=np.int64)
    saved = np.empty(n if slack > 0 else 0, dtype=part.dtype)
    shed = no_shed()
    excess = 0
    visit = 0
    total = 0
    current = connectivity_cost(nwgt, lam)
    loose = slack
    r = 0
    while r < rounds:
        fill_permutation(order, subkey(seed, r))
        locked[:] = False
        factor = first_factor + (last_factor - first_factor) * r / max(rounds - 1, 1)
        if loose > 0:
            shed, excess = open_loose_round(vwgt, part, pw, maxw, benefit, conn, interior, saved)
        gained = 0
        kept = 0
        i = 0
        while i < n:
            taken = 0
            while i < n and taken < seeds:
                u = order[i]
                i += 1
                if locked[u] or not on_boundary(u, vptr, vnets, lam):
                    continue
                g, t = best_cached_move(u, benefit, conn, vwgt, part, pw, maxw, False, loose, shed, factor)
                if t >= 0:
                    heap_push(items, keys, pos, size, u, g)
                    target[u] = t
                    taken += 1
            if taken == 0:
                continue
            nm, best_nm, best = _search(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit,
                                        conn, heap, locked, stamp, visit, touched, moved_v, moved_from, target, stop,
                                        large_net, alpha, loose, shed, factor)
            visit += nm
            kept += best_nm
            for j in range(nm - 1, best_nm - 1, -1):
                move_cached(moved_v[j], moved_from[j], net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw,
                            benefit, conn, -1, stamp, 0, stamp[:0])
            heap_clear(items, keys, pos, size)
            gained += best
        if loose > 0:
            gained, grew = close_loose_round(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw,
                                             benefit, conn, heap, stamp, rebalance_rounds, current, excess)
            if gained <= 0 or grew:
                if kept > 0:
                    restore(saved, net_ptr, pins, nwgt, vwgt, part, pc, lam, pw, benefit, conn)
                if not grew:
                    break  # moves past the bound found nothing: neither would moves within it
                loose = 0.0
                continue  # the same round again, within the bound
        r += 1
        total += gained
        if gained <= min_share * current:
            break
        current -= gained
    return total


@njit(cache=True)
def open_loose_round(vwgt, part, pw, maxw, benefit, conn, interior, saved):
    """Start a round whose moves may overfill parts: keep the partition in ``saved`` and return the
    round's shed table (:func:`shed_table`) and the weight already above the bounds."""
    saved[:] = part
    return shed_table(vwgt, part, benefit, conn, pw.size, interior), _excess(pw, maxw)


@njit(cache=True)
def close_loose_round(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, heap, stamp,
                      rebalance_rounds, current, excess):
    """End such a round: rebalance, then ``(λ-1 gained since current, more weight above the bounds than
    excess)``; the caller undoes the round with :func:`restore` when it did not pay."""
    _rebalance_cached(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, heap, stamp,
                      rebalance_rounds)
    return current - connectivity_cost(nwgt, lam), _excess(pw, maxw) > excess


@njit(cache=True)
def restore(saved, net_ptr, pins, nwgt, vwgt, part, pc, lam, pw, benefit, conn):
    """Put the partition back to ``saved``, with its pin counts, part weights and gain cache."""
    part[:] = saved
    counts, spans = pin_counts(net_ptr, pins, part, pw.size)
    pc[:, :] = counts
    lam[:] = spans
    pw[:] = part_weights(vwgt, part, pw.size)
    fresh_benefit, fresh_conn = gain_cache(net_ptr, pins, nwgt, part, pc, pw.size)
    benefit[:] = fresh_benefit
    conn[:, :] = fresh_conn


@njit(cache=True)
def _excess(pw, maxw):
    """The weight the parts carry above their bounds, summed."""
    total = 0
    for t in range(pw.size):
        total += max(pw[t] - maxw[t], 0)
    return total


@njit(cache=True)
def rebalance(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, rounds):
    """Move vertices out of overweight parts, least λ-1 loss first (gains from the gain cache, kept
    exact); True when all parts fit."""
    if _excess(pw, maxw) == 0:
        return True
    return _rebalance_cached(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn,
                             new_heap(vwgt.size), np.full(vwgt.size, -1, dtype=np.int64), rounds)


@njit(cache=True)
def _rebalance_cached(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn, heap, stamp,
                      rounds):
    """:func:`rebalance` with the gain cache ``(benefit, conn)`` given (and kept exact) and an empty ``heap``."""
    items, keys, pos, size = heap
    none = no_shed()
    for _ in range(rounds):
        if _excess(pw, maxw) == 0:
            return True
        for u in range(vwgt.size):
            if pw[part[u]] > maxw[part[u]] and vwgt[u] > 0:
                g, t = best_cached_move(u, benefit, conn, vwgt, part, pw, maxw, True, 0.0, none, 0.0)
                if t >= 0:
                    heap_push(items, keys, pos, size, u, g)
        while size[0] > 0:
            u, g, t = _pop_move(items, keys, pos, size, benefit, conn, vwgt, part, pw, maxw, True, 0.0, none, 0.0)
            if t < 0 or pw[part[u]] <= maxw[part[u]]:
                continue
            move_cached(u, t, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, benefit, conn, -1,
                        stamp, 0, stamp[:0])
    return _excess(pw, maxw) == 0


@njit(cache=True)
def fill_empty_parts(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, benefit, conn):
    """Give every empty part one vertex: the one of least λ-1 loss among those that fit its bound and
    whose part keeps another vertex (as METIS and KaMinPar do). Returns the parts left empty (none
    while such a vertex exists)."""
    n = vwgt.size
    k = pw.size
    count = np.zeros(k, dtype=np.int64)
    for v in range(n):
        count[part[v]] += 1
    if count.min() > 0:
        return 0
    stamp = np.full(n, -1, dtype=np.int64)
    left = 0
    for t in range(k):
        if count[t] > 0:
            continue
        best = -1
        best_gain = 0
        for v in range(n):
            p = part[v]
            if count[p] > 1 and pw[t] + vwgt[v] <= maxw[t]:
                g = benefit[v] - conn[v, p]
                if best < 0 or g > best_gain or (g == best_gain and vwgt[v] < vwgt[best]):
                    best, best_gain = v, g
        if best < 0:
            left += 1
            continue
        count[part[best]] -= 1
        count[t] += 1
        move_cached(best, t, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, benefit, conn, -1,
                    stamp, 0, stamp[:0])
    return left
