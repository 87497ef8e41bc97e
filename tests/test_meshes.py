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


def _gmsh(path, build, dim, order=1):
    gmsh.initialize(interruptible=False)
    try:
        gmsh.option.setNumber("General.Terminal", 0)
        gmsh.model.add(path.stem)
        build()
        gmsh.model.occ.synchronize()
        gmsh.model.mesh.generate(dim)
        if order > 1:
            gmsh.model.mesh.setOrder(order)
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
            "mixed": _gmsh(folder / "mixed.msh", _squares(True, False), 2),
            "tet10": _gmsh(folder / "tet10.msh", _box, 3, order=2),
            "tri6": _gmsh(folder / "tri6.msh", _squares(False, False, 4), 2, order=2),
            "quad9": _gmsh(folder / "quad9.msh", _squares(True, True, 4), 2, order=2)}


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
    for text, match in [("2 1\n1 2 3 4\n2\n", "line 3: the header's second field 1 is the number of element "
                                               "weights .* no node after them"),
                        ("2 7\n1 2 3\n2 3 4\n", "second field 7"), ("2\n1 2 3\n2 2 4\n", "lists node 2 twice"),
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


def _lines(path):
    return np.loadtxt(path, dtype=np.int64, ndmin=1)


def test_mesh_with_a_partition_file_output(meshes, tmp_path):
    # issue 28.1: -o box.part, -o /dev/null and a METIS quad mesh with -o quad.part ended in an IndexError
    box = read_meshio(meshes["box"])
    result = _partkit("partition", meshes["box"], "-k", 8, "-o", "box.part", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "wrote box.part, box.part.npart" in result.stdout
    assert _lines(tmp_path / "box.part").size == box.nelements
    assert _lines(tmp_path / "box.part.npart").size == box.nnodes
    result = _partkit("partition", meshes["box"], "-k", 8, "-o", "/dev/null", cwd=tmp_path)
    assert result.returncode == 0 and "wrote /dev/null\n" in result.stdout, result.stderr
    quad = tmp_path / "quad.mesh"
    quad.write_text("4 4\n1 2 5 4\n2 3 6 5\n4 5 8 7\n5 6 9 8\n")
    result = _partkit("partition", quad, "-k", 2, "-o", "quad.part", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert _lines(tmp_path / "quad.part").size == 4 and _lines(tmp_path / "quad.part.npart").size == 9
    result = _partkit("partition", quad, "-k", 2, "--mesh-graph", "nodal", "-o", "nodes.part", cwd=tmp_path)
    assert result.returncode == 0 and "wrote nodes.part, nodes.part.epart" in result.stdout, result.stderr
    assert _lines(tmp_path / "nodes.part").size == 9 and _lines(tmp_path / "nodes.part.epart").size == 4


@pytest.mark.parametrize("name, corners", [("tet10", 4), ("tri6", 3), ("quad9", 4)])
def test_second_order_meshes(meshes, tmp_path, name, corners):
    # issue 28.2: mid-edge nodes were left at npart -1 and isolated in the nodal graph
    mesh = read_meshio(meshes[name])
    assert np.all(np.diff(mesh.eptr) > corners)  # every node of an element is kept
    epart, npart = mesh.parts(partkit.partition(mesh.dual_graph(), 4), "dual", 4)
    assert npart.min() == 0 and npart.size == mesh.nnodes
    nodal = mesh.nodal_graph()
    assert nodal.degrees().min() > 0 and disconnected_parts(nodal, np.zeros(nodal.n, dtype=np.int64), 1) == 0
    result = _partkit("partition", meshes[name], "-k", 4, "--mesh-graph", "nodal", "--json", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["cut"] > 0
    epart = _lines(f"{meshes[name]}.nodal.epart.4")
    assert sorted(set(epart.tolist())) == [0, 1, 2, 3] and np.bincount(epart).max() <= 1.1 * epart.size / 4


def test_ncommon_counts_every_node_and_a_graph_without_edges_is_warned(meshes, tmp_path):
    # issue 28.3: --ncommon 6 on tet10 counted corners only: no edge, every element scattered
    mesh = read_meshio(meshes["tet10"])
    assert mesh.dual_graph(ncommon=6).m == mesh.dual_graph().m  # a shared face: 3 corners and 3 mid-edge nodes
    result = _partkit("partition", meshes["tet10"], "-k", 4, "--ncommon", 7, cwd=tmp_path)
    assert result.returncode == 0
    assert "warning: tet10.msh: the dual graph has no edges: no two elements share 7 nodes" in result.stderr


def test_metis_mesh_node_ids_are_kept(tmp_path):
    # issue 28.4: ids with gaps were renumbered; mpmetis writes one node part per id up to the largest
    path = tmp_path / "gaps.mesh"
    path.write_text("2\n1 2 3\n2 3 7\n")
    mesh = read_metis_mesh(path)
    assert mesh.nnodes == 7 and mesh.eind.tolist() == [0, 1, 2, 1, 2, 6]
    result = _partkit("partition", path, "-k", 2, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    npart = _lines(f"{path}.npart.2")
    assert npart.size == 7 and npart[3:6].tolist() == [-1, -1, -1] and set(npart[[0, 1, 2, 6]]) <= {0, 1}


def test_metis_10_node_elements(meshes, tmp_path):
    # issue 28.5: untyped 10-node elements were written as pyramids of their first 5 nodes
    source = read_meshio(meshes["tet10"])
    rows = source.eind.reshape(-1, 10) + 1
    path = tmp_path / "t10.mesh"
    path.write_text(f"{len(rows)}\n" + "\n".join(" ".join(map(str, row)) for row in rows) + "\n")
    xyz = tmp_path / "t10.xyz"
    np.savetxt(xyz, source.points)
    result = _partkit("partition", path, "-k", 2, "--ncommon", 3, "-o", "t10.vtu", cwd=tmp_path)
    assert result.returncode == 2 and "elements of 10 nodes have no cell type" in result.stderr
    result = _partkit("partition", path, "-k", 2, "--coords", xyz, "-o", "t10.vtu", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    out = meshio.read(tmp_path / "t10.vtu")
    assert [block.type for block in out.cells] == ["tetra10"] and np.array_equal(out.cells[0].data, rows - 1)


def test_mesh_output_over_the_input_or_its_hdf5_file(meshes, tmp_path):
    # issue 28.6: -o in.vtu over the input was accepted and dropped its data; 28.7: q.h5 replaced unlisted
    vtu = tmp_path / "in.vtu"
    quad = read_meshio(meshes["quad"])
    meshio.write(vtu, meshio.Mesh(np.c_[quad.points, np.zeros(quad.nnodes)], quad.blocks,
                                  point_data={"temperature": np.ones(quad.nnodes)}))
    result = _partkit("partition", vtu, "-k", 2, "-o", vtu, cwd=tmp_path)
    assert result.returncode == 2 and "is the input file" in result.stderr
    pytest.importorskip("h5py")
    result = _partkit("partition", meshes["quad"], "-k", 2, "-o", "q.xdmf", cwd=tmp_path)
    assert result.returncode == 0 and result.stdout.rstrip().endswith("q.xdmf, q.h5"), result.stderr


def test_dual_and_nodal_runs_keep_both_files_and_planar_outputs_are_quiet(meshes, tmp_path):
    # issue 28.13: a nodal run replaced the dual run's FILE.epart.K; a 2-D mesh warned "VTU requires 3D points"
    result = _partkit("partition", meshes["quad"], "-k", 2, "-o", "q.vtu", cwd=tmp_path)
    assert result.returncode == 0 and result.stderr == ""
    assert meshio.read(tmp_path / "q.vtu").points.shape[1] == 3
    result = _partkit("partition", meshes["quad"], "-k", 2, "--mesh-graph", "nodal", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    for name, size in (("epart", 72), ("npart", 91), ("nodal.epart", 72), ("nodal.npart", 91)):
        assert _lines(f"{meshes['quad']}.{name}.2").size == size


def test_weighted_metis5_mesh(tmp_path):
    path = tmp_path / "w.mesh"
    path.write_text("% ne ncon, then weights and nodes\n3 1\n5 1 2 5 4\n1 2 3 6 5\n1 4 5 8 7\n")
    mesh = read_metis_mesh(path)
    assert mesh.weights.ravel().tolist() == [5, 1, 1] and mesh.nelements == 3
    assert read_mesh(path).vwgt.ravel().tolist() == [5, 1, 1]
    with pytest.raises(InputError, match="element weights weigh the vertices of the dual graph"):
        read_mesh(path, graph="nodal")


def test_node_parts_balance_like_metis(meshes):
    box = read_meshio(meshes["box"])
    for k in (4, 8):
        npart = box.node_parts(partkit.partition(box.dual_graph(), k), k)
        assert np.bincount(npart).max() <= 1.02 * box.nnodes / k + 1
