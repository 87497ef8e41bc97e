"""The halo plan of one rank for a row-parallel ``y = A x``: what it sends, receives and computes.

Rank ``r`` owns the rows ``i`` with ``part[i] == r`` and the same entries of
``x``. It needs every ``x_j`` that one of its rows uses; for a ``j`` owned
by rank ``q != r`` it receives it from ``q``, once, in the one message from
``q``. These are exactly the words and messages
:func:`partkit.hypergraph.spmv_communication` counts (and the estimate
charges): the plan's send and receive lists are that count written out.

Local numbering: the owned entries of ``x`` first (by increasing global
index), then the ghosts, grouped by source rank in rank order and by
increasing global index within a source. Each send list holds local
indices of owned entries in the order the receiver stores them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass
class HaloPlan:
    """What one rank sends, receives and multiplies.

    Attributes
    ----------
    rank, k : int
    rows : int64 array
        Global indices of the owned rows (and entries of ``x``).
    send_to : int64 array
        Ranks this rank sends to, increasing.
    send_index : list of int64 arrays
        For each of them, the local indices of the owned ``x`` entries sent.
    recv_from : int64 array
        Ranks this rank receives from, increasing.
    recv_offsets : int64 array, shape (len(recv_from) + 1,)
        Where each source's values go in the ghost array.
    local : scipy.sparse.csr_matrix or None
        The owned rows with columns in the local numbering (``len(rows) +
        number of ghosts`` columns); None unless asked for.
    """

    rank: int
    k: int
    rows: np.ndarray
    send_to: np.ndarray
    send_index: list
    recv_from: np.ndarray
    recv_offsets: np.ndarray
    local: object = None

    @property
    def ghosts(self) -> int:
        return int(self.recv_offsets[-1])

    @property
    def send_words(self) -> int:
        return int(sum(index.size for index in self.send_index))


def _messages(a, part, k):
    """Every needed foreign word as ``(source, destination, column)``, sorted so."""
    from partkit.hypergraph.metrics import foreign_words

    src, dst, col = foreign_words(a, part, part, k)
    order = np.lexsort((col, dst, src))
    return src[order], dst[order], col[order]


def halo_plan(matrix, part, k, rank, *, local_matrix=False) -> HaloPlan:
    """The plan of ``rank`` for a square matrix (scipy sparse) and a row partition into ``k`` parts.

    Parameters
    ----------
    matrix : scipy.sparse matrix, square
    part : int array, shape (n,)
    k, rank : int
    local_matrix : bool
        Also build the owned rows in the local column numbering (for the SpMV).
    """
    a = sp.csr_matrix(matrix)
    part = np.asarray(part, dtype=np.int64)
    src, dst, col = _messages(a, part, k)
    rows = np.flatnonzero(part == rank).astype(np.int64)
    local_of = np.full(a.shape[0], -1, dtype=np.int64)
    local_of[rows] = np.arange(rows.size)
    mine = src == rank
    send_to, starts = np.unique(dst[mine], return_index=True)
    send_cols = col[mine]
    bounds = np.append(starts, send_cols.size)
    send_index = [local_of[send_cols[a_:b_]] for a_, b_ in zip(bounds[:-1], bounds[1:])]
    incoming = dst == rank
    recv_src, recv_col = src[incoming], col[incoming]  # sorted by (source, column)
    recv_from, counts = np.unique(recv_src, return_counts=True)
    recv_offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
    local = None
    if local_matrix:
        local_of[recv_col] = rows.size + np.arange(recv_col.size)
        block = a[rows]
        block = sp.csr_matrix((block.data, local_of[block.indices], block.indptr),
                              shape=(rows.size, rows.size + recv_col.size))
        local = block
    return HaloPlan(rank=int(rank), k=int(k), rows=rows, send_to=send_to.astype(np.int64),
                    send_index=send_index, recv_from=recv_from.astype(np.int64),
                    recv_offsets=recv_offsets, local=local)
