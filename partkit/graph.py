"""The graph model: CSR adjacency with vertex and edge weights.

A :class:`Graph` is undirected and stored in compressed sparse row form
(``xadj``, ``adjncy``) in the convention of METIS: the neighbours of vertex
``v`` are ``adjncy[xadj[v]:xadj[v + 1]]`` and every edge appears twice, once
from each end. Weights are non-negative integers, as in METIS, so that gains
in the refinement kernels are exact.
"""

from __future__ import annotations

import numpy as np

from partkit._jit import njit
from partkit.errors import InputError

INDEX_DTYPE = np.int64


def entry_rows(xadj, first=0) -> np.ndarray:
    """The row of every entry of a CSR structure: ``adjncy[i]`` is a neighbour of ``entry_rows(xadj)[i]``.

    Rows are numbered from ``first`` (a block of a distributed graph starts at its first global id).

    Examples
    --------
    >>> entry_rows(np.array([0, 2, 2, 3])).tolist()
    [0, 0, 2]
    """
    return np.repeat(np.arange(first, first + xadj.size - 1, dtype=INDEX_DTYPE), np.diff(xadj))
WEIGHT_DTYPE = np.int64

#: Largest number of directed adjacency entries partkit accepts.
MAX_ADJACENCY_ENTRIES = 2**31 - 1


