"""Kernels of k-way refinement on the connectivity-1 (λ-1) objective.

State: ``pc[e, t]`` pins of net ``e`` in part ``t`` (int32, ``m x k``),
``lam[e]`` the parts net ``e`` spans, ``pw[t]`` part weights. The λ-1 gain
of moving ``u`` from part ``p`` to part ``t`` is

    sum of w(e) over nets of u with pc[e, p] == 1   (e leaves p)
  - sum of w(e) over nets of u with pc[e, t] == 0   (e enters t),

computed from the pin counts when needed (the parts a net spans are read
from its pins when it has fewer than ``k`` of them, else from ``pc``).
"""

import numpy as np
from numba import njit

from partkit._random import fill_permutation, subkey

from partkit._heap import heap_clear, heap_pop, heap_push, heap_remove, heap_set, new_heap


@njit(cache=True)
def pin_counts(net_ptr, pins, part, k):
    """``pc`` (m x k, int32) and ``lam`` (m,) of a partition."""
    m = net_ptr.size - 1
    pc = np.zeros((m, k), dtype=np.int32)
    lam = np.zeros(m, dtype=np.int64)
    for e in range(m):
        for q in range(net_ptr[e], net_ptr[e + 1]):
            t = part[pins[q]]
            if pc[e, t] == 0:
                lam[e] += 1
            pc[e, t] += 1
    return pc, lam


@njit(cache=True)
def connectivity_cost(nwgt, lam):
    """``sum_e w(e) * (lam[e] - 1)`` over non-empty nets."""
    total = 0
    for e in range(nwgt.size):
        if lam[e] > 1:
            total += nwgt[e] * (lam[e] - 1)
    return total


@njit(cache=True)
def part_weights(vwgt, part, k):
    """Weight of every part."""
    pw = np.zeros(k, dtype=np.int64)
    for v in range(vwgt.size):
        pw[part[v]] += vwgt[v]
    return pw


@njit(cache=True)
def work(n, k):
    """Scratch arrays: ``acc`` (k), ``mark`` (k), ``net_mark`` (k), ``touched`` (k), ``counter`` (1)."""
    return (np.zeros(k, dtype=np.int64), np.full(k, -1, dtype=np.int64), np.full(k, -1, dtype=np.int64),
            np.empty(k, dtype=np.int64), np.zeros(1, dtype=np.int64))


@njit(cache=True)
def best_move(u, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, any_part,
              acc, mark, net_mark, touched, counter):
    """Best λ-1 move of ``u`` to a part with room: ``(gain, part)``, part -1 if none.

    Only parts that share a net with ``u`` are considered, unless
    ``any_part`` (rebalancing), when every part with room is. Ties go to the
    lighter part.
    """
    p = part[u]
    k = pw.size
    counter[0] += 1
    visit = counter[0]
    benefit = 0
    wdeg = 0
    nt = 0
    for j in range(vptr[u], vptr[u + 1]):
        e = vnets[j]
        w = nwgt[e]
        wdeg += w
        if pc[e, p] == 1:
            benefit += w
        if net_ptr[e + 1] - net_ptr[e] < k:
            counter[0] += 1
            for q in range(net_ptr[e], net_ptr[e + 1]):
                t = part[pins[q]]
                if t != p and net_mark[t] != counter[0]:
                    net_mark[t] = counter[0]
                    if mark[t] != visit:
                        mark[t] = visit
                        acc[t] = 0
                        touched[nt] = t
                        nt += 1
                    acc[t] += w
        else:
            for t in range(k):
                if t != p and pc[e, t] > 0:
                    if mark[t] != visit:
                        mark[t] = visit
                        acc[t] = 0
                        touched[nt] = t
                        nt += 1
                    acc[t] += w
    best_gain = 0
    best = -1
    if any_part:
        for t in range(k):
            if t != p and pw[t] + vwgt[u] <= maxw[t]:
                g = benefit - wdeg + (acc[t] if mark[t] == visit else 0)
                if best < 0 or g > best_gain or (g == best_gain and pw[t] < pw[best]):
                    best_gain, best = g, t
        return best_gain, best
    for i in range(nt):
        t = touched[i]
        if pw[t] + vwgt[u] <= maxw[t]:
            g = benefit - wdeg + acc[t]
            if best < 0 or g > best_gain or (g == best_gain and pw[t] < pw[best]):
                best_gain, best = g, t
    return best_gain, best


@njit(cache=True)
def move(u, t, vptr, vnets, vwgt, part, pc, lam, pw):
    """Move ``u`` to part ``t``, updating pin counts, connectivities and part weights."""
    p = part[u]
    for j in range(vptr[u], vptr[u + 1]):
        e = vnets[j]
        pc[e, p] -= 1
        if pc[e, p] == 0:
            lam[e] -= 1
        pc[e, t] += 1
        if pc[e, t] == 1:
            lam[e] += 1
    part[u] = t
    pw[p] -= vwgt[u]
    pw[t] += vwgt[u]


@njit(cache=True)
def _boundary(u, vptr, vnets, lam):
    for j in range(vptr[u], vptr[u + 1]):
        if lam[vnets[j]] > 1:
            return True
    return False


