"""Restoring the balance constraint of a k-way partition at the smallest cut cost.

:func:`refinement.rebalance` (rounds of :func:`rate_for_balance_in_range`
and :func:`apply_balance_moves`) moves vertices out of overloaded parts into adjacent parts
with room. When every adjacent part is full, :func:`balance_along_paths`
moves weight along a shortest path of adjacent parts, one vertex per hop,
to a part with room: each part on the way gives a vertex and takes one, so
only the ends change weight, and every move crosses a boundary, so the cut
suffers little. Moves to non-adjacent parts (``rebalance(..., far=True)``)
are the last resort; with several constraints, parts full on different
constraints then trade vertices (:func:`trade_for_balance`).
"""

import numpy as np

from partkit._borrow import borrow
from partkit._heap import heap_pop, heap_set
from partkit._jit import njit
from partkit._lists import append_neighbours
from partkit._prefetch import MIN_VERTICES, prefetch_adjacency
from partkit._threads import run_ranges
from partkit.multilevel.kernels.objectives import edge_cost, move_gain, vertex_gain
from partkit.multilevel.kernels.refinement_moves import (any_overloaded, boundary_vertices, connections, fits_in,
                                                        move_vertex, on_boundary, overloaded)


@njit(cache=True)
def _helps(vwgt, pw, maxw, v, p):
    """Whether moving ``v`` out of part ``p`` lowers an exceeded constraint."""
    for c in range(pw.shape[1]):
        if pw[p, c] > maxw[p, c] and vwgt[v, c] > 0:
            return True
    return False


@njit(cache=True)
def _overweight_change(vwgt, pw, maxw, a, b, v, u):
    """Change of the overweight of parts ``a`` and ``b``, each constraint's as a fraction of its bound, when
    ``v`` moves from ``a`` to ``b`` and ``u`` (-1: none) from ``b`` to ``a``."""
    change = 0.0
    for c in range(vwgt.shape[1]):
        d = vwgt[v, c] - (vwgt[u, c] if u >= 0 else 0)
        change += (max(pw[a, c] - d - maxw[a, c], 0) - max(pw[a, c] - maxw[a, c], 0)) / max(maxw[a, c], 1)
        change += (max(pw[b, c] + d - maxw[b, c], 0) - max(pw[b, c] - maxw[b, c], 0)) / max(maxw[b, c], 1)
    return change


@njit(cache=True)
def trade_for_balance(xadj, adjncy, vwgt, part, pw, maxw, max_rounds):
    """Restore ``maxw`` with several constraints where no vertex fits anywhere, in place; True when it holds.

    A part over its bound on one constraint next to parts full on another
    takes nothing and gives nothing to plain moves. Each round visits the
    vertices of overloaded parts that carry an exceeded constraint and
    makes the best of: moving the vertex to an adjacent part, or swapping
    it with a neighbour in that part, when that lowers the two parts'
    overweight (each constraint's as a fraction of its bound; so every step
    lowers the total and the rounds end). Stops when the bound holds, after
    a round without a step, or after ``max_rounds`` rounds.
    """
    n = xadj.size - 1
    for _ in range(max_rounds):
        if not any_overloaded(pw, maxw):
            return True
        moved = False
        for v in range(n):
            a = part[v]
            if not overloaded(pw, maxw, a) or not _helps(vwgt, pw, maxw, v, a):
                continue
            best, best_b, best_u = -1e-12, -1, -1
            for e in range(xadj[v], xadj[v + 1]):
                u = adjncy[e]
                b = part[u]
                if b == a:
                    continue
                for partner in (-1, u):
                    change = _overweight_change(vwgt, pw, maxw, a, b, v, partner)
                    if change < best:
                        best, best_b, best_u = change, b, partner
            if best_b >= 0:
                move_vertex(vwgt, part, pw, v, best_b)
                if best_u >= 0:
                    move_vertex(vwgt, part, pw, best_u, a)
                moved = True
        if not moved:
            return False
    return not any_overloaded(pw, maxw)


#: Vertices moved per hop of a path in one go: a path moves up to this many vertices across each boundary.
WAVES = 8


