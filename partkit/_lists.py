"""Lists of distinct vertices that grow by neighbourhoods.

Breadth-first growth, the next sweep of label propagation and the
candidates of the rebalancer all keep a list of vertices with a flag per
vertex telling whether it is in the list already, and append the
neighbours of a vertex that are not.
"""

from partkit._jit import njit


@njit(cache=True, inline="always")
def append_neighbours(xadj, adjncy, v, listed, vertices, count):
    """Append the neighbours of ``v`` that are not ``listed`` to ``vertices`` from position ``count`` on,
    marking them listed; returns the new length of the list."""
    for e in range(xadj[v], xadj[v + 1]):
        u = adjncy[e]
        if not listed[u]:
            listed[u] = True
            vertices[count] = u
            count += 1
    return count