@njit(cache=True)
def label_propagation(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, rounds, seed):
    """Rounds over the boundary vertices in random order, each taking its best positive move.

    Returns the total λ-1 reduction.
    """
    n = vwgt.size
    acc, mark, net_mark, touched, counter = work(n, pw.size)
    order = np.empty(n, dtype=np.int64)
    total = 0
    for r in range(rounds):
        moved = 0
        fill_permutation(order, subkey(seed, r))
        for u in order:
            if not _boundary(u, vptr, vnets, lam):
                continue
            g, t = best_move(u, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, False,
                             acc, mark, net_mark, touched, counter)
            if t >= 0 and g > 0:
                move(u, t, vptr, vnets, vwgt, part, pc, lam, pw)
                total += g
                moved += 1
        if moved == 0:
            break
    return total


@njit(cache=True)
def fm(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, stop, passes, large_net):
    """k-way FM passes on λ-1 gains; every pass keeps its best prefix of moves.

    Boundary vertices wait in a max-heap keyed by their best move's gain.
    The popped vertex's move is recomputed (its key may be stale through
    the balance); a lower gain sends it back to the heap, else it moves and
    is locked. After a move, the neighbours on the nets whose pin counts
    crossed 0/1 in the source or 1/2 in the target (the only nets whose
    gains change) get their keys recomputed; nets with more than
    ``large_net`` pins are left to the lazy check. A pass stops after
    ``stop`` moves without improvement. Returns the total λ-1 reduction.
    """
    n = vwgt.size
    acc, mark, net_mark, touched, counter = work(n, pw.size)
    items, keys, pos, size = new_heap(n)
    locked = np.zeros(n, dtype=np.bool_)
    seen = np.full(n, -1, dtype=np.int64)
    moved_v = np.empty(n, dtype=np.int64)
    moved_from = np.empty(n, dtype=np.int64)
    total = 0
    for _ in range(passes):
        for u in range(n):
            if _boundary(u, vptr, vnets, lam):
                g, t = best_move(u, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, False,
                                 acc, mark, net_mark, touched, counter)
                if t >= 0:
                    heap_push(items, keys, pos, size, u, g)
        nm = 0
        cur = 0
        best = 0
        best_nm = 0
        since = 0
        while size[0] > 0 and since < stop:
            key = keys[0]
            u = heap_pop(items, keys, pos, size)
            g, t = best_move(u, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, False,
                             acc, mark, net_mark, touched, counter)
            if t < 0:
                continue
            if g < key:
                heap_push(items, keys, pos, size, u, g)
                continue
            p = part[u]
            move(u, t, vptr, vnets, vwgt, part, pc, lam, pw)
            locked[u] = True
            moved_v[nm] = u
            moved_from[nm] = p
            nm += 1
            cur += g
            if cur > best:
                best, best_nm, since = cur, nm, 0
            else:
                since += 1
            for j in range(vptr[u], vptr[u + 1]):
                e = vnets[j]
                if net_ptr[e + 1] - net_ptr[e] > large_net:
                    continue
                if pc[e, p] > 1 and pc[e, t] > 2:
                    continue
                for q in range(net_ptr[e], net_ptr[e + 1]):
                    v = pins[q]
                    if locked[v] or seen[v] == nm:
                        continue
                    seen[v] = nm
                    g2, t2 = best_move(v, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, False,
                                       acc, mark, net_mark, touched, counter)
                    if t2 >= 0:
                        heap_set(items, keys, pos, size, v, g2)
                    else:
                        heap_remove(items, keys, pos, size, v)
        heap_clear(items, keys, pos, size)
        for i in range(nm - 1, best_nm - 1, -1):
            move(moved_v[i], moved_from[i], vptr, vnets, vwgt, part, pc, lam, pw)
        for i in range(nm):
            locked[moved_v[i]] = False
        seen[:] = -1
        total += best
        if best <= 0:
            break
    return total


@njit(cache=True)
def rebalance(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, maxw, rounds):
    """Move vertices out of overweight parts, least λ-1 loss first; True when all parts fit."""
    n = vwgt.size
    k = pw.size
    acc, mark, net_mark, touched, counter = work(n, k)
    items, keys, pos, size = new_heap(n)
    for _ in range(rounds):
        over = False
        for t in range(k):
            if pw[t] > maxw[t]:
                over = True
        if not over:
            return True
        for u in range(n):
            if pw[part[u]] > maxw[part[u]] and vwgt[u] > 0:
                g, t = best_move(u, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, True,
                                 acc, mark, net_mark, touched, counter)
                if t >= 0:
                    heap_push(items, keys, pos, size, u, g)
        while size[0] > 0:
            key = keys[0]
            u = heap_pop(items, keys, pos, size)
            if pw[part[u]] <= maxw[part[u]]:
                continue
            g, t = best_move(u, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, pw, maxw, True,
                             acc, mark, net_mark, touched, counter)
            if t < 0:
                continue
            if g < key:
                heap_push(items, keys, pos, size, u, g)
                continue
            move(u, t, vptr, vnets, vwgt, part, pc, lam, pw)
    for t in range(k):
        if pw[t] > maxw[t]:
            return False
    return True
