"""Tests of the multilevel k-way partitioner and its kernels."""

import warnings

import numpy as np
import pytest

import partkit
from partkit._threads import using_threads
from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.generators import delaunay, grid2d
from partkit.graph import Graph
from partkit.io import read_graph
from partkit.methods import multilevel
from partkit.multilevel.recursive import bisection_bounds, split_graph
from partkit.metrics import edge_cut, is_balanced, max_part_weights, part_weights
from partkit.multilevel.coarsening import coarsen
from partkit.multilevel.context import CoarseningContext
from partkit.multilevel.kernels.coarsening_contraction import compact_labels, contract
from partkit.multilevel import initial
from partkit.multilevel.kernels.initial_fm import bisection_tries, overweight, side_weights
from partkit.multilevel.objectives import CUT
from partkit.multilevel.refinement import kway_fm, rebalance, refine
from partkit.multilevel.kernels.label_propagation import parallel_label_propagation_refine
from partkit.multilevel.kernels.refinement_moves import boundary_after_moves, boundary_vertices
from partkit.multilevel.kernels.refinement_moves import part_weights as native_part_weights
from partkit.multilevel.kernels.coarsening_matching import parallel_matching, two_hop_matching


def _check(graph, part, k, imbalance=0.03):
    assert part.dtype == np.int64 and part.shape == (graph.n,)
    assert part.min() >= 0 and part.max() < k
    assert np.all(np.bincount(part, minlength=k) > 0)
    assert is_balanced(graph, part, k, imbalance)


@pytest.mark.parametrize("k", [2, 3, 8, 17])
def test_grid_valid_balanced_deterministic(k):
    g = grid2d(40, 30)
    a = multilevel.partition(g, k, seed=3)
    _check(g, a, k)
    assert np.array_equal(a, multilevel.partition(g, k, seed=3))
    # a grid cut into k parts needs far fewer cut edges than a random split
    assert edge_cut(g, a) < 0.25 * g.m


def test_grid_bisection_is_near_optimal():
    g = grid2d(40, 20)  # the best bisection cuts one column: 20 edges
    cuts = [edge_cut(g, multilevel.partition(g, 2, seed=s)) for s in range(3)]
    assert min(cuts) <= 22


@pytest.mark.parametrize("preset", ["fast", "strong"])
@pytest.mark.parametrize("coarsening", ["matching", "clustering"])
def test_presets_and_coarsenings(preset, coarsening):
    g = delaunay(3000, seed=1)
    part = multilevel.partition(g, 8, preset=preset, coarsening=coarsening, seed=0)
    _check(g, part, 8)


def test_strong_preset_on_a_graph_too_small_to_coarsen():
    g = grid2d(10, 10)  # below the coarsest size: no hierarchy, the V-cycles have nothing to do
    part = multilevel.partition(g, 2, preset="strong")
    _check(g, part, 2)
    assert edge_cut(g, part) == 10


def test_progress_reports_phases():
    messages = []
    multilevel.partition(delaunay(5000, seed=2), 4, progress=messages.append)
    assert any(m.startswith("coarsening level") for m in messages)
    assert any(m.startswith("refining level 0") for m in messages)


def test_bad_options():
    g = grid2d(5, 5)
    with pytest.raises(InputError):
        multilevel.partition(g, 2, preset="ultra")
    with pytest.raises(InputError):
        multilevel.partition(g, 2, coarsening="spectral")


def test_weighted_vertices_and_edges():
    g0 = delaunay(2000, seed=4)
    rng = np.random.default_rng(0)
    g = Graph(g0.xadj, g0.adjncy, vwgt=rng.integers(1, 20, g0.n), adjwgt=None, name="w")
    src = np.repeat(np.arange(g.n), np.diff(g.xadj))
    w = (src * 7919 + g.adjncy * 7919) % 9 + 1  # symmetric edge weights 1..9
    g = Graph(g.xadj, g.adjncy, vwgt=g.vwgt, adjwgt=w, name="w")
    part = multilevel.partition(g, 6, seed=1)
    _check(g, part, 6)


