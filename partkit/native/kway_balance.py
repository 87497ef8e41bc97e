"""Restoring the balance constraint of a k-way partition at the smallest cut cost."""

import numpy as np
from numba import njit

from partkit.native.kway_refine import fits_in, move_vertex


@njit(cache=True)
def _overloaded(pw, maxw, p):
    for c in range(pw.shape[1]):
        if pw[p, c] > maxw[p, c]:
            return True
    return False


@njit(cache=True)
def _helps(vwgt, pw, maxw, v, p):
    """Whether moving ``v`` out of part ``p`` lowers an exceeded constraint."""
    for c in range(pw.shape[1]):
        if pw[p, c] > maxw[p, c] and vwgt[v, c] > 0:
            return True
    return False


@njit(cache=True)
def rebalance(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, max_rounds):
    """Move vertices out of overloaded parts until every part meets ``maxw``.

    Each round rates every vertex of an overloaded part by the cut change of
    its best move to a part with room (an adjacent part if possible, else
    the part with the most room) and makes the moves best-first while the
    source is still overloaded and the target still has room.

    Returns
    -------
    bool
        True when the partition is balanced at the end.
    """
    n = xadj.size - 1
    k = pw.shape[0]
    conn = np.zeros(k, dtype=np.int64)
    cand = np.empty(n, dtype=np.int64)
    cand_to = np.empty(n, dtype=np.int64)
    cand_gain = np.empty(n, dtype=np.float64)
    for _ in range(max_rounds):
        any_over = False
        for p in range(k):
            if _overloaded(pw, maxw, p):
                any_over = True
                break
        if not any_over:
            return True
        nc = 0
        for v in range(n):
            own = part[v]
            if not _overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
                continue
            for e in range(xadj[v], xadj[v + 1]):
                conn[part[adjncy[e]]] += adjwgt[e]
            target = -1
            gain = 0
            for e in range(xadj[v], xadj[v + 1]):
                p = part[adjncy[e]]
                if p != own and fits_in(vwgt, pw, maxw, v, p) and (target < 0 or conn[p] > gain):
                    target = p
                    gain = conn[p]
            if target < 0:
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
                gain = 0
            internal = conn[own]
            for e in range(xadj[v], xadj[v + 1]):
                conn[part[adjncy[e]]] = 0
            if target < 0:
                continue
            w = 0
            for c in range(pw.shape[1]):
                w += vwgt[v, c]
            cand[nc] = v
            cand_to[nc] = target
            # cut change per unit of weight moved (heavier vertices fix more)
            cand_gain[nc] = (gain - internal) / max(w, 1)
            nc += 1
        if nc == 0:
            return False
        ranking = np.argsort(-cand_gain[:nc], kind="mergesort")
        moved = 0
        for i in range(nc):
            v = cand[ranking[i]]
            own = part[v]
            to = cand_to[ranking[i]]
            if not _overloaded(pw, maxw, own) or not _helps(vwgt, pw, maxw, v, own):
                continue
            if not fits_in(vwgt, pw, maxw, v, to):
                continue
            move_vertex(vwgt, part, pw, v, to)
            moved += 1
        if moved == 0:
            return False
    for p in range(k):
        if _overloaded(pw, maxw, p):
            return False
    return True
