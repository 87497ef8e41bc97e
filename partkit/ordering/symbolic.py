"""Fill of a sparse Cholesky factorization, measured independently of the orderer.

:func:`symbolic_cholesky` computes, for a symmetric pattern A and an
ordering, the elimination tree of ``P A P^T`` and the column counts of its
Cholesky factor L (Gilbert, Ng and Peyton, "An efficient algorithm to
compute row and column counts for sparse Cholesky factorization", 1994),
in time nearly linear in nnz(A): L itself is never formed.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.ordering.kernels.symbolic import column_counts, elimination_tree, postorder
from partkit.ordering.validate import as_graph, check_permutation


@dataclass(frozen=True)
class Fill:
    """Size and cost of the Cholesky factor L of ``P A P^T``.

    Attributes
    ----------
    nnz : int
        Nonzeros of L, diagonal included.
    flops : int
        Factorization operation count ``sum_j c_j**2`` over the column
        counts ``c_j`` of L (diagonal included), the count CHOLMOD reports.
    colcounts : numpy.ndarray of int64
        ``c_j`` for every column j of L (in the new order).
    parent : numpy.ndarray of int64
        The elimination tree: parent column of every column, -1 for roots.
    """

    nnz: int
    flops: int
    colcounts: np.ndarray
    parent: np.ndarray


def symbolic_cholesky(data, perm=None) -> Fill:
    """Symbolic Cholesky factorization of ``P A P^T``: nnz(L) and flops.

    Parameters
    ----------
    data : partkit.Graph or scipy.sparse matrix
        The pattern of A: a graph, or a square matrix whose pattern of
        ``A + A^T`` is used (the diagonal is assumed nonzero).
    perm : array_like of int, optional
        The ordering in METIS's ``perm`` convention: ``perm[k]`` is the
        original index of the k-th pivot (row k of ``P A P^T`` is row
        ``perm[k]`` of A). Default: the identity.

    Returns
    -------
    Fill

    Examples
    --------
    >>> import numpy as np
    >>> from partkit.generators import grid2d
    >>> from partkit.ordering import symbolic_cholesky
    >>> fill = symbolic_cholesky(grid2d(3, 3))
    >>> int(fill.nnz), int(fill.flops)
    (29, 103)
    """
    graph = as_graph(data)
    n = graph.n
    perm = np.arange(n, dtype=np.int64) if perm is None else check_permutation(perm, n, "perm")
    iperm = np.empty(n, dtype=np.int64)
    iperm[perm] = np.arange(n, dtype=np.int64)
    parent = elimination_tree(graph.xadj, graph.adjncy, perm, iperm)
    counts = column_counts(graph.xadj, graph.adjncy, perm, iperm, parent, postorder(parent))
    return Fill(nnz=int(counts.sum()), flops=int(np.square(counts).sum()), colcounts=counts, parent=parent)
