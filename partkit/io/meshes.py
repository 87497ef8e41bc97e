"""Element meshes: their dual and nodal graphs, and the formats of meshio.

A :class:`Mesh` holds the elements of the highest dimension of a mesh as
corner-node lists (CSR ``eptr``/``eind``, 0-based) with a cell type per
element. It is what the METIS ``.mesh`` reader (:mod:`partkit.io.metis`)
and the meshio reader (:func:`read_meshio`: Gmsh ``.msh``, VTK ``.vtu`` and
``.vtk``, XDMF, Exodus, ...) both produce, and both build their graphs with
the one builder here:

* the **dual graph** (:meth:`Mesh.dual_graph`): a vertex per element, an
  edge between two elements that share a facet (an edge of a triangle or
  quadrilateral, a face of a tetrahedron, hexahedron, wedge or pyramid),
  whatever the two element types, so mixed meshes work; element centroids
  are the coordinates. With ``ncommon`` it is METIS's rule instead: two
  elements are adjacent when they share at least ``ncommon`` nodes.
* the **nodal graph** (:meth:`Mesh.nodal_graph`): a vertex per node, an
  edge along every element edge; node coordinates are the coordinates.

A partition of one is carried to the other by majority
(:meth:`Mesh.node_parts`, :meth:`Mesh.element_parts`) and written back as
mpmetis does (``FILE.epart.K``, ``FILE.npart.K``) or as a mesh with the part
as cell and point data (:func:`write_mesh_partition`, any meshio format:
``.vtu`` opens in ParaView). meshio and gmsh come with ``partkit[mesh]``.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from partkit.errors import InputError
from partkit.graph import INDEX_DTYPE, Graph
from partkit.io._source import base_name

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
        The corner nodes of element ``e`` are ``eind[eptr[e]:eptr[e + 1]]``
        (0-based, in the order of the cell type).
    etype : int64 array
        Cell type of every element, an index into :data:`TYPE_NAMES`.
    nnodes : int
        Number of nodes (``eind`` values lie in ``[0, nnodes)``).
    points : float array of shape (nnodes, d), or None
        Node coordinates.
    name : str
    blocks : list of (str, int array), optional
        The elements as meshio cell blocks with all their nodes (higher
        order included), in element order; written back by
        :func:`write_mesh_partition`. None for METIS meshes.
    """

    eptr: np.ndarray
    eind: np.ndarray
    etype: np.ndarray
    nnodes: int
    points: np.ndarray | None = None
    name: str = "mesh"
    blocks: list | None = None

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

    def _corners(self, code):
        """``(elements, nodes)``: the elements of type ``code`` and their corner nodes, one row each."""
        elements = np.flatnonzero(self.etype == code)
        width = CORNERS[TYPE_NAMES[code]]
        return elements, self.eind[self.eptr[elements][:, None] + np.arange(width)]

    def _pairs(self, table_index):
        """The node tuples of every element's facets (``table_index`` 1) or edges (2), and their elements."""
        keys, owners = [], []
        for code in np.unique(self.etype):
            elements, nodes = self._corners(code)
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
        """The mean of the corner nodes of every element, or None without node coordinates."""
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
        return Graph.from_edges(self.nelements, pairs, coords=self.centroids(), name=self.name)

    def nodal_graph(self) -> Graph:
        """The nodal graph: nodes adjacent along an element edge (nodes in no element stay isolated).

        Examples
        --------
        >>> mesh_from_cells(4, [("quad", [[0, 1, 2, 3]])]).nodal_graph().m  # edges, not diagonals
        4
        """
        keys, _ = self._pairs(2)
        pairs = np.unique(keys[:, :2], axis=0)
        return Graph.from_edges(self.nnodes, pairs, coords=self.points, name=self.name)

    def graph(self, kind="dual", ncommon=None) -> Graph:
        """:meth:`dual_graph` (``kind="dual"``) or :meth:`nodal_graph` (``kind="nodal"``)."""
        if kind not in ("dual", "nodal"):
            raise InputError(f"mesh graph must be 'dual' or 'nodal', got {kind!r}")
        if kind == "nodal":
            if ncommon is not None:
                raise InputError("ncommon applies to the dual graph of a mesh, not the nodal graph")
            return self.nodal_graph()
        return self.dual_graph(ncommon)

    def node_parts(self, epart) -> np.ndarray:
        """The part of every node from element parts: the part of most of its elements (-1 for none)."""
        return _majority(self.eind, np.asarray(epart)[self.element_of()], self.nnodes)

    def element_parts(self, npart) -> np.ndarray:
        """The part of every element from node parts: the part of most of its corner nodes."""
        return _majority(self.element_of(), np.asarray(npart)[self.eind], self.nelements)

    def parts(self, part, kind):
        """``(epart, npart)`` of a partition of the ``kind`` ("dual" or "nodal") graph."""
        part = np.asarray(part, dtype=np.int64)
        if kind == "dual":
            return part, self.node_parts(part)
        return self.element_parts(part), part


