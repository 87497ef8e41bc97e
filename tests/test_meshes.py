"""Meshes: METIS .mesh element types, meshio formats (meshes made by gmsh here), dual/nodal graphs, outputs."""

import json
import subprocess
import sys

import numpy as np
import pytest

import partkit
from partkit import InputError
from partkit.io import read_graph, read_mesh, read_meshio, read_metis_mesh
from partkit.io.meshes import TYPE_NAMES, mesh_from_cells
from partkit.metrics import disconnected_parts, is_balanced

meshio = pytest.importorskip("meshio")
gmsh = pytest.importorskip("gmsh")


def _gmsh(path, build, dim):
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add(path.stem)
        build()
        gmsh.model.occ.synchronize()
        gmsh.model.mesh.generate(dim)
        gmsh.write(str(path))
    finally:
        gmsh.finalize()
    return path


def _box():
    gmsh.model.occ.addBox(0, 0, 0, 1, 1, 1)
    gmsh.option.setNumber("Mesh.MeshSizeMax", 0.3)


def _squares(quads_left, quads_right, n=6):
    """Two unit squares side by side, each structured quads or triangles, sharing their nodes on x = 1."""
    def build():
        gmsh.model.occ.addRectangle(0, 0, 0, 1, 1)
        gmsh.model.occ.addRectangle(1, 0, 0, 1, 1)
        gmsh.model.occ.fragment([(2, 1)], [(2, 2)])
        gmsh.model.occ.synchronize()
        for _, curve in gmsh.model.getEntities(1):
            gmsh.model.mesh.setTransfiniteCurve(curve, n + 1)
        for surface, quads in ((1, quads_left), (2, quads_right)):
            gmsh.model.mesh.setTransfiniteSurface(surface)
            if quads:
                gmsh.model.mesh.setRecombine(2, surface)
    return build


@pytest.fixture(scope="module")
def meshes(tmp_path_factory):
    folder = tmp_path_factory.mktemp("meshes")
    return {"box": _gmsh(folder / "box.msh", _box, 3),
            "quad": _gmsh(folder / "quad.msh", _squares(True, True), 2),
            "mixed": _gmsh(folder / "mixed.msh", _squares(True, False), 2)}


def _partkit(*args, cwd):
    return subprocess.run([sys.executable, "-m", "partkit", *map(str, args)], capture_output=True, text=True,
                          cwd=cwd)


