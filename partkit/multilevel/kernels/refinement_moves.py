"""The moves of k-way refinement: their rating, their bounds, the boundary, and the part weights.

Label propagation (:mod:`partkit.multilevel.kernels.label_propagation`), k-way FM and the balancer
rate moves with :func:`best_move`.

A partition is refined in place. ``pw`` (k, ncon) holds the current part
weights and is kept up to date; ``maxw`` (k, ncon) bounds every part
(targets may differ per part, as in recursive bisection). A move is only
made when the target part stays within its bound.
"""

import numpy as np

from partkit._jit import njit
from partkit._threads import run_ranges
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
def weighted_degree(xadj, adjwgt, v):
    """The sum of the weights of ``v``'s edges."""
    total = 0
    for e in range(xadj[v], xadj[v + 1]):
        total += adjwgt[e]
    return total


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


@njit(cache=True)
def boundary_after_moves(xadj, adjncy, part, before, candidates):
    """:func:`boundary_vertices` of ``part``, given ``candidates`` that include every boundary vertex of the
    partition ``before``: only they, the vertices whose part changed and their neighbours are tested
    (after label propagation, a few per cent of a level), not the whole graph."""
    n = xadj.size - 1
    tested = np.zeros(n, dtype=np.bool_)
    for i in range(candidates.size):
        tested[candidates[i]] = True
    for v in range(n):
        if part[v] != before[v]:
            tested[v] = True
            for e in range(xadj[v], xadj[v + 1]):
                tested[adjncy[e]] = True
    out = np.empty(n, dtype=np.int64)
    nb = 0
    for v in range(n):
        if tested[v] and on_boundary(xadj, adjncy, part, v):
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
def relaxed_bounds(vwgt, maxw, input_heaviest):
    """``maxw`` raised, per constraint, to every part's perfect share of the weight of ``vwgt`` (its bound
    scaled to that total, rounded up) plus what its heaviest vertex weighs more than ``input_heaviest``
    (the heaviest vertex of the input level, which must meet ``maxw``): the bound of a coarse level
    (:func:`partkit.multilevel.refinement.level_bounds`), in one pass over the weights. ``maxw`` itself
    where no vertex is heavier than the input's."""
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
        excess = heaviest - input_heaviest[c]
        for p in range(k):
            perfect = -(-maxw[p, c] * total // bound_sum)
            out[p, c] = max(maxw[p, c], perfect + excess) if excess > 0 else maxw[p, c]
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
def foreign_parts(xadj, adjncy, part, k):
    """How many parts other than its own hold a neighbour of each vertex (its communication volume)."""
    n = xadj.size - 1
    count = np.zeros(n, dtype=np.int64)
    seen = np.full(k, -1, dtype=np.int64)  # the last vertex that met each part
    for v in range(n):
        seen[part[v]] = v
        for e in range(xadj[v], xadj[v + 1]):
            p = part[adjncy[e]]
            if seen[p] != v:
                seen[p] = v
                count[v] += 1
    return count

#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (boundary_in_range,)


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
