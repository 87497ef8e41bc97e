"""Hypergraph models of a sparse matrix and the exact communication of a parallel SpMV.

The graph of a matrix (:meth:`partkit.Graph.from_scipy`) only approximates
what a row-parallel sparse matrix-vector product ``y = A x`` sends: its edge
cut counts an ``x_j`` once per cut edge, although a part that holds several
rows needing ``x_j`` receives it only once, and it symmetrises ``A``, so it
also counts words that an unsymmetric matrix never sends. Hypergraphs
(Çatalyürek and Aykanat, 1999) are exact:

* **column-net model** (rows are vertices, columns are nets): net ``j``
  connects the rows with a nonzero in column ``j``, i.e. the rows that need
  ``x_j``. Under a row partition in which ``x_j`` lives with row ``j``
  (the diagonal is added to every net for that, the "consistency
  condition"), net ``j`` spans ``λ_j`` parts and ``x_j`` is sent
  ``λ_j - 1`` times: the connectivity-1 metric is the exact volume of the
  expand (halo) phase.
* **row-net model** (columns are vertices, rows are nets): the same for a
  column partition, where partial sums of ``y_i`` are folded instead.

A METIS graph (no matrix) is modelled as the column-net hypergraph of its
adjacency matrix plus the identity: every vertex needs its own value and
those of its neighbours. For a symmetric pattern that hypergraph gives the
same volume as :func:`partkit.metrics.communication_volume`.

All metrics are vectorised (one sort of (part, column) keys); they handle
matrices with millions of nonzeros without Python loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np
import scipy.sparse as sp

from partkit.errors import InputError
from partkit.graph import Graph
from partkit.metrics import check_partition


class Hypergraph:
    """A hypergraph: ``n`` weighted vertices and nets (hyperedges) with costs.

    Parameters
    ----------
    n : int
        Number of vertices.
    net_ptr : array_like of int, shape (nnets + 1,)
        Offsets into ``pins``; the pins of net ``e`` are
        ``pins[net_ptr[e]:net_ptr[e + 1]]``.
    pins : array_like of int
        Vertex ids in ``[0, n)``; no vertex twice in one net.
    vwgt : array_like of int, shape (n,), optional
        Vertex weights (default 1).
    net_cost : array_like of int, shape (nnets,), optional
        Net costs (default 1: one word per net).
    name : str
    """

    def __init__(self, n, net_ptr, pins, vwgt=None, net_cost=None, name="hypergraph"):
        self.name = name
        self.net_ptr = np.ascontiguousarray(net_ptr, dtype=np.int64)
        self.pins = np.ascontiguousarray(pins, dtype=np.int64)
        self.n = int(n)
        if self.net_ptr.ndim != 1 or self.net_ptr.size == 0 or self.net_ptr[0] != 0 \
                or self.net_ptr[-1] != self.pins.size or np.any(np.diff(self.net_ptr) < 0):
            raise InputError(f"{name}: net_ptr must be non-decreasing from 0 to len(pins)")
        nnets = self.net_ptr.size - 1
        self.vwgt = (np.ones(self.n, dtype=np.int64) if vwgt is None
                     else np.ascontiguousarray(vwgt, dtype=np.int64))
        self.net_cost = (np.ones(nnets, dtype=np.int64) if net_cost is None
                         else np.ascontiguousarray(net_cost, dtype=np.int64))
        if self.pins.size and (self.pins.min() < 0 or self.pins.max() >= self.n):
            raise InputError(f"{name}: pin out of range [0, {self.n})")
        if self.vwgt.shape != (self.n,) or self.net_cost.shape != (nnets,):
            raise InputError(f"{name}: need {self.n} vertex weights and {nnets} net costs")

    @property
    def num_nets(self) -> int:
        return self.net_ptr.size - 1

    @property
    def num_pins(self) -> int:
        return self.pins.size

    def net_of_pin(self) -> np.ndarray:
        """Net id of every pin, aligned with ``pins``."""
        return np.repeat(np.arange(self.num_nets, dtype=np.int64), np.diff(self.net_ptr))

    def __repr__(self) -> str:
        return f"Hypergraph(name={self.name!r}, n={self.n}, nets={self.num_nets}, pins={self.num_pins})"

    # ---------------------------------------------------------- constructors
    @classmethod
    def column_net(cls, matrix, *, diagonal=True, name="matrix"):
        """Column-net model: vertex ``i`` = row ``i``, net ``j`` = rows with ``a_ij != 0``.

        Parameters
        ----------
        matrix : scipy.sparse matrix or partkit.Graph
            The structure counts (explicitly stored zeros are nonzeros). A
            :class:`~partkit.Graph` stands for its adjacency matrix.
        diagonal : bool, default True
            Add row ``j`` to net ``j`` (square matrices only), so that the
            part owning ``x_j`` (the part of row ``j``) is always among the
            net's parts and connectivity-1 equals the words sent.
        name : str

        Notes
        -----
        Vertex weights are the nonzeros per row (the multiply-adds of the
        row), net costs are 1 (one word of ``x``).
        """
        a = _pattern(matrix, diagonal, name)
        csc = a.tocsc()
        return cls(a.shape[0], csc.indptr, csc.indices, vwgt=np.diff(a.indptr), name=name)

    @classmethod
    def row_net(cls, matrix, *, diagonal=True, name="matrix"):
        """Row-net model: vertex ``j`` = column ``j``, net ``i`` = columns with ``a_ij != 0``.

        Under a column partition, connectivity-1 is the number of partial
        sums of ``y`` folded to their owner. Vertex weights are the nonzeros
        per column. See :meth:`column_net` for the parameters.
        """
        a = _pattern(matrix, diagonal, name)
        return cls(a.shape[1], a.indptr, a.indices, vwgt=np.diff(a.tocsc().indptr), name=name)

    @classmethod
    def from_graph(cls, graph: Graph):
        """Column-net model of ``adjacency(graph) + I``, with the graph's first vertex weight."""
        h = cls.column_net(graph, diagonal=True, name=graph.name)
        h.vwgt = np.ascontiguousarray(graph.vwgt[:, 0], dtype=np.int64)
        return h


