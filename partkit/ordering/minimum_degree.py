"""Approximate minimum degree ordering (AMD) of a whole graph."""

from __future__ import annotations

import numpy as np

from partkit.ordering.kernels.amd import approximate_minimum_degree
from partkit.ordering.validate import as_graph


def minimum_degree(graph):
    """An approximate-minimum-degree ordering of ``graph``.

    Vertex weights (first constraint) count as that many indistinguishable
    vertices in the degrees.

    Parameters
    ----------
    graph : partkit.Graph or scipy.sparse matrix

    Returns
    -------
    numpy.ndarray of int64
        ``perm``: ``perm[k]`` is the original index of the k-th pivot.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> from partkit.ordering import minimum_degree, symbolic_cholesky
    >>> g = grid2d(30, 30)
    >>> symbolic_cholesky(g, minimum_degree(g)).nnz < symbolic_cholesky(g).nnz
    True
    """
    graph = as_graph(graph)
    weights = np.ascontiguousarray(graph.vwgt[:, 0])
    return approximate_minimum_degree(graph.xadj, graph.adjncy, np.maximum(weights, 1), graph.n)
