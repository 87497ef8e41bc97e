import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from partkit import Graph, InputError
from partkit.generators import delaunay, grid2d


def test_from_edges_builds_symmetric_csr():
    g = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
    assert (g.n, g.m, g.ncon) == (4, 4, 1)
    assert g.degrees().tolist() == [2, 2, 2, 2]
    assert (g.to_scipy() != g.to_scipy().T).nnz == 0


def test_from_edges_merges_duplicates_and_still_checks_values():
    g = Graph.from_edges(3, [(0, 1), (1, 0), (1, 2)], weights=[2, 3, 1])
    assert g.to_scipy().toarray().tolist() == [[0, 5, 0], [5, 0, 1], [0, 1, 0]]
    with pytest.raises(InputError, match="negative edge weight"):
        Graph.from_edges(3, [(0, 1), (1, 2)], weights=[1, -1])
    with pytest.raises(InputError, match="vertex weights for"):
        Graph.from_edges(3, [(0, 1)], vwgt=[1, 1])
    with pytest.raises(InputError, match="self loop"):
        Graph.from_edges(3, [(1, 1)])


def test_from_scipy_symmetrises_and_drops_diagonal():
    a = sp.csr_matrix(np.array([[5.0, 2.0, 0.0], [0.0, 1.0, 0.0], [-4.0, 0.0, 3.0]]))
    g = Graph.from_scipy(a)
    assert g.m == 2
    assert sorted(map(tuple, np.argwhere(g.to_scipy().toarray()))) == [(0, 1), (0, 2), (1, 0), (2, 0)]
    weighted = Graph.from_scipy(a, edge_weights="abs")
    dense = weighted.to_scipy().toarray()
    assert dense[0, 2] == 1000 and dense[0, 1] == 500  # |a_ij| + |a_ji| scaled to max 1000


def test_from_networkx_round_trip():
    nxg = nx.karate_club_graph()
    g = Graph.from_networkx(nxg, weight=None)
    assert (g.n, g.m) == (34, 78)
    back = g.to_networkx()
    assert back.number_of_edges() == 78


@pytest.mark.parametrize("xadj, adjncy, message", [
    ([0, 1, 1], [1], "not symmetric"),
    ([0, 1, 2], [0, 0], "self loop"),
    ([0, 1, 2], [1, 5], "out of range"),
    ([0, 2, 1], [1, 0], "xadj"),
])
def test_validation_rejects_bad_structure(xadj, adjncy, message):
    with pytest.raises(InputError, match=message):
        Graph(xadj, adjncy)


def test_validation_rejects_negative_and_asymmetric_weights():
    with pytest.raises(InputError, match="negative vertex weight"):
        Graph([0, 1, 2], [1, 0], vwgt=[1, -1])
    with pytest.raises(InputError, match="negative edge weight"):
        Graph([0, 1, 2], [1, 0], adjwgt=[-1, -1])
    with pytest.raises(InputError, match="not symmetric"):
        Graph([0, 1, 2], [1, 0], adjwgt=[1, 2])


def test_multi_constraint_weights_and_subgraph():
    g = Graph.from_edges(5, [(i, i + 1) for i in range(4)], vwgt=np.arange(10).reshape(5, 2))
    assert g.ncon == 2
    assert g.total_vertex_weight().tolist() == [20, 25]
    sub = g.subgraph([1, 2, 3])
    assert (sub.n, sub.m) == (3, 2)
    assert sub.vwgt.tolist() == [[2, 3], [4, 5], [6, 7]]


@pytest.mark.parametrize("n, edges, isolated", [
    (0, [], False), (1, [], True), (2, [(0, 1)], False),
    (4, [(1, 2), (2, 3)], True), (4, [(0, 1), (1, 2)], True), (4, [(0, 1), (2, 3)], False),
    (5, [(0, 1), (3, 4)], True),
])
def test_isolated_vertices_anywhere(n, edges, isolated):
    assert Graph.from_edges(n, np.array(edges, dtype=np.int64).reshape(-1, 2)).has_isolated_vertices() is isolated


def test_generators():
    g = grid2d(4, 3)
    assert (g.n, g.m) == (12, 17)
    d = delaunay(1000, seed=1)
    assert d.n == 1000 and 2.8 * 1000 < d.m < 3 * 1000
    assert d.coords.shape == (1000, 2)
    assert np.array_equal(delaunay(1000, seed=1).adjncy, d.adjncy)


def test_validation_leaves_unsorted_adjacency_and_weights_untouched():
    g = Graph([0, 2, 3, 4], [2, 1, 0, 0], adjwgt=[5, 7, 7, 5])
    assert g.adjncy.tolist() == [2, 1, 0, 0]
    assert g.adjwgt.tolist() == [5, 7, 7, 5]
    assert g.to_scipy()[0, 2] == 5 and g.to_scipy()[0, 1] == 7
