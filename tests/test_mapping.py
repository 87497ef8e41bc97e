"""Machines (hierarchies, tori, fat trees, distance files) and the placement of parts on them."""

import subprocess
import sys

import numpy as np
import pytest

import partkit
from partkit import InputError
from partkit.generators import delaunay, grid2d
from partkit.machine import parse_machine
from partkit.mapping import hierarchical_start, mapping_cost, multisection, partition_onto, place, quotient_graph
from partkit.metrics import edge_cut, is_balanced


def brute_force_cost(graph, part, distance):
    src = np.repeat(np.arange(graph.n), np.diff(graph.xadj))
    return sum(int(w) * distance[part[u], part[v]] for u, v, w in zip(src, graph.adjncy, graph.adjwgt) if u < v)


def test_hierarchy_distances_follow_the_first_common_level():
    m = parse_machine(hierarchy="2:3:2", distance="1:10:100")
    assert m.k == 12 and m.hierarchy == (2, 3, 2)
    d = m.distance
    assert d[0, 1] == 1 and d[0, 2] == 10 and d[0, 5] == 10 and d[0, 6] == 100 and d[11, 0] == 100
    assert np.array_equal(d, d.T) and not d.diagonal().any()


@pytest.mark.parametrize("text,k,far", [("torus2d:4x4", 16, 4), ("mesh2d:4x4", 16, 6), ("torus3d:4x4x4", 64, 6),
                                        ("ring:8", 8, 4), ("fattree:4x2", 8, 4), ("full:5", 5, 1)])
def test_topologies(text, k, far):
    m = parse_machine(topology=text)
    assert m.k == k and m.distance.max() == far and m.network.nodes == k
    assert np.array_equal(m.distance, m.distance.T) and not m.distance.diagonal().any()


def test_topology_extents_from_k():
    assert parse_machine(topology="torus3d", k=64).name == "torus3d:4x4x4"


def test_distance_file(tmp_path):
    path = tmp_path / "d.txt"
    path.write_text("0 1 4\n1 0 2\n4 2 0\n")
    assert parse_machine(distance_file=path).distance.tolist() == [[0, 1, 4], [1, 0, 2], [4, 2, 0]]


@pytest.mark.parametrize("kwargs,match", [
    ({"hierarchy": "4:x"}, "not a list of integers"),
    ({"hierarchy": "4:8"}, "needs --distance"),
    ({"hierarchy": "4:8", "distance": "1"}, "2 levels but distance"),
    ({"hierarchy": "4:0", "distance": "1:2"}, "at least 1"),
    ({"topology": "torus4d:2x2"}, "unknown topology"),
    ({"topology": "torus3d:4x4"}, "needs 3 extents"),
    ({"topology": "torus3d"}, "needs its extents"),
    ({"hierarchy": "4:8", "distance": "1:10", "k": 16}, "32 processing elements, but k = 16"),
    ({"hierarchy": "4:8", "distance": "1:10", "topology": "ring:32"}, "one way"),
    ({}, "one way"),
])
def test_bad_machines_are_refused(kwargs, match):
    with pytest.raises(InputError, match=match):
        parse_machine(**kwargs)


@pytest.mark.parametrize("text,match", [("0 1\n1 0 3\n", "row 2 has 3"), ("0 1\n2 0\n", "symmetric"),
                                        ("1 1\n1 0\n", "diagonal"), ("0 -1\n-1 0\n", "non-negative"),
                                        ("0 a\na 0\n", "not a number"), ("", "empty")])
def test_bad_distance_files_are_refused(tmp_path, text, match):
    path = tmp_path / "d.txt"
    path.write_text(text)
    with pytest.raises(InputError, match=match):
        parse_machine(distance_file=path)


def test_mapping_cost_is_the_distance_weighted_cut():
    g = delaunay(500, seed=2)
    m = parse_machine(hierarchy="2:4", distance="1:7")
    part = partkit.partition(g, 8, seed=1)
    pe = np.random.default_rng(0).permutation(8)
    assert mapping_cost(g, part, m) == brute_force_cost(g, part, m.distance)
    assert mapping_cost(g, part, m, pe) == brute_force_cost(g, pe[part], m.distance)
    assert quotient_graph(g, part, 8).sum() == 2 * edge_cut(g, part)


