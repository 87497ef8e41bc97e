"""Flow refinement: the cheapest split of two parts through a corridor around their boundary, for the cut, the
mapping cost and the migration objective."""

import numpy as np
import pytest

import partkit
from partkit import Graph
from partkit.generators import barabasi_albert, delaunay, grid2d, grid3d, tet_mesh3d
from partkit.machine import parse_machine
from partkit.metrics import edge_cut, max_part_weights, part_weights, weight_bounds
from partkit.multilevel.context import preset
from partkit.multilevel.kernels.refinement_flow import MAX_PARTS, flow_refine
from partkit.multilevel.kernels.refinement_moves import boundary_vertices
from partkit.multilevel.objectives import CUT, mapping, migration


def _refine(graph, part, maxw, rounds=1, share=1.0, objective=CUT, degree_limit=None):
    """``flow_refine`` on a copy: ``(refined part, its part weights as kept by the kernel, reduction)``."""
    part = np.array(part, dtype=np.int64)
    pw = part_weights(graph, part, maxw.shape[0])
    objective = objective.at(graph)
    gain = flow_refine(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, pw, maxw,
                       boundary_vertices(graph.xadj, graph.adjncy, part), rounds, share,
                       graph.n if degree_limit is None else degree_limit, objective.code,
                       objective.data)
    return part, pw, gain


def test_a_zigzag_cut_becomes_the_straight_one():
    g = grid2d(20, 10)  # vertex r * 20 + c: 10 rows of 20
    rows, cols = np.divmod(np.arange(g.n), 20)
    part = (cols >= np.where(rows % 2 == 0, 11, 9)).astype(np.int64)  # 100 vertices each, a cut of 28
    assert edge_cut(g, part) == 28 and np.bincount(part).tolist() == [100, 100]
    refined, pw, gain = _refine(g, part, max_part_weights(g, 2, 0.5))
    assert edge_cut(g, refined) == 10 and gain == 18  # one column of the grid between the sides
    assert (pw == part_weights(g, refined, 2)).all()


def test_every_pair_of_adjacent_parts_gets_its_flow():
    """Four strips of a grid with a zigzag between each two neighbours: the flow of every pair (each with its
    own seeds, the vertices of either part touching the other) straightens its zigzag."""
    g = grid2d(80, 10)
    rows, cols = np.divmod(np.arange(g.n), 80)
    offset = np.where(rows % 2 == 0, 1, -1)
    part = sum((cols >= 20 * b + offset).astype(np.int64) for b in (1, 2, 3))
    assert edge_cut(g, part) == 3 * 28 and np.bincount(part).tolist() == [200] * 4
    refined, pw, gain = _refine(g, part, max_part_weights(g, 4, 0.5))
    assert gain == 3 * 18 and edge_cut(g, refined) == 3 * 10
    assert (pw == part_weights(g, refined, 4)).all()


def test_the_room_of_the_bound_limits_the_corridor():
    """With no room on either side nothing may move; with a share of 0 neither."""
    g = grid2d(20, 10)
    rows, cols = np.divmod(np.arange(g.n), 20)
    part = (cols >= np.where(rows % 2 == 0, 11, 9)).astype(np.int64)
    exact = max_part_weights(g, 2, 0.0)
    assert _refine(g, part, exact)[2] == 0
    assert _refine(g, part, max_part_weights(g, 2, 0.5), share=0.0)[2] == 0


@pytest.mark.parametrize("graph, k", [(delaunay(3000, seed=1), 2), (delaunay(3000, seed=2), 7),
                                      (grid3d(12, 12, 12), 8), (barabasi_albert(2000, 3, seed=3), 4)])
def test_flows_lower_the_cut_by_what_they_report_and_keep_the_bound(graph, k):
    maxw = max_part_weights(graph, k, 0.03)
    part = partkit.partition(graph, k, seed=0, preset="fast")
    before = edge_cut(graph, part)
    refined, pw, gain = _refine(graph, part, maxw, rounds=3)
    assert gain >= 0 and edge_cut(graph, refined) == before - gain
    assert (pw == part_weights(graph, refined, k)).all() and (pw <= maxw).all()
    again, _, gain2 = _refine(graph, refined, maxw)
    assert edge_cut(graph, again) == before - gain - gain2


def test_every_constraint_keeps_its_bound():
    g = delaunay(2000, seed=4)
    rng = np.random.default_rng(4)
    vwgt = np.stack([np.ones(g.n, dtype=np.int64), rng.integers(1, 10, g.n)], axis=1)
    g = Graph(g.xadj, g.adjncy, vwgt=vwgt, adjwgt=g.adjwgt)
    maxw = weight_bounds(g.total_vertex_weight(), np.full(2, 0.5), 0.05)
    part = partkit.partition(g, 2, seed=1, imbalance=0.05)
    refined, pw, gain = _refine(g, part, maxw, rounds=3)
    assert (part_weights(g, refined, 2) <= maxw).all() and edge_cut(g, refined) == edge_cut(g, part) - gain