@pytest.mark.parametrize("ncon", [2, 3])
def test_multiple_constraints_balanced(ncon):
    g0 = delaunay(3000, seed=5)
    rng = np.random.default_rng(ncon)
    vwgt = rng.integers(0, 10, size=(g0.n, ncon))
    g = Graph(g0.xadj, g0.adjncy, vwgt=vwgt, name="mc")
    part = multilevel.partition(g, 4, seed=0, imbalance=0.05)
    _check(g, part, 4, imbalance=0.05)


def test_edgeless_and_disconnected_graphs():
    g = Graph(np.zeros(51, dtype=np.int64), np.zeros(0, dtype=np.int64), name="empty")
    _check(g, multilevel.partition(g, 5), 5)
    grid = grid2d(10, 10)
    two = Graph(np.concatenate([grid.xadj, grid.xadj[1:] + grid.xadj[-1]]),
                np.concatenate([grid.adjncy, grid.adjncy + 100]), name="two")
    part = multilevel.partition(two, 2, seed=0)
    _check(two, part, 2)
    assert edge_cut(two, part) == 0


def test_star_coarsens_and_balances():
    n = 3000  # a star does not shrink under a matching: clustering has to take over
    edges = np.stack([np.zeros(n - 1, dtype=np.int64), np.arange(1, n)], axis=1)
    g = Graph.from_edges(n, edges, name="star")
    hierarchy = coarsen(g, CoarseningContext(algorithm="matching"), 100, 0)
    assert hierarchy.coarsest.n <= 0.5 * n and len(hierarchy) <= 12
    _check(g, multilevel.partition(g, 4), 4)


def test_infeasible_balance_warns_through_api():
    g = grid2d(6, 6)
    g = Graph(g.xadj, g.adjncy, vwgt=np.r_[1000, np.ones(35, dtype=np.int64)], name="heavy")
    with pytest.warns(InfeasibleBalanceWarning):
        partkit.partition(g, 4, "multilevel")


def test_api_uses_multilevel_by_default():
    g = grid2d(20, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        part = partkit.partition(g, 4)
    assert np.array_equal(part, multilevel.partition(g, 4))


# ---------------------------------------------------------------- kernels
def test_matching_and_contraction_preserve_weights():
    g = delaunay(2000, seed=7)
    order = np.random.default_rng(0).permutation(g.n).astype(np.int64)
    group = np.zeros(g.n, dtype=np.int64)
    maxvw = np.array([2], dtype=np.int64)
    match = parallel_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, 11, 8)
    two_hop_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, order, group, match)
    assert np.array_equal(match[match], np.arange(g.n))  # an involution
    cmap, nc = compact_labels(np.minimum(match, np.arange(g.n)))
    assert nc < 0.6 * g.n
    cxadj, cadjncy, cadjwgt, cvwgt = contract(g.xadj, g.adjncy, g.adjwgt, g.vwgt, cmap, nc)
    Graph(cxadj.copy(), cadjncy.copy(), cvwgt.copy(), cadjwgt.copy(), name="coarse")  # symmetric, no loops
    coarse = Graph(cxadj, cadjncy, cvwgt, cadjwgt, name="coarse", validate=False)
    assert coarse.total_vertex_weight()[0] == g.n
    # the cut of a coarse partition equals the cut of its projection
    cpart = np.arange(nc, dtype=np.int64) % 3
    assert edge_cut(coarse, cpart) == edge_cut(g, cpart[cmap])


@pytest.mark.parametrize("case", ["mesh", "star", "isolated"])
def test_one_call_level_is_the_step_of_the_separate_kernels(case):
    """matched_level makes a small matched level in one compiled call; the step must be that of the
    kernels of a level on several ranges (matching, coarse map, contraction)."""
    from partkit.multilevel.kernels.coarsening_contraction import contract_ranges
    from partkit.multilevel.kernels.coarsening_level import matched_level
    from partkit.multilevel.kernels.coarsening_matching import matching_map
    if case == "star":  # the leaves pair through the hub (two-hop)
        g = Graph.from_edges(600, [(0, i) for i in range(1, 600)])
    elif case == "isolated":  # a path and 200 isolated vertices, merged with each other
        g = Graph.from_edges(900, [(i, i + 1) for i in range(0, 699)])
    else:
        g = delaunay(3000, seed=5)
    maxvw, group = np.array([40], dtype=np.int64), np.zeros(g.n, dtype=np.int64)
    cmap, nc, *coarse = matched_level(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, 77, 78, 8, 0.25)
    match = parallel_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, 78, 8, 2)
    ranges_cmap, ranges_nc = matching_map(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxvw, group, match, 77, 0.25)
    assert np.array_equal(cmap, ranges_cmap) and nc == ranges_nc and nc <= 0.6 * g.n
    for one_call, ranges in zip(coarse, contract_ranges(g.xadj, g.adjncy, g.adjwgt, g.vwgt, cmap, nc, 2)):
        assert np.array_equal(one_call, ranges)


