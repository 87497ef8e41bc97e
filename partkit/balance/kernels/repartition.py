"""The kernel of :mod:`partkit.balance.repartition`'s diffusion strategy: moves along a balancing flow.

A move of vertex ``v`` is rated by the engine's migration objective
(:func:`partkit.multilevel.objectives.migration`): the decrease of
``num * cut + den * migration`` for ``itr = num / den``, from
:func:`partkit.multilevel.kernels.objectives.move_gain`. The balancing and
the refinement after the flow are the engine's (balancer, label propagation
and k-way FM on the same objective).
"""

from __future__ import annotations

import numpy as np

from partkit._heap import heap_pop, heap_remove, heap_set, new_heap
from partkit._jit import njit
from partkit.multilevel.kernels.objectives import MIGRATION, move_gain
from partkit.multilevel.kernels.refinement_moves import connections, move_vertex


@njit(cache=True)
def _best_flow_move(v, xadj, adjncy, adjwgt, part, load, flow, data, conn, touched):
    """The neighbour part ``b`` of ``v`` its part still owes more than half of ``load[v]`` with the best
    migration gain: ``(b, gain)``, or ``(-1, 0)`` when there is none. ``conn`` is all -1 and left so."""
    a = part[v]
    nt = connections(v, xadj, adjncy, adjwgt, part, conn, touched)
    internal = max(conn[a], 0)
    best, best_gain = -1, 0
    for t in range(nt):
        b = touched[t]
        if b != a and 2.0 * flow[a, b] > load[v]:
            gain = move_gain(MIGRATION, data, xadj, adjncy, part, v, conn, touched, nt, b, internal)
            if best < 0 or gain > best_gain:
                best, best_gain = b, gain
    for t in range(nt):
        conn[touched[t]] = -1
    return best, best_gain


@njit(cache=True, inline="always")
def _queue_flow_move(v, xadj, adjncy, adjwgt, part, load, flow, data, conn, touched, target, items, keys, pos, size):
    """Rate ``v`` (:func:`_best_flow_move`) into ``target[v]`` and key it in the heap by that gain, or take it
    out of the heap when it has no such move."""
    target[v], gain = _best_flow_move(v, xadj, adjncy, adjwgt, part, load, flow, data, conn, touched)
    if target[v] >= 0:
        heap_set(items, keys, pos, size, v, gain)
    else:
        heap_remove(items, keys, pos, size, v)


@njit(cache=True)
def flow_moves(xadj, adjncy, adjwgt, vwgt, part, pw, load, flow, data, floor):
    """Move boundary vertices along a balancing flow between parts, best gain first.

    ``flow[a, b] > 0`` is the load part ``a`` should send to its neighbour
    part ``b``, ``load[v]`` the load of vertex ``v`` (its weight, or a
    combination of its weights over the constraints), ``data`` the
    migration objective's data. An addressable max-heap
    (:mod:`partkit._heap`, ties to the smaller vertex) holds every vertex
    next to a part its own part owes more than half its load, keyed by
    the gain of its best such move; the best move is made if the flow is
    still owed (else the vertex is rated again), so the residual flow back
    stays below half (a vertex never bounces), and the vertex and its
    neighbours are rated again. Moving one vertex at a time with
    updated gains grows the receiving part compactly. No move leaves its
    part with less load than ``floor`` (negative: no limit): a part that
    passes load on along the flow may otherwise give away all it holds
    before the load owed to it arrives, and an empty part has no neighbours
    to receive load from. ``flow`` is consumed and the part weights ``pw``
    (k, ncon) are updated in place.

    Returns
    -------
    int
        Number of moves.
    """
    n = xadj.size - 1
    k = flow.shape[0]
    conn = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    target = np.full(n, -1, dtype=np.int64)
    items, keys, pos, size = new_heap(n)
    held = np.zeros(k)
    for v in range(n):
        held[part[v]] += load[v]
    for v in range(n):
        if load[v] > 0:
            _queue_flow_move(v, xadj, adjncy, adjwgt, part, load, flow, data, conn, touched, target, items, keys,
                             pos, size)
    moves = 0
    while size[0] > 0:
        v = heap_pop(items, keys, pos, size)
        a, b = part[v], target[v]
        if 2.0 * flow[a, b] <= load[v]:  # a move elsewhere used up that flow: rated again
            _queue_flow_move(v, xadj, adjncy, adjwgt, part, load, flow, data, conn, touched, target, items, keys,
                             pos, size)
            continue
        if held[a] - load[v] < floor:  # rated again when a neighbour moves
            continue
        move_vertex(vwgt, part, pw, v, b)
        held[a] -= load[v]
        held[b] += load[v]
        flow[a, b] -= load[v]
        flow[b, a] += load[v]
        moves += 1
        for e in range(xadj[v], xadj[v + 1] + 1):
            u = adjncy[e] if e < xadj[v + 1] else v
            if load[u] > 0:
                _queue_flow_move(u, xadj, adjncy, adjwgt, part, load, flow, data, conn, touched, target, items, keys,
                                 pos, size)
    return moves