def _majority(rows, labels, nrows):
    """For each row, the label it has most often (the smallest on ties; -1 for a row without labels)."""
    out = np.full(nrows, -1, dtype=np.int64)
    if not rows.size:
        return out
    span = int(labels.max()) + 1
    keys, counts = np.unique(rows.astype(np.int64) * span + labels, return_counts=True)
    row, label = keys // span, keys % span
    order = np.lexsort((label, -counts, row))
    first = np.ones(order.size, dtype=bool)
    first[1:] = row[order][1:] != row[order][:-1]
    out[row[order][first]] = label[order][first]
    return out


def mesh_from_cells(nnodes, cells, points=None, name="mesh", blocks=None) -> Mesh:
    """A :class:`Mesh` from cell blocks ``[(type, connectivity), ...]`` (0-based, elements in block order).

    Only the blocks of the highest dimension are kept; higher-order types
    (``tetra10``, ``quad9``, ...) keep their corner nodes. An element that
    lists a node twice is refused.

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
    corners = [conn[:, :CORNERS[base]] for _, base, conn in known]
    etype = np.concatenate([np.full(len(c), TYPE_NAMES.index(base), dtype=INDEX_DTYPE)
                            for c, (_, base, _) in zip(corners, known)])
    sizes = np.concatenate([np.full(len(c), c.shape[1], dtype=INDEX_DTYPE) for c in corners])
    eptr = np.zeros(sizes.size + 1, dtype=INDEX_DTYPE)
    np.cumsum(sizes, out=eptr[1:])
    eind = np.concatenate([c.ravel() for c in corners])
    if eind.size and (eind.min() < 0 or eind.max() >= nnodes):
        raise InputError(f"{name}: a cell lists a node outside [0, {nnodes})")
    for conn in corners:
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
    points = mesh.points if mesh.points is not None else np.zeros((mesh.nnodes, 3))
    blocks = mesh.blocks
    if blocks is None:  # a METIS mesh: one block per cell type, elements regrouped
        order = np.argsort(mesh.etype, kind="stable")
        blocks = [(TYPE_NAMES[code], mesh._corners(code)[1]) for code in np.unique(mesh.etype)]
        epart = np.asarray(epart)[order]
    starts = np.cumsum([0] + [len(conn) for _, conn in blocks])
    cell_parts = [np.asarray(epart[starts[i]:starts[i + 1]], dtype=np.int64) for i in range(len(blocks))]
    out = meshio.Mesh(points, blocks, point_data={"part": np.asarray(npart, dtype=np.int64)},
                      cell_data={"part": cell_parts})
    try:
        meshio.write(path, out)
    except Exception as exc:  # noqa: BLE001 - meshio raises many types
        raise InputError(f"{path}: meshio cannot write it: {_reason(exc, str(exc))}") from None


def check_mesh_output(path):
    """Refuse, before any work, a mesh output that :func:`write_mesh_partition` cannot write."""
    from partkit.io._output import check_output

    if not str(path).lower().endswith(WRITE_SUFFIXES):
        raise InputError(f"-o {path}: a partitioned mesh is written as {', '.join(WRITE_SUFFIXES)} (meshio keeps "
                         "the part as cell and point data only in these)")
    check_output(path, option="-o")


def _reason(exc, text):
    """Why meshio failed, in one line; a missing module (h5py for XDMF, netCDF4 for Exodus) says how to get it."""
    if isinstance(exc, ModuleNotFoundError):
        return f"it needs the Python package {exc.name} (pip install 'partkit[mesh]')"
    return text or type(exc).__name__