def test_place_recovers_a_scrambled_placement_and_never_raises_the_cost():
    g = delaunay(20000, seed=5)
    m = parse_machine(hierarchy="4:8", distance="1:10")
    part = partkit.partition(g, 32, seed=0)
    scrambled = np.random.default_rng(1).permutation(32)[part]
    pe = place(g, scrambled, m)
    assert np.array_equal(np.sort(pe), np.arange(32))
    assert mapping_cost(g, scrambled, m, pe) <= 0.7 * mapping_cost(g, scrambled, m)
    for machine in (m, parse_machine(topology="torus3d:4x4x2"), parse_machine(topology="ring:32")):
        for start in (None, np.random.default_rng(2).permutation(32)):
            placed = place(g, part, machine, start)
            assert mapping_cost(g, part, machine, placed) <= mapping_cost(g, part, machine, start)


def test_partition_onto_a_hierarchy_is_balanced_and_cheaper_than_in_order():
    g = delaunay(30000, seed=9)
    m = parse_machine(hierarchy="4:8", distance="1:10")
    onto = partition_onto(g, m, seed=0)
    assert is_balanced(g, onto, 32, 0.03)
    assert np.array_equal(np.unique(onto), np.arange(32))
    assert mapping_cost(g, onto, m) < mapping_cost(g, partkit.partition(g, 32, seed=0), m)
    assert np.array_equal(onto, partition_onto(g, m, seed=0))


def test_partition_onto_a_hierarchy_beats_the_same_distances_without_the_hierarchy(tmp_path):
    # the same machine as a distance file: the engine's runs start from the coarsest graph's placed partition
    g = delaunay(20000, seed=5)
    m = parse_machine(hierarchy="4:8", distance="1:10")
    np.savetxt(tmp_path / "d.txt", m.distance, fmt="%d")
    flat = parse_machine(distance_file=tmp_path / "d.txt")
    split = [mapping_cost(g, partition_onto(g, m, seed=s), m) for s in range(4)]
    unsplit = [mapping_cost(g, partition_onto(g, flat, seed=s), m) for s in range(4)]
    assert sum(split) < 0.99 * sum(unsplit)


def test_on_small_graphs_the_engine_runs_compete_with_the_hierarchy_split(monkeypatch):
    import partkit.mapping

    g = grid2d(32, 32)
    m = parse_machine(hierarchy="4:4", distance="1:10")
    assert g.n < partkit.mapping.RUNS_COMPETE_BELOW
    competing = [mapping_cost(g, partition_onto(g, m, seed=s), m) for s in range(5)]
    monkeypatch.setattr(partkit.mapping, "RUNS_COMPETE_BELOW", 0)
    split_only = [mapping_cost(g, partition_onto(g, m, seed=s), m) for s in range(5)]
    assert sum(competing) < 0.95 * sum(split_only)