@pytest.mark.parametrize("case", ["to_cluster", "stalled"])
def test_small_matched_level_gives_way_as_a_large_one(case):
    """A matching that keeps too many vertices gives way to clustering, or stops the coarsening, on the
    one-call path as well."""
    from partkit.multilevel.coarsening import coarse_level
    g = delaunay(3000, seed=5)
    # a matching keeps about half of the vertices: clustered instead under a fallback of 0.4, a stall under 0.3
    ctx = CoarseningContext(cluster_fallback=0.4 if case == "to_cluster" else 0.9,
                            stall_ratio=0.3 if case == "stalled" else 0.95)
    maxvw, group = np.array([40], dtype=np.int64), np.zeros(g.n, dtype=np.int64)
    step = coarse_level(g, maxvw, group, ctx, False, 77)
    if case == "stalled":
        assert step is None
        return
    clustered = coarse_level(g, maxvw, group, ctx, True, 77)
    assert step[1] == clustered[1] <= 0.4 * g.n and np.array_equal(step[0], clustered[0])
    for a, b in zip(step[2], clustered[2]):
        assert np.array_equal(a, b)


def test_matching_respects_groups():
    g = grid2d(10, 10)
    group = (np.arange(g.n) % 10 >= 5).astype(np.int64)
    match = parallel_matching(g.xadj, g.adjncy, g.adjwgt, g.vwgt, np.array([2]), group, 11, 8)
    assert np.count_nonzero(match != np.arange(g.n)) > g.n // 2  # most vertices matched
    assert np.array_equal(group[match], group)


def _perturbed_strips(g, k, share, seed):
    """Vertical strips of ``g`` with ``share`` of the vertices moved to random parts, rebalanced:
    ``(part, part weights, bound)``."""
    part = (g.coords[:, 0] * k).astype(np.int64)
    rng = np.random.default_rng(seed)
    flip = rng.random(g.n) < share
    part[flip] = rng.integers(0, k, flip.sum())
    bound = max_part_weights(g, k, 0.03)
    pw = native_part_weights(g.vwgt, part, k)
    assert rebalance(g, part, pw, bound, 20, True)
    return part, pw, bound


def test_refinement_kernels_improve_and_keep_balance():
    g = delaunay(4000, seed=8)
    k = 4
    part, pw, bound = _perturbed_strips(g, k, 0.1, 1)
    before = edge_cut(g, part)
    gain = parallel_label_propagation_refine(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, bound, CUT.code, CUT.data,
                                             boundary_vertices(g.xadj, g.adjncy, part), 5, 16, 2)
    assert edge_cut(g, part) == before - gain and gain > 0
    middle = edge_cut(g, part)
    gain = kway_fm(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, bound,
                   boundary_vertices(g.xadj, g.adjncy, part), 4, 100, 64)
    assert edge_cut(g, part) == middle - gain and gain >= 0
    assert np.array_equal(pw, part_weights(g, part, k))
    assert np.all(pw <= bound)


@pytest.mark.parametrize("seed_loss, stop_alpha", [(0.0, 0.0), (0.125, 0.0), (1.0, 0.0), (0.125, 1.0), (1.0, 0.1)])
def test_localized_fm_lowers_the_cut_it_reports_and_keeps_the_bound(seed_loss, stop_alpha):
    g = delaunay(4000, seed=8)
    k = 8
    part, pw, bound = _perturbed_strips(g, k, 0.05, 2)
    before = edge_cut(g, part)
    gain = kway_fm(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, bound, boundary_vertices(g.xadj, g.adjncy, part),
                   2, 100, 64, local_bad=20, seed_loss=seed_loss, stop_alpha=stop_alpha)
    assert edge_cut(g, part) == before - gain and gain > 0
    assert np.array_equal(pw, part_weights(g, part, k)) and np.all(pw <= bound)


