"""The benchmark graph generators: valid graphs of the promised sizes, deterministic per seed."""

import numpy as np
import pytest
from scipy.sparse.csgraph import connected_components

from partkit import generators
from partkit.cli import main
from partkit.errors import InputError
from partkit.generators import barabasi_albert, components, grid3d, rmat, tet_mesh3d
from partkit.io import read_graph


def same(a, b):
    return np.array_equal(a.xadj, b.xadj) and np.array_equal(a.adjncy, b.adjncy)


def test_grid3d_is_the_7_point_stencil():
    g = grid3d(5, 4, 3)
    g.validate()
    assert (g.n, g.m) == (60, 4 * 4 * 3 + 5 * 3 * 3 + 5 * 4 * 2)
    interior = 1 + 5 * (1 + 4 * 1)  # vertex (1, 1, 1)
    assert sorted(g.adjncy[g.xadj[interior]:g.xadj[interior + 1]].tolist()) == \
        [interior - 20, interior - 5, interior - 1, interior + 1, interior + 5, interior + 20]
    assert g.coords[interior].tolist() == [1.0, 1.0, 1.0]
    assert np.bincount(g.degrees()).tolist() == [0, 0, 0, 8, 24, 22, 6]  # corners, edges, faces, interior


def test_tet_mesh3d_dual_graph():
    g = tet_mesh3d(20000, seed=5)
    g.validate()
    assert 17000 < g.n < 23000 and g.coords.shape == (g.n, 3)
    degrees = g.degrees()
    assert degrees.max() == 4 and np.mean(degrees == 4) > 0.8  # interior tetrahedra have 4 face neighbours
    assert connected_components(g.to_scipy())[0] == 1
    assert same(tet_mesh3d(20000, seed=5), g) and not same(tet_mesh3d(20000, seed=6), g)


def test_rmat_power_law_without_loops_or_duplicates():
    g = rmat(12, edge_factor=8, seed=1)
    g.validate()  # symmetric, no self loops, no duplicate edges
    assert g.n == 4096 and 0.5 * 8 * 4096 < g.m < 8 * 4096
    assert np.all(g.adjwgt == 1)
    degrees = np.sort(g.degrees())
    assert degrees[-1] > 30 * np.median(degrees)
    assert same(rmat(12, edge_factor=8, seed=1), g) and not same(rmat(12, edge_factor=8, seed=2), g)
    with pytest.raises(InputError, match="rmat"):
        rmat(10, abcd=(0.5, 0.5, 0.5, 0.5))


def test_barabasi_albert_sizes():
    g = barabasi_albert(3000, 4, seed=7)
    g.validate()
    assert (g.n, g.m) == (3000, 4 * (3000 - 4))
    assert g.degrees().min() >= 4 and g.degrees().max() > 60
    assert connected_components(g.to_scipy())[0] == 1
    assert same(barabasi_albert(3000, 4, seed=7), g) and not same(barabasi_albert(3000, 4, seed=8), g)


def test_components_counts_and_sizes():
    g = components(50000, isolated=0.2, sizes=(3, 30), seed=2)
    g.validate()
    count, labels = connected_components(g.to_scipy())
    sizes = np.bincount(labels)
    assert g.n == 50000 and (sizes == 1).sum() == 10000 == (g.degrees() == 0).sum()
    assert sizes[sizes > 1].min() >= 3 and sizes.max() <= 30
    assert 40000 / 30 <= count - 10000 <= 40000 / 3 and count > 2000
    # each component is a tree, a path or a clique: m = s - 1 or s (s - 1) / 2 edges
    edges = np.bincount(labels[g.edge_sources()], minlength=count) // 2
    s = sizes[sizes > 1]
    e = edges[sizes > 1]
    assert np.all((e == s - 1) | (e == s * (s - 1) // 2))
    assert (e == s * (s - 1) // 2)[s > 3].any() and (e == s - 1).any()
    assert same(components(50000, 0.2, (3, 30), seed=2), g)
    assert not same(components(50000, 0.2, (3, 30), seed=3), g)


@pytest.mark.parametrize("kind, n, vertices, coords", [
    ("grid3d", 4, 64, True), ("tet_mesh3d", 500, None, True), ("rmat", 256, 256, False),
    ("barabasi_albert", 300, 300, False), ("components", 400, 400, False)])
def test_generate_command_writes_a_readable_graph(tmp_path, capsys, kind, n, vertices, coords):
    out = tmp_path / f"{kind}.graph"
    assert main(["generate", kind, "-n", str(n), "-o", str(out), "--seed", "3"]) == 0
    g = read_graph(out)
    assert g.n == (vertices or g.n) and g.m > 0
    assert (tmp_path / f"{kind}.xyz").exists() == coords
    assert f"n={g.n}" in capsys.readouterr().out


def test_generate_command_rejects_bad_sizes(tmp_path, capsys):
    assert main(["generate", "rmat", "-n", "1000", "-o", str(tmp_path / "r.graph")]) == 2
    assert "power of two" in capsys.readouterr().err
    assert main(["generate", "tet_mesh3d", "-n", "10", "-o", str(tmp_path / "t.graph")]) == 2


def test_random_geometric_joins_the_points_within_the_radius():
    g = generators.random_geometric(800, radius=0.06, seed=4)
    g.validate()
    assert same(g, generators.random_geometric(800, radius=0.06, seed=4))
    p = g.coords
    close = np.linalg.norm(p[:, None, :] - p[None, :, :], axis=2) <= 0.06
    np.fill_diagonal(close, False)
    assert 2 * g.m == int(close.sum())
    u, v = 5, g.adjncy[g.xadj[5]]
    assert close[u, v]
    with pytest.raises(InputError):
        generators.random_geometric(1)
