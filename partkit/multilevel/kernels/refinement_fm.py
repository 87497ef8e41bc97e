"""k-way Fiduccia-Mattheyses refinement with a max-gain queue and rollback.

A search moves the vertex of its priority queue with the best gain (keyed
by its best feasible move) even when the gain is negative (hill
climbing), re-rates its unmoved neighbours, and at its end undoes every
move after its best prefix. A pass is either one search from all boundary
vertices at once, or localized, as in KaMinPar and Mt-KaHyPar: one short
search from each boundary vertex in turn, each growing from the vertices
it moves and rolled back on its own, which explores every stretch of the
boundary where one global search stops after its first long fruitless
stretch. Each vertex moves at most once per pass; passes repeat while they
improve (:func:`partkit.multilevel.refinement.kway_fm` runs them: the
candidates of a pass are rated in parallel, :func:`parallel_rate_candidates`,
and moved in one sequential kernel, :func:`fm_pass`).
"""

import numpy as np

from partkit._borrow import borrow
from partkit._heap import heap_build, heap_clear, heap_pop, heap_remove, heap_set
from partkit._jit import njit
from partkit._prefetch import MIN_VERTICES, prefetch_adjacency
from partkit._threads import run_ranges
from partkit.multilevel.kernels.refinement_moves import best_move, move_vertex, weighted_degree
from partkit.multilevel.kernels.stop_rule import adaptive_stop


def parallel_rate_candidates(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, candidates, degree_limit,
                             groups=1, locked=None, nchunks=None):
    """The best move of every candidate (:func:`~partkit.multilevel.kernels.refinement_moves.best_move`;
    target -1 when there is none or the candidate is a hub, of degree above ``degree_limit``), in
    ``nchunks`` ranges in parallel (default: the threads in effect): ``(targets, gains, group)``.

    With ``groups`` > 1, ``group`` holds the group of every candidate for FM passes on ``groups`` groups
    of parts at once (else it is None): part ``p`` is in group ``p * groups // k``, and a candidate with a
    neighbour in another group gets group -1 and is locked (``locked[v]`` set True). It is found while the
    candidate's neighbours are in the cache from its rating. Every vertex with a neighbour in another group
    is a boundary vertex, so with ``candidates`` holding the boundary every such vertex is locked: a pass
    within one group then moves vertices only between the parts of its group (an unlocked vertex has
    neighbours in its group only, and moves go to adjacent parts), re-rates only vertices of its group,
    and reads no part that another group's pass writes. The passes of the groups are independent, and
    can run at once.
    """
    k = pw.shape[0]
    targets = np.empty(candidates.size, dtype=np.int64)
    gains = np.empty(candidates.size, dtype=np.int64)
    grouped = groups > 1
    group_of_part = np.arange(k, dtype=np.int64) * groups // k if grouped else np.empty(0, dtype=np.int64)
    group = np.empty(candidates.size if grouped else 0, dtype=np.int64)
    run_ranges(rate_candidates_in_range, (xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, candidates,
                                          degree_limit, group_of_part, locked if grouped else np.empty(0, np.bool_),
                                          targets, gains, group), candidates.size, nchunks)
    return targets, gains, group if grouped else None


@njit(cache=True)
def rate_candidates_in_range(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, candidates, degree_limit,
                             group_of_part, locked, targets, gains, group, lo, hi):
    """The rating of :func:`parallel_rate_candidates` for ``candidates[lo:hi]``, into ``targets[lo:hi]`` and
    ``gains[lo:hi]``, and with a non-empty ``group_of_part`` their groups into ``group[lo:hi]``."""
    k = pw.shape[0]
    conn = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    # borrowed views: no reference counting per call of the rating (partkit._borrow)
    xadj, adjncy, adjwgt, vwgt, part = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(part)
    pw, maxw, candidates, data = borrow(pw), borrow(maxw), borrow(candidates), borrow(data)
    fetch = xadj.size > MIN_VERTICES
    for idx in range(lo, hi):
        if fetch:
            prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, part, candidates, idx, hi)
        v = candidates[idx]
        if xadj[v + 1] - xadj[v] > degree_limit:  # a hub: not rated
            targets[idx] = -1
            gains[idx] = 0
        else:
            targets[idx], gains[idx] = best_move(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, v, conn, touched,
                                                 objective, data)
        if group_of_part.size > 0:
            g = group_of_part[part[v]]
            for e in range(xadj[v], xadj[v + 1]):
                if group_of_part[part[adjncy[e]]] != g:
                    g = -1
                    locked[v] = True
                    break
            group[idx] = g


