"""Kernels of initial partitioning: greedy hypergraph growing and 2-way FM on the cut-net gain.

Sides are 0 and 1; ``pc[e, s]`` counts the pins of net ``e`` on side
``s``; ``gain[v]`` is the cut-net gain of moving ``v`` to the other side
(``+w(e)`` for every net where ``v`` is the last pin on its side, ``-w(e)``
for every net with no pin on the other side). Free vertices wait in one
max-heap per side (:mod:`partkit._heap`); moving a vertex
updates the gains of its neighbours by the FM delta rules.
"""

import numpy as np

from partkit._jit import njit
from partkit._random import fill_permutation, subkey

from partkit._heap import heap_clear, heap_pop, heap_push, heap_set
from partkit.multilevel.kernels.stop_rule import adaptive_stop


@njit(cache=True)
def _add_gain(u, delta, gain, pending, queued):
    """Change ``gain[u]``; ``u`` joins the list ``pending[:pending[-1]]`` of vertices to re-key."""
    gain[u] += delta
    if not queued[u]:
        queued[u] = True
        pending[pending[-1]] = u
        pending[-1] += 1


@njit(cache=True)
def _move(v, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, locked, items, keys, pos, size,
          pending, queued):
    """Move ``v`` to the other side, keeping ``pc``, ``pw`` and the gains of its neighbours exact.

    A neighbour whose gain changes enters its side's heap unless ``locked``;
    its key is set once a move, however many of its nets changed.
    """
    a = part[v]
    b = 1 - a
    for j in range(vptr[v], vptr[v + 1]):
        e = vnets[j]
        w = nwgt[e]
        if pc[e, b] == 0:
            for q in range(net_ptr[e], net_ptr[e + 1]):
                if pins[q] != v:
                    _add_gain(pins[q], w, gain, pending, queued)
        elif pc[e, b] == 1:
            for q in range(net_ptr[e], net_ptr[e + 1]):
                if part[pins[q]] == b:
                    _add_gain(pins[q], -w, gain, pending, queued)
                    break
        pc[e, a] -= 1
        pc[e, b] += 1
        if pc[e, a] == 0:
            for q in range(net_ptr[e], net_ptr[e + 1]):
                if pins[q] != v:
                    _add_gain(pins[q], -w, gain, pending, queued)
        elif pc[e, a] == 1:
            for q in range(net_ptr[e], net_ptr[e + 1]):
                if pins[q] != v and part[pins[q]] == a:
                    _add_gain(pins[q], w, gain, pending, queued)
                    break
    for i in range(pending[-1]):
        u = pending[i]
        queued[u] = False
        s = part[u]
        if pos[s, u] >= 0:
            heap_set(items[s], keys[s], pos[s], size[s:s + 1], u, gain[u])
        elif not locked[u]:
            heap_push(items[s], keys[s], pos[s], size[s:s + 1], u, gain[u])
    pending[-1] = 0
    part[v] = b
    gain[v] = -gain[v]
    pw[a] -= vwgt[v]
    pw[b] += vwgt[v]


@njit(cache=True)
def _state(net_ptr, pins, vptr, vnets, nwgt, vwgt, part):
    """Pin counts, gains and side weights of a bisection."""
    m = net_ptr.size - 1
    n = vwgt.size
    pc = np.zeros((m, 2), dtype=np.int64)
    for e in range(m):
        for q in range(net_ptr[e], net_ptr[e + 1]):
            pc[e, part[pins[q]]] += 1
    gain = np.zeros(n, dtype=np.int64)
    pw = np.zeros(2, dtype=np.int64)
    for v in range(n):
        s = part[v]
        pw[s] += vwgt[v]
        for j in range(vptr[v], vptr[v + 1]):
            e = vnets[j]
            if pc[e, s] == 1:
                gain[v] += nwgt[e]
            if pc[e, 1 - s] == 0:
                gain[v] -= nwgt[e]
    return pc, gain, pw


@njit(cache=True)
def _violation(pw, maxw):
    return max(pw[0] - maxw[0], 0) + max(pw[1] - maxw[1], 0)


@njit(cache=True)
def cut_cost(nwgt, pc):
    """Total weight of the nets with pins on both sides."""
    total = 0
    for e in range(nwgt.size):
        if pc[e, 0] > 0 and pc[e, 1] > 0:
            total += nwgt[e]
    return total