def test_adaptive_stop_waits_for_evidence_of_a_losing_drift():
    from partkit.multilevel.kernels.stop_rule import adaptive_stop
    beta = np.log(10_000)
    def stops(gains, alpha):
        gains = np.asarray(gains, dtype=np.float64)
        return adaptive_stop(gains.size, gains.sum(), (gains * gains).sum(), alpha, beta)
    assert not stops([-5] * 9, 1.0)  # never within beta moves
    assert stops([-1] * 10, 1.0)  # a steady loss: 10 * 1 > 0 + ln 10^4
    assert not stops([-1, 3, -4, 2, -3, 1, -2, 4, -3, 1], 1.0)  # noisy, drift -0.2: a new best is likely
    assert not stops([0] * 30, 1.0)  # no drift: zero-gain moves may lead somewhere
    assert stops([-3, -1, -2, -2, -1, -3, -2, -2, -1, -3], 1.0) and not stops([-3, -1, -2, -2, -1, -3, -2, -2,
                                                                              -1, -3], 100.0)


def test_localized_fm_cuts_less_than_one_global_search():
    # the engine with one global search a pass (up to 1000 fruitless moves, 2 passes, the old default) against
    # the localized default: 1660 and 1583 against 1630 and 1543 (2026-12-04)
    from partkit.multilevel import run
    from partkit.multilevel.context import preset
    g = delaunay(20000, seed=3)
    bound = max_part_weights(g, 16, 0.03)
    cuts = {local: [edge_cut(g, run(g, 16, bound, 0.03, ctx, seed)) for seed in (0, 1)]
            for local, ctx in ((False, preset(refinement__fm_local_bad=0, refinement__fm_passes=2)), (True, preset()))}
    assert np.mean(cuts[True]) < 0.99 * np.mean(cuts[False])


def test_skewed_graphs_are_bisected_without_kway_levels():
    # an R-MAT graph: the k-way hierarchy's clusters of hubs cut far more than recursive bisection of the input
    from partkit.generators import rmat
    from partkit.multilevel import run
    from partkit.multilevel.coarsening import skewed_degrees
    from partkit.multilevel.context import preset
    g = rmat(13, 16, seed=5)
    assert skewed_degrees(g, CoarseningContext())
    levels = []
    part = multilevel.partition(g, 8, progress=levels.append)
    assert not any(line.startswith("coarsening level") for line in levels)
    _check(g, part, 8)
    old = run(g, 8, max_part_weights(g, 8, 0.03), 0.03, preset(coarsening__bisect_skewed=False), 0)
    assert edge_cut(g, part) < 0.95 * edge_cut(g, old)


def test_split_graph_equals_subgraph_on_unsorted_weighted_graphs():
    rng = np.random.default_rng(3)
    for n, hub in [(40, False), (120, True), (300, True)]:
        g = delaunay(n, seed=int(rng.integers(100)))
        edges = [(v, int(u)) for v in range(g.n) for u in g.adjncy[g.xadj[v]:g.xadj[v + 1]] if v < u]
        if hub:  # a vertex adjacent to all: a long adjacency list
            edges += [(0, u) for u in range(2, g.n) if (0, u) not in set(edges)]
        base = Graph.from_edges(g.n, np.array(edges), weights=rng.integers(1, 9, len(edges)),
                                vwgt=rng.integers(1, 5, (g.n, 2)), coords=g.coords)
        # shuffle every adjacency list (coarse graphs have unsorted lists)
        adjncy, adjwgt = base.adjncy.copy(), base.adjwgt.copy()
        for v in range(base.n):
            lo, hi = base.xadj[v], base.xadj[v + 1]
            perm = lo + rng.permutation(hi - lo)
            adjncy[lo:hi], adjwgt[lo:hi] = adjncy[perm], adjwgt[perm]
        shuffled = Graph(base.xadj, adjncy, base.vwgt, adjwgt, coords=base.coords)
        side = rng.integers(0, 2, shuffled.n)
        (on0, sub0), (on1, sub1) = split_graph(shuffled, side)
        assert np.array_equal(on0, np.flatnonzero(side == 0)) and np.array_equal(on1, np.flatnonzero(side))
        for ids, sub in ((on0, sub0), (on1, sub1)):
            ref = shuffled.subgraph(ids)
            for attr in ("xadj", "adjncy", "adjwgt", "vwgt", "coords"):
                assert np.array_equal(getattr(sub, attr), getattr(ref, attr)), attr