@njit(cache=True)
def _listed(head, ent_v, ent_next, used, p, v):
    """Put ``v`` at the front of part ``p``'s list of candidate vertices; returns the entry
    arrays (grown when full) and the number of entries in use."""
    if used == ent_v.size:
        ent_v = np.concatenate((ent_v, np.empty_like(ent_v)))
        ent_next = np.concatenate((ent_next, np.empty_like(ent_next)))
    ent_v[used] = v
    ent_next[used] = head[p]
    head[p] = used
    return ent_v, ent_next, used + 1


@njit(cache=True)
def _pair_candidates(xadj, adjncy, adjwgt, objective, data, part, head, ent_v, ent_next, seen, stamp, p, q, out_v,
                     out_g):
    """The ``WAVES`` vertices of part ``p``'s list whose moves to part ``q`` gain the most (under
    ``objective`` and its ``data``; only vertices with edge weight to ``q``), best
    first, into ``out_v`` and ``out_g`` (-1 where there are fewer). Entries of vertices that left
    ``p``, and repeated ones (``seen[v] == stamp``), are unlinked on the way."""
    out_v[:] = -1
    waves = out_v.size
    before = -1
    e = head[p]
    while e >= 0:
        v = ent_v[e]
        after = ent_next[e]
        if part[v] != p or seen[v] == stamp:
            if before < 0:
                head[p] = after
            else:
                ent_next[before] = after
            e = after
            continue
        seen[v] = stamp
        before = e
        e = after
        external = 0
        g = 0
        for i in range(xadj[v], xadj[v + 1]):
            r = part[adjncy[i]]
            if r == q:
                external += adjwgt[i]
            g += adjwgt[i] * (edge_cost(objective, data, p, r) - edge_cost(objective, data, q, r))
        g += vertex_gain(objective, data, v, p, q)
        if external == 0:
            continue
        # insertion into the short sorted list
        w = waves - 1
        if out_v[w] >= 0 and out_g[w] >= g:
            continue
        while w > 0 and (out_v[w - 1] < 0 or out_g[w - 1] < g):
            out_v[w] = out_v[w - 1]
            out_g[w] = out_g[w - 1]
            w -= 1
        out_v[w] = v
        out_g[w] = g


@njit(cache=True)
def _wave_fits(vwgt, pw, maxw, hop_v, prev, target, w):
    """Whether wave ``w`` of the path ending at ``target`` can move: every hop has a ``w``-th
    vertex (``hop_v[q]``: the vertices crossing into ``q``), the last one fits into ``target``,
    and every inner part of the path stays within its bound (or no heavier than before)."""
    q = target
    w_in = -1
    while prev[q] != -1:
        v = hop_v[q, w]
        if v < 0:
            return False
        if w_in < 0:
            if not fits_in(vwgt, pw, maxw, v, q):
                return False
        else:
            for c in range(vwgt.shape[1]):
                after = pw[q, c] + vwgt[w_in, c] - vwgt[v, c]
                if after > maxw[q, c] and after > pw[q, c]:
                    return False
        w_in = v
        q = prev[q]
    return True


@njit(cache=True)
def _has_room(pw, maxw, q):
    """Whether part ``q`` is within its bound and below it on some constraint."""
    room = False
    for c in range(pw.shape[1]):
        if pw[q, c] > maxw[q, c]:
            return False
        room = room or pw[q, c] < maxw[q, c]
    return room


