"""The 2-way FM and KL kernels, the gain bucket queue and recursive bisection."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from partkit import Graph
from partkit.generators import delaunay, grid2d
from partkit.multilevel.recursive import (
    bisection_bounds, fm_refine_bisection, level_imbalance, make_bisector, recursive_bisection)
from partkit.metrics import edge_cut, is_balanced, max_part_weights, part_weights
from partkit.multilevel.kernels.bucket_queue import (
    bq_insert, bq_remove, bq_top, bq_update, new_bucket_queues)
from partkit.multilevel.kernels.initial_fm import fm_bisection, grow_bisection
from partkit.methods.kernels.kl import kl_refine


def _random_balanced(n, seed):
    part = np.zeros(n, dtype=np.int64)
    part[np.random.default_rng(seed).permutation(n)[: n // 2]] = 1
    return part


def test_bucket_queue_orders_by_gain_and_clamps():
    head, top, nxt, prv, where, bucket = new_bucket_queues(6, 2, 3)
    for v, g in [(0, 1), (1, -2), (2, 3), (3, 100), (4, 0)]:
        bq_insert(head, top, nxt, prv, where, bucket, 0, v, g)
    bq_insert(head, top, nxt, prv, where, bucket, 1, 5, 2)
    popped = []
    while (v := bq_top(head, top, 0)) != -1:
        bq_remove(head, top, nxt, prv, where, bucket, v)
        popped.append(v)
    # 3 (gain 100) is clamped to the top bucket together with 2 (gain 3), LIFO within a bucket
    assert popped == [3, 2, 0, 4, 1]
    assert bq_top(head, top, 1) == 5
    bq_insert(head, top, nxt, prv, where, bucket, 0, 0, -3)
    bq_update(head, top, nxt, prv, where, bucket, 0, 2)
    assert bq_top(head, top, 0) == 0 and bucket[0] == 5


def test_fm_improves_random_bisection_and_keeps_balance():
    g = grid2d(40, 30)
    part = _random_balanced(g.n, 1)
    before = edge_cut(g, part)
    maxw = bisection_bounds(g.total_vertex_weight(), 0.5, 0.03)
    cut = fm_bisection(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 20, 0)
    assert cut == edge_cut(g, part)
    assert cut < before / 3
    assert np.all(part_weights(g, part, 2) <= maxw)


@pytest.mark.parametrize("stop_alpha", [1.0, 16.0])
def test_fm_with_the_adaptive_stop_reports_its_cut_and_keeps_balance(stop_alpha):
    from partkit.multilevel.kernels.initial_fm import fm_refine
    g = delaunay(5000, seed=4)
    part = (g.coords[:, 0] > 0.5).astype(np.int64)
    rng = np.random.default_rng(4)
    flip = rng.random(g.n) < 0.05
    part[flip] = 1 - part[flip]
    maxw = bisection_bounds(g.total_vertex_weight(), 0.5, 0.03)
    assert np.all(part_weights(g, part, 2) <= maxw)
    before = edge_cut(g, part)
    full = part.copy()
    full_cut = fm_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, full, maxw, 4, g.n, 0)
    cut = fm_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 4, g.n, 0, stop_alpha)
    assert cut == edge_cut(g, part) and cut < before / 2 and cut <= 1.2 * full_cut
    assert np.all(part_weights(g, part, 2) <= maxw)


def test_fm_repairs_a_lopsided_start():
    g = delaunay(2000, seed=3)
    part = np.zeros(g.n, dtype=np.int64)
    maxw = bisection_bounds(g.total_vertex_weight(), 0.5, 0.03)
    cut = fm_bisection(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 20, 0)
    assert np.all(part_weights(g, part, 2) <= maxw)
    assert cut == edge_cut(g, part) and cut < 200


def test_fm_respects_every_constraint_and_uneven_targets():
    g0 = grid2d(30, 30)
    rng = np.random.default_rng(5)
    vwgt = np.column_stack([rng.integers(1, 4, g0.n), rng.integers(0, 3, g0.n)])
    g = Graph(g0.xadj, g0.adjncy, vwgt=vwgt, adjwgt=g0.adjwgt)
    part = (rng.random(g.n) < 0.3).astype(np.int64)
    maxw = bisection_bounds(g.total_vertex_weight(), 0.3, 0.05)
    fm_bisection(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 20, 4)
    assert np.all(part_weights(g, part, 2) <= maxw)
    assert edge_cut(g, part) < 120


def test_fm_is_deterministic_for_a_seed():
    g = delaunay(1500, seed=1)
    maxw = bisection_bounds(g.total_vertex_weight(), 0.5, 0.03)
    results = []
    for seed in (7, 7, 8):
        part = _random_balanced(g.n, 0)
        fm_bisection(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 10, seed)
        results.append(part)
    assert np.array_equal(results[0], results[1])


def test_grow_bisection_reaches_target_on_disconnected_graph():
    a, b = grid2d(10, 10), grid2d(5, 4)
    edges = np.vstack([_edges(a), _edges(b) + a.n])
    g = Graph.from_edges(a.n + b.n, edges)
    for greedy in (False, True):
        part = grow_bisection(g.xadj, g.adjncy, g.adjwgt, g.vwgt, a.n, 60, greedy, 0)
        assert abs(int((part == 0).sum()) - 60) <= 1


def _edges(g):
    rows = np.repeat(np.arange(g.n), np.diff(g.xadj))
    keep = rows < g.adjncy
    return np.column_stack([rows[keep], g.adjncy[keep]])


def _grow(graph, fraction0, seed):
    w = int(round(fraction0 * graph.total_vertex_weight()[0]))
    return grow_bisection(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, 0, w, True, seed)


@pytest.mark.parametrize("k", [2, 3, 5, 7, 12])
def test_recursive_bisection_any_k_within_imbalance(k):
    g = delaunay(3000, seed=2)
    part = recursive_bisection(g, k, make_bisector(_grow, "fm"), imbalance=0.03, seed=1)
    assert part.dtype == np.int64 and set(np.unique(part)) == set(range(k))
    assert is_balanced(g, part, k, 0.03)


def test_recursive_bisection_with_weights_and_tight_imbalance():
    g0 = grid2d(40, 25)
    vwgt = np.random.default_rng(3).integers(1, 6, g0.n)
    g = Graph(g0.xadj, g0.adjncy, vwgt=vwgt)
    part = recursive_bisection(g, 6, make_bisector(_grow, "fm"), imbalance=0.01, seed=0)
    assert np.all(part_weights(g, part, 6) <= max_part_weights(g, 6, 0.01))


def test_level_imbalance_lands_on_the_bound():
    bound = np.array([103.0])
    eps = level_imbalance(np.array([400.0]), bound, 4)
    assert (1 + eps) ** 2 * 100 == pytest.approx(103.0)
    assert level_imbalance(np.array([400.0]), np.array([90.0]), 4) == 0.0


def test_fm_refine_bisection_returns_refined_copy():
    g = grid2d(20, 20)
    start = _random_balanced(g.n, 2)
    refined = fm_refine_bisection(g, start, 0.5, 0.03, 0)
    assert edge_cut(g, refined) < edge_cut(g, start)
    assert not np.array_equal(refined, start)


@st.composite
def _bisected_graphs(draw):
    n = draw(st.integers(2, 40))
    pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=120))
    edges = [(u, v) for u, v in pairs if u != v]
    weights = draw(st.lists(st.integers(1, 9), min_size=len(edges), max_size=len(edges)))
    ncon = draw(st.integers(1, 2))
    vwgt = draw(st.lists(st.integers(0, 5), min_size=n * ncon, max_size=n * ncon))
    g = Graph.from_edges(n, np.array(edges, dtype=np.int64).reshape(-1, 2), weights=weights or None,
                         vwgt=np.array(vwgt).reshape(n, ncon))
    part = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)), dtype=np.int64)
    return g, part, draw(st.sampled_from([0.0, 0.05, 0.3])), draw(st.integers(0, 100))


@settings(max_examples=150, deadline=None)
@given(_bisected_graphs())
def test_fm_invariants_on_random_graphs(case):
    """2-way FM never leaves a worse state by its own order: the overweight (each constraint's excess as a
    fraction of its bound, summed), then the cut."""
    g, part, eps, seed = case
    maxw = bisection_bounds(g.total_vertex_weight(), 0.5, eps)

    def relative_overweight():
        return (np.maximum(part_weights(g, part, 2) - maxw, 0) / np.maximum(maxw, 1)).sum()

    before_cut, before_over = edge_cut(g, part), relative_overweight()
    cut = fm_bisection(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 10, seed)
    over = relative_overweight()
    assert set(np.unique(part)) <= {0, 1}
    assert cut == edge_cut(g, part)
    assert over <= before_over + 1e-12
    if over >= before_over - 1e-12:
        assert cut <= before_cut


@settings(max_examples=100, deadline=None)
@given(_bisected_graphs())
def test_kl_keeps_a_feasible_start_feasible_and_never_worsens(case):
    g, part, eps, _ = case
    maxw = bisection_bounds(g.total_vertex_weight(), 0.5, eps)
    feasible = np.all(part_weights(g, part, 2) <= maxw)
    before = edge_cut(g, part)
    cut = kl_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw, 5)
    assert cut == edge_cut(g, part) and cut <= before
    if feasible:
        assert np.all(part_weights(g, part, 2) <= maxw)