def test_gmsh_tetrahedra_partitioned_end_to_end_and_read_back(meshes, tmp_path):
    read = meshio.read(meshes["box"])
    tets = sum(len(block.data) for block in read.cells if block.type == "tetra")
    graph = read_graph(meshes["box"])
    assert graph.n == tets and graph.coords.shape == (tets, 3)
    assert graph.degrees().max() == 4 and graph.degrees().min() >= 1  # a face each, boundary triangles ignored
    result = _partkit("partition", meshes["box"], "-k", 4, "-o", "box.vtu", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    summary = json.loads(result.stdout)
    assert summary["n"] == tets and summary["cut"] > 0
    out = meshio.read(tmp_path / "box.vtu")
    cell_part = np.concatenate(out.cell_data["part"])
    epart = np.loadtxt(f"{meshes['box']}.epart.4", dtype=np.int64)
    npart = np.loadtxt(f"{meshes['box']}.npart.4", dtype=np.int64)
    assert np.array_equal(cell_part, epart) and np.array_equal(out.point_data["part"], npart)
    assert sorted(set(epart.tolist())) == [0, 1, 2, 3] and npart.size == read.points.shape[0]
    assert is_balanced(graph, epart, 4, 0.03)


def test_quad_and_mixed_meshes(meshes):
    quad = read_meshio(meshes["quad"])
    assert quad.nelements == 72 and quad.points.shape[1] == 2  # planar: 2-D centroids
    dual = quad.dual_graph()
    assert dual.m == 2 * 12 * 6 - 12 - 6 and dual.degrees().max() == 4  # the 12 x 6 grid of quads
    assert quad.nodal_graph().m == 13 * 6 + 12 * 7
    mixed = read_meshio(meshes["mixed"])
    assert "quad" in repr(mixed) and "triangle" in repr(mixed)
    graph = mixed.dual_graph()
    triangles = mixed.etype == TYPE_NAMES.index("triangle")
    quads = ~triangles
    src = graph.edge_sources()
    assert np.any(triangles[src] & quads[graph.adjncy])  # the interface x = 1 joins the two types
    assert graph.n == 36 + 72 and disconnected_parts(graph, np.zeros(graph.n, dtype=np.int64), 1) == 0


def test_metis_mesh_quads_are_not_tetrahedra(tmp_path):
    n = 20
    rows = [f"{a} {a + 1} {a + n + 2} {a + n + 1}" for a in (i * (n + 1) + j + 1 for i in range(n) for j in range(n))]
    for header in ("400 4", "400"):
        path = tmp_path / "q.mesh"
        path.write_text("\n".join([header, *rows]) + "\n")
        graph = read_mesh(path)
        assert graph.m == 2 * n * (n - 1)  # the 20 x 20 grid: quads sharing an edge
        assert read_metis_mesh(path).etype.tolist() == [2] * 400
    path.write_text("2 2\n1 2 3 4\n2 3 4 5\n")  # etype 2: tetrahedra sharing a face
    assert read_mesh(path).m == 1
    path.write_text("2\n1 2 3 4\n2 3 4 5\n")  # no etype: two 4-node elements sharing 3 nodes are tetrahedra
    assert read_metis_mesh(path).etype.tolist() == [3, 3]
    for text, match in [("2 1\n1 2 3 4\n2 3 4\n", "line 2: the header's etype 1 means triangle elements of 3 nodes"),
                        ("2 7\n1 2 3\n2 3 4\n", "etype 7 must be"), ("2\n1 2 3\n2 2 4\n", "lists node 2 twice"),
                        ("2\n1 2 3 4 5 6 7\n2 3 4 5 6 7 8\n", "give ncommon")]:
        path.write_text(text)
        with pytest.raises(InputError, match=match):
            read_mesh(path)
    assert read_mesh(path, ncommon=6).m == 1


def test_mixed_metis_mesh_and_nodal_graph(tmp_path):
    path = tmp_path / "m.mesh"
    path.write_text("3\n1 2 5 4\n2 3 5\n3 6 5\n")  # a quad and two triangles
    graph = read_mesh(path)
    assert sorted(map(tuple, np.stack([graph.edge_sources(), graph.adjncy], 1).tolist())) == \
        [(0, 1), (1, 0), (1, 2), (2, 1)]
    nodal = read_mesh(path, graph="nodal")
    assert nodal.n == 6 and nodal.m == 4 + 2 + 2  # the quad's diagonal 1-5 is no edge


def test_repeated_node_and_unsupported_cells_refused():
    with pytest.raises(InputError, match="lists a node twice"):
        mesh_from_cells(3, [("triangle", [[0, 1, 1]])])
    with pytest.raises(InputError, match="'polygon' is not supported"):
        mesh_from_cells(3, [("polygon", [[0, 1, 2]])])


def test_cli_nodal_graph_and_errors(meshes, tmp_path):
    result = _partkit("partition", meshes["quad"], "-k", 2, "--mesh-graph", "nodal", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["n"] == 91
    graph_file = tmp_path / "t.graph"
    graph_file.write_text("2 1\n2\n1\n")
    result = _partkit("partition", graph_file, "-k", 2, "-o", "t.vtu", cwd=tmp_path)
    assert result.returncode == 2 and "needs a mesh input" in result.stderr
    result = _partkit("partition", graph_file, "-k", 2, "--mesh-graph", "nodal", cwd=tmp_path)
    assert result.returncode == 2 and "--mesh-graph applies to mesh files" in result.stderr
    bad = tmp_path / "bad.vtu"
    bad.write_text("not xml")
    result = _partkit("partition", bad, "-k", 2, cwd=tmp_path)
    assert result.returncode == 2 and "meshio cannot read it" in result.stderr


def test_mixed_3d_cells_share_faces_of_either_shape():
    # a hexahedron and a wedge share the quadrilateral 1-2-6-5, a tetrahedron sits on the wedge's top
    # triangle and a pyramid on the hexahedron's face 0-1-5-4
    hexahedron = [0, 1, 2, 3, 4, 5, 6, 7]
    wedge = [1, 8, 2, 5, 9, 6]  # triangles 1-8-2 and 5-9-6, quadrilateral faces 1-8-9-5, 8-2-6-9, 2-1-5-6
    tetra = [5, 9, 6, 10]
    pyramid = [0, 1, 5, 4, 11]
    mesh = mesh_from_cells(12, [("hexahedron", [hexahedron]), ("wedge", [wedge]), ("tetra", [tetra]),
                                ("pyramid", [pyramid]), ("triangle", [[0, 1, 2]])])
    assert mesh.nelements == 4  # the triangle is of a lower dimension
    pairs = sorted(map(tuple, mesh.shared_facets().tolist()))
    assert pairs == [(0, 1), (0, 3), (1, 2)]
    assert mesh.dual_graph(ncommon=1).m == 6  # METIS's rule with ncommon=1: any shared node (all pairs here)


def test_element_centroids_serve_the_geometric_methods(meshes):
    graph = read_graph(meshes["box"])
    for method in ("rcb", "inertial"):
        part = partkit.partition(graph, 4, method)
        assert is_balanced(graph, part, 4, 0.03)
    corner = np.argmin(graph.coords.sum(axis=1))
    assert np.all(graph.coords[corner] < 0.2)


@pytest.mark.parametrize("suffix, needs", [(".vtk", None), (".vtu", None), (".xdmf", "h5py")])
def test_partition_written_and_read_back_in_every_format(meshes, tmp_path, suffix, needs):
    if needs:
        pytest.importorskip(needs)
    out = tmp_path / f"box{suffix}"
    result = _partkit("partition", meshes["quad"], "-k", 3, "-o", out, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    again = read_meshio(out)
    assert again.nelements == 72 and np.array_equal(again.dual_graph().xadj, read_graph(meshes["quad"]).xadj)
    epart = np.loadtxt(f"{meshes['quad']}.epart.3", dtype=np.int64)
    assert np.array_equal(np.concatenate(meshio.read(out).cell_data["part"]).ravel(), epart)


def test_exodus_input_and_outputs_that_would_lose_the_part(meshes, tmp_path):
    pytest.importorskip("netCDF4")
    exodus = tmp_path / "quad.exo"
    meshio.write(exodus, meshio.read(meshes["quad"]))
    assert read_graph(exodus).m == read_graph(meshes["quad"]).m
    for suffix in (".msh", ".exo"):
        result = _partkit("partition", meshes["quad"], "-k", 3, "-o", f"out{suffix}", cwd=tmp_path)
        assert result.returncode == 2 and "is written as .vtu, .vtk, .xdmf" in result.stderr
