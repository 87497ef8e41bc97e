"""The multilevel hypergraph partitioner: λ-1 checked from the matrix itself, balance, determinism."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

from partkit import InfeasibleBalanceWarning, InputError
from partkit.hypergraph import Hypergraph, connectivity_minus_one, part_volumes, partition, spmv_communication
from partkit._heap import heap_pop, heap_push, heap_remove, heap_set, new_heap


def stencil2d(nx, ny):
    """5-point finite-difference matrix of an nx x ny grid."""
    t = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(nx, nx))
    s = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(ny, ny))
    return (sp.kron(sp.identity(ny), t) + sp.kron(s, sp.identity(nx))).tocsr()


def lambda_minus_one_by_hand(a, row_part, x_part=None):
    """Words of y = A x from the matrix: for every column, the parts of its rows besides x_j's owner."""
    csc = sp.csc_matrix(a)
    total = 0
    for j in range(a.shape[1]):
        parts = {int(row_part[i]) for i in csc.indices[csc.indptr[j]:csc.indptr[j + 1]]}
        if x_part is not None:
            parts.add(int(x_part[j]))
        total += max(len(parts) - 1, 0)
    return total


def balanced(h, part, k, eps):
    weights = np.bincount(part, weights=h.vwgt, minlength=k)
    bound = max(np.floor((1 + eps) * h.vwgt.sum() / k + 1e-9), np.ceil(h.vwgt.sum() / k))
    return weights.max() <= bound


@pytest.mark.parametrize("k", [2, 5, 16])
def test_stencil_lambda_matches_the_matrix_and_is_small(k):
    a = stencil2d(24, 20)
    h = Hypergraph.from_matrix(a)
    part = partition(h, k, seed=3)
    assert part.shape == (a.shape[0],) and set(np.unique(part)) == set(range(k))
    lam = lambda_minus_one_by_hand(a, part, part)
    assert lam == connectivity_minus_one(h, part, k) == spmv_communication(a, part, k).total_words
    assert balanced(h, part, k, 0.03)
    # a straight cut of the 24 x 20 grid into 2 sends 2 x 20 words; k parts need about sqrt(k) times that
    assert lam <= {2: 44, 5: 115, 16: 270}[k]


def test_beats_the_graph_model_on_an_unsymmetric_matrix(data_dir):
    from partkit import Graph
    from partkit import partition as graph_partition
    from partkit.io import read_matrix

    a = read_matrix(data_dir / "west0067.mtx")
    h = Hypergraph.from_matrix(a, vertex_weights="unit")
    ours = [lambda_minus_one_by_hand(a, partition(h, 8, seed=s), partition(h, 8, seed=s)) for s in range(3)]
    graph = [connectivity_minus_one(h, graph_partition(Graph.from_scipy(a), 8, seed=s)) for s in range(3)]
    assert np.median(ours) < np.median(graph)


def test_rectangular_matrix_both_models():
    rng = np.random.default_rng(1)
    a = sp.random(120, 200, density=0.03, random_state=2, format="csr")
    a = (a + sp.csr_matrix((np.ones(120), (np.arange(120), rng.integers(0, 200, 120))), shape=(120, 200))).tocsr()
    rows = Hypergraph.from_matrix(a)
    assert rows.n == 120 and rows.net_owner is None
    part = partition(rows, 4, seed=0)
    assert connectivity_minus_one(rows, part, 4) == lambda_minus_one_by_hand(a, part)
    assert part_volumes(rows, part, 4).sum() == connectivity_minus_one(rows, part, 4)
    assert balanced(rows, part, 4, 0.03)
    cols = Hypergraph.from_matrix(a, model="rows", vertex_weights="unit")
    assert cols.n == 200 and np.all(cols.vwgt == 1)
    cpart = partition(cols, 4, seed=0)
    assert connectivity_minus_one(cols, cpart, 4) == lambda_minus_one_by_hand(a.T, cpart)
    assert balanced(cols, cpart, 4, 0.03)


def test_same_seed_same_partition_and_seeds_differ():
    h = Hypergraph.from_matrix(stencil2d(30, 16))
    first = partition(h, 6, seed=11)
    assert np.array_equal(first, partition(h, 6, seed=11))
    assert any(not np.array_equal(first, partition(h, 6, seed=s)) for s in (12, 13))


def test_real_matrix_within_epsilon_and_volume_per_part(data_dir):
    from partkit.io import read_matrix

    a = read_matrix(data_dir / "bcsstk13.mtx")
    for weights, eps in (("nnz", 0.03), ("unit", 0.01)):
        h = Hypergraph.from_matrix(a, vertex_weights=weights)
        part = partition(h, 8, imbalance=eps, seed=0)
        assert balanced(h, part, 8, eps)
        comm = spmv_communication(a, part, 8)
        assert np.array_equal(part_volumes(h, part, 8), comm.send_words)
        assert comm.total_words == connectivity_minus_one(h, part, 8)


def test_infeasible_balance_warns_and_bad_arguments_raise():
    h = Hypergraph.from_nets(4, [[0, 1], [1, 2], [2, 3]], vwgt=[10, 1, 1, 1])
    with pytest.warns(InfeasibleBalanceWarning, match="imbalance"):
        part = partition(h, 2)
    assert part.shape == (4,)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.array_equal(partition(h, 1), np.zeros(4))
    for k in (0, 5, 2.5):
        with pytest.raises(InputError, match="k must be"):
            partition(h, k)
    with pytest.raises(InputError, match="imbalance"):
        partition(h, 2, imbalance=-1)
    with pytest.raises(InputError, match="preset"):
        partition(h, 2, preset="best")
    with pytest.raises(InputError, match="Hypergraph"):
        partition(stencil2d(3, 3), 2)


def test_nets_with_weights_and_duplicates_merge_correctly():
    # two identical heavy nets keep {0, 1} together; single-pin and empty nets are ignored
    h = Hypergraph.from_nets(4, [[0, 1], [1, 0], [2, 3], [1, 2], [3], []], net_cost=[5, 5, 3, 1, 9, 9])
    part = partition(h, 2, imbalance=0.0)
    assert part[0] == part[1] and part[2] == part[3] and part[0] != part[2]
    assert connectivity_minus_one(h, part, 2) == 1


def test_heap_against_a_sorted_reference():
    rng = np.random.default_rng(0)
    items, keys, pos, size = new_heap(50)
    present = {}
    for _ in range(2000):
        op = rng.integers(4)
        item, key = int(rng.integers(50)), int(rng.integers(-20, 20))
        if op == 0 and item not in present:
            heap_push(items, keys, pos, size, item, key)
            present[item] = key
        elif op == 1:
            heap_set(items, keys, pos, size, item, key)
            present[item] = key
        elif op == 2:
            heap_remove(items, keys, pos, size, item)
            present.pop(item, None)
        elif present:
            expected = min(present, key=lambda i: (-present[i], i))
            assert heap_pop(items, keys, pos, size) == expected
            del present[expected]
        assert size[0] == len(present)
