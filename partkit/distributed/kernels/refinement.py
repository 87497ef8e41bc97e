"""Kernels of distributed label-propagation refinement and of the balancer."""

import numpy as np

from partkit._jit import njit
from partkit.multilevel.kernels.label_propagation import lp_accepts
from partkit.multilevel.kernels.objectives import CUT
from partkit.multilevel.kernels.refinement_moves import best_move, part_connections


@njit(cache=True)
def choose_moves(xadj, adjacency, adjwgt, vwgt, part, candidates, part_weight, max_part_weight):
    """The part each vertex of ``candidates`` (owned, ascending) moves to, or -1, rated as the serial
    engine's label propagation rates it (:func:`~partkit.multilevel.kernels.refinement_moves.best_move`
    by the cut, :func:`~partkit.multilevel.kernels.label_propagation.lp_accepts`) against the current,
    global ``part_weight`` and the bound ``max_part_weight``. Returns an array aligned with ``candidates``.
    """
    k = part_weight.size
    weights = part_weight.reshape(k, 1)
    bounds = np.full((k, 1), max_part_weight, dtype=np.int64)
    vwgt = vwgt.reshape(-1, 1)
    target = np.full(candidates.size, -1, dtype=np.int64)
    conn = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    for i in range(candidates.size):
        v = candidates[i]
        best, gain = best_move(xadj, adjacency, adjwgt, vwgt, part, weights, bounds, v, conn, touched, CUT, None)
        if lp_accepts(vwgt, part, weights, v, best, gain):
            target[i] = best
    return target


@njit(cache=True)
def activate_neighbours(xadj, adjacency, n_local, changed, ghost_xadj, ghost_rows, active):
    """Mark in ``active`` the owned neighbours of the vertices in ``changed`` (local indices, owned or
    ghost), whose part just changed; a ghost's owned neighbours are ``ghost_rows[ghost_xadj[j]:
    ghost_xadj[j + 1]]`` for ghost ``n_local + j``."""
    for v in changed:
        if v < n_local:
            for e in range(xadj[v], xadj[v + 1]):
                u = adjacency[e]
                if u < n_local:
                    active[u] = True
        else:
            j = v - n_local
            for e in range(ghost_xadj[j], ghost_xadj[j + 1]):
                active[ghost_rows[e]] = True


@njit(cache=True)
def accept_in_order(target, vwgt, room):
    """Accept proposed moves in order while each target part has ``room`` left.

    ``room[p]`` is what the part may still take from this rank (its bound
    minus its weight minus what lower ranks proposed); updated in place.
    Returns the accepted targets (-1 where rejected or not proposed).
    """
    accepted = np.full(target.size, -1, dtype=np.int64)
    for v in range(target.size):
        p = target[v]
        if p >= 0 and vwgt[v] <= room[p]:
            room[p] -= vwgt[v]
            accepted[v] = p
    return accepted


@njit(cache=True)
def balance_candidates(xadj, adjacency, adjwgt, vwgt, part, part_weight, max_part_weight):
    """For every owned vertex of an overloaded part: the best part to move it to, and the cut gain.

    The target is the adjacent part with room for the vertex that the
    vertex is most connected to, else the lightest part. Returns
    ``(vertex, source, target, gain, weight)`` rows.
    """
    n_local = xadj.size - 1
    k = part_weight.size
    conn = np.zeros(k, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    lightest = np.argmin(part_weight)
    count_rows = 0
    for v in range(n_local):
        if part_weight[part[v]] > max_part_weight:
            count_rows += 1
    rows = np.empty((count_rows, 5), dtype=np.int64)
    r = 0
    for v in range(n_local):
        own = part[v]
        if part_weight[own] <= max_part_weight:
            continue
        count = part_connections(v, xadj, adjacency, adjwgt, part, conn, touched)
        best, best_conn = lightest, conn[lightest]
        for i in range(count):
            p = touched[i]
            if p != own and part_weight[p] + vwgt[v] <= max_part_weight and conn[p] > best_conn:
                best, best_conn = p, conn[p]
        rows[r, 0] = v
        rows[r, 1] = own
        rows[r, 2] = best
        rows[r, 3] = best_conn - conn[own]
        rows[r, 4] = vwgt[v]
        r += 1
        for i in range(count):
            conn[touched[i]] = 0
    return rows


@njit(cache=True)
def select_balancing_moves(rows, part_weight, max_part_weight):
    """Take candidate moves in row order while the source is overloaded and the target has room.

    Every rank runs this on the same gathered rows, so all agree on the
    moves and on the new ``part_weight`` (updated in place). Returns 1 for
    a taken row.
    """
    taken = np.zeros(rows.shape[0], dtype=np.int64)
    for i in range(rows.shape[0]):
        source, target, weight = rows[i, 1], rows[i, 2], rows[i, 4]
        if part_weight[source] > max_part_weight and part_weight[target] + weight <= max_part_weight:
            part_weight[source] -= weight
            part_weight[target] += weight
            taken[i] = 1
    return taken
