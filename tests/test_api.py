import warnings

import numpy as np
import pytest

import partkit
from partkit import Graph, InfeasibleBalanceWarning, InputError
from partkit.generators import grid2d
from partkit.metrics import is_balanced


def test_block_partition_is_balanced(grid):
    part = partkit.partition(grid, 7, "block")
    assert part.dtype == np.int64 and set(part.tolist()) == set(range(7))
    assert is_balanced(grid, part, 7, 0.03)


@pytest.mark.parametrize("k", [0, -1, 601, 2.5, True])
def test_invalid_k_is_refused(grid, k):
    with pytest.raises(InputError):
        partkit.partition(grid, k, "block")


def test_k_one_and_unknown_method(grid):
    assert not partkit.partition(grid, 1, "block").any()
    with pytest.raises(InputError, match="unknown method"):
        partkit.partition(grid, 2, "nope")
    with pytest.raises(InputError, match="imbalance"):
        partkit.partition(grid, 2, "block", imbalance=-0.1)


def test_heavy_vertex_warns_infeasible():
    g = Graph.from_edges(4, [(0, 1), (1, 2), (2, 3)], vwgt=[10, 1, 1, 1])
    with pytest.warns(InfeasibleBalanceWarning, match="single vertex is heavier"):
        partkit.partition(g, 2, "block")


def test_balanced_result_does_not_warn():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        partkit.partition(grid2d(10, 10), 4, "block")


def test_metis_method_when_available(data_dir):
    pytest.importorskip("pymetis")
    from partkit.io import read_graph

    g = read_graph(data_dir / "4elt.graph")
    part = partkit.partition(g, 8, "metis", seed=1)
    assert is_balanced(g, part, 8, 0.03)
    assert np.array_equal(part, partkit.partition(g, 8, "metis", seed=1))


def test_api_accepts_scipy_networkx_arrays_and_csr_pairs():
    import networkx as nx
    import scipy.sparse as sp

    g = grid2d(6, 6)
    expected = partkit.partition(g, 4, seed=3)
    assert np.array_equal(partkit.partition(g.to_scipy(), 4, seed=3), expected)
    assert np.array_equal(partkit.partition(sp.csr_array(g.to_scipy()), 4, seed=3), expected)
    assert np.array_equal(partkit.partition(g.to_scipy().toarray(), 4, seed=3), expected)
    assert np.array_equal(partkit.partition((g.xadj, g.adjncy), 4, seed=3), expected)
    assert np.array_equal(partkit.partition(g.to_networkx(), 4, seed=3), expected)
    assert partkit.partition(nx.karate_club_graph(), 2).shape == (34,)


@pytest.mark.parametrize("data, match", [
    ("graph.mtx", "cannot partition a str.*read_graph"), (None, "cannot partition a NoneType"),
    (([0, 1], [5]), "neighbour index out of range"), (np.zeros((3, 4)), "3x4"),
    (([0, 1, 2], [1.5, 0]), "must be integers"), ((["a"], []), "must be integers"), ({1: 2}, "cannot partition a dict"),
])
def test_api_bad_inputs_raise_input_error(data, match):
    with pytest.raises(InputError, match=match):
        partkit.partition(data, 2)


def test_weights_as_pymetis_takes_them():
    # issue 28: vwgt flat (n or n * ncon) or (n, ncon), adjwgt aligned with adjncy, clear errors on wrong lengths
    import scipy.sparse as sp

    from partkit.generators import grid2d
    from partkit.metrics import edge_cut, part_weights

    g = grid2d(8, 8)
    xadj, adjncy = g.xadj.tolist(), g.adjncy.tolist()
    heavy = np.where(g.coords[:, 0] < 2, 7, 1)  # the two left columns weigh as much as the other six
    for vwgt in (heavy, heavy.tolist(), heavy[:, None]):
        part = partkit.partition((xadj, adjncy), 2, vwgt=vwgt, imbalance=0.0)
        assert np.bincount(part, weights=heavy).tolist() == [heavy.sum() / 2] * 2
    two = np.stack([np.ones(g.n, dtype=np.int64), heavy], axis=1)
    part = partkit.partition((xadj, adjncy), 2, vwgt=two.ravel(), imbalance=0.3)
    weighted = partkit.Graph(g.xadj, g.adjncy, vwgt=two)
    assert np.all(part_weights(weighted, part, 2) <= np.floor(1.3 * two.sum(axis=0) / 2))
    cheap = np.where(g.coords[g.edge_sources(), 1] + g.coords[g.adjncy, 1] == 7, 1, 9)  # edges across the middle row
    part = partkit.partition((xadj, adjncy), 2, adjwgt=cheap)
    assert edge_cut(partkit.Graph(g.xadj, g.adjncy, adjwgt=cheap), part) == 8
    matrix = sp.csr_matrix((np.ones(g.adjncy.size), g.adjncy, g.xadj))
    assert np.array_equal(partkit.partition(matrix, 2, adjwgt=cheap), part)
    for kwargs, match in [({"vwgt": heavy[:-1]}, r"vwgt has shape \(63,\) for 64 vertices: give n weights, n \* ncon"),
                          ({"vwgt": two.T}, r"vwgt has shape \(2, 64\)"),
                          ({"adjwgt": cheap[:-1]}, "adjwgt has 223 entries for 224 adjacency entries"),
                          ({"vwgt": -heavy}, "negative vertex weight")]:
        with pytest.raises(InputError, match=match):
            partkit.partition((xadj, adjncy), 2, **kwargs)
