"""Element meshes: their dual and nodal graphs, and the formats of meshio.

A :class:`Mesh` holds the elements of the highest dimension of a mesh as
node lists (CSR ``eptr``/``eind``, 0-based; all the nodes of a
higher-order element, corners first) with a cell type per element. It is
what the METIS ``.mesh`` reader (:mod:`partkit.io.metis`) and the meshio
reader (:func:`read_meshio`: Gmsh ``.msh``, VTK ``.vtu`` and
``.vtk``, XDMF, Exodus, ...) both produce, and both build their graphs with
the one builder here:

* the **dual graph** (:meth:`Mesh.dual_graph`): a vertex per element, an
  edge between two elements that share a facet (an edge of a triangle or
  quadrilateral, a face of a tetrahedron, hexahedron, wedge or pyramid),
  whatever the two element types, so mixed meshes work; element centroids
  are the coordinates. With ``ncommon`` it is METIS's rule instead: two
  elements are adjacent when they share at least ``ncommon`` nodes (all
  their nodes count, mid-edge ones included, as METIS counts them).
* the **nodal graph** (:meth:`Mesh.nodal_graph`): a vertex per node, an
  edge along every edge of a linear element and between every two nodes of
  a higher-order (or untyped) element, as its finite-element matrix couples
  them; node coordinates are the coordinates.

A partition of one is carried to the other (:meth:`Mesh.node_parts`,
:meth:`Mesh.element_parts`: a node whose elements are all in one part takes
it, an interface node the lightest of its elements' parts, so that the
node counts balance too) and written back as part files (``FILE.epart.K``,
``FILE.npart.K``) or as a mesh with the part as cell and point data
(:func:`write_mesh_partition`, any meshio format: ``.vtu`` opens in
ParaView). meshio and gmsh come with ``partkit[mesh]``.
"""

from __future__ import annotations

import contextlib
import io
import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from partkit._jit import njit
from partkit.errors import InputError
from partkit.graph import INDEX_DTYPE, Graph
from partkit.io._source import base_name
from partkit.metrics import part_count

#: File name endings read through meshio.
SUFFIXES = (".msh", ".vtu", ".vtk", ".xdmf", ".xmf", ".exo", ".e", ".ex2")
#: Those :func:`write_mesh_partition` writes: meshio keeps both cell and point data in them.
WRITE_SUFFIXES = (".vtu", ".vtk", ".xdmf", ".xmf")

#: Cell type -> (dimension, corner facets, corner edges), in meshio's (VTK's) node order.
CELL_TYPES = {
    "line": (1, ((0,), (1,)), ((0, 1),)),
    "triangle": (2, ((0, 1), (1, 2), (2, 0)), ((0, 1), (1, 2), (2, 0))),
    "quad": (2, ((0, 1), (1, 2), (2, 3), (3, 0)), ((0, 1), (1, 2), (2, 3), (3, 0))),
    "tetra": (3, ((0, 1, 2), (0, 1, 3), (1, 2, 3), (0, 2, 3)),
              ((0, 1), (1, 2), (2, 0), (0, 3), (1, 3), (2, 3))),
    "hexahedron": (3, ((0, 1, 2, 3), (4, 5, 6, 7), (0, 1, 5, 4), (1, 2, 6, 5), (2, 3, 7, 6), (3, 0, 4, 7)),
                   ((0, 1), (1, 2), (2, 3), (3, 0), (4, 5), (5, 6), (6, 7), (7, 4),
                    (0, 4), (1, 5), (2, 6), (3, 7))),
    "wedge": (3, ((0, 1, 2), (3, 4, 5), (0, 1, 4, 3), (1, 2, 5, 4), (2, 0, 3, 5)),
              ((0, 1), (1, 2), (2, 0), (3, 4), (4, 5), (5, 3), (0, 3), (1, 4), (2, 5))),
    "pyramid": (3, ((0, 1, 2, 3), (0, 1, 4), (1, 2, 4), (2, 3, 4), (3, 0, 4)),
                ((0, 1), (1, 2), (2, 3), (3, 0), (0, 4), (1, 4), (2, 4), (3, 4))),
}
#: Cell type names, indexed by the type codes of :attr:`Mesh.etype`.
TYPE_NAMES = tuple(CELL_TYPES)
#: Corner nodes of every cell type.
CORNERS = {name: 1 + max(max(f) for f in facets) for name, (_, facets, _) in CELL_TYPES.items()}