def _pattern(matrix, diagonal, name) -> sp.csr_matrix:
    """The 0/1 pattern of a matrix or of a graph's adjacency, optionally with the diagonal."""
    if isinstance(matrix, Graph):
        n = matrix.n
        a = sp.csr_matrix((np.ones(matrix.adjncy.size, dtype=np.int8), matrix.adjncy, matrix.xadj),
                          shape=(n, n))
    elif sp.issparse(matrix):
        a = sp.csr_matrix(matrix)
        a = sp.csr_matrix((np.ones(a.nnz, dtype=np.int8), a.indices, a.indptr), shape=a.shape)
    else:
        raise InputError(f"{name}: expected a scipy.sparse matrix or a partkit.Graph, "
                         f"got {type(matrix).__name__}")
    if diagonal:
        if a.shape[0] != a.shape[1]:
            raise InputError(f"{name}: the diagonal (consistency condition) needs a square matrix, "
                             f"got {a.shape[0]}x{a.shape[1]}")
        a = a + sp.identity(a.shape[0], dtype=np.int8, format="csr")
    a.sum_duplicates()
    a.sort_indices()
    a.data[:] = 1
    return a


def _check_part(part, n, k, name):
    """``part`` checked as a partition of ``n`` vertices, as int64, and ``k`` (default: largest id + 1)."""
    part = check_partition(SimpleNamespace(n=n, name=name), part, k)
    top = int(part.max()) + 1 if part.size else 1
    if k is None:
        k = top
    elif top > k:  # what check_partition lets through: an empty partition with k < 1
        raise InputError(f"{name}: part id {top - 1} is not below k={k}")
    return part, int(k)


