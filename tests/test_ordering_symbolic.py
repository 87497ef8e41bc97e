"""nnz(L) and flops of partkit.ordering.symbolic_cholesky against independent counts."""

import numpy as np
import pytest
import scipy.sparse as sp

from partkit import InputError
from partkit.generators import delaunay, grid2d
from partkit.ordering import symbolic_cholesky


def spd_matrix(graph, rng):
    """A random SPD matrix with the pattern of ``graph`` (diagonally dominant)."""
    a = graph.to_scipy().astype(float).tocoo()
    values = rng.uniform(0.5, 1.5, a.nnz)
    m = sp.coo_matrix((values, (a.row, a.col)), shape=a.shape).tocsr()
    m = (m + m.T) * 0.5
    return (m + sp.diags(np.asarray(abs(m).sum(axis=1)).ravel() + 1.0)).toarray()


def elimination_game(graph, perm):
    """Column counts of L by eliminating vertices of an explicit graph (sets)."""
    adj = [set(graph.adjncy[graph.xadj[v]:graph.xadj[v + 1]].tolist()) for v in range(graph.n)]
    counts = []
    for v in perm.tolist():
        nbrs = adj[v]
        counts.append(len(nbrs) + 1)
        for u in nbrs:
            adj[u].discard(v)
            adj[u] |= nbrs - {u}
    return np.array(counts)


@pytest.mark.parametrize("seed", range(4))
def test_column_counts_match_dense_cholesky(seed):
    rng = np.random.default_rng(seed)
    graph = delaunay(60, seed=seed)
    perm = rng.permutation(graph.n)
    a = spd_matrix(graph, rng)
    factor = np.linalg.cholesky(a[np.ix_(perm, perm)])
    dense_counts = (np.abs(factor) > 1e-13).sum(axis=0)
    fill = symbolic_cholesky(graph, perm)
    assert np.array_equal(fill.colcounts, dense_counts)
    assert fill.nnz == int(np.count_nonzero(np.abs(factor) > 1e-13))
    assert fill.flops == int((dense_counts.astype(np.int64) ** 2).sum())


def test_counts_match_elimination_game_on_a_grid_and_a_forest():
    rng = np.random.default_rng(7)
    for graph in (grid2d(9, 7), grid2d(40, 1)):
        for perm in (np.arange(graph.n), rng.permutation(graph.n)):
            assert np.array_equal(symbolic_cholesky(graph, perm).colcounts, elimination_game(graph, perm))


def test_elimination_tree_is_the_first_subdiagonal_of_l():
    rng = np.random.default_rng(3)
    graph = delaunay(40, seed=3)
    perm = rng.permutation(graph.n)
    factor = np.linalg.cholesky(spd_matrix(graph, rng)[np.ix_(perm, perm)])
    below = np.tril(np.abs(factor) > 1e-13, -1)
    expected = np.array([np.argmax(col) if col.any() else -1 for col in below.T])
    assert np.array_equal(symbolic_cholesky(graph, perm).parent, expected)


def test_matrix_input_and_bad_permutation():
    graph = grid2d(5, 4)
    matrix = graph.to_scipy() + sp.eye(graph.n)
    assert symbolic_cholesky(matrix).nnz == symbolic_cholesky(graph).nnz
    with pytest.raises(InputError, match="not a permutation"):
        symbolic_cholesky(graph, np.zeros(graph.n, dtype=int))
    with pytest.raises(InputError, match="perm must be 20 integers"):
        symbolic_cholesky(graph, np.arange(19))


def test_nnz_matches_superlu_factor_of_the_permuted_matrix():
    from scipy.sparse.linalg import splu

    rng = np.random.default_rng(11)
    graph = delaunay(2000, seed=11)
    a = graph.to_scipy().astype(float)
    a = (a + sp.diags(np.asarray(a.sum(axis=1)).ravel() + 1.0)).tocsr()
    for perm in (rng.permutation(graph.n), np.arange(graph.n)):
        lu = splu(a[perm][:, perm].tocsc(), permc_spec="NATURAL", diag_pivot_thresh=0.0,
                  options=dict(SymmetricMode=True))
        assert np.array_equal(lu.perm_r, np.arange(graph.n))  # no pivoting: L is the Cholesky pattern
        assert symbolic_cholesky(graph, perm).nnz == lu.L.nnz