def cell_type(name):
    """The linear cell type of a meshio cell type name (``tetra10`` -> ``tetra``), or None."""
    base = name.rstrip("0123456789")
    return base if base in CELL_TYPES else None


@dataclass
class Mesh:
    """The elements of a mesh (those of its highest dimension) and its nodes.

    Attributes
    ----------
    eptr, eind : int64 arrays
        The nodes of element ``e`` are ``eind[eptr[e]:eptr[e + 1]]``
        (0-based, in meshio's order of the cell type: the corners first,
        then the mid-edge and other nodes of a higher-order element).
    etype : int64 array
        Linear cell type of every element, an index into :data:`TYPE_NAMES`
        (-1: untyped, a METIS element of a size without a known type).
    nnodes : int
        Number of nodes (``eind`` values lie in ``[0, nnodes)``).
    points : float array of shape (nnodes, d), or None
        Node coordinates.
    name : str
    blocks : list of (str, int array), optional
        The elements as meshio cell blocks with all their nodes (higher
        order included), in element order; written back by
        :func:`write_mesh_partition`. None for METIS meshes.
    weights : int64 array of shape (nelements, ncon), optional
        Element weights (METIS 5 ``.mesh`` files): the vertex weights of the
        dual graph.
    """

    eptr: np.ndarray
    eind: np.ndarray
    etype: np.ndarray
    nnodes: int
    points: np.ndarray | None = None
    name: str = "mesh"
    blocks: list | None = None
    weights: np.ndarray | None = None

    @property
    def nelements(self) -> int:
        """Number of elements."""
        return self.eptr.size - 1

    def __repr__(self) -> str:
        types = ", ".join(TYPE_NAMES[t] if t >= 0 else "untyped" for t in np.unique(self.etype))
        return f"Mesh(name={self.name!r}, elements={self.nelements} ({types}), nodes={self.nnodes})"

    def element_of(self) -> np.ndarray:
        """The element of every entry of ``eind``."""
        return np.repeat(np.arange(self.nelements, dtype=INDEX_DTYPE), np.diff(self.eptr))

    def _corners(self, code, among=None):
        """``(elements, nodes)``: the elements of type ``code`` (those of ``among``) and their corner nodes."""
        chosen = self.etype == code
        elements = np.flatnonzero(chosen if among is None else chosen & among)
        width = CORNERS[TYPE_NAMES[code]]
        return elements, self.eind[self.eptr[elements][:, None] + np.arange(width)]

    def linear(self) -> np.ndarray:
        """Whether each element is a typed linear element (its nodes are its corners)."""
        corners = np.array([CORNERS[name] for name in TYPE_NAMES] + [0])  # -1 (untyped) -> 0
        return np.diff(self.eptr) == corners[self.etype]

    def _pairs(self, table_index, among=None):
        """The node tuples of the facets (``table_index`` 1) or edges (2) of the typed elements (of ``among``)."""
        keys, owners = [], []
        for code in np.unique(self.etype[self.etype >= 0]):
            elements, nodes = self._corners(code, among)
            for local in CELL_TYPES[TYPE_NAMES[code]][table_index]:
                key = np.full((elements.size, 4), -1, dtype=INDEX_DTYPE)
                key[:, :len(local)] = np.sort(nodes[:, list(local)], axis=1)
                keys.append(key)
                owners.append(elements)
        if not keys:
            return np.empty((0, 4), dtype=INDEX_DTYPE), np.empty(0, dtype=INDEX_DTYPE)
        return np.concatenate(keys), np.concatenate(owners)

    def shared_facets(self) -> np.ndarray:
        """Pairs of elements sharing a facet, shape ``(p, 2)`` (elements around one facet chained)."""
        keys, owners = self._pairs(1)
        order = np.lexsort(keys.T[::-1])
        keys, owners = keys[order], owners[order]
        same = np.all(keys[1:] == keys[:-1], axis=1)
        pairs = np.stack([owners[:-1][same], owners[1:][same]], axis=1)
        pairs = np.sort(pairs, axis=1)
        return np.unique(pairs[pairs[:, 0] != pairs[:, 1]], axis=0)

    def centroids(self) -> np.ndarray | None:
        """The mean of the nodes of every element, or None without node coordinates."""
        if self.points is None:
            return None
        sums = np.zeros((self.nelements, self.points.shape[1]))
        np.add.at(sums, self.element_of(), self.points[self.eind])
        return sums / np.diff(self.eptr)[:, None]

    def dual_graph(self, ncommon=None) -> Graph:
        """The dual graph: elements adjacent when they share a facet, or at least ``ncommon`` nodes.

        Examples
        --------
        >>> two_quads = mesh_from_cells(6, [("quad", [[0, 1, 4, 3], [1, 2, 5, 4]])])
        >>> two_quads.dual_graph().m, two_quads.dual_graph(ncommon=1).m
        (1, 1)
        """
        if ncommon is None:
            pairs = self.shared_facets()
        else:
            import scipy.sparse as sp

            incidence = sp.csr_matrix((np.ones(self.eind.size, dtype=np.int64), self.eind, self.eptr),
                                      shape=(self.nelements, self.nnodes))
            shared = sp.triu(incidence @ incidence.T, k=1).tocoo()
            keep = shared.data >= ncommon
            pairs = np.stack([shared.row[keep], shared.col[keep]], axis=1)
        if not len(pairs) and self.nelements > 1:
            rule = "a facet" if ncommon is None else f"{ncommon} nodes (ncommon counts every node of an element)"
            warnings.warn(f"{self.name}: the dual graph has no edges: no two elements share {rule}", MeshWarning,
                          stacklevel=2)
        return Graph.from_edges(self.nelements, pairs, vwgt=self.weights, coords=self.centroids(), name=self.name)

    def nodal_graph(self) -> Graph:
        """The nodal graph: nodes adjacent along the edge of a linear element or in a higher-order element.

        Nodes in no element stay isolated. Every two nodes of a higher-order
        or untyped element are adjacent (as the finite-element matrix couples
        them: the mid-edge and mid-face nodes are connected whatever the
        node order of the file's format).

        Examples
        --------
        >>> mesh_from_cells(4, [("quad", [[0, 1, 2, 3]])]).nodal_graph().m  # edges, not diagonals
        4
        >>> mesh_from_cells(6, [("triangle6", [[0, 1, 2, 3, 4, 5]])]).nodal_graph().m  # every pair
        15
        """
        linear = self.linear()
        keys, _ = self._pairs(2, linear)
        pairs = [keys[:, :2]]
        sizes = np.diff(self.eptr)
        for size in np.unique(sizes[~linear]):
            elements = np.flatnonzero(~linear & (sizes == size))
            nodes = self.eind[self.eptr[elements][:, None] + np.arange(size)]
            first, second = np.triu_indices(size, k=1)
            pairs.append(np.sort(np.stack([nodes[:, first], nodes[:, second]], axis=2).reshape(-1, 2), axis=1))
        pairs = np.unique(np.concatenate(pairs), axis=0)
        return Graph.from_edges(self.nnodes, pairs, coords=self.points, name=self.name)

    def graph(self, kind="dual", ncommon=None) -> Graph:
        """:meth:`dual_graph` (``kind="dual"``) or :meth:`nodal_graph` (``kind="nodal"``)."""
        if kind not in ("dual", "nodal"):
            raise InputError(f"mesh graph must be 'dual' or 'nodal', got {kind!r}")
        if kind == "nodal":
            if ncommon is not None:
                raise InputError("ncommon applies to the dual graph of a mesh, not the nodal graph")
            if self.weights is not None and np.any(self.weights != 1):
                raise InputError(f"{self.name}: element weights weigh the vertices of the dual graph; "
                                 "the nodal graph has none to weigh")
            return self.nodal_graph()
        return self.dual_graph(ncommon)

    def node_parts(self, epart, k=None) -> np.ndarray:
        """The part of every node from the element parts ``epart`` into ``k`` parts (-1 for a node in no element).

        A node whose elements are all in one part takes that part; an
        interface node takes the part among its elements' that has the
        fewest nodes (the nodes with the fewest choices first, then moves to
        lighter parts while they help), so that the node counts of the parts
        balance as well as METIS balances them.
        """
        order = np.argsort(self.eind, kind="stable")
        ptr = np.zeros(self.nnodes + 1, dtype=INDEX_DTYPE)
        np.cumsum(np.bincount(self.eind, minlength=self.nnodes), out=ptr[1:])
        return _induced(ptr, self.element_of()[order], np.asarray(epart, dtype=np.int64), k)

    def element_parts(self, npart, k=None) -> np.ndarray:
        """The part of every element from the node parts ``npart`` (the rule of :meth:`node_parts`, the other way)."""
        return _induced(self.eptr, self.eind, np.asarray(npart, dtype=np.int64), k)

    def cell_blocks(self):
        """``(blocks, order)``: the elements as meshio cell blocks ``[(type, nodes), ...]`` and their order.

        A meshio mesh keeps its blocks; a METIS mesh gets one block per cell
        type and node count (``tetra10`` for 10-node tetrahedra), its
        elements regrouped in the order ``order``.

        Raises
        ------
        InputError
            For untyped elements (a METIS mesh read for ``ncommon``): no cell type to write them as.
        """
        if self.blocks is not None:
            return self.blocks, np.arange(self.nelements)
        untyped = np.flatnonzero(self.etype < 0)
        if untyped.size:
            size = int(self.eptr[untyped[0] + 1] - self.eptr[untyped[0]])
            hint = " (10 nodes: give 3-D --coords to read them as tetra10)" if size == 10 else ""
            raise InputError(f"{self.name}: elements of {size} nodes have no cell type to write them as{hint}")
        sizes = np.diff(self.eptr)
        order = np.lexsort((sizes, self.etype))
        blocks = []
        for code, size in sorted(set(zip(self.etype.tolist(), sizes.tolist()))):
            elements = np.flatnonzero((self.etype == code) & (sizes == size))
            name = TYPE_NAMES[code] + ("" if size == CORNERS[TYPE_NAMES[code]] else str(size))
            blocks.append((name, self.eind[self.eptr[elements][:, None] + np.arange(size)]))
        return blocks, order

    def parts(self, part, kind, k=None):
        """``(epart, npart)`` of a partition into ``k`` parts of the ``kind`` ("dual" or "nodal") graph."""
        part = np.asarray(part, dtype=np.int64)
        if kind == "dual":
            return part, self.node_parts(part, k)
        return self.element_parts(part, k), part


