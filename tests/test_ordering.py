"""partkit.separator, partkit.order, minimum degree and ``partkit order``."""

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import partkit
from partkit import Graph, InputError
from partkit.generators import delaunay, grid2d
from partkit.ordering import minimum_degree, order, separator, symbolic_cholesky
from partkit.ordering.kernels.nested import halo_subgraph, indistinguishable_classes
from partkit.ordering.kernels.separator import cover_cut

ROOT = Path(__file__).resolve().parents[1]


def assert_separates(graph, where, imbalance):
    a, b = where[graph.edge_sources()], where[graph.adjncy]
    assert not np.any((a == 0) & (b == 1)) and not np.any((a == 1) & (b == 0))
    weights = np.bincount(where, weights=graph.vwgt[:, 0], minlength=3)
    assert max(weights[:2]) <= (1 + imbalance) / 2 * weights.sum()
    assert weights[0] > 0 and weights[1] > 0


def assert_permutation_pair(perm, iperm, n):
    assert np.array_equal(np.sort(perm), np.arange(n))
    assert np.array_equal(perm[iperm], np.arange(n)) and np.array_equal(iperm[perm], np.arange(n))


@pytest.mark.parametrize("graph", [grid2d(40, 25), delaunay(3000, seed=1), grid2d(150, 60)],
                         ids=["grid40x25", "delaunay3000", "grid150x60 (two coarse runs levels)"])
def test_separator_separates_and_balances(graph):
    for imbalance in (0.05, 0.2):
        where = separator(graph, imbalance=imbalance, seed=3)
        assert set(np.unique(where)) <= {0, 1, 2}
        assert_separates(graph, where, imbalance)


def test_separator_of_a_grid_is_a_grid_line():
    assert (separator(grid2d(60, 30)) == 2).sum() == 30  # a shortest cut column of the 60x30 grid
    assert (separator(grid2d(150, 60)) == 2).sum() <= 62


def test_separator_on_shared_meshes(data_dir):
    from partkit.io import read_graph

    for name, most in (("4elt.graph", 80), ("jagmesh7.mtx", 30)):
        graph = read_graph(data_dir / name)
        where = separator(graph, seed=1)
        assert_separates(graph, where, 0.2)
        assert (where == 2).sum() <= most


def test_cover_of_a_cut_is_a_minimum_vertex_cover():
    # a 4x4 grid split into columns 0-1 / 2-3: 4 cut edges, matched one to one, so the cover has 4 vertices
    graph = grid2d(4, 4)
    where = (np.arange(16) % 4 >= 2).astype(np.int64)
    cover_cut(graph.xadj, graph.adjncy, where)
    assert (where == 2).sum() == 4
    assert_separates(graph, where, 1.0)
    # a star cut: the centre alone covers all cut edges
    star = Graph.from_edges(6, [[0, i] for i in range(1, 6)])
    where = np.array([0, 1, 1, 1, 1, 1])
    cover_cut(star.xadj, star.adjncy, where)
    assert where.tolist() == [2, 1, 1, 1, 1, 1]


def test_separator_is_deterministic_and_checks_imbalance():
    graph = delaunay(2000, seed=5)
    assert np.array_equal(separator(graph, seed=4), separator(graph, seed=4))
    with pytest.raises(InputError, match="imbalance"):
        separator(graph, imbalance=1.5)


@pytest.mark.parametrize("graph", [grid2d(70, 70), delaunay(6000, seed=2)], ids=["grid70", "delaunay6000"])
def test_order_is_a_permutation_and_cuts_fill_like_metis(graph):
    import pymetis

    perm, iperm = order(graph, seed=0)
    assert_permutation_pair(perm, iperm, graph.n)
    ours = symbolic_cholesky(graph, perm)
    metis_perm, _ = pymetis.nested_dissection(pymetis.CSRAdjacency(graph.xadj, graph.adjncy))
    metis = symbolic_cholesky(graph, np.asarray(metis_perm))
    assert ours.nnz <= 1.25 * metis.nnz
    assert ours.nnz < symbolic_cholesky(graph, iperm).nnz  # the convention: perm, not iperm, is new -> old


def test_order_of_a_small_matrix_matches_dense_cholesky_fill():
    rng = np.random.default_rng(0)
    graph = delaunay(400, seed=0)
    perm, _ = order(graph)
    upper = sp.triu(graph.to_scipy().astype(float))
    upper.data = rng.uniform(0.5, 1.0, upper.nnz)  # distinct values: no exact cancellation
    values = upper + upper.T
    matrix = (values + sp.diags(np.asarray(values.sum(axis=1)).ravel() + 1)).toarray()
    factor = np.linalg.cholesky(matrix[np.ix_(perm, perm)])
    # a structural zero of L stays exactly 0.0 in floating point; a structural nonzero may be tiny
    assert symbolic_cholesky(graph, perm).nnz == np.count_nonzero(factor)