@njit(cache=True)
def fm_pass(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, candidates, targets, gains, max_bad_moves,
            degree_limit, local_bad, seed_loss, stop_alpha, items, keys, pos, size, locked, moved_v, moved_from, conn,
            touched):
    """One k-way FM pass from rated candidates (``targets``, ``gains``) under ``objective`` and its ``data``
    (:mod:`partkit.multilevel.kernels.objectives`); returns its reduction of the objective.

    With ``local_bad`` 0 the pass is one search from all the candidates at
    once, stopped after ``max_bad_moves`` moves without a new best. With
    ``local_bad`` > 0 it is localized, as in KaMinPar and Mt-KaHyPar: one
    search from each candidate in turn (not moved yet in this pass, whose
    best move loses at most ``seed_loss`` times its weighted degree),
    growing from the vertices it moves, stopped after ``local_bad`` moves
    without a new best of its own, or earlier by the adaptive rule
    (:func:`~partkit.multilevel.kernels.stop_rule.adaptive_stop`, with
    ``alpha = stop_alpha``, ``beta = ln n``) when ``stop_alpha`` > 0, and
    rolled back to that best; ``max_bad_moves`` is then unused. A vertex
    moves at most once a pass.

    ``candidates`` must be distinct. ``items, keys, pos, size`` is an empty heap over the vertices
    (:func:`partkit._heap.new_heap`), ``locked`` all False, ``moved_v``
    and ``moved_from`` scratch of length n, ``conn`` all -1 and
    ``touched`` scratch of length k; all are left so.
    """
    # borrowed views: no reference counting per helper call (partkit._borrow); all are arguments
    xadj, adjncy, adjwgt, vwgt, part = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(part)
    pw, maxw, conn, touched, data = borrow(pw), borrow(maxw), borrow(conn), borrow(touched), borrow(data)
    items, keys, pos, size = borrow(items), borrow(keys), borrow(pos), borrow(size)
    budget = np.empty(1, dtype=np.int64)
    budget[0] = 8 * adjncy.size  # the re-rating work of the pass
    nmoves = 0
    total = 0
    if local_bad == 0:
        heap_build(items, keys, pos, size, candidates, gains, targets >= 0)
        nmoves, total = _fm_search(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, max_bad_moves,
                                   degree_limit, items, keys, pos, size, locked, moved_v, moved_from, conn, touched,
                                   nmoves, budget, 0.0)
    else:
        for idx in range(candidates.size):
            v = candidates[idx]
            if budget[0] < 0:
                break
            if locked[v] or targets[idx] < 0 or -gains[idx] > seed_loss * weighted_degree(xadj, adjwgt, v):
                continue
            heap_set(items, keys, pos, size, v, gains[idx])
            nmoves, best = _fm_search(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, local_bad,
                                      degree_limit, items, keys, pos, size, locked, moved_v, moved_from, conn,
                                      touched, nmoves, budget, stop_alpha)
            total += best
    for i in range(nmoves):
        locked[moved_v[i]] = False
    return total


@njit(cache=True, inline="always")
def _fm_search(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, max_bad_moves, degree_limit, items, keys,
               pos, size, locked, moved_v, moved_from, conn, touched, first, budget, stop_alpha):
    """One FM search of :func:`fm_pass` from the vertices in the heap: best move first, neighbours re-rated,
    stopped after ``max_bad_moves`` moves without a new best, by the adaptive rule (``stop_alpha`` > 0), or
    when ``budget[0]`` (re-rating work) runs out; the heap is emptied and the moves after the best undone.
    The moves are logged in ``moved_v`` and ``moved_from`` from ``first`` on, and stay locked. Returns
    ``(end of the log, reduction)``."""
    nmoves = first
    current = 0
    best = 0
    best_moves = first
    bad = 0
    beta = np.log(xadj.size)
    total = 0.0
    squares = 0.0
    while size[0] > 0 and budget[0] >= 0:
        popped = keys[0]
        v = heap_pop(items, keys, pos, size)
        target, gain = best_move(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, v, conn, touched, objective, data)
        if target < 0:
            continue
        if gain < popped:  # stale key (a part filled up): queue again
            heap_set(items, keys, pos, size, v, gain)
            continue
        moved_v[nmoves] = v
        moved_from[nmoves] = part[v]
        nmoves += 1
        move_vertex(vwgt, part, pw, v, target)
        locked[v] = True
        current += gain
        if current > best:
            best = current
            best_moves = nmoves
            bad = 0
            total = 0.0
            squares = 0.0
        else:
            bad += 1
            total += gain
            squares += gain * gain
            if bad > max_bad_moves or (stop_alpha > 0 and adaptive_stop(bad, total, squares, stop_alpha, beta)):
                break
        for e in range(xadj[v], xadj[v + 1]):
            u = adjncy[e]
            if locked[u] or xadj[u + 1] - xadj[u] > degree_limit:
                continue
            budget[0] -= xadj[u + 1] - xadj[u]
            t2, g2 = best_move(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, u, conn, touched, objective, data)
            if t2 >= 0:
                heap_set(items, keys, pos, size, u, g2)
            else:
                heap_remove(items, keys, pos, size, u)
    heap_clear(items, keys, pos, size)
    for i in range(nmoves - 1, best_moves - 1, -1):
        locked[moved_v[i]] = False
        move_vertex(vwgt, part, pw, moved_v[i], moved_from[i])
    return best_moves, best


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (rate_candidates_in_range,)