# --------------------------------------------------------------- metrics
def net_connectivity(h: Hypergraph, part, k=None) -> np.ndarray:
    """``λ_e``: the number of distinct parts among the pins of every net (0 for an empty net)."""
    part, k = _check_part(part, h.n, k, h.name)
    keys = np.unique(h.net_of_pin() * k + part[h.pins])
    return np.bincount(keys // k, minlength=h.num_nets).astype(np.int64)


def cut_nets(h: Hypergraph, part, k=None) -> int:
    """Cut-net metric: total cost of the nets that span more than one part."""
    lam = net_connectivity(h, part, k)
    return int(h.net_cost[lam > 1].sum())


def connectivity_minus_one(h: Hypergraph, part, k=None) -> int:
    """Connectivity-1 metric: ``sum_e cost_e * (λ_e - 1)`` over non-empty nets."""
    lam = net_connectivity(h, part, k)
    return int((h.net_cost * np.maximum(lam - 1, 0)).sum())


@dataclass(frozen=True)
class SpMVCommunication:
    """What every part sends and receives in the expand phase of ``y = A x``.

    Attributes
    ----------
    k : int
        Number of parts.
    send_words, recv_words : ndarray of int64, shape (k,)
        Words (entries of ``x``) each part sends / receives.
    send_messages, recv_messages : ndarray of int64, shape (k,)
        Messages each part sends / receives: its distinct destination /
        source parts.
    src, dst, words : ndarray of int64, shape (number of messages,)
        One entry per message, sorted by ``(src, dst)``.
    """

    k: int
    send_words: np.ndarray
    recv_words: np.ndarray
    send_messages: np.ndarray
    recv_messages: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    words: np.ndarray

    @property
    def total_words(self) -> int:
        return int(self.words.sum())

    @property
    def total_messages(self) -> int:
        return int(self.words.size)

    def to_dict(self) -> dict:
        """Totals and maxima (JSON-serialisable)."""
        return {
            "total_words": self.total_words,
            "max_send_words": int(self.send_words.max(initial=0)),
            "max_recv_words": int(self.recv_words.max(initial=0)),
            "total_messages": self.total_messages,
            "max_send_messages": int(self.send_messages.max(initial=0)),
            "max_recv_messages": int(self.recv_messages.max(initial=0)),
        }


def spmv_communication(matrix, part, k=None, *, x_part=None, name=None) -> SpMVCommunication:
    """Exact expand-phase communication of a row-parallel ``y = A x``.

    Row ``i`` is computed by part ``part[i]``; ``x_j`` is owned by
    ``x_part[j]``. Every part receives each ``x_j`` it needs and does not
    own exactly once, in one message per source part, whichever of its rows
    use it (the graph model would count it once per row).

    Parameters
    ----------
    matrix : scipy.sparse matrix or partkit.Graph
        A graph stands for ``adjacency + I`` (each vertex needs its own
        value and those of its neighbours).
    part : array_like of int, shape (nrows,)
        Row partition.
    k : int, optional
        Number of parts (default: largest id + 1).
    x_part : array_like of int, shape (ncols,), optional
        Owner of every ``x_j``; default ``part`` (conformal partition, square
        matrices only).
    name : str, optional
        Used in error messages.

    Returns
    -------
    SpMVCommunication
    """
    name = name or getattr(matrix, "name", "matrix")
    a = _pattern(matrix, False, name)
    nrows, ncols = a.shape
    if x_part is None:
        if nrows != ncols:
            raise InputError(f"{name}: a {nrows}x{ncols} matrix needs x_part (owner of every x_j)")
        part, k = _check_part(part, nrows, k, name)
        x_part = part
    else:
        if k is None:
            k = max(int(np.max(part, initial=0)), int(np.max(x_part, initial=0))) + 1
        part, k = _check_part(part, nrows, k, name)
        x_part, k = _check_part(x_part, ncols, k, name)
    rows = np.repeat(np.arange(nrows, dtype=np.int64), np.diff(a.indptr))
    cols = a.indices.astype(np.int64)
    need = part[rows]
    foreign = need != x_part[cols]
    # one word per (column, needing part): several rows of one part share x_j
    keys = np.unique(cols[foreign] * k + need[foreign])
    dst = keys % k
    src = x_part[keys // k]
    pairs, words = np.unique(src * k + dst, return_counts=True)
    msg_src, msg_dst = pairs // k, pairs % k
    return SpMVCommunication(
        k=k,
        send_words=np.bincount(src, minlength=k).astype(np.int64),
        recv_words=np.bincount(dst, minlength=k).astype(np.int64),
        send_messages=np.bincount(msg_src, minlength=k).astype(np.int64),
        recv_messages=np.bincount(msg_dst, minlength=k).astype(np.int64),
        src=msg_src.astype(np.int64), dst=msg_dst.astype(np.int64), words=words.astype(np.int64))