class Graph:
    """An undirected graph in CSR form with integer weights.

    Parameters
    ----------
    xadj : array_like of int, shape (n + 1,)
        Offsets into ``adjncy``; ``xadj[0] == 0``.
    adjncy : array_like of int, shape (2 m,)
        Concatenated neighbour lists; each undirected edge appears twice.
    vwgt : array_like of int, shape (n,) or (n, ncon), optional
        Vertex weights, one column per balance constraint. Default: all ones.
    adjwgt : array_like of int, shape (2 m,), optional
        Edge weights aligned with ``adjncy``. Default: all ones.
    coords : array_like of float, shape (n, d), optional
        Vertex coordinates (``d`` is 2 or 3), used by geometric methods.
    vsize : array_like of int, shape (n,), optional
        Vertex sizes: the amount of data a vertex sends per neighbouring part
        (METIS ``fmt`` 100). Kept from METIS files; None means unit sizes.
    name : str, optional
        A label used in messages (usually the file name).
    validate : bool, default True
        Check the structure (sizes, ranges, symmetry, self loops, weights)
        and raise :class:`partkit.InputError` on the first problem.

    Attributes
    ----------
    n, m : int
        Number of vertices and of undirected edges.
    ncon : int
        Number of vertex-weight constraints.
    """

    def __init__(self, xadj, adjncy, vwgt=None, adjwgt=None, coords=None, vsize=None,
                 name="graph", validate=True):
        self.name = name
        self.xadj = _as_int_array(xadj, "xadj", name)
        self.adjncy = _as_int_array(adjncy, "adjncy", name)
        n = self.xadj.size - 1
        if n < 0:
            raise InputError(f"{name}: xadj must have at least one entry")
        if vwgt is None:
            self.vwgt = np.ones((n, 1), dtype=WEIGHT_DTYPE)
        else:
            vw = _as_int_array(vwgt, "vertex weights", name)
            if vw.ndim == 1:
                if vw.size % n if n else vw.size:
                    raise InputError(f"{name}: {vw.size} vertex weights for {n} vertices")
                vw = vw.reshape(n, vw.size // n if n else 1)
            self.vwgt = vw
        if adjwgt is None:
            self.adjwgt = np.ones(self.adjncy.size, dtype=WEIGHT_DTYPE)
        else:
            self.adjwgt = _as_int_array(adjwgt, "edge weights", name)
        self.coords = None if coords is None else np.ascontiguousarray(coords, dtype=np.float64)
        self.vsize = None if vsize is None else _as_int_array(vsize, "vertex sizes", name)
        if validate:
            self.validate()

    # ------------------------------------------------------------------ sizes
    @property
    def n(self) -> int:
        """Number of vertices."""
        return self.xadj.size - 1

    @property
    def m(self) -> int:
        """Number of undirected edges."""
        return self.adjncy.size // 2

    @property
    def ncon(self) -> int:
        """Number of vertex-weight constraints."""
        return self.vwgt.shape[1]

    def degrees(self) -> np.ndarray:
        """Number of neighbours of every vertex."""
        return np.diff(self.xadj)

    def has_isolated_vertices(self) -> bool:
        """Whether some vertex has no neighbour (then the graph is disconnected, or a single vertex)."""
        return has_empty_list(self.xadj)

    def edge_sources(self) -> np.ndarray:
        """The vertex each adjacency entry starts from: ``adjncy[i]`` is a neighbour of ``edge_sources()[i]``."""
        return entry_rows(self.xadj)

    def total_vertex_weight(self) -> np.ndarray:
        """Sum of vertex weights per constraint, shape ``(ncon,)``."""
        return self.vwgt.sum(axis=0)

    def __repr__(self) -> str:
        coords = "" if self.coords is None else f", coords={self.coords.shape[1]}D"
        return f"Graph(name={self.name!r}, n={self.n}, m={self.m}, ncon={self.ncon}{coords})"

    # ------------------------------------------------------------- validation
    def validate(self, *, adjacency=True) -> None:
        """Check the CSR structure and weights.

        Parameters
        ----------
        adjacency : bool, default True
            Also check that every edge is listed once from each end, with
            the same weight, and that there is no self loop (O(n + m), a
            compiled kernel). Constructors that build the lists that way
            (:meth:`from_edges`) skip it.

        Raises
        ------
        InputError
            If sizes disagree, an index is out of range, a self loop or a
            negative weight is present, or the adjacency is not symmetric
            (including edge weights).
        """
        name, n = self.name, self.n
        xadj, adjncy = self.xadj, self.adjncy
        if adjncy.size > MAX_ADJACENCY_ENTRIES:
            raise InputError(
                f"{name}: {adjncy.size} adjacency entries exceed the supported "
                f"maximum of {MAX_ADJACENCY_ENTRIES} (64-bit edge counts are not supported)")
        if xadj[0] != 0 or xadj[-1] != adjncy.size:
            raise InputError(f"{name}: xadj must start at 0 and end at len(adjncy)={adjncy.size}")
        if n and np.any(np.diff(xadj) < 0):
            raise InputError(f"{name}: xadj is not non-decreasing")
        if adjncy.size and (adjncy.min() < 0 or adjncy.max() >= n):
            raise InputError(f"{name}: neighbour index out of range [0, {n})")
        if self.vwgt.shape[0] != n:
            raise InputError(f"{name}: {self.vwgt.shape[0]} vertex weights for {n} vertices")
        if self.adjwgt.shape != adjncy.shape:
            raise InputError(f"{name}: {self.adjwgt.size} edge weights for {adjncy.size} adjacency entries")
        if self.vwgt.size and self.vwgt.min() < 0:
            raise InputError(f"{name}: negative vertex weight")
        if self.adjwgt.size and self.adjwgt.min() < 0:
            raise InputError(f"{name}: negative edge weight")
        if self.vsize is not None and (self.vsize.shape != (n,) or (n and self.vsize.min() < 0)):
            raise InputError(f"{name}: vertex sizes must be {n} non-negative integers")
        if self.coords is not None and (self.coords.ndim != 2 or self.coords.shape[0] != n):
            raise InputError(f"{name}: coordinates must have shape (n, d) with n={n}")
        check_weight_sums(name, self.vwgt, "vertex weights")
        check_weight_sums(name, self.adjwgt, "edge weights")
        if not adjacency:
            return
        code, u, v = _adjacency_defect(xadj, adjncy, self.adjwgt)
        if code == _SELF_LOOP:
            raise InputError(f"{name}: self loop at vertex {u + 1} (1-based)")
        if code == _DUPLICATE:
            raise InputError(f"{name}: duplicate edges in the adjacency lists (vertex {u + 1} lists {v + 1} twice)")
        if code == _ASYMMETRIC:
            raise InputError(f"{name}: adjacency is not symmetric (vertex {u + 1} lists {v + 1} but not the "
                             "other way round, or with a different weight)")
        if code == _COUNTS:
            raise InputError(f"{name}: adjacency is not symmetric (vertex {u + 1} has "
                             f"{xadj[u + 1] - xadj[u]} neighbours but is listed by {v})")

    # ---------------------------------------------------------- constructors
    @classmethod
    def from_scipy(cls, matrix, *, edge_weights=None, vwgt=None, coords=None, name="matrix", symmetric=False):
        """Build the graph of a sparse matrix: the pattern of ``A + A^T`` without the diagonal.

        Parameters
        ----------
        matrix : scipy.sparse matrix or array, shape (n, n)
        edge_weights : {None, "abs"}, default None
            ``None`` gives unit edge weights. ``"abs"`` derives integer weights
            from ``|a_ij| + |a_ji|``, scaled so that the largest is 1000 and
            rounded up so every edge keeps a weight of at least 1.
        vwgt, coords : optional
            As in :class:`Graph`.
        name : str
        symmetric : bool
            The caller knows ``|A|`` is symmetric (a Matrix Market file
            stored as symmetric, skew-symmetric or hermitian): no transpose
            to compare it with.
        """
        import scipy.sparse as sp
        a = sp.csr_matrix(matrix)
        if a.shape[0] != a.shape[1]:
            raise InputError(f"{name}: matrix is {a.shape[0]}x{a.shape[1]}; a graph needs a square matrix")
        if edge_weights not in (None, "abs"):
            raise InputError(f"{name}: edge_weights must be None or 'abs', not {edge_weights!r}")
        sym, values = _symmetric_pattern(a, weighted=edge_weights == "abs", symmetric=symmetric)
        weights = None
        if edge_weights == "abs":
            top = values.max() if values.size else 1.0
            if not np.isfinite(top):
                raise InputError(f"{name}: non-finite matrix entries cannot be edge weights")
            scale = 1000.0 / top if top > 0 else 1.0
            weights = np.maximum(1, np.ceil(values * scale - 1e-9)).astype(WEIGHT_DTYPE)
        return cls(sym.indptr.astype(INDEX_DTYPE), sym.indices.astype(INDEX_DTYPE), vwgt=vwgt,
                   adjwgt=weights, coords=coords, name=name, validate=False)

    @classmethod
    def from_networkx(cls, nx_graph, *, weight="weight", vertex_weight=None, name=None):
        """Build a graph from a :mod:`networkx` graph.

        Nodes are numbered in the order of ``nx_graph.nodes``. Edge weights
        are read from the ``weight`` attribute (default 1); vertex weights
        from ``vertex_weight`` when given (a scalar or a sequence per node).
        Self loops and edges of weight 0 are dropped; directed graphs are
        symmetrised.
        """
        import scipy.sparse as sp
        nodes = list(nx_graph.nodes)
        index = {v: i for i, v in enumerate(nodes)}
        n = len(nodes)
        rows, cols, vals = [], [], []
        for u, v, data in nx_graph.edges(data=True):
            w = data.get(weight, 1) if weight is not None else 1
            rows.append(index[u])
            cols.append(index[v])
            vals.append(w)
        vals = np.asarray(vals, dtype=np.float64)
        if vals.size and (vals.min() < 0 or np.any(vals != np.round(vals))):
            raise InputError(f"{name or 'networkx graph'}: edge weights must be non-negative integers")
        a = sp.coo_matrix((vals, (rows, cols)), shape=(n, n)).tocsr()
        a = a.maximum(a.T).tocsr()
        a.setdiag(0)
        a.eliminate_zeros()
        a.sort_indices()
        vwgt = None
        if vertex_weight is not None:
            vwgt = np.array([[float(x) for x in np.atleast_1d(nx_graph.nodes[v].get(vertex_weight, 1))]
                             for v in nodes])
            if np.any(vwgt != np.round(vwgt)):
                raise InputError(f"{name or 'networkx graph'}: vertex weights must be integers")
        return cls(a.indptr.astype(INDEX_DTYPE), a.indices.astype(INDEX_DTYPE), vwgt=vwgt,
                   adjwgt=a.data.astype(WEIGHT_DTYPE), name=name or "networkx graph")

    @classmethod
    def from_edges(cls, n, edges, *, weights=None, vwgt=None, coords=None, name="edges"):
        """Build a graph from ``n`` and an ``(E, 2)`` array of 0-based undirected edges.

        Duplicate edges are merged (their weights add up); self loops are an error.
        """
        import scipy.sparse as sp
        edges = np.asarray(edges, dtype=INDEX_DTYPE).reshape(-1, 2)
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise InputError(f"{name}: edge endpoint out of range [0, {n})")
        if np.any(edges[:, 0] == edges[:, 1]):
            raise InputError(f"{name}: self loop in the edge list")
        w = np.ones(len(edges), dtype=np.int64) if weights is None else _as_int_array(weights, "edge weights", name)
        r = np.concatenate([edges[:, 0], edges[:, 1]])
        c = np.concatenate([edges[:, 1], edges[:, 0]])
        a = sp.csr_matrix((np.concatenate([w, w]), (r, c)), shape=(n, n))
        a.sum_duplicates()
        a.sort_indices()
        graph = cls(a.indptr.astype(INDEX_DTYPE), a.indices.astype(INDEX_DTYPE), vwgt=vwgt,
                    adjwgt=a.data.astype(WEIGHT_DTYPE), coords=coords, name=name, validate=False)
        graph.validate(adjacency=False)  # both directions of every edge, merged, no self loop: symmetric
        return graph

    # ------------------------------------------------------------- exporters
    def to_scipy(self) -> sp.csr_matrix:
        """The weighted adjacency matrix as a symmetric ``scipy.sparse.csr_matrix``."""
        import scipy.sparse as sp
        return sp.csr_matrix((self.adjwgt, self.adjncy, self.xadj), shape=(self.n, self.n))

    def to_networkx(self):
        """The graph as a :class:`networkx.Graph` with ``weight`` on edges and ``vwgt`` on nodes."""
        import networkx as nx

        g = nx.Graph()
        for v in range(self.n):
            g.add_node(v, vwgt=self.vwgt[v].tolist() if self.ncon > 1 else int(self.vwgt[v, 0]))
        rows = self.edge_sources()
        upper = rows < self.adjncy
        g.add_weighted_edges_from(zip(rows[upper].tolist(), self.adjncy[upper].tolist(),
                                      self.adjwgt[upper].tolist()))
        return g

    def subgraph(self, vertices) -> Graph:
        """The subgraph induced by ``vertices`` (renumbered 0..len-1 in the given order)."""
        vertices = np.asarray(vertices, dtype=INDEX_DTYPE)
        a = self.to_scipy()[vertices][:, vertices].tocsr()
        a.sort_indices()
        coords = None if self.coords is None else self.coords[vertices]
        return Graph(a.indptr.astype(INDEX_DTYPE), a.indices.astype(INDEX_DTYPE), vwgt=self.vwgt[vertices],
                     adjwgt=a.data.astype(WEIGHT_DTYPE), coords=coords, name=self.name, validate=False)


def _symmetric_pattern(a, weighted, symmetric=False):
    """The pattern of ``A + A^T`` without the diagonal, rows sorted, and ``|a_ij| + |a_ji|`` on it.

    A structurally symmetric matrix (the usual case) keeps its own pattern:
    one transpose and a comparison (none when ``|A|`` is known to be
    ``symmetric``), no sparse addition.
    """
    import scipy.sparse as sp
    a = a.copy() if not a.has_sorted_indices else a
    a.sort_indices()
    t = None if symmetric else a.T.tocsr()
    if t is not None:
        t.sort_indices()
    if symmetric or (np.array_equal(a.indptr, t.indptr) and np.array_equal(a.indices, t.indices)):
        sym = a
        values = None if not weighted else np.abs(a.data).astype(np.float64) * (2 if symmetric else 1) + \
            (0 if symmetric else np.abs(t.data))
    else:
        # Explicit zeros stay edges: a tiny positive value keeps the sum from cancelling them.
        ones = lambda m: sp.csr_matrix(((np.abs(m.data).astype(np.float64) + np.finfo(float).tiny)  # noqa: E731
                                        if weighted else np.ones(m.nnz), m.indices, m.indptr), shape=m.shape)
        sym = (ones(a) + ones(t)).tocsr()
        sym.sort_indices()
        values = sym.data
    rows = entry_rows(sym.indptr)
    keep = sym.indices != rows
    indptr = np.zeros(a.shape[0] + 1, dtype=INDEX_DTYPE)
    np.cumsum(np.bincount(rows[keep], minlength=a.shape[0]), out=indptr[1:])
    pattern = sp.csr_matrix((np.ones(int(keep.sum())), sym.indices[keep], indptr), shape=a.shape)
    return pattern, (values[keep] if weighted else None)


def check_weight_sums(name, weights, what):
    """Refuse integer weights whose sum (per column) leaves int64: totals would wrap around.

    Raises
    ------
    InputError
        Naming ``name`` and ``what`` when a column's sum exceeds 2^63 - 1.
    """
    if not weights.size:
        return
    weights = weights.reshape(weights.shape[0], -1)
    if int(weights.max()) * weights.shape[0] < 2**63:
        return
    totals = [sum(column.tolist()) for column in weights.T]
    if max(totals) >= 2**63:
        raise InputError(f"{name}: the {what} sum to {max(totals)}, beyond the 64-bit range "
                         f"(at most {2**63 - 1}); scale them down")


@njit(cache=True)
def has_empty_list(xadj):
    """Whether some vertex of the CSR offsets ``xadj`` has no neighbour (one pass, stops at the first)."""
    for v in range(xadj.size - 1):
        if xadj[v + 1] == xadj[v]:
            return True
    return False


_SELF_LOOP, _DUPLICATE, _ASYMMETRIC, _COUNTS = 1, 2, 3, 4


@njit(cache=True)
def _adjacency_defect(xadj, adjncy, adjwgt):
    """The first self loop, duplicate or unmatched entry: ``(code, u, v)``, or ``(0, -1, -1)``.

    For ``_COUNTS``, ``v`` is the number of lists that hold ``u``.

    Every entry ``u -> v`` of weight ``w`` must have exactly one ``v -> u`` of
    weight ``w``. The reverse lists are built by a counting sort (O(n + m)
    time, two adjacency-sized arrays), not by a sparse transpose.
    """
    n = xadj.size - 1
    for u in range(n):
        for e in range(xadj[u], xadj[u + 1]):
            if adjncy[e] == u:
                return _SELF_LOOP, u, u
    start = np.zeros(n + 1, dtype=np.int64)
    for e in range(adjncy.size):
        start[adjncy[e] + 1] += 1
    for v in range(n):
        if start[v + 1] != xadj[v + 1] - xadj[v]:
            return _COUNTS, v, start[v + 1]
        start[v + 1] += start[v]
    # equal weights (unit ones, most often) match whatever the pairing: their copies are left out
    weighted = False
    for e in range(adjwgt.size):
        if adjwgt[e] != adjwgt[0]:
            weighted = True
            break
    source = np.empty(adjncy.size, dtype=np.int64)
    # the weights are int64: np.int64, not adjwgt.dtype, reuses the compiled np.empty
    weight = np.empty(adjncy.size if weighted else 0, dtype=np.int64)
    fill = start[:n].copy()
    for u in range(n):
        for e in range(xadj[u], xadj[u + 1]):
            v = adjncy[e]
            source[fill[v]] = u
            if weighted:
                weight[fill[v]] = adjwgt[e]
            fill[v] += 1
    mark = np.full(n, -1, dtype=np.int64)
    marked_weight = np.zeros(n if weighted else 0, dtype=np.int64)
    for u in range(n):
        for e in range(xadj[u], xadj[u + 1]):
            v = adjncy[e]
            if mark[v] == u:
                return _DUPLICATE, u, v
            mark[v] = u
            if weighted:
                marked_weight[v] = adjwgt[e]
        for p in range(start[u], start[u + 1]):
            s = source[p]
            if mark[s] != u or (weighted and marked_weight[s] != weight[p]):
                return _ASYMMETRIC, s, u
    return 0, -1, -1


def _as_int_array(values, what, name):
    arr = np.asarray(values)
    if arr.dtype.kind == "f":
        if not np.all(np.isfinite(arr)) or np.any(arr != np.round(arr)):
            raise InputError(f"{name}: {what} must be integers")
    elif arr.dtype.kind not in "iub" and arr.size:
        raise InputError(f"{name}: {what} must be integers, got dtype {arr.dtype}")
    return np.ascontiguousarray(arr, dtype=INDEX_DTYPE)
