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

This module holds the :class:`Hypergraph` type and its constructors; the
metrics are in :mod:`partkit.hypergraph.metrics`, the partitioner in
:mod:`partkit.hypergraph.partitioner`.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import scipy.sparse as sp

from partkit.errors import InputError
from partkit.graph import Graph


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
    net_owner : array_like of int, shape (nnets,), optional
        A pin of every net whose part owns the net's value (``x_j`` of
        column ``j`` lives with row ``j`` under the consistency condition);
        used by :func:`~partkit.hypergraph.metrics.part_volumes`. Default:
        none, the part holding most of the net's pins owns it.
    """

    def __init__(self, n, net_ptr, pins, vwgt=None, net_cost=None, name="hypergraph", net_owner=None):
        self.name = name
        self.net_owner = None if net_owner is None else np.ascontiguousarray(net_owner, dtype=np.int64)
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
        if (self.vwgt < 0).any() or (self.net_cost < 0).any():
            raise InputError(f"{name}: vertex weights and net costs must be non-negative")
        keys = self.net_of_pin() * max(self.n, 1) + self.pins
        if np.unique(keys).size != keys.size:
            raise InputError(f"{name}: a net holds the same vertex twice")

    @property
    def num_nets(self) -> int:
        return self.net_ptr.size - 1

    @property
    def num_pins(self) -> int:
        return self.pins.size

    def net_of_pin(self) -> np.ndarray:
        """Net id of every pin, aligned with ``pins``."""
        return np.repeat(np.arange(self.num_nets, dtype=np.int64), np.diff(self.net_ptr))

    @cached_property
    def _incidence(self):
        """The transpose (vertex -> nets) CSR, computed once."""
        t = sp.csr_matrix((np.ones(self.num_pins, dtype=np.int8), self.pins, self.net_ptr),
                          shape=(self.num_nets, self.n)).tocsc()
        return t.indptr.astype(np.int64), t.indices.astype(np.int64)

    @property
    def vertex_ptr(self) -> np.ndarray:
        """Offsets into :attr:`vertex_nets` (the transpose CSR), shape ``(n + 1,)``."""
        return self._incidence[0]

    @property
    def vertex_nets(self) -> np.ndarray:
        """Nets of every vertex, in increasing order: ``vertex_nets[vertex_ptr[v]:vertex_ptr[v + 1]]``."""
        return self._incidence[1]

    def total_vertex_weight(self) -> np.ndarray:
        """Total vertex weight, shape ``(1,)`` (one constraint, as :meth:`partkit.Graph.total_vertex_weight`)."""
        return np.array([self.vwgt.sum()], dtype=np.int64)

    def __repr__(self) -> str:
        return f"Hypergraph(name={self.name!r}, n={self.n}, nets={self.num_nets}, pins={self.num_pins})"

    # ---------------------------------------------------------- constructors
    @classmethod
    def from_matrix(cls, matrix, *, model="columns", vertex_weights="nnz", diagonal=None,
                    name="matrix"):
        """The hypergraph model of a sparse matrix for a parallel ``y = A x``.

        Parameters
        ----------
        matrix : scipy.sparse matrix or partkit.Graph
            Any shape; the structure counts (explicitly stored zeros are
            nonzeros). A :class:`~partkit.Graph` stands for its adjacency matrix.
        model : {"columns", "rows"}
            ``"columns"`` (column-net): vertex ``i`` = row ``i``, net ``j`` =
            the rows with ``a_ij != 0``, for a row partition. ``"rows"``
            (row-net): vertex ``j`` = column ``j``, net ``i`` = the columns of
            row ``i``, for a column partition.
        vertex_weights : {"nnz", "unit"}
            ``"nnz"``: the nonzeros of the row (column), i.e. its multiply-adds
            in SpMV; ``"unit"``: 1 per vertex.
        diagonal : bool, optional
            Add vertex ``j`` to net ``j`` (the consistency condition: ``x_j``
            lives with row ``j``, so λ-1 is exactly the words sent). Default:
            when the matrix is square. A rectangular matrix cannot have it.
        name : str

        Examples
        --------
        >>> import scipy.sparse as sp
        >>> h = Hypergraph.from_matrix(sp.random(30, 50, density=0.1, random_state=0))
        >>> (h.n, h.num_nets)
        (30, 50)
        """
        if model not in ("columns", "rows"):
            raise InputError(f"{name}: model must be 'columns' or 'rows', got {model!r}")
        if vertex_weights not in ("nnz", "unit"):
            raise InputError(f"{name}: vertex_weights must be 'nnz' or 'unit', got {vertex_weights!r}")
        own = _pattern(matrix, False, name)
        if diagonal is None:
            diagonal = own.shape[0] == own.shape[1]
        a = _pattern(matrix, True, name) if diagonal else own
        if model == "rows":
            a, own = a.T.tocsr(), own.T.tocsr()
        csc = a.tocsc()
        vwgt = np.diff(own.indptr) if vertex_weights == "nnz" else None
        owner = np.arange(a.shape[1]) if diagonal else None
        return cls(a.shape[0], csc.indptr, csc.indices, vwgt=vwgt, name=name, net_owner=owner)

    @classmethod
    def from_nets(cls, n, nets, *, vwgt=None, net_cost=None, name="hypergraph"):
        """A hypergraph from a list of nets, each a sequence of vertex ids.

        Examples
        --------
        >>> h = Hypergraph.from_nets(4, [[0, 1, 2], [2, 3]], net_cost=[2, 1])
        >>> h.pins.tolist(), h.net_ptr.tolist()
        ([0, 1, 2, 2, 3], [0, 3, 5])
        """
        sizes = [len(net) for net in nets]
        net_ptr = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)])
        pins = np.concatenate([np.asarray(net, dtype=np.int64) for net in nets]) if nets else []
        return cls(n, net_ptr, pins, vwgt=vwgt, net_cost=net_cost, name=name)

    @classmethod
    def column_net(cls, matrix, *, diagonal=True, name="matrix"):
        """Column-net model with nonzeros-per-row weights (:meth:`from_matrix`, ``model="columns"``).

        Unlike :meth:`from_matrix`, the diagonal is asked for by default, so
        a rectangular matrix needs ``diagonal=False``.
        """
        return cls.from_matrix(matrix, model="columns", diagonal=diagonal, name=name)

    @classmethod
    def row_net(cls, matrix, *, diagonal=True, name="matrix"):
        """Row-net model with nonzeros-per-column weights (:meth:`from_matrix`, ``model="rows"``).

        Under a column partition, connectivity-1 is the number of partial
        sums of ``y`` folded to their owner.
        """
        return cls.from_matrix(matrix, model="rows", diagonal=diagonal, name=name)

    @classmethod
    def from_graph(cls, graph: Graph):
        """Column-net model of ``adjacency(graph) + I``, with the graph's first vertex weight."""
        h = cls.column_net(graph, diagonal=True, name=graph.name)
        return cls(h.n, h.net_ptr, h.pins, vwgt=graph.vwgt[:, 0], name=graph.name, net_owner=h.net_owner)


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