@njit(cache=True)
def balance_along_paths(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, max_rounds):
    """Move weight out of overloaded parts along shortest paths of adjacent parts.

    Every round takes each overloaded part in turn, finds a shortest path
    (breadth-first over the quotient graph of parts) to a part that can
    take a vertex, and moves up to ``WAVES`` vertices per hop, one wave at
    a time while the source is overloaded: each hop moves the vertices
    whose moves across it gain the most under ``objective`` and its ``data``
    (:func:`partkit.multilevel.kernels.objectives.edge_cost`: the cut's for
    the volume). The quotient graph is kept as
    the number of cut edges between every two parts, and each part keeps a
    list of its vertices that may cross (its boundary, and the neighbours
    of every vertex moved), so a path costs the lists of its parts, not a
    scan of the whole boundary. Stops when every part meets ``maxw``, when
    a round moves nothing, or after ``max_rounds`` rounds.

    Returns
    -------
    bool
        True when the partition is balanced at the end.
    """
    k = pw.shape[0]
    n = xadj.size - 1
    links = np.zeros((k, k), dtype=np.int64)
    head = np.full(k, -1, dtype=np.int64)
    boundary = boundary_vertices(xadj, adjncy, part)
    ent_v = np.empty(max(2 * boundary.size, 64), dtype=np.int64)
    ent_next = np.empty_like(ent_v)
    used = 0
    listed_in = np.full(n, -1, dtype=np.int64)
    for v in boundary:
        a = part[v]
        for e in range(xadj[v], xadj[v + 1]):
            if part[adjncy[e]] != a:
                links[a, part[adjncy[e]]] += 1
        ent_v, ent_next, used = _listed(head, ent_v, ent_next, used, a, v)
        listed_in[v] = a
    seen = np.zeros(n, dtype=np.int64)
    stamp = 0
    hop_v = np.empty((k, WAVES), dtype=np.int64)
    hop_g = np.empty((k, WAVES), dtype=np.int64)
    rated = np.zeros(k, dtype=np.bool_)
    prev = np.empty(k, dtype=np.int64)
    fifo = np.empty(k, dtype=np.int64)
    for _ in range(max_rounds):
        if not any_overloaded(pw, maxw):
            return True
        moved = False
        for a in range(k):
            if not overloaded(pw, maxw, a):
                continue
            prev[:] = -2
            prev[a] = -1
            rated[:] = False
            first = 0
            last = 1
            fifo[0] = a
            target = -1
            while first < last and target < 0:
                p = fifo[first]
                first += 1
                for q in range(k):
                    if links[p, q] == 0 or prev[q] != -2:
                        continue
                    prev[q] = p
                    if _has_room(pw, maxw, q):
                        stamp += 1
                        _pair_candidates(xadj, adjncy, adjwgt, objective, data, part, head, ent_v, ent_next, seen,
                                         stamp, p, q, hop_v[q], hop_g[q])
                        rated[q] = True
                        if hop_v[q, 0] >= 0 and fits_in(vwgt, pw, maxw, hop_v[q, 0], q):
                            target = q
                            break
                    fifo[last] = q
                    last += 1
            if target < 0:
                continue
            q = target
            while prev[q] != -1:
                if not rated[q]:
                    stamp += 1
                    _pair_candidates(xadj, adjncy, adjwgt, objective, data, part, head, ent_v, ent_next, seen,
                                     stamp, prev[q], q, hop_v[q], hop_g[q])
                q = prev[q]
            for w in range(WAVES):
                if not overloaded(pw, maxw, a) or not _wave_fits(vwgt, pw, maxw, hop_v, prev, target, w):
                    break
                q = target
                while prev[q] != -1:
                    v = hop_v[q, w]
                    p = part[v]
                    for e in range(xadj[v], xadj[v + 1]):
                        r = part[adjncy[e]]
                        if r != p:
                            links[p, r] -= 1
                            links[r, p] -= 1
                        if r != q:
                            links[q, r] += 1
                            links[r, q] += 1
                    move_vertex(vwgt, part, pw, v, q)
                    ent_v, ent_next, used = _listed(head, ent_v, ent_next, used, q, v)
                    listed_in[v] = q
                    for e in range(xadj[v], xadj[v + 1]):
                        u = adjncy[e]
                        if listed_in[u] != part[u]:
                            ent_v, ent_next, used = _listed(head, ent_v, ent_next, used, part[u], u)
                            listed_in[u] = part[u]
                    q = prev[q]
                moved = True
        if not moved:
            return False
    return not any_overloaded(pw, maxw)