@pytest.mark.parametrize("graph", [delaunay(900, seed=4), grid2d(20, 20)])
@pytest.mark.parametrize("threads", [1, 2])
def test_best_grown_bisection_is_the_best_single_try(graph, threads, monkeypatch):
    # the best (overweight, cut) of the tries, each an FM-refined grown start, on 1 thread or spread over 2
    monkeypatch.setattr(initial, "PARALLEL_TRIES_WORK", 0 if threads > 1 else 10**18)
    monkeypatch.setattr(initial, "current_threads", lambda: threads)
    g = Graph(graph.xadj, graph.adjncy, np.arange(graph.n) % 3 + 1, graph.adjwgt)
    if graph.n == 400:  # two components: growth restarts from a random vertex
        keep = (np.arange(g.n) % 20 != 10)[g.edge_sources()] & (np.arange(g.n) % 20 != 10)[g.adjncy]
        g = Graph.from_edges(g.n, np.stack([g.edge_sources()[keep], g.adjncy[keep]], 1), vwgt=g.vwgt)
    starts = np.array([0, 7, 100, 250, 399, 13], dtype=np.int64)
    for fraction0 in (0.5, 3 / 7):
        maxw = bisection_bounds(g.total_vertex_weight(), fraction0, 0.05)
        target = int(round(fraction0 * int(g.total_vertex_weight()[0])))
        best = initial.best_grown_bisection(g, maxw, target, starts, 9, 10, 50)
        ranks = []
        for t in range(starts.size):  # each try alone, on fresh arrays
            parts, ows, cuts = np.ones((starts.size, g.n), dtype=np.int64), np.zeros(starts.size, dtype=np.int64), \
                np.zeros(starts.size, dtype=np.int64)
            bisection_tries(g.xadj, g.adjncy, g.adjwgt, g.vwgt, maxw, target, starts, 9, 10, 50, 0.0, parts, ows, cuts,
                            True, t, t + 1)
            assert cuts[t] == edge_cut(g, parts[t]) and ows[t] == overweight(side_weights(g.vwgt, parts[t]), maxw)
            ranks.append((int(ows[t]), int(cuts[t])))
        assert (int(overweight(side_weights(g.vwgt, best), maxw)), edge_cut(g, best)) == min(ranks)


# ------------------------------------------------------------ shared data
def test_4elt_k8_beats_metis(data_dir, metis_mean_cut):
    # mean over seeds 0-3: partkit 594.25, METIS 606.75 (2026-12-04)
    g = read_graph(data_dir / "4elt.graph")
    cuts = []
    for seed in range(4):
        part = multilevel.partition(g, 8, seed=seed)
        _check(g, part, 8)
        cuts.append(edge_cut(g, part))
    assert np.mean(cuts) <= metis_mean_cut(g, 8, range(4))


@pytest.mark.parametrize("k,seeds,bound", [(8, 8, 766), (64, 4, 3475)])
def test_rgg_mean_cut_with_eight_starts_per_bisection(data_dir, k, seeds, bound):
    # the cut of the random geometric graph is decided by the initial bisections; with at least 4 grown starts
    # each the mean over these seeds was 774.0 (k = 8) and 3530.8 (k = 64), with 8: 759.1 and 3424.3
    g = read_graph(data_dir / "rgg_n_2_15_s0.graph")
    cuts = []
    for seed in range(seeds):
        part = multilevel.partition(g, k, seed=seed)
        _check(g, part, k)
        cuts.append(edge_cut(g, part))
    assert np.mean(cuts) < bound