def test_hubs_stay_where_they_are():
    """Vertices of more than the degree limit never join a corridor: on a power-law graph they keep their part."""
    g = barabasi_albert(3000, 3, seed=8)
    maxw = max_part_weights(g, 4, 0.05)
    part = partkit.partition(g, 4, seed=0, preset="fast")
    hubs = g.degrees() > 12
    refined, _, gain = _refine(g, part, maxw, rounds=3, degree_limit=12)
    assert hubs.sum() > 50 and (refined[hubs] == part[hubs]).all()
    assert edge_cut(g, refined) == edge_cut(g, part) - gain


def _mapping_case():
    g = delaunay(4000, seed=6)
    machine = parse_machine(hierarchy="2:4", distance="1:10")
    return g, mapping(machine), partkit.partition(g, machine.k, seed=2, preset="fast")


def _migration_case():
    """A partition of a tetrahedral mesh whose first tenth of vertices then weighs four times as much."""
    g = tet_mesh3d(4000, seed=7)
    old = partkit.partition(g, 6, seed=1, preset="fast")
    heavy = Graph(g.xadj, g.adjncy, vwgt=np.where(np.arange(g.n) < g.n // 10, 4, 1), adjwgt=g.adjwgt)
    fresh = partkit.partition(heavy, 6, seed=3, preset="fast")
    return heavy, migration(old, np.full(g.n, 3), 2), fresh


@pytest.mark.parametrize("case", [_mapping_case, _migration_case])
def test_flows_lower_other_objectives_by_what_they_report(case):
    """For the mapping cost (a machine of 2 nodes of 4 PEs, distances 1:10) and ParMETIS's itr * cut + migration,
    the flows' reduction is the objective's, they keep the bound, and they find one."""
    graph, objective, part = case()
    k = int(part.max()) + 1
    maxw = max_part_weights(graph, k, 0.03)
    before = objective.value(graph, part)
    refined, pw, gain = _refine(graph, part, maxw, rounds=2, objective=objective)
    assert gain > 0 and objective.value(graph, refined) == before - gain
    assert (pw == part_weights(graph, refined, k)).all() and (pw <= maxw).all()


def test_too_many_parts_are_left_alone():
    g = grid2d(30, 30)
    part = np.arange(g.n, dtype=np.int64) % (MAX_PARTS + 1)
    refined, _, gain = _refine(g, part, max_part_weights(g, MAX_PARTS + 1, 0.5))
    assert gain == 0 and (refined == part).all()


def test_the_strong_preset_refines_by_flows_and_gives_one_partition_for_any_thread_count():
    ctx = preset("strong")
    assert "flow" in ctx.refinement.algorithms and "flow" in ctx.refinement.bisection_algorithms
    g = delaunay(20000, seed=5)
    for k in (2, 8):
        one = partkit.partition(g, k, seed=3, preset="strong", threads=1)
        two = partkit.partition(g, k, seed=3, preset="strong", threads=2)
        assert (one == two).all() and (part_weights(g, one, k) <= max_part_weights(g, k, 0.03)).all()


def test_the_default_refines_large_bisections_by_flows():
    """At k = 2 the default preset's levels of 100 000 vertices and more get flows: a 120 000-vertex mesh is cut
    less than without them (637 against 672 when they were made default)."""
    from partkit.multilevel import run

    g = delaunay(120_000, seed=9)
    maxw = max_part_weights(g, 2, 0.03)
    with_flows = run(g, 2, maxw, 0.03, preset("default"), seed=0)
    without = run(g, 2, maxw, 0.03, preset("default", refinement__bisection_algorithms=("fm",)), seed=0)
    assert edge_cut(g, with_flows) < edge_cut(g, without)
    assert (part_weights(g, with_flows, 2) <= maxw).all()


@pytest.mark.parametrize("seed", range(5))
def test_the_maximum_flow_is_scipys(seed):
    """Push-relabel's flow value on random undirected networks is the one scipy's Dinic finds."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import maximum_flow

    from partkit.multilevel.kernels.refinement_flow import _max_flow

    rng = np.random.default_rng(seed)
    nodes = 60
    edges = {(min(a, b), max(a, b)) for a, b in rng.integers(0, nodes, (240, 2)) if a != b}
    rows, cols = np.array(sorted(edges)).T
    caps = rng.integers(1, 20, rows.size)
    sym = coo_matrix((np.concatenate([caps, caps]), (np.concatenate([rows, cols]), np.concatenate([cols, rows]))),
                     shape=(nodes, nodes)).tocsr()
    sym.sort_indices()
    first, head, cap = sym.indptr.astype(np.int64), sym.indices.astype(np.int64), sym.data.astype(np.int64)
    rev = np.array([first[y] + np.searchsorted(head[first[y]:first[y + 1]], x)
                    for x in range(nodes) for y in head[first[x]:first[x + 1]]], dtype=np.int64)
    expected = maximum_flow(sym.astype(np.int32), 0, nodes - 1).flow_value
    assert _max_flow(first, head, cap, rev, 0, nodes - 1) == expected
