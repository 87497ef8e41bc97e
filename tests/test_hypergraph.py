"""Hypergraph models: hand-checked matrices, a brute-force reference, real matrices."""

import numpy as np
import pytest
import scipy.sparse as sp

from partkit import Graph, InputError
from partkit.generators import grid2d
from partkit.hypergraph import (Hypergraph, connectivity_minus_one, cut_nets, net_connectivity,
                                spmv_communication)
from partkit.metrics import communication_volume, edge_cut


def matrix(n, entries, ncols=None):
    """A 0/1 sparse matrix with ones on the diagonal (square) and at ``entries``."""
    rows = [i for i, _ in entries]
    cols = [j for _, j in entries]
    if ncols is None:
        rows += list(range(n))
        cols += list(range(n))
    return sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(n, ncols or n))


# Rows 2 and 3 (part 1) both need x0 (part 0): x0 travels once.
HAND = matrix(6, [(2, 0), (2, 1), (3, 0), (4, 0), (0, 5), (1, 5), (5, 2)])
HAND_PART = np.array([0, 0, 1, 1, 2, 2])


def test_hand_checked_volumes_and_messages():
    comm = spmv_communication(HAND, HAND_PART)
    # messages: 0->1 {x0, x1}, 0->2 {x0}, 1->2 {x2}, 2->0 {x5}
    assert list(zip(comm.src, comm.dst, comm.words)) == [(0, 1, 2), (0, 2, 1), (1, 2, 1), (2, 0, 1)]
    assert comm.send_words.tolist() == [3, 1, 1]
    assert comm.recv_words.tolist() == [1, 2, 2]
    assert comm.send_messages.tolist() == [2, 1, 1]
    assert comm.recv_messages.tolist() == [1, 1, 2]
    assert comm.total_words == 5 and comm.total_messages == 4
    assert comm.to_dict() == {"total_words": 5, "max_send_words": 3, "max_recv_words": 2,
                              "total_messages": 4, "max_send_messages": 2, "max_recv_messages": 2}


def test_hand_checked_hypergraph_metrics():
    h = Hypergraph.column_net(HAND)
    assert h.n == 6 and h.num_nets == 6
    # net j = rows with a nonzero in column j (diagonal included)
    nets = [sorted(h.pins[h.net_ptr[j]:h.net_ptr[j + 1]].tolist()) for j in range(6)]
    assert nets == [[0, 2, 3, 4], [1, 2], [2, 5], [3], [4], [0, 1, 5]]
    assert net_connectivity(h, HAND_PART).tolist() == [3, 2, 2, 1, 1, 2]
    assert connectivity_minus_one(h, HAND_PART) == 5
    assert cut_nets(h, HAND_PART) == 4
    assert h.vwgt.tolist() == [2, 2, 3, 2, 2, 2]  # nonzeros per row


def test_graph_model_double_counts_a_shared_remote_value():
    # x0 is needed by rows 1 and 2, both in part 1; nothing else crosses.
    a = matrix(3, [(1, 0), (2, 0)])
    part = np.array([0, 1, 1])
    graph = Graph.from_scipy(a)
    assert edge_cut(graph, part) == 2  # the graph model: two cut edges
    assert communication_volume(graph, part)[0] == 3  # and symmetrised: x1, x2 counted too
    comm = spmv_communication(a, part)
    assert comm.total_words == 1 and comm.total_messages == 1
    assert connectivity_minus_one(Hypergraph.column_net(a), part) == 1
    assert cut_nets(Hypergraph.column_net(a), part) == 1


def test_diagonal_is_the_consistency_condition():
    # no diagonal: net 0 = {row 1} lies in part 1 only, yet x0 lives in part 0
    a = sp.csr_matrix(np.array([[0, 0], [1, 0]]))
    part = np.array([0, 1])
    assert connectivity_minus_one(Hypergraph.column_net(a, diagonal=False), part) == 0
    assert connectivity_minus_one(Hypergraph.column_net(a), part) == 1
    assert spmv_communication(a, part).total_words == 1


def reference_communication(a, part, x_part, k):
    """Brute force: the set of (x_j, destination part) pairs, one loop per nonzero."""
    needed = set()
    coo = a.tocoo()
    for i, j in zip(coo.row, coo.col):
        if part[i] != x_part[j]:
            needed.add((j, part[i]))
    words = np.zeros((k, k), dtype=int)
    for j, p in needed:
        words[x_part[j], p] += 1
    return words