@pytest.mark.parametrize("name,k", [("rgg_n_2_15_s0.graph", 64), ("power.graph", 8), ("bcsstk13.mtx", 8)])
def test_shared_graphs_valid_and_balanced(data_dir, name, k):
    g = read_graph(data_dir / name)
    part = multilevel.partition(g, k, seed=1)
    _check(g, part, k)
    assert np.array_equal(part, multilevel.partition(g, k, seed=1))


def test_initial_partition_is_the_same_on_one_and_two_threads():
    # the sub-problems of a recursion level are bisected by a thread pool, the big tries spread over threads
    from partkit.multilevel import preset
    g = delaunay(6000, seed=3)
    maxw = max_part_weights(g, 16, 0.03)
    parts = []
    for threads in (1, 2):
        with using_threads(threads):
            parts.append(initial.initial_partition(g, 16, maxw, 0.03, preset("default"), key=5,
                                                   input_heaviest=np.array([1]), finest=True))
    assert np.array_equal(parts[0], parts[1])
    assert np.all(np.bincount(parts[0], minlength=16) <= maxw[:, 0])


def test_auto_coarsening_clusters_random_geometric_graphs_and_matches_meshes():
    from partkit.generators import random_geometric, tet_mesh3d
    from partkit.multilevel.coarsening import uses_clustering
    from partkit.multilevel.kernels.coarsening_clustering import sampled_transitivity

    ctx = CoarseningContext()
    # neighbourhoods overlap: most paths of length two close a triangle (0.59 against 0.4 on a triangulation)
    assert uses_clustering(random_geometric(5000, seed=2), ctx)
    for mesh in (delaunay(5000, seed=2), grid2d(80, 80), tet_mesh3d(5000, seed=2)):
        assert not uses_clustering(mesh, ctx), mesh.name
    assert not uses_clustering(random_geometric(5000, seed=2), CoarseningContext(triangle_share=0.7))
    # closed paths of length two: 2 of 2 at vertices 0 and 1, 2 of 6 at vertex 2, none at the leaf 3
    triangle = Graph.from_edges(4, np.array([[0, 1], [1, 2], [0, 2], [2, 3]]))
    assert sampled_transitivity(triangle.xadj, triangle.adjncy, 1, 3) == 6 / 10
    assert sampled_transitivity(triangle.xadj, triangle.adjncy, 2, 3) == 4 / 8  # centres 0 and 2
    # through one neighbour of 2: 0 or 1 (3 times the 1 closed path) or the leaf (none)
    assert sampled_transitivity(triangle.xadj, triangle.adjncy, 2, 1) in (5 / 8, 2 / 8)


def test_clustering_takes_the_cluster_weight_where_it_exceeds_the_cap():
    from partkit.generators import random_geometric

    g = random_geometric(4000, seed=1)
    ctx = CoarseningContext(algorithm="clustering")
    cap = int(np.ceil(1.5 * g.n / 400))
    assert coarsen(g, ctx, 400, key=0).coarsest.vwgt.max() <= cap
    heavy = coarsen(g, ctx, 400, key=0, cluster_weight=np.array([4 * cap]))
    assert cap < heavy.coarsest.vwgt.max() <= 4 * cap
    matched = coarsen(g, CoarseningContext(algorithm="matching"), 400, key=0, cluster_weight=np.array([4 * cap]))
    assert matched.coarsest.vwgt.max() <= cap  # matching keeps the cap