@njit(cache=True)
def _fm_pass(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, maxw, stop, alpha,
             locked, items, keys, pos, size, moves, pending, queued):
    """One FM pass from the boundary vertices; keeps the best prefix of moves, returns its cut reduction."""
    n = vwgt.size
    locked[:] = False
    for v in range(n):
        for j in range(vptr[v], vptr[v + 1]):
            e = vnets[j]
            if pc[e, 0] > 0 and pc[e, 1] > 0:
                s = part[v]
                heap_push(items[s], keys[s], pos[s], size[s:s + 1], v, gain[v])
                break
    nm = 0
    cur = 0
    best = 0
    best_nm = 0
    best_viol = _violation(pw, maxw)
    since = 0
    total = 0.0  # sum and sum of squares of the gains since the last improvement
    squares = 0.0
    beta = np.log(max(n, 2))
    while since < stop and not adaptive_stop(since, total, squares, alpha, beta):
        viol = _violation(pw, maxw)
        pick = -1
        for s in range(2):
            if size[s] == 0:
                continue
            v = items[s, 0]
            after = max(pw[s] - vwgt[v] - maxw[s], 0) + max(pw[1 - s] + vwgt[v] - maxw[1 - s], 0)
            if after > 0 and after >= viol:
                continue
            if pick < 0 or keys[s, 0] > keys[pick, 0] or (
                    keys[s, 0] == keys[pick, 0] and pw[s] - maxw[s] > pw[pick] - maxw[pick]):
                pick = s
        if pick < 0:
            break
        g = keys[pick, 0]
        v = heap_pop(items[pick], keys[pick], pos[pick], size[pick:pick + 1])
        locked[v] = True
        _move(v, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, locked, items, keys, pos, size,
              pending, queued)
        moves[nm] = v
        nm += 1
        cur += g
        viol = _violation(pw, maxw)
        if viol < best_viol or (viol == best_viol and cur > best):
            best, best_nm, best_viol, since, total, squares = cur, nm, viol, 0, 0.0, 0.0
        else:
            since += 1
            total += g
            squares += g * g
    for s in range(2):
        heap_clear(items[s], keys[s], pos[s], size[s:s + 1])
    locked[:] = True
    for i in range(nm - 1, best_nm - 1, -1):
        _move(moves[i], net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, locked, items, keys, pos,
              size, pending, queued)
    return best


@njit(cache=True)
def _work(n):
    return (np.zeros(n, dtype=np.bool_), np.empty((2, n), dtype=np.int64), np.empty((2, n), dtype=np.int64),
            np.full((2, n), -1, dtype=np.int64), np.zeros(2, dtype=np.int64), np.empty(n, dtype=np.int64),
            np.zeros(n + 1, dtype=np.int64), np.zeros(n, dtype=np.bool_))


@njit(cache=True)
def _fm(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, maxw, stop, alpha, passes,
        locked, items, keys, pos, size, moves, pending, queued):
    for _ in range(passes):
        before = _violation(pw, maxw)
        improved = _fm_pass(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, maxw, stop, alpha,
                            locked, items, keys, pos, size, moves, pending, queued)
        if improved <= 0 and _violation(pw, maxw) >= before:
            break


@njit(cache=True)
def fm_refine(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, maxw, stop, alpha, passes):
    """2-way FM passes on ``part`` (in place) until a pass finds nothing; returns the cut."""
    locked, items, keys, pos, size, moves, pending, queued = _work(vwgt.size)
    pc, gain, pw = _state(net_ptr, pins, vptr, vnets, nwgt, vwgt, part)
    _fm(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, maxw, stop, alpha, passes,
        locked, items, keys, pos, size, moves, pending, queued)
    return cut_cost(nwgt, pc)


@njit(cache=True)
def grow_and_refine(net_ptr, pins, vptr, vnets, nwgt, vwgt, maxw, target0, tries, stop, alpha, passes, seed):
    """Best of ``tries`` bisections, each grown greedily from a random vertex and refined by FM.

    Greedy hypergraph growing: every vertex starts on side 1; side 0 grows
    from a random vertex by taking the frontier vertex (one sharing a net
    with side 0) of highest cut-net gain, restarting from another random
    vertex when the frontier is empty, until it reaches ``target0``.
    Best = least overweight, then smallest cut.
    """
    n = vwgt.size
    order = np.empty(n, dtype=np.int64)
    locked, items, keys, pos, size, moves, pending, queued = _work(n)
    best_part = np.zeros(n, dtype=np.int64)
    best_viol = -1
    best_cut = 0
    part = np.ones(n, dtype=np.int64)
    for t in range(tries):
        part[:] = 1
        locked[:] = False
        pc, gain, pw = _state(net_ptr, pins, vptr, vnets, nwgt, vwgt, part)
        fill_permutation(order, subkey(seed, t))
        restart = 0
        v = order[0]
        while v >= 0:
            locked[v] = True
            _move(v, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, locked, items, keys, pos, size,
                  pending, queued)
            v = -1
            while v < 0 and pw[0] < target0:
                if size[1] > 0:
                    u = heap_pop(items[1], keys[1], pos[1], size[1:2])
                else:
                    while restart < n and locked[order[restart]]:
                        restart += 1
                    if restart == n:
                        break
                    u = order[restart]
                locked[u] = True
                if pw[0] + vwgt[u] <= maxw[0] and target0 - pw[0] >= pw[0] + vwgt[u] - target0:
                    v = u
        heap_clear(items[1], keys[1], pos[1], size[1:2])
        _fm(net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, gain, pw, maxw, stop, alpha, passes,
            locked, items, keys, pos, size, moves, pending, queued)
        viol = _violation(pw, maxw)
        cut = cut_cost(nwgt, pc)
        if best_viol < 0 or viol < best_viol or (viol == best_viol and cut < best_cut):
            best_viol, best_cut = viol, cut
            best_part = part.copy()
    return best_part