class MeshWarning(UserWarning):
    """A mesh whose graph will not partition well (a dual graph without edges)."""


def _induced(ptr, ind, colpart, k):
    """The parts of the rows of the CSR ``ptr``/``ind`` from the parts of its columns (see :meth:`Mesh.node_parts`)."""
    k = part_count(colpart, k)
    return _induce_parts(ptr.astype(np.int64), ind.astype(np.int64), colpart, k)


@njit(cache=True)
def _induce_parts(ptr, ind, colpart, k):
    nrows = ptr.size - 1
    out = np.full(nrows, -1, dtype=np.int64)
    loads = np.zeros(k, dtype=np.int64)
    choices = np.zeros(nrows, dtype=np.int64)  # distinct parts among the row's columns
    seen = np.full(k, -1, dtype=np.int64)
    for i in range(nrows):
        for j in range(ptr[i], ptr[i + 1]):
            p = colpart[ind[j]]
            if seen[p] != i:
                seen[p] = i
                choices[i] += 1
        if choices[i] == 1:
            out[i] = colpart[ind[ptr[i]]]
            loads[out[i]] += 1
    interface = np.flatnonzero(choices > 1)
    interface = interface[np.argsort(choices[interface], kind="mergesort")]  # the least free first
    for sweep in range(8):  # greedy, then moves from a part to a lighter one while they help
        moved = False
        for i in interface:
            here = out[i]
            best = -1
            for j in range(ptr[i], ptr[i + 1]):
                p = colpart[ind[j]]
                if best < 0 or loads[p] < loads[best] or (loads[p] == loads[best] and p < best):
                    best = p
            if here < 0:
                out[i] = best
                loads[best] += 1
            elif loads[here] > loads[best] + 1:
                out[i] = best
                loads[here] -= 1
                loads[best] += 1
                moved = True
        if sweep and not moved:
            break
    return out