def test_order_is_deterministic_and_takes_matrices():
    graph = delaunay(3000, seed=9)
    first, _ = order(graph, seed=7)
    assert np.array_equal(first, order(graph, seed=7)[0])
    matrix = graph.to_scipy() + sp.eye(graph.n)
    assert np.array_equal(order(matrix, seed=7)[0], first)


def test_disconnected_graph_and_isolated_vertices():
    grid = grid2d(30, 30)
    n = grid.n
    a = sp.block_diag([grid.to_scipy(), grid.to_scipy(), sp.csr_matrix((5, 5)), grid2d(3, 3).to_scipy()]).tocsr()
    graph = Graph.from_scipy(a)
    perm, iperm = order(graph, seed=1)
    assert_permutation_pair(perm, iperm, graph.n)
    fill = symbolic_cholesky(graph, perm)
    alone = symbolic_cholesky(grid, order(grid, seed=1)[0]).nnz
    assert fill.nnz <= 2.2 * alone + 5 + 40  # each piece ordered about as well as on its own
    assert np.all(fill.parent[iperm[2 * n:2 * n + 5]] == -1)  # isolated vertices stay roots


def test_compression_merges_indistinguishable_vertices_and_order_uses_it():
    # every vertex of a clique with a pendant path: clique members other than the attachment are identical
    edges = [[i, j] for i in range(8) for j in range(i + 1, 8)] + [[7, 8], [8, 9]]
    cmap, count = indistinguishable_classes(Graph.from_edges(10, edges).xadj, Graph.from_edges(10, edges).adjncy)
    assert count == 4 and len(set(cmap[:7].tolist())) == 1
    # a 3D-like stencil with 4 unknowns per node: the order equals that of the node graph, expanded
    base = grid2d(30, 30)
    kron = sp.kron(base.to_scipy() + sp.eye(base.n), np.ones((4, 4))).tocsr()
    graph = Graph.from_scipy(kron)
    perm, iperm = order(graph)
    assert_permutation_pair(perm, iperm, graph.n)
    assert np.array_equal(perm.reshape(-1, 4) // 4, np.repeat(perm[::4, None] // 4, 4, axis=1))


def test_leaf_graph_has_its_halo_but_no_halo_edges():
    graph = grid2d(4, 4)  # leaf: the 2x2 block in the middle; halo: its 8 grid neighbours
    leaf = np.array([5, 6, 9, 10])
    xadj, adjncy, vwgt = halo_subgraph(graph.xadj, graph.adjncy, graph.vwgt[:, 0].copy(), leaf,
                                       np.full(16, -1, dtype=np.int64))
    sub = sp.csr_matrix((np.ones(adjncy.size), adjncy, xadj), shape=(12, 12))
    assert (sub != sub.T).nnz == 0 and sub.nnz == 2 * (4 + 8)  # 4 edges inside, 8 to the halo
    assert sub[4:, 4:].nnz == 0 and np.array_equal(np.diff(xadj)[:4], [4, 4, 4, 4])


def test_minimum_degree_beats_natural_order_and_is_close_to_superlu_mmd():
    import scipy.sparse.linalg as sla

    graph = grid2d(40, 40)
    perm = minimum_degree(graph)
    assert np.array_equal(np.sort(perm), np.arange(graph.n))
    matrix = (graph.to_scipy() + 10 * sp.eye(graph.n)).tocsc()
    lu = sla.splu(matrix, permc_spec="MMD_AT_PLUS_A", diag_pivot_thresh=0, options=dict(SymmetricMode=True))
    mmd = np.argsort(lu.perm_c)  # perm_c[old] = new
    assert symbolic_cholesky(graph, perm).nnz <= 1.10 * symbolic_cholesky(graph, mmd).nnz


def test_top_level_exports():
    assert partkit.order is order and partkit.separator is separator


def run_cli(args, cwd):
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run([sys.executable, "-m", "partkit", *args], cwd=cwd, capture_output=True,
                          text=True, env=env, timeout=300)


def test_cli_order_end_to_end(tmp_path):
    from partkit.io import read_partition, write_metis_graph

    graph = delaunay(2000, seed=3)
    write_metis_graph(tmp_path / "d.graph", graph)
    result = run_cli(["order", "d.graph", "-o", "d.perm", "--iperm", "d.iperm", "--json"], tmp_path)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    perm = read_partition(tmp_path / "d.perm")
    iperm = read_partition(tmp_path / "d.iperm")
    assert_permutation_pair(perm, iperm, graph.n)
    assert report["nnz_L"] == symbolic_cholesky(graph, perm).nnz < report["natural_nnz_L"]
    assert np.array_equal(perm, order(graph)[0])
    bad = run_cli(["order", "missing.graph"], tmp_path)
    assert bad.returncode == 2 and bad.stderr.count("\n") == 1