def test_coarse_levels_relax_the_bound_only_beyond_epsilon():
    from partkit.multilevel.refinement import level_bounds

    g = Graph.from_edges(4, np.array([[0, 1], [1, 2], [2, 3]]), vwgt=np.array([[30], [10], [10], [50]]))
    unit = np.array([1])  # the input's heaviest vertex: unit weights
    # perfect share 50: 50 + 49 exceeds the bound 60, which ε = 0.2 would give
    assert level_bounds(g, np.array([[60], [60]]), unit).ravel().tolist() == [99, 99]
    # ε leaves room for the heaviest vertex: the bound stays
    assert level_bounds(g, np.array([[160], [160]]), unit).ravel().tolist() == [160, 160]
    # the input level itself (its heaviest vertex is the input's) keeps the bound
    assert level_bounds(g, np.array([[60], [60]]), np.array([50])).ravel().tolist() == [60, 60]
    # an input whose vertices weigh up to 40: room only for the 10 the level's clusters add
    assert level_bounds(g, np.array([[52], [52]]), np.array([40])).ravel().tolist() == [60, 60]
    unequal = level_bounds(g, np.array([[36], [84]]), unit).ravel().tolist()  # perfect 30 and 70
    assert unequal == [79, 119]
    # per constraint: the second (total 4, heaviest 3) gives perfect shares ceil(2 * 4 / 5) = 2, ceil(3 * 4 / 5) = 3
    two = Graph.from_edges(4, np.array([[0, 1], [1, 2], [2, 3]]), vwgt=np.array([[30, 1], [10, 0], [10, 0], [50, 3]]))
    assert level_bounds(two, np.array([[60, 2], [60, 3]]), np.array([1, 1])).tolist() == [[99, 4], [99, 5]]


def test_heavy_input_vertices_are_balanced_on_the_coarse_levels_too():
    """Vertex weights up to a fifth of a part (particles counted per cell): the coarse levels get room only for
    what their clusters add, so the input level does not inherit overweight that its balancer would remove
    at a high cut (with room for the heaviest vertex on every level: cut 2,162 against METIS's 1,863)."""
    pymetis = pytest.importorskip("pymetis")
    from scipy.spatial import cKDTree

    n, k = 8000, 64
    g = delaunay(n, seed=7)
    particles = np.clip(np.array([0.4, 0.5]) + 0.12 * np.random.default_rng(7).normal(size=(4 * n, 2)), 0, 1)
    w = 1 + np.bincount(cKDTree(g.coords).query(particles)[1], minlength=n)
    weighted = Graph(g.xadj, g.adjncy, w)
    assert w.max() > 0.2 * w.sum() / k
    part = partkit.partition(weighted, k, seed=0)
    assert is_balanced(weighted, part, k, 0.03)
    options = pymetis.Options(ufactor=30, seed=0)
    metis = np.asarray(pymetis.part_graph(k, pymetis.CSRAdjacency(g.xadj, g.adjncy), vweights=w, options=options)[1])
    assert edge_cut(weighted, part) <= 1.05 * edge_cut(weighted, metis)


# ------------------------------------------------------------ sparse, tree-like graphs
def _tree_like(n, extra, seed):
    """A power-grid-like graph: the Euclidean minimum spanning tree of ``n`` random points (over their 5 nearest
    neighbours) plus, for a share ``extra`` of the vertices, one edge to one of their nearest neighbours."""
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import minimum_spanning_tree
    from scipy.spatial import cKDTree

    rng = np.random.default_rng(seed)
    points = rng.random((n, 2))
    data, near = cKDTree(points).query(points, 6)
    rows = np.repeat(np.arange(n), 5)
    tree = minimum_spanning_tree(coo_matrix((data[:, 1:].ravel(), (rows, near[:, 1:].ravel())), shape=(n, n)))
    tree = tree.tocoo()
    pick = rng.random(n) < extra
    edges = np.concatenate([np.stack([tree.row, tree.col], 1),
                            np.stack([np.flatnonzero(pick), near[pick, rng.integers(2, 6, pick.sum())]], 1)])
    edges = np.unique(np.sort(edges, axis=1), axis=0)
    return Graph.from_edges(n, edges[edges[:, 0] != edges[:, 1]], name="tree_like")


def test_sparse_tree_like_graph_k8():
    # 3000 vertices, 3693 edges, 11 % leaves. Every bisection of the initial partitioning is multilevel (coarsened
    # to 100 vertices under the relaxed bound): mean cut over seeds 0-7 21.1, against 23.75 when the bisections
    # below 300 vertices were flat.
    g = _tree_like(3000, 0.3, 0)
    cuts = [edge_cut(g, multilevel.partition(g, 8, imbalance=0.03, seed=s)) for s in range(8)]
    assert np.mean(cuts) <= 22