def mesh_from_cells(nnodes, cells, points=None, name="mesh", blocks=None) -> Mesh:
    """A :class:`Mesh` from cell blocks ``[(type, connectivity), ...]`` (0-based, elements in block order).

    Only the blocks of the highest dimension are kept; higher-order types
    (``tetra10``, ``quad9``, ...) keep all their nodes, corners first. An
    element that lists a node twice is refused.

    Raises
    ------
    InputError
        For a cell type without a known facet table, a node out of range or
        an element that repeats a node.

    Examples
    --------
    >>> mesh_from_cells(5, [("tetra", [[0, 1, 2, 3], [1, 2, 3, 4]]), ("triangle", [[0, 1, 2]])])
    Mesh(name='mesh', elements=2 (tetra), nodes=5)
    """
    known = []
    for kind, conn in cells:
        base = cell_type(kind)
        if base is None:
            if kind != "vertex":
                raise InputError(f"{name}: cell type {kind!r} is not supported "
                                 f"(supported: {', '.join(TYPE_NAMES)} and their higher-order forms)")
            continue
        known.append((kind, base, np.asarray(conn, dtype=INDEX_DTYPE).reshape(len(conn), -1)))
    if not known:
        raise InputError(f"{name}: the mesh has no cells")
    top = max(CELL_TYPES[base][0] for _, base, _ in known)
    known = [(kind, base, conn) for kind, base, conn in known if CELL_TYPES[base][0] == top and len(conn)]
    etype = np.concatenate([np.full(len(conn), TYPE_NAMES.index(base), dtype=INDEX_DTYPE) for _, base, conn in known])
    sizes = np.concatenate([np.full(len(conn), conn.shape[1], dtype=INDEX_DTYPE) for _, _, conn in known])
    eptr = np.zeros(sizes.size + 1, dtype=INDEX_DTYPE)
    np.cumsum(sizes, out=eptr[1:])
    eind = np.concatenate([conn.ravel() for _, _, conn in known])
    if eind.size and (eind.min() < 0 or eind.max() >= nnodes):
        raise InputError(f"{name}: a cell lists a node outside [0, {nnodes})")
    for _, _, conn in known:
        ordered = np.sort(conn, axis=1)
        twice = np.flatnonzero(np.any(ordered[:, 1:] == ordered[:, :-1], axis=1))
        if twice.size:
            raise InputError(f"{name}: an element lists a node twice (nodes {conn[twice[0]].tolist()})")
    if blocks is None:
        blocks = [(kind, conn) for kind, _, conn in known]
    return Mesh(eptr, eind, etype, int(nnodes), points, name, blocks)