@pytest.mark.parametrize("seed", range(6))
def test_matches_brute_force_on_random_matrices(seed):
    rng = np.random.default_rng(seed)
    n, k = 40, int(rng.integers(2, 7))
    a = sp.random(n, n, density=0.08, random_state=seed, format="csr")
    part = rng.integers(0, k, n)
    comm = spmv_communication(a, part, k)
    words = reference_communication(a, part, part, k)
    assert comm.send_words.tolist() == words.sum(axis=1).tolist()
    assert comm.recv_words.tolist() == words.sum(axis=0).tolist()
    assert comm.send_messages.tolist() == (words > 0).sum(axis=1).tolist()
    assert comm.recv_messages.tolist() == (words > 0).sum(axis=0).tolist()
    dense = np.zeros((k, k), dtype=int)
    dense[comm.src, comm.dst] = comm.words
    assert np.array_equal(dense, words)
    # connectivity-1 of the column-net model (with the diagonal) is exactly the volume
    assert connectivity_minus_one(Hypergraph.column_net(a), part, k) == comm.total_words


def test_rectangular_matrix_with_vector_owners():
    rng = np.random.default_rng(3)
    a = sp.random(30, 50, density=0.1, random_state=3, format="csr")
    part, x_part = rng.integers(0, 4, 30), rng.integers(0, 4, 50)
    comm = spmv_communication(a, part, 4, x_part=x_part)
    words = reference_communication(a, part, x_part, 4)
    assert comm.total_words == words.sum()
    assert comm.send_words.tolist() == words.sum(axis=1).tolist()
    # default owners of a rectangular matrix: the part of most of each column, sending the column-net λ-1
    by_majority = spmv_communication(a, part, 4)
    assert by_majority.total_words == connectivity_minus_one(Hypergraph.from_matrix(a), part, 4)
    assert by_majority.total_words <= comm.total_words
    with pytest.raises(InputError, match="square"):
        Hypergraph.column_net(a)


def test_row_net_is_the_column_net_of_the_transpose():
    a = sp.random(25, 25, density=0.1, random_state=5, format="csr")
    part = np.random.default_rng(5).integers(0, 3, 25)
    row, col_t = Hypergraph.row_net(a), Hypergraph.column_net(a.T.tocsr())
    assert np.array_equal(row.net_ptr, col_t.net_ptr) and np.array_equal(row.pins, col_t.pins)
    # fold volume of a column partition = expand volume of the transpose
    assert connectivity_minus_one(row, part) == spmv_communication(a.T, part).total_words


def test_graph_input_agrees_with_graph_volume(grid):
    part = np.repeat(np.arange(6), grid.n // 6)
    comm = spmv_communication(grid, part)
    total, largest = communication_volume(grid, part, 6)
    assert comm.total_words == total and comm.send_words.max() == largest
    assert connectivity_minus_one(Hypergraph.from_graph(grid), part) == total


def test_grid_strip_partition_by_hand():
    g = grid2d(10, 4)  # left and right halves of 5 columns: 4 interface vertices per side
    part = (np.arange(g.n) % 10 >= 5).astype(np.int64)
    comm = spmv_communication(g, part)
    assert edge_cut(g, part) == 4
    assert comm.send_words.tolist() == [4, 4] and comm.send_messages.tolist() == [1, 1]
    assert cut_nets(Hypergraph.from_graph(g), part) == 8


def test_bad_partitions_are_input_errors():
    with pytest.raises(InputError, match="entries"):
        spmv_communication(HAND, [0, 1])
    with pytest.raises(InputError, match="negative"):
        spmv_communication(HAND, [0, 0, 1, 1, 2, -1])
    with pytest.raises(InputError, match="not below"):
        net_connectivity(Hypergraph.column_net(HAND), HAND_PART, k=2)
    with pytest.raises(InputError, match="scipy"):
        Hypergraph.column_net(np.eye(3))
    with pytest.raises(InputError, match="net_ptr"):
        Hypergraph(3, [], [])
    with pytest.raises(InputError, match="out of range"):
        Hypergraph(3, [0, 2], [0, 5])


def test_real_matrices(data_dir):
    from partkit.io import read_matrix

    # unsymmetric: the symmetrised graph overcounts what y = A x sends
    a = read_matrix(data_dir / "west0067.mtx")
    graph = Graph.from_scipy(a)
    part = np.arange(a.shape[0]) * 4 // a.shape[0]
    exact = spmv_communication(a, part).total_words
    assert exact == connectivity_minus_one(Hypergraph.column_net(a), part)
    assert exact < communication_volume(graph, part)[0]
    # symmetric with a full diagonal: both models agree
    a = read_matrix(data_dir / "bcsstk13.mtx")
    graph = Graph.from_scipy(a)
    part = np.arange(a.shape[0]) * 8 // a.shape[0]
    comm = spmv_communication(a, part)
    assert (comm.total_words, int(comm.send_words.max())) == communication_volume(graph, part)
    assert comm.total_words == spmv_communication(graph, part).total_words
    assert comm.total_words < edge_cut(graph, part)