def test_power_grid_k8(data_dir, metis_mean_cut):
    # the US power grid (4941 vertices, 6594 edges) at k = 8, eps = 0.03, means over seeds 0-7: partkit 84.4,
    # METIS 90.1 (2026-12-04); flat bisections below 300 vertices gave 95.4
    g = read_graph(data_dir / "power.graph")
    cuts = [edge_cut(g, multilevel.partition(g, 8, imbalance=0.03, seed=s)) for s in range(8)]
    assert np.mean(cuts) <= 0.97 * metis_mean_cut(g, 8, range(8))


def test_no_part_left_empty_while_a_vertex_can_move_to_it():
    # issue 34: 72 vertices into 64 parts (bound 2) left 25-28 parts empty, a 300-vertex BA graph one
    from partkit.generators import barabasi_albert

    for g in (grid2d(8, 9), barabasi_albert(300, 2, seed=0)):
        for seed in (0, 1, 2):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                part = partkit.partition(g, 64, seed=seed)
            assert np.bincount(part, minlength=64).min() >= 1
            assert np.all(part_weights(g, part, 64) <= max_part_weights(g, 64, 0.03))


def test_fill_empty_parts_moves_the_cheapest_vertex_that_fits():
    from partkit.multilevel.kernels.refinement_moves import fill_empty_parts

    g = grid2d(3, 2)  # 0-1-2 / 3-4-5
    part = np.array([0, 0, 0, 1, 1, 1])
    maxw = np.full((3, 1), 3)
    assert fill_empty_parts(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, maxw) == 0
    assert np.bincount(part, minlength=3).min() == 1 and part[[1, 4]].tolist() == [0, 1]  # a corner moved
    heavy = Graph(g.xadj, g.adjncy, vwgt=[5, 5, 5, 5, 5, 5])
    part = np.array([0, 0, 0, 1, 1, 1])
    assert fill_empty_parts(heavy.xadj, heavy.adjncy, heavy.adjwgt, heavy.vwgt, part, maxw) == 1  # nothing fits


@pytest.mark.parametrize("seed", range(4))
def test_boundary_after_moves_is_the_boundary(seed):
    """Found near the moves only, the boundary is the whole scan's, in the same order, whatever superset of
    the old boundary the candidates are."""
    rng = np.random.default_rng(seed)
    g = delaunay(3000, seed=seed)
    before = multilevel.partition(g, 16, seed=seed)
    candidates = np.union1d(boundary_vertices(g.xadj, g.adjncy, before), rng.choice(g.n, 200 * seed))
    part = before.copy()
    movers = rng.choice(candidates, candidates.size // 4, replace=False)
    part[movers] = rng.integers(0, 16, movers.size)
    part[rng.choice(g.n, 5)] = 3  # a few moves anywhere: their neighbourhoods are tested too
    found = boundary_after_moves(g.xadj, g.adjncy, part, before, candidates)
    assert np.array_equal(found, boundary_vertices(g.xadj, g.adjncy, part))


@pytest.mark.parametrize("n, k, given", [(3000, 8, False), (3000, 8, True), (12000, 16, True), (12000, 32, False)])
def test_refine_returns_the_boundary_it_leaves(n, k, given):
    """Asked for it, the refinement returns the boundary of the partition it leaves (found near its moves), on
    levels with and without grouped FM, from given candidates or from none."""
    from partkit.multilevel.context import preset

    g = delaunay(n, seed=k)
    rng = np.random.default_rng(k)
    part = multilevel.partition(g, k, seed=k)
    shifted = boundary_vertices(g.xadj, g.adjncy, part)
    shifted = shifted[rng.random(shifted.size) < 0.3]
    part[shifted] = part[g.adjncy[g.xadj[shifted]]]  # a third of the boundary joins a neighbour's part: moves
    candidates = boundary_vertices(g.xadj, g.adjncy, part) if given else None
    found = refine(g, part, max_part_weights(g, k, 0.03), preset().refinement, 5, candidates, boundary=True)
    assert np.array_equal(found, boundary_vertices(g.xadj, g.adjncy, part))
    assert refine(g, part, max_part_weights(g, k, 0.03), preset().refinement, 6) is None
