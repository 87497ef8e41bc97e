"""Nested-dissection ordering (METIS_NodeND's scheme).

1. Vertices with equal closed neighbourhoods are merged (when that removes
   at least 15% of them), the classes weighted by their size.
2. A piece of the graph is split by a vertex separator
   (:func:`partkit.ordering.separator.separate`); the separator is numbered
   last, the two sides before it, recursively. Disconnected pieces are
   ordered one component at a time.
3. Pieces of at most :data:`LEAF_SIZE` vertices (and all small components)
   are ordered by approximate minimum degree, constrained by their halo
   (their neighbours in separators, counted in the degrees, not eliminated).

The result follows METIS's convention: ``perm[k]`` is the original index of
the k-th pivot (row k of ``P A P^T`` is row ``perm[k]`` of A) and
``iperm[v]`` the position of vertex v, so ``perm[iperm] == arange(n)``.
"""

from __future__ import annotations

import numpy as np

from partkit._random import KeyStream
from partkit.graph import Graph
from partkit.ordering.kernels.amd import approximate_minimum_degree
from partkit.ordering._engine import EVERY_EDGE, component_labels
from partkit.ordering.kernels.nested import halo_subgraph, indistinguishable_classes, induced_subgraph, quotient_graph
from partkit.ordering.separator import separate
from partkit.ordering.validate import as_graph

#: Pieces with at most this many (compressed) vertices are ordered by minimum degree.
LEAF_SIZE = 200

#: Compress only when it leaves at most this fraction of the vertices (METIS: 0.85).
COMPRESSION_FRACTION = 0.85

#: Imbalance of the separators (METIS's ufactor 200 for orderings).
IMBALANCE = 0.2


def order(graph, *, seed=0):
    """A fill-reducing nested-dissection ordering of a symmetric sparse matrix's graph.

    Parameters
    ----------
    graph : partkit.Graph or scipy.sparse matrix
        The adjacency pattern (for a matrix: of ``A + A^T``, diagonal ignored).
        Vertex and edge weights of a graph are ignored.
    seed : int, default 0
        The same seed gives the same ordering.

    Returns
    -------
    perm, iperm : numpy.ndarray of int64
        METIS's convention: ``perm[k]`` is the original index of the vertex
        eliminated k-th (row k of ``P A P^T`` is row ``perm[k]`` of A, i.e.
        ``A[perm][:, perm]`` is the matrix to factor) and ``iperm[v]`` is the
        new position of vertex v; ``perm[iperm[v]] == v``.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.ordering import order, symbolic_cholesky
    >>> g = grid2d(60, 60)
    >>> perm, iperm = order(g)
    >>> bool((perm[iperm] == range(g.n)).all())
    True
    >>> symbolic_cholesky(g, perm).nnz < symbolic_cholesky(g).nnz / 3
    True
    """
    graph = as_graph(graph)
    n = graph.n
    cmap, nclasses = indistinguishable_classes(graph.xadj, graph.adjncy)
    if nclasses <= COMPRESSION_FRACTION * n:
        xadj, adjncy, vwgt = quotient_graph(graph.xadj, graph.adjncy, cmap, nclasses)
    else:
        cmap, xadj, adjncy, vwgt = np.arange(n), graph.xadj, graph.adjncy, np.ones(n, np.int64)
    corder = dissect(xadj, adjncy, vwgt, KeyStream(seed))
    rank = np.empty(corder.size, dtype=np.int64)
    rank[corder] = np.arange(corder.size)
    perm = np.argsort(rank[cmap], kind="stable").astype(np.int64)
    iperm = np.empty(n, dtype=np.int64)
    iperm[perm] = np.arange(n, dtype=np.int64)
    return perm, iperm


def dissect(xadj, adjncy, vwgt, keys):
    """Elimination order (``order[k]`` = vertex eliminated k-th) of a weighted graph by nested dissection.

    Pieces wait on a stack as ``(vertices, first position, their CSR)``; each
    child is cut out of its parent's CSR, so the work stays local in memory.
    """
    n = xadj.size - 1
    result = np.empty(n, dtype=np.int64)
    leaf = _Leaves(xadj, adjncy, vwgt, result)
    stack = [(np.arange(n, dtype=np.int64), 0, (xadj, adjncy, vwgt))]
    while stack:
        vertices, first, csr = stack.pop()
        if vertices.size <= LEAF_SIZE:
            leaf(vertices, first)
            continue
        count, label = component_labels(csr[0], csr[1], EVERY_EDGE)
        if count > 1:
            _split_components(label, count, vertices, first, csr, leaf, stack)
            continue
        where = separate(Graph(*csr, validate=False), IMBALANCE, keys)
        sides = [np.flatnonzero(where == s) for s in range(3)]
        if sides[0].size == 0 or sides[1].size == 0:  # no separator: order the piece by minimum degree
            leaf(vertices, first)
            continue
        last = first + vertices.size
        result[last - sides[2].size:last] = vertices[sides[2]]
        stack.append((vertices[sides[1]], first + sides[0].size, _cut(csr, sides[1])))
        stack.append((vertices[sides[0]], first, _cut(csr, sides[0])))
    return result


def _cut(csr, inside):
    """The CSR of the subgraph of ``csr`` induced by the local vertices ``inside``."""
    local = np.full(csr[0].size - 1, -1, dtype=np.int64)
    return induced_subgraph(*csr, inside, local)


class _Leaves:
    """Orders leaves by minimum degree constrained by their halo.

    The halo of a leaf (its neighbours outside it, all in separators numbered
    later) is kept in the leaf's graph and counted in the degrees but never
    eliminated, so the leaf's order accounts for the fill it causes there.
    """

    def __init__(self, xadj, adjncy, vwgt, result):
        self.xadj, self.adjncy, self.vwgt, self.result = xadj, adjncy, vwgt, result
        self.local = np.full(xadj.size - 1, -1, dtype=np.int64)

    def __call__(self, vertices, first):
        sub_xadj, sub_adjncy, sub_vwgt = halo_subgraph(self.xadj, self.adjncy, self.vwgt, vertices, self.local)
        pivots = approximate_minimum_degree(sub_xadj, sub_adjncy, sub_vwgt, vertices.size)
        self.result[first:first + vertices.size] = vertices[pivots]


def _split_components(label, count, vertices, first, csr, leaf, stack):
    """Order a disconnected piece: small components together by minimum degree, large ones pushed."""
    sizes = np.bincount(label, minlength=count)
    small = sizes[label] <= LEAF_SIZE
    if small.any():
        inside = np.flatnonzero(small)
        leaf(vertices[inside], first)
        first += inside.size
    by_label = np.argsort(label, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    for c in np.flatnonzero(sizes > LEAF_SIZE):
        inside = by_label[starts[c]:starts[c + 1]]
        stack.append((vertices[inside], first, _cut(csr, inside)))
        first += inside.size
