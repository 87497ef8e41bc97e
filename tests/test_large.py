"""Large and extreme inputs: linear-time paths and clear refusals."""

import numpy as np
import pytest

import partkit
from partkit import InputError
from partkit.generators import grid2d
from partkit.io import read_metis_graph
from partkit.metrics import edge_cut, is_balanced


def test_quarter_million_vertex_grid_partitions_with_the_default_method():
    graph = grid2d(512, 512)  # 2^18 vertices, 523,264 edges
    part = partkit.partition(graph, 16, seed=1)
    assert part.shape == (2**18,) and part.max() == 15
    assert is_balanced(graph, part, 16, 0.03)
    assert edge_cut(graph, part) < 0.02 * graph.m


def test_edge_counts_beyond_32_bits_are_refused(tmp_path):
    path = tmp_path / "huge.graph"
    path.write_text(f"10 {2**31}\n")
    with pytest.raises(InputError, match="64-bit edge counts are not supported"):
        read_metis_graph(path)


def test_many_isolated_vertices_and_one_edge():
    graph = partkit.Graph.from_edges(100_000, [(0, 1)])
    part = partkit.partition(graph, 7, seed=0)
    assert is_balanced(graph, part, 7, 0.03)
    assert np.bincount(part).min() > 0
