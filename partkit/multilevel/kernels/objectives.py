"""The gain of a move under every objective of refinement, with one branch on the objective's code.

Refinement (label propagation, k-way FM, the balancer) rates the move of a
vertex ``v`` from part ``a`` to part ``b`` by the decrease of the
objective, as Mt-KaHyPar's gain types do. Every kernel that rates moves
takes the objective as two arguments, always of the same types, so each
compiles once:

``objective`` : int64
    One of the codes below.
``data`` : int64 array, 2-D, or None
    The objective's data: for :data:`MAPPING` the (k, k) distances
    between the processing elements of two parts; for :data:`VOLUME` the
    size of every vertex as one row (1, n); for :data:`MIGRATION` (2, n + 1):
    every vertex's old part (row 0) and migration size (row 1), then the
    column ``(num, den)`` of ``itr = num / den``, the sizes already times
    ``den``; for :data:`CUT` None.

The cut passes ``data=None``: Numba then compiles every kernel for the
cut apart, with the branches on ``data is None`` removed before typing, so
the default path (the cut) does not carry the other objectives' gains.
Those were compiled and optimized again inside every kernel that rates
moves, and cost about 3 s of the first call in a fresh process. The
other objectives compile their own specialisation on first use. Every
branch that reads ``data`` therefore tests ``data is not None`` first.

A new objective gets a code here and a branch in :func:`move_gain` (the
gain of a move), :func:`edge_cost` (the cost of an edge between two parts,
which the balancer's paths, the flows' networks
(:mod:`~partkit.multilevel.kernels.refinement_flow`) and
:func:`objective_value` add up; an objective that is not a sum over edges,
as the volume, also gets a branch in :func:`objective_value` and no flows;
one with a per-vertex term, as the migration, a branch in
:func:`vertex_gain`); its Python side (name, data) goes into
:mod:`partkit.multilevel.objectives`.
"""

import numpy as np

from partkit._jit import njit

#: The edge cut: ``sum over cut edges of w_uv``.
CUT = 0
#: The mapping cost: ``sum over cut edges of w_uv * data[part(u), part(v)]`` (part ``i`` on PE ``i``).
MAPPING = 1
#: METIS's total communication volume: ``sum over v of data[0, v] * |parts other than part(v) adjacent to v|``.
VOLUME = 2
#: ParMETIS's repartitioning objective ``itr * cut + migration``, in units of ``1 / den``:
#: ``num * cut + sum over v with part(v) != data[0, v] of data[1, v]``.
MIGRATION = 3


@njit(cache=True)
def edge_cost(objective, data, a, b):
    """Cost per unit of weight of an edge between parts ``a`` and ``b`` (the cut's for the volume)."""
    if data is not None and objective == MAPPING:
        return data[a, b]
    if data is not None and objective == MIGRATION:
        return data[0, data.shape[1] - 1] if a != b else 0
    return 1 if a != b else 0


@njit(cache=True)
def vertex_gain(objective, data, v, frm, to):
    """The part of the gain of moving ``v`` from part ``frm`` to part ``to`` that depends on ``v`` alone:
    for :data:`MIGRATION` its size when it returns to its old part, minus it when it leaves it; else 0."""
    if data is None or objective != MIGRATION:
        return 0
    old = data[0, v]
    return data[1, v] * ((old == to) - (old == frm))


@njit(cache=True)
def move_gain(objective, data, xadj, adjncy, part, v, conn, touched, nt, to, internal):
    """Decrease of the objective when vertex ``v`` moves from its part to part ``to``.

    ``conn[touched[:nt]]`` is the edge weight from ``v`` to each part it is
    adjacent to (0 or more; any other entry is -1); ``internal`` is the
    weight to its own part (0 when it has no neighbour there).
    """
    if data is None or objective == CUT:
        return max(conn[to], 0) - internal
    own = part[v]
    if objective == MIGRATION:
        return data[0, data.shape[1] - 1] * (max(conn[to], 0) - internal) + vertex_gain(objective, data, v, own, to)
    gain = 0
    if objective == MAPPING:
        for t in range(nt):
            q = touched[t]
            gain += conn[q] * (data[own, q] - data[to, q])
        return gain
    # VOLUME: v sees its own part instead of ``to``; each neighbour may lose ``own`` and see ``to``
    if conn[to] >= 0:
        gain += data[0, v]
    if conn[own] >= 0:
        gain -= data[0, v]
    for e in range(xadj[v], xadj[v + 1]):
        u = adjncy[e]
        c = part[u]
        in_own = 0
        in_to = 0
        for f in range(xadj[u], xadj[u + 1]):
            r = part[adjncy[f]]
            if r == own:
                in_own += 1
            elif r == to:
                in_to += 1
        if c != own and in_own == 1:  # v was u's only neighbour in its part
            gain += data[0, u]
        if c != to and in_to == 0:  # u sees part ``to`` for the first time
            gain -= data[0, u]
    return gain


@njit(cache=True)
def objective_value(objective, data, xadj, adjncy, adjwgt, part):
    """The objective of ``part``."""
    total = 0
    if data is not None and objective == VOLUME:
        k = 1
        for v in range(part.size):  # not part.max(): Numba's array max costs about 1 s of a first call
            k = max(k, part[v] + 1)
        seen = np.full(k, -1, dtype=np.int64)
        for v in range(xadj.size - 1):
            for e in range(xadj[v], xadj[v + 1]):
                p = part[adjncy[e]]
                if p != part[v] and seen[p] != v:
                    seen[p] = v
                    total += data[0, v]
        return total
    for v in range(xadj.size - 1):
        for e in range(xadj[v], xadj[v + 1]):
            total += adjwgt[e] * edge_cost(objective, data, part[v], part[adjncy[e]])
    total //= 2
    if data is not None and objective == MIGRATION:
        for v in range(xadj.size - 1):
            if part[v] != data[0, v]:
                total += data[1, v]
    return total
