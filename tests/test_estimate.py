"""The CG-iteration communication estimate: hand-checked times, bounds, real partitions."""

import numpy as np
import pytest
import scipy.sparse as sp

from partkit import InputError, partition
from partkit.collectives import fully_connected, ring
from partkit.estimate import estimate, halo_bound, halo_times
from partkit.generators import grid2d
from partkit.hypergraph import spmv_communication

# Same matrix as tests/test_hypergraph.py: messages 0->1 (2 words), 0->2, 1->2, 2->0 (1 word each).
ROWS = [2, 2, 3, 4, 0, 1, 5] + list(range(6))
COLS = [0, 1, 0, 0, 5, 5, 2] + list(range(6))
HAND = sp.csr_matrix((np.ones(len(ROWS)), (ROWS, COLS)), shape=(6, 6))
PART = np.array([0, 0, 1, 1, 2, 2])
ALPHA, BETA = 1e-6, 8e9  # one 8-byte word takes 1 ns


def test_hand_checked_halo_times():
    comm = spmv_communication(HAND, PART)
    # part 0 sends 2 messages (3 words); part 2 receives 2 messages (2 words)
    times = halo_times(comm, ALPHA, BETA, word_size=8, ports=1)
    assert times == pytest.approx([2e-6 + 3e-9, 1e-6 + 2e-9, 2e-6 + 2e-9], rel=1e-12)
    # two ports: the longest message or half the sum, whichever is larger
    times = halo_times(comm, ALPHA, BETA, word_size=8, ports=2)
    assert times == pytest.approx([1e-6 + 2e-9, 1e-6 + 2e-9, 1e-6 + 1e-9], rel=1e-12)
    assert halo_bound(comm, ALPHA, BETA, 8, 1) == pytest.approx((4e-6 + 5e-9) / 3, rel=1e-12)


def test_hand_checked_iteration():
    result = estimate(HAND, PART, alpha=ALPHA, beta=BETA, topology="full")
    assert result.k == 3 and result.ports == 1
    assert result.halo_time == pytest.approx(2.003e-6, rel=1e-12)
    # 3 nodes, 8 bytes: recursive doubling takes 3 steps (hand-off, exchange, hand-back)
    # of 8 bytes; ring, tree and halving-doubling take 4 steps
    assert result.allreduce.name == "recursive doubling"
    assert result.allreduce_time == pytest.approx(3e-6 + 3e-9, rel=1e-12)
    assert result.allreduce_bound.total == pytest.approx(2e-6)  # ceil(log2 3) steps
    assert result.iteration_time == pytest.approx(2.003e-6 + 2 * 3.003e-6, rel=1e-12)
    assert result.iteration_bound == pytest.approx((4e-6 + 5e-9) / 3 + 4e-6, rel=1e-12)
    two_ports = estimate(HAND, PART, alpha=ALPHA, beta=BETA, topology=fully_connected(3), ports=2)
    assert two_ports.ports == 2 and two_ports.halo_time == pytest.approx(1.002e-6, rel=1e-12)
    assert two_ports.allreduce.name == "bidirectional ring"  # 2 steps instead of 4
    d = result.to_dict()
    assert d["total_words"] == 5 and d["total_messages"] == 4 and d["slowest_part"] == 0
    assert d["iteration_time"] == result.iteration_time and d["ratio"] == pytest.approx(result.ratio)


def test_word_size_and_bandwidth_scale_the_bandwidth_term():
    base = estimate(HAND, PART, alpha=0.0, beta=BETA, allreduces=0)
    assert base.halo_time == pytest.approx(3e-9)  # part 0 sends 3 words, no latency
    assert estimate(HAND, PART, alpha=0.0, beta=BETA, word_size=16, allreduces=0).halo_time == \
        pytest.approx(6e-9)
    assert estimate(HAND, PART, alpha=0.0, beta=2 * BETA, allreduces=0).halo_time == pytest.approx(1.5e-9)


def test_single_part_costs_nothing():
    result = estimate(HAND, np.zeros(6, dtype=int))
    assert result.iteration_time == 0 and result.iteration_bound == 0 and result.ratio == 1


def test_prediction_never_beats_the_bound(grid):
    rng = np.random.default_rng(0)
    for k in (2, 5, 8):
        parts = [partition(grid, k, "block"), rng.integers(0, k, grid.n)]
        for part in parts:
            for topology in ("ring", "torus2d", "torus3d", "fattree", "full"):
                for ports in (1, 2, 6):
                    result = estimate(grid, part, k, topology=topology, ports=ports)
                    assert result.halo_time >= result.halo_bound * (1 - 1e-12)
                    assert result.allreduce_time >= result.allreduce_bound.total * (1 - 1e-12)
                    assert result.ratio >= 1 - 1e-12


def test_better_partition_predicts_less_time():
    g = grid2d(40, 40)
    block = estimate(g, partition(g, 8, "block"), 8, topology="fattree")
    scattered = estimate(g, np.arange(g.n) % 8, 8, topology="fattree")
    assert block.communication.total_words < scattered.communication.total_words
    assert block.halo_time < scattered.halo_time
    assert block.allreduce_time == scattered.allreduce_time  # depends on k only


def test_invalid_arguments():
    with pytest.raises(InputError, match="beta"):
        estimate(HAND, PART, beta=0)
    with pytest.raises(InputError, match="alpha"):
        estimate(HAND, PART, alpha=-1)
    with pytest.raises(InputError, match="word size"):
        estimate(HAND, PART, word_size=0)
    with pytest.raises(InputError, match="nodes"):
        estimate(HAND, PART, topology=ring(4))
    with pytest.raises(InputError, match="unknown topology"):
        estimate(HAND, PART, topology="mesh")


def test_metis_on_bcsstk13(data_dir):
    pytest.importorskip("pymetis")
    from partkit.io import read_matrix
    from partkit.graph import Graph

    a = read_matrix(data_dir / "bcsstk13.mtx")
    graph = Graph.from_scipy(a)
    part = partition(graph, 8, "metis")
    from_matrix = estimate(a, part, 8, topology="torus2d", ports=2)
    from_graph = estimate(graph, part, 8, topology="torus2d", ports=2)
    # the matrix has a full diagonal and a symmetric pattern: both models agree
    assert from_matrix.to_dict() == from_graph.to_dict()
    assert from_matrix.topology.dims == (4, 2) and from_matrix.ports == 2
    assert 1 < from_matrix.ratio < 10