def test_multisection_gives_the_outermost_level_its_share_of_the_imbalance():
    from partkit.metrics import max_part_weights

    g = delaunay(6000, seed=3)
    bound = max_part_weights(g, 16, 0.03)[0, 0]
    for share in (None, 0.9):
        part = multisection(g, (4, 4), 0.03, seed=1, outer_share=share)
        assert np.array_equal(np.unique(part), np.arange(16)) and is_balanced(g, part, 16, 0.03)
        room = bound * 16 / g.n  # the groups of 4 parts: 4 * bound over a quarter of the weight
        outer_eps = room ** (0.5 if share is None else share) - 1
        assert np.bincount(part // 4).max() <= max_part_weights(g, 4, outer_eps)[0, 0]
    assert np.bincount(multisection(g, (4, 4), 0.03, seed=1) // 4).max() < np.bincount(part // 4).max()


def test_hierarchical_start_keeps_the_best_of_the_runs_splits():
    from partkit._random import derive
    from partkit.mapping import OUTER_SHARE, split_contexts
    from partkit.metrics import max_part_weights
    from partkit.multilevel import preset
    from partkit.multilevel.objectives import mapping

    g = delaunay(6000, seed=4)
    m = parse_machine(hierarchy="2:4", distance="1:10")
    objective, maxw, ctx = mapping(m), max_part_weights(g, 8, 0.03), preset("default", runs=3)
    start = hierarchical_start(g, objective, maxw, 0.03, ctx, seed=7)
    splits = [multisection(g, m.hierarchy, 0.03, derive(7, r), contexts=split_contexts(ctx), outer_share=OUTER_SHARE)
              for r in range(3)]
    values = [objective.value(g, part) for part in splits]
    assert len(set(values)) > 1 and objective.value(g, start) == min(values)
    assert hierarchical_start(g, mapping(parse_machine(topology="ring:8")), maxw, 0.03, ctx, seed=7) is None
    unequal = maxw.copy()
    unequal[0] += 10
    assert hierarchical_start(g, objective, unequal, 0.03, ctx, seed=7) is None


def test_a_graph_too_small_for_the_hierarchy_split_gets_the_engine_runs():
    g = grid2d(5, 4)  # 20 vertices on 16 PEs: the groups of the first split may hold fewer than 4 vertices
    m = parse_machine(hierarchy="4:4", distance="1:10")
    part = partition_onto(g, m, seed=0)
    assert np.array_equal(np.unique(part), np.arange(16)) and is_balanced(g, part, 16, 0.03)


def test_partition_onto_a_torus():
    g = grid2d(40, 40)
    m = parse_machine(topology="torus2d:4x4")
    onto = partition_onto(g, m, seed=0)
    assert is_balanced(g, onto, 16, 0.03)
    assert mapping_cost(g, onto, m) <= mapping_cost(g, partkit.partition(g, 16, seed=0), m)


def test_cli_map(tmp_path):
    g = delaunay(3000, seed=4)
    from partkit.io import write_metis_graph, write_partition
    write_metis_graph(tmp_path / "g.graph", g)
    part = np.random.default_rng(3).permutation(16)[partkit.partition(g, 16, seed=0)]
    write_partition(tmp_path / "g.part", part)
    run = subprocess.run([sys.executable, "-m", "partkit", "map", "g.graph", "g.part", "--hierarchy", "4:4",
                          "--distance", "1:10", "--json"], cwd=tmp_path, capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    import json
    result = json.loads(run.stdout)
    placed = np.loadtxt(tmp_path / "g.part.mapped", dtype=np.int64)
    m = parse_machine(hierarchy="4:4", distance="1:10")
    assert result["J_placed"] == mapping_cost(g, placed, m) < result["J_in_order"] == mapping_cost(g, part, m)
    bad = subprocess.run([sys.executable, "-m", "partkit", "map", "g.graph", "g.part", "--hierarchy", "4:2",
                          "--distance", "1:10"], cwd=tmp_path, capture_output=True, text=True)
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1


def test_cli_partition_onto_a_machine(tmp_path):
    import json

    from partkit.io import write_metis_graph
    g = delaunay(4000, seed=6)
    write_metis_graph(tmp_path / "g.graph", g)
    base = [sys.executable, "-m", "partkit", "partition", "g.graph"]
    run = subprocess.run(base + ["-k", "16", "--hierarchy", "4:4", "--distance", "1:10", "--json"], cwd=tmp_path,
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    part = np.loadtxt(tmp_path / "g.graph.part.16", dtype=np.int64)
    m = parse_machine(hierarchy="4:4", distance="1:10")
    assert result["machine"] == m.name and result["J"] == mapping_cost(g, part, m)
    assert result["J"] < mapping_cost(g, partkit.partition(g, 16, seed=0), m) and result["balanced"]
    for extra, message in ((["-k", "8", "--hierarchy", "4:4", "--distance", "1:10"], "16 processing elements"),
                           (["-k", "16", "--topology", "torus3d:2x2"], "needs 3 extents"),
                           (["-k", "16", "--hierarchy", "4:4", "--distance", "1:10", "--model", "hypergraph"],
                            "graph model")):
        bad = subprocess.run(base + extra, cwd=tmp_path, capture_output=True, text=True)
        assert bad.returncode == 2 and message in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_the_estimate_charges_the_placement_J_charges():
    from scipy.stats import spearmanr

    from partkit.estimate import estimate

    g = delaunay(3000, seed=1)
    machine = parse_machine(topology="torus3d:2x2x4")
    part = partkit.partition(g, machine.k, seed=0)
    rng = np.random.default_rng(0)
    placements = [rng.permutation(machine.k) for _ in range(12)] + [place(g, part, machine)]
    J = [mapping_cost(g, part, machine, pe) for pe in placements]
    estimates = [estimate(g, part, topology=machine, placement=pe) for pe in placements]
    # the halo's total message time (its even-spread bound) is affine in the hop-weighted words
    assert spearmanr(J, [e.halo_bound for e in estimates]).statistic >= 0.95
    assert spearmanr(J, [e.to_dict()["distance_words"] for e in estimates]).statistic >= 0.95
    best = int(np.argmin(J))
    assert best == len(placements) - 1 and estimates[best].halo_bound == min(e.halo_bound for e in estimates)
    with pytest.raises(InputError, match="permutation"):
        estimate(g, part, topology=machine, placement=np.zeros(machine.k, dtype=int))
    with pytest.raises(InputError, match="needs a machine"):
        estimate(g, part, placement=np.arange(machine.k))
