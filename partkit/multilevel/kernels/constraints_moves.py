"""Greedy moves under a ``movable`` mask, for the cut or the communication volume.

The kernel of :mod:`partkit.constraints`: it refines a
partition in place without ever moving a vertex whose ``movable`` entry is
False (fixed vertices), first restoring the bound ``maxw`` (k, ncon) from
overloaded parts, then making only moves that improve the objective and
keep every part within its bound.
"""

import numpy as np

from partkit._jit import njit
from partkit.multilevel.kernels.objectives import VOLUME, move_gain
from partkit.multilevel.kernels.refinement_moves import connections, fits_in, move_vertex, overloaded, slack


@njit(cache=True)
def _leaves_part_connected(v, xadj, adjncy, part, mark, queue, tag):
    """Whether the neighbours of ``v`` in its own part are connected among themselves.

    Then taking ``v`` out of its part keeps the part connected (a path
    through ``v`` goes round it): a sufficient, local test. ``mark`` (n,) is
    scratch holding values below ``tag``; ``tag`` and ``tag + 1`` are used.
    """
    a = part[v]
    members = 0
    for e in range(xadj[v], xadj[v + 1]):
        u = adjncy[e]
        if part[u] == a:
            mark[u] = tag
            queue[0] = u
            members += 1
    if members <= 1:
        return True
    mark[queue[0]] = tag + 1
    head, tail = 0, 1
    while head < tail:
        u = queue[head]
        head += 1
        for e in range(xadj[u], xadj[u + 1]):
            w = adjncy[e]
            if mark[w] == tag:
                mark[w] = tag + 1
                queue[tail] = w
                tail += 1
    return tail == members


@njit(cache=True)
def _keeps(vwgt, pw, minw, v, a):
    """Whether part ``a`` stays at least at ``minw[a]`` without ``v``."""
    for c in range(vwgt.shape[1]):
        if pw[a, c] - vwgt[v, c] < minw[a, c]:
            return False
    return True


@njit(cache=True)
def _foreign_entries(xadj, adjncy, part):
    """Per vertex, its adjacency entries to other parts (0: an interior vertex, which has no move)."""
    n = xadj.size - 1
    foreign = np.zeros(n, dtype=np.int64)
    for v in range(n):
        for e in range(xadj[v], xadj[v + 1]):
            if part[adjncy[e]] != part[v]:
                foreign[v] += 1
    return foreign


@njit(cache=True)
def _recount(xadj, adjncy, part, foreign, v, frm):
    """Update ``foreign`` after ``v`` moved from part ``frm`` to ``part[v]``."""
    to = part[v]
    for e in range(xadj[v], xadj[v + 1]):
        w = part[adjncy[e]]
        change = (w != to) - (w != frm)
        foreign[v] += change
        foreign[adjncy[e]] += change


#: For the volume, passes of plateau rounds then cut rounds (:func:`greedy_moves`); the measurements that
#: chose 2 are in docs/history/tuning.md.
VOLUME_PASSES = 2


@njit(cache=True)
def greedy_moves(xadj, adjncy, adjwgt, vwgt, sizes, part, pw, minw, maxw, movable, objective, max_rounds, connected):
    """Refine ``part`` in place by single-vertex moves of movable vertices to adjacent parts.

    A movable vertex of an overloaded part moves to the adjacent part with
    room that is best for the objective, even if that makes it worse.
    Otherwise a vertex moves when the move keeps the target within its
    bound, its own part at least at ``minw`` (k, ncon), and improves the objective: the cut (``CUT``, ties to the part
    with more room), or the volume (``VOLUME``, vertex sizes ``sizes`` (1, n),
    gains of :func:`partkit.multilevel.kernels.objectives.move_gain`; ties
    to the lower cut). For the volume, rounds in which a move that keeps
    the volume is made once per round and vertex (a plateau move, so that
    the search leaves the local minima of single moves) alternate with
    rounds in which such a move must lower the cut (plateau moves raise
    it otherwise, most on 3D grids), :data:`VOLUME_PASSES` times. Rounds
    visit the vertices in order until one makes no move, at most
    ``max_rounds`` (per phase). With ``connected``, a vertex moves only when its
    neighbours in its part are connected among themselves, so that a
    connected part stays connected (the target is adjacent, so it does too).

    Returns
    -------
    int
        Number of moves made.
    """
    n = xadj.size - 1
    k = pw.shape[0]
    conn = np.full(k, -1, dtype=np.int64)
    touched = np.empty(k, dtype=np.int64)
    mark = np.full(n, -1, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    tag = 0
    moves = 0
    last = np.full(n, -1, dtype=np.int64)
    foreign = _foreign_entries(xadj, adjncy, part)
    # the volume: passes of rounds with plateau moves, then rounds in which a move that keeps it must lower the cut
    for phase in range(2 * VOLUME_PASSES if objective == VOLUME else 1):
        plateau = phase % 2 == 0
        for r in range(max_rounds):
            moved = 0
            for v in range(n):
                if not movable[v] or foreign[v] == 0:
                    continue
                a = part[v]
                nt = connections(v, xadj, adjncy, adjwgt, part, conn, touched)
                internal = max(conn[a], 0)
                target = -1
                best_primary = 0
                best_secondary = 0
                for t in range(nt):
                    b = touched[t]
                    if b == a or not fits_in(vwgt, pw, maxw, v, b):
                        continue
                    cut = conn[b] - internal
                    primary = move_gain(objective, sizes, xadj, adjncy, part, v, conn, touched, nt, b, internal) \
                        if objective == VOLUME else cut
                    secondary = cut if objective == VOLUME else slack(pw, maxw, b)
                    if target == -1 or primary > best_primary or \
                            (primary == best_primary and secondary > best_secondary):
                        target, best_primary, best_secondary = b, primary, secondary
                # for the volume, a move that keeps it is made once per round and vertex (a plateau move),
                # so that the search leaves the local minima of single moves; after them, only if it lowers the cut
                improves = best_primary > 0 or (objective == VOLUME and best_primary == 0 and
                                                (best_secondary > 0 or (plateau and last[v] != r)))
                for t in range(nt):
                    conn[touched[t]] = -1
                if target >= 0 and (overloaded(pw, maxw, a) or (improves and _keeps(vwgt, pw, minw, v, a))):
                    if connected:
                        tag += 2
                        if not _leaves_part_connected(v, xadj, adjncy, part, mark, queue, tag):
                            continue
                    move_vertex(vwgt, part, pw, v, target)
                    _recount(xadj, adjncy, part, foreign, v, a)
                    last[v] = r
                    moved += 1
            moves += moved
            if moved == 0:
                break
    return moves


@njit(cache=True)
def unload(vwgt, part, pw, maxw, movable):
    """Move movable vertices out of overloaded parts to the part with most room they fit in, in place.

    The last resort after :func:`greedy_moves` when no adjacent part has
    room. Returns whether every part then meets its bound.
    """
    k = pw.shape[0]
    for v in range(part.size):
        a = part[v]
        if not movable[v] or not overloaded(pw, maxw, a):
            continue
        target = -1
        for b in range(k):
            if b != a and fits_in(vwgt, pw, maxw, v, b) and (target == -1 or slack(pw, maxw, b) > slack(pw, maxw, target)):
                target = b
        if target >= 0:
            move_vertex(vwgt, part, pw, v, target)
    for p in range(k):
        if overloaded(pw, maxw, p):
            return False
    return True
