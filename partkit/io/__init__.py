"""Reading and writing graphs, matrices, meshes, coordinates and partitions.

One format a module: :mod:`~partkit.io.matrix_market` (``.mtx``, ``.mtx.gz``),
:mod:`~partkit.io.metis` (``.graph`` files and ``.mesh`` files, read as their
dual graph), :mod:`~partkit.io.vectors` (partition, coordinate and
vertex-weight files, one row per vertex). Every input is read once
(pipes and ``/dev/stdin`` work; gzip is recognised by its magic bytes) and
every malformed file raises :class:`partkit.InputError` with a one-line
message that names the file, the line when it is known, and the reason.
Outputs are written safely (:mod:`partkit.io._output`).
"""

from __future__ import annotations

import numpy as np

from partkit.errors import InputError
from partkit.graph import Graph
from partkit.io import matrix_market, metis
from partkit.io._output import check_output
from partkit.io._source import base_name, read_source
from partkit.io.matrix_market import MAX_DENSE_ENTRIES, parse_matrix, read_matrix
from partkit.io.matrix_market import SUFFIXES as MATRIX_MARKET_SUFFIXES
from partkit.io.meshes import SUFFIXES as MESH_SUFFIXES
from partkit.io.meshes import Mesh, read_meshio, write_mesh_partition
from partkit.io.metis import (GRAPH_SUFFIXES as METIS_GRAPH_SUFFIXES,
                              MESH_SUFFIXES as METIS_MESH_SUFFIXES, parse_metis_graph, read_mesh,
                              read_metis_graph, read_metis_mesh, write_metis_graph)
from partkit.io.vectors import (read_coordinates, read_partition, read_vertex_weights, write_coordinates,
                                write_partition)

__all__ = ["MESH_SUFFIXES", "Mesh", "read_any_mesh", "read_meshio", "read_metis_mesh", "write_mesh_partition", "MATRIX_MARKET_SUFFIXES", "MAX_DENSE_ENTRIES", "METIS_GRAPH_SUFFIXES",
           "METIS_MESH_SUFFIXES", "check_output", "file_kind", "read_coordinates", "read_graph",
           "read_matrix", "read_mesh", "read_metis_graph", "read_partition", "read_vertex_weights",
           "write_coordinates", "write_metis_graph", "write_partition"]


def file_kind(path, head=b"") -> str:
    """``"matrixmarket"``, ``"metis"``, ``"mesh"`` (METIS) or ``"meshio"`` from the file name, else from ``head``."""
    name = base_name(path).lower()
    if name.endswith(MATRIX_MARKET_SUFFIXES):
        return "matrixmarket"
    if name.endswith(METIS_MESH_SUFFIXES):
        return "mesh"
    if name.endswith(MESH_SUFFIXES):
        return "meshio"
    if name.endswith(METIS_GRAPH_SUFFIXES):
        return "metis"
    return "matrixmarket" if bytes(head[:14]).lower() == b"%%matrixmarket" else "metis"


def read_any_mesh(path, *, coords=None, untyped=False) -> Mesh:
    """The :class:`Mesh` of a METIS ``.mesh`` file (with node ``coords``) or of a meshio file.

    Raises
    ------
    InputError
        When ``path`` is not a mesh file by its name, or is malformed.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "square.mesh"
    >>> _ = path.write_text("2\\n1 2 3\\n1 3 4\\n")
    >>> mesh = read_any_mesh(path)
    >>> mesh, mesh.node_parts([0, 1]).tolist()
    (Mesh(name='square.mesh', elements=2 (triangle), nodes=4), [0, 0, 1, 1])
    """
    kind = file_kind(path)
    if kind == "mesh":
        return read_metis_mesh(path, node_coords=coords, untyped=untyped)
    if kind != "meshio":
        raise InputError(f"{path}: not a mesh file (.mesh, {', '.join(MESH_SUFFIXES)})")
    if coords is not None:
        raise InputError(f"{path}: --coords applies to METIS meshes; this file has its own node coordinates")
    return read_meshio(path)


def read_graph(path, *, edge_weights=None, coords=None, ncommon=None, mesh_graph="dual") -> Graph:
    """Read any supported file as a :class:`partkit.Graph`.

    Parameters
    ----------
    path : str or path-like
        Matrix Market (``.mtx``, ``.mtx.gz``), METIS graph (``.graph``),
        METIS mesh (``.mesh``) or a mesh meshio reads (``.msh``, ``.vtu``,
        ``.vtk``, ``.xdmf``, ``.exo``: see :mod:`partkit.io.meshes`), read as
        its dual or nodal graph. Other names (pipes,
        ``/dev/stdin``) are recognised by their content: a ``%%MatrixMarket``
        first line means Matrix Market, anything else is read as a METIS graph.
    edge_weights : {None, "abs"}
        For Matrix Market input: unit weights (default) or weights from
        ``|a_ij|`` (see :meth:`Graph.from_scipy`). METIS files carry their own.
    coords : str, path-like or array, optional
        Vertex coordinates (for a mesh: node coordinates, giving element centroids).
    ncommon : int, optional
        For meshes: nodes two elements share to be adjacent (default: a shared facet).
    mesh_graph : {"dual", "nodal"}
        For meshes: a vertex per element (dual) or per node (nodal).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "path.graph"
    >>> _ = path.write_text("3 2\\n2\\n1 3\\n2\\n")
    >>> read_graph(path).degrees().tolist()
    [1, 2, 1]
    """
    kind = file_kind(path)
    if kind in ("mesh", "meshio"):
        return read_any_mesh(path, coords=coords, untyped=ncommon is not None).graph(mesh_graph, ncommon)
    if kind == "metis" and not base_name(path).lower().endswith(METIS_GRAPH_SUFFIXES):
        data = read_source(path, budget=lambda head: _budget(path, head))  # read once: pipes work
        kind = file_kind(path, data)
        graph = _from_matrix(path, data, edge_weights) if kind == "matrixmarket" else parse_metis_graph(path, data)
    elif kind == "matrixmarket":
        graph = _from_matrix(path, read_source(path, budget=lambda head: matrix_market.budget(path, head)),
                             edge_weights)
    else:
        graph = read_metis_graph(path)
    if coords is not None:
        xyz = coords if isinstance(coords, np.ndarray) else read_coordinates(coords, graph.n)
        if xyz.shape[0] != graph.n:
            raise InputError(f"{path}: {xyz.shape[0]} coordinates for {graph.n} vertices")
        graph.coords = np.ascontiguousarray(xyz, dtype=np.float64)
    return graph


def _budget(path, head):
    if file_kind(path, head) == "matrixmarket":
        return matrix_market.budget(path, head)
    return metis.graph_budget(path, head)


def _from_matrix(path, data, edge_weights):
    """The graph of the Matrix Market file in ``data`` (symmetric storage needs no symmetry check)."""
    matrix = parse_matrix(path, data)
    if matrix.shape[0] != matrix.shape[1]:
        raise InputError(f"{path}: matrix is {matrix.shape[0]}x{matrix.shape[1]}; a graph needs a square matrix")
    return Graph.from_scipy(matrix, edge_weights=edge_weights, name=base_name(path),
                            symmetric=matrix_market.stored_symmetric(path, data))
