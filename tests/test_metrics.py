import numpy as np
import pytest

from partkit import Graph, InputError
from partkit.generators import grid2d
from partkit.metrics import (boundary_vertices, communication_volume, disconnected_parts, edge_cut,
                             imbalance, is_balanced, max_part_weights, part_weights, summary)


@pytest.fixture
def square():
    # 0-1
    # | |    with edge weights 1 (top), 2 (right), 3 (bottom), 4 (left)
    # 3-2
    return Graph.from_edges(4, [(0, 1), (1, 2), (2, 3), (3, 0)], weights=[1, 2, 3, 4],
                            vwgt=[[1, 1], [1, 2], [1, 3], [5, 4]])


def test_edge_cut_is_weighted(square):
    assert edge_cut(square, [0, 0, 1, 1]) == 2 + 4
    assert edge_cut(square, [0, 1, 1, 0]) == 1 + 3
    assert edge_cut(square, [0, 0, 0, 0]) == 0


def test_part_weights_and_imbalance_per_constraint(square):
    part = np.array([0, 0, 1, 1])
    assert part_weights(square, part, 2).tolist() == [[2, 3], [6, 7]]
    # totals 8 and 10, averages 4 and 5: 6/4 - 1 and 7/5 - 1
    assert np.allclose(imbalance(square, part, 2), [0.5, 0.4])
    assert not is_balanced(square, part, 2, 0.03)


def test_max_part_weights_rounding():
    g = grid2d(5, 1)  # 5 unit vertices
    assert max_part_weights(g, 2, 0.03).tolist() == [[3], [3]]  # ceil(2.5) although 1.03 * 2.5 < 3
    big = grid2d(100, 10)
    assert max_part_weights(big, 8, 0.03).tolist() == [[128]] * 8  # floor(1.03 * 125)


def test_communication_volume_counts_distinct_foreign_parts():
    # star: centre 0 with leaves 1..4, leaves in parts 1, 1, 2, 0
    star = Graph.from_edges(5, [(0, i) for i in range(1, 5)])
    part = np.array([0, 1, 1, 2, 0])
    total, maximum = communication_volume(star, part, 3)
    # centre sends to parts 1 and 2 (once each); leaves 1, 2, 3 each send to part 0
    assert total == 2 + 3
    assert maximum == 2  # part 0: centre (2); part 1: two leaves (2); part 2: one leaf (1)
    assert boundary_vertices(star, part) == 4


def test_disconnected_parts_and_summary():
    g = grid2d(4, 1)  # path 0-1-2-3
    part = np.array([0, 1, 1, 0])
    assert disconnected_parts(g, part, 2) == 1
    s = summary(g, part, 3)
    assert s["cut"] == 2 and s["empty_parts"] == 1 and s["disconnected_parts"] == 1
    assert s["n"] == 4 and s["k"] == 3


def test_partition_checks():
    g = grid2d(3, 1)
    with pytest.raises(InputError, match="3 vertices"):
        edge_cut(g, [0, 1])
    with pytest.raises(InputError, match="not below k=2"):
        part_weights(g, [0, 1, 2], 2)
    with pytest.raises(InputError, match="negative"):
        edge_cut(g, [0, -1, 0])