@njit(cache=True)
def _rate_for_balance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, far, v, conn, touched):
    """:func:`refinement.rebalance`'s rating of ``v`` under ``objective`` and its ``data``: ``(target, key)``,
    target -1 when ``v`` does not move. ``conn`` (k,) is all -1 on entry and left so, ``touched`` scratch of
    length k."""
    k = pw.shape[0]
    own = part[v]
    if not overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
        return -1, 0
    if not far and not on_boundary(xadj, adjncy, part, v):
        return -1, 0  # no adjacent part: most vertices, told apart in one early-exit scan
    nt = connections(v, xadj, adjncy, adjwgt, part, conn, touched)
    internal = max(conn[own], 0)
    target = np.int64(-1)  # not a literal -1: Numba would compile move_gain for Literal[int](-1) too
    gain = 0
    for t in range(nt):
        p = touched[t]
        if p != own and fits_in(vwgt, pw, maxw, v, p):
            g = move_gain(objective, data, xadj, adjncy, part, v, conn, touched, nt, p, internal)
            if target < 0 or g > gain:
                target = p
                gain = g
    if target < 0 and far:
        room = -1
        for p in range(k):
            if p == own or not fits_in(vwgt, pw, maxw, v, p):
                continue
            r = 0
            for c in range(pw.shape[1]):
                r += maxw[p, c] - pw[p, c]
            if r > room:
                room = r
                target = p
        if target >= 0:
            gain = move_gain(objective, data, xadj, adjncy, part, v, conn, touched, nt, target, internal)
    for t in range(nt):
        conn[touched[t]] = -1
    if target < 0:
        return -1, 0
    w = 0
    for c in range(pw.shape[1]):
        w += vwgt[v, c]
    # objective change per unit of weight moved (heavier vertices fix more), in 1/1024 units
    return target, (gain << 10) // max(w, 1)


def parallel_rate_for_balance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, far, vertices, cand_to, key,
                              nchunks=None):
    """One round's ratings of :func:`refinement.rebalance` for ``vertices``, in ``nchunks`` ranges in parallel (default:
    the threads in effect): ``cand_to[v]`` and ``key[v]`` for every ``v`` of ``vertices``, with
    ``cand_to[v] = -1`` where ``v`` does not move."""
    run_ranges(rate_for_balance_in_range, (xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, far, vertices,
                                           cand_to, key), vertices.size, nchunks)


@njit(cache=True)
def rate_for_balance_in_range(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, far, vertices, cand_to, key,
                              lo, hi):
    """:func:`_rate_for_balance` of ``vertices[lo:hi]`` into ``cand_to`` and ``key``."""
    conn = np.full(pw.shape[0], -1, dtype=np.int64)
    touched = np.empty(pw.shape[0], dtype=np.int64)
    # borrowed views: no reference counting per call of the rating (partkit._borrow)
    xadj, adjncy, adjwgt, vwgt, part = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), borrow(part)
    pw, maxw, vertices, data = borrow(pw), borrow(maxw), borrow(vertices), borrow(data)
    fetch = xadj.size > MIN_VERTICES
    for i in range(lo, hi):
        if fetch:
            prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, part, vertices, i, hi)
        v = vertices[i]
        cand_to[v], key[v] = _rate_for_balance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, objective, data, far, v,
                                               conn, touched)


@njit(cache=True)
def apply_balance_moves(xadj, adjncy, vwgt, part, pw, maxw, cand_to, key, vertices, nv, listed, items, keys, pos,
                        size):
    """One round's moves of :func:`refinement.rebalance` from the ratings of ``vertices[:nv]``, best first; the
    neighbours of every vertex moved join the list. Returns ``(moved, nv)``: the number moved, or -1 when
    no vertex was rated (``items, keys, pos, size``: an empty heap, left so), and the new list length."""
    for i in range(nv):
        v = vertices[i]
        if cand_to[v] >= 0:
            heap_set(items, keys, pos, size, v, key[v])
    if size[0] == 0:
        return -1, nv
    moved = 0
    while size[0] > 0:
        v = heap_pop(items, keys, pos, size)
        own = part[v]
        to = cand_to[v]
        if not overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
            continue
        if not fits_in(vwgt, pw, maxw, v, to):
            continue
        move_vertex(vwgt, part, pw, v, to)
        moved += 1
        nv = append_neighbours(xadj, adjncy, v, listed, vertices, nv)
    return moved, nv


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (rate_for_balance_in_range,)