def _meshio():
    try:
        import meshio
    except ImportError:  # pragma: no cover - depends on the environment
        raise InputError("reading and writing meshes needs meshio: pip install 'partkit[mesh]'") from None
    return meshio


def read_meshio(path) -> Mesh:
    """Read a mesh file with meshio (Gmsh ``.msh``, ``.vtu``, ``.vtk``, XDMF, Exodus, ...).

    The elements are the cells of the highest dimension (the tetrahedra of a
    volume mesh, not its boundary triangles), in the file's block order.

    Raises
    ------
    InputError
        When meshio cannot read the file, or the mesh has no supported cells.

    Examples
    --------
    >>> import meshio, tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "two.vtu"
    >>> meshio.write(path, meshio.Mesh([[0, 0], [1, 0], [1, 1], [0, 1]], [("triangle", [[0, 1, 2], [0, 2, 3]])]))
    >>> read_meshio(path).dual_graph()
    Graph(name='two.vtu', n=2, m=1, ncon=1, coords=2D)
    """
    meshio = _meshio()
    path = Path(path)
    said = io.StringIO()
    try:  # meshio prints (a blank line from the Gmsh reader, errors) and may exit: keep both in
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(said):
            mesh = meshio.read(path)
    except (Exception, SystemExit) as exc:  # noqa: BLE001 - meshio raises many types for malformed files
        text = " ".join(str(exc).split()) if str(exc) and not isinstance(exc, SystemExit) else \
            " ".join(said.getvalue().split())
        raise InputError(f"{path}: meshio cannot read it: {_reason(exc, text)}") from None
    points = np.asarray(mesh.points, dtype=np.float64)
    if points.ndim == 2 and points.shape[1] == 3 and points.size and not np.any(points[:, 2]):
        points = points[:, :2]  # a planar mesh: 2-D coordinates
    return mesh_from_cells(points.shape[0], [(block.type, block.data) for block in mesh.cells], points,
                           base_name(path))


