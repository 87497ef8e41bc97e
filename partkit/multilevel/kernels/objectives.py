"""The gain of a move under every objective of refinement, with one branch on the objective's code.

Refinement (label propagation, k-way FM, the balancer) rates the move of a
vertex ``v`` from part ``a`` to part ``b`` by the decrease of the
objective, as Mt-KaHyPar's gain types do. Every kernel that rates moves
takes the objective as two arguments, always of the same types, so each
compiles once:

``objective`` : int64
    One of the codes below.
``dist`` : int64 array, shape (k, k)
    The objective's data: the distance between the processing elements
    of two parts for :data:`MAPPING`; a 1 x 1 dummy for :data:`CUT`.

A new objective gets a code here and a branch in :func:`edge_cost` (the
cost of an edge between two parts) and, when the connection of a vertex
to every adjacent part does not determine its gains, in :func:`move_gain`;
its Python side (name, data) goes into :mod:`partkit.multilevel.objectives`.
"""

from partkit._jit import njit

#: The edge cut: ``sum over cut edges of w_uv``.
CUT = 0
#: The mapping cost: ``sum over cut edges of w_uv * dist[part(u), part(v)]`` (part ``i`` on PE ``i``).
MAPPING = 1


@njit(cache=True)
def edge_cost(objective, dist, a, b):
    """Cost per unit of weight of an edge between parts ``a`` and ``b``."""
    if objective == CUT:
        return 1 if a != b else 0
    return dist[a, b]


@njit(cache=True)
def move_gain(objective, dist, conn, touched, nt, own, to, internal):
    """Decrease of the objective when a vertex of part ``own`` moves to part ``to``.

    ``conn[touched[:nt]]`` is the edge weight from the vertex to each part
    it is adjacent to (any other entry is 0 or less: none); ``internal`` is
    the weight to its own part (0 when it has no neighbour there).
    """
    if objective == CUT:
        return max(conn[to], 0) - internal
    gain = 0
    for t in range(nt):
        q = touched[t]
        gain += conn[q] * (dist[own, q] - dist[to, q])
    return gain


@njit(cache=True)
def objective_value(objective, dist, xadj, adjncy, adjwgt, part):
    """The objective of ``part``: every edge's weight times :func:`edge_cost`, each edge counted once."""
    total = 0
    for v in range(xadj.size - 1):
        for e in range(xadj[v], xadj[v + 1]):
            total += adjwgt[e] * edge_cost(objective, dist, part[v], part[adjncy[e]])
    return total // 2