def write_mesh_partition(path, mesh, epart, npart) -> None:
    """Write ``mesh`` with the element parts as cell data ``part`` and the node parts as point data ``part``.

    The format follows the file name, one of :data:`WRITE_SUFFIXES`
    (``.vtu`` for ParaView), through meshio.

    Raises
    ------
    InputError
        For another suffix (meshio's Gmsh and Exodus writers drop the cell
        data), or when meshio cannot write the file.

    Examples
    --------
    >>> import meshio, tempfile, pathlib
    >>> mesh = mesh_from_cells(4, [("triangle", [[0, 1, 2], [0, 2, 3]])], np.eye(4, 2))
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "parts.vtu"
    >>> write_mesh_partition(path, mesh, *mesh.parts([0, 1], "dual"))
    >>> meshio.read(path).cell_data["part"][0].tolist()
    [0, 1]
    """
    meshio = _meshio()
    check_mesh_output(path)
    points = np.zeros((mesh.nnodes, 3))  # z = 0 for a planar mesh: VTK's points are 3-D
    if mesh.points is not None:
        points[:, :mesh.points.shape[1]] = mesh.points
    blocks, order = mesh.cell_blocks()
    epart = np.asarray(epart)[order]
    starts = np.cumsum([0] + [len(conn) for _, conn in blocks])
    cell_parts = [np.asarray(epart[starts[i]:starts[i + 1]], dtype=np.int64) for i in range(len(blocks))]
    out = meshio.Mesh(points, blocks, point_data={"part": np.asarray(npart, dtype=np.int64)},
                      cell_data={"part": cell_parts})
    try:
        meshio.write(path, out)
    except Exception as exc:  # noqa: BLE001 - meshio raises many types
        raise InputError(f"{path}: meshio cannot write it: {_reason(exc, str(exc))}") from None


def check_mesh_output(path, inputs=()):
    """Refuse, before any work, a mesh output that :func:`write_mesh_partition` cannot write (or one of ``inputs``)."""
    from partkit.io._output import check_output

    if not str(path).lower().endswith(WRITE_SUFFIXES):
        raise InputError(f"-o {path}: a partitioned mesh is written as {', '.join(WRITE_SUFFIXES)} (meshio keeps "
                         "the part as cell and point data only in these)")
    check_output(path, inputs=inputs, option="-o")


def _reason(exc, text):
    """Why meshio failed, in one line; a missing module (h5py for XDMF, netCDF4 for Exodus) says how to get it."""
    if isinstance(exc, ModuleNotFoundError):
        return f"it needs the Python package {exc.name} (pip install 'partkit[mesh]')"
    return text or type(exc).__name__
