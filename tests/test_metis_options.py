"""METIS's everyday options: tpwgts, ubvec, fixed vertices, contiguous parts, the volume objective."""

import json
import subprocess
import sys

import numpy as np
import pytest

import partkit
from partkit import Graph, InputError
from partkit.api import partition_report
from partkit.generators import delaunay, grid2d
from partkit.metrics import communication_volume, disconnected_parts, edge_cut, part_weights
from partkit.constraints import make_contiguous


@pytest.fixture(scope="module")
def mesh():
    return delaunay(4000, seed=2)


@pytest.mark.parametrize("method", ["multilevel", "metis"])
def test_tpwgts_targets_are_honoured(mesh, method):
    if method == "metis":
        pytest.importorskip("pymetis")
    tpwgts = [0.1, 0.2, 0.3, 0.4]
    part = partkit.partition(mesh, 4, method, tpwgts=tpwgts, seed=1)
    share = np.bincount(part, minlength=4) / mesh.n
    assert np.all(share <= np.array(tpwgts) * 1.03 + 1 / mesh.n)
    if method == "multilevel":  # not below target / (1 + ε) either
        assert np.all(share >= np.array(tpwgts) / 1.03 - 1 / mesh.n), share
    _, _, report = partition_report(mesh, 4, method, tpwgts=tpwgts, seed=1)
    assert report["balanced"] and report["imbalance"] <= 0.03 + 1e-9


def test_skewed_targets_leave_no_part_empty(mesh):
    tpwgts = np.arange(1, 17) / np.arange(1, 17).sum()  # the smallest part holds 1/136 of the weight
    for seed in range(3):
        share = np.bincount(partkit.partition(mesh, 16, tpwgts=tpwgts, seed=seed), minlength=16) / mesh.n
        assert np.all(share >= tpwgts / 1.03 - 1 / mesh.n) and np.all(share <= tpwgts * 1.03 + 1 / mesh.n)


def test_tpwgts_with_odd_k_and_a_part_twice_the_others(mesh):
    tpwgts = np.array([2, 1, 1, 1, 1]) / 6
    part = partkit.partition(mesh, 5, tpwgts=tpwgts, imbalance=0.01, seed=3)
    weights = np.bincount(part, minlength=5)
    assert np.all(weights <= np.floor(1.01 * tpwgts * mesh.n) + 1) and weights[0] > 1.8 * weights[1:].max()


def test_ubvec_is_a_bound_per_constraint():
    g = grid2d(30, 30)
    rng = np.random.default_rng(0)
    g = Graph(g.xadj, g.adjncy, vwgt=np.stack([np.ones(g.n), rng.integers(1, 5, g.n)], axis=1).astype(np.int64))
    for ubvec in ([1.01, 1.2], [1.2, 1.01]):
        part = partkit.partition(g, 4, ubvec=ubvec, seed=1)
        weights = part_weights(g, part, 4)
        assert np.all(weights <= np.floor(np.array(ubvec) * g.total_vertex_weight() / 4 + 1e-9))
    loose = partkit.partition(g, 4, ubvec=[1.3, 1.3], seed=1)
    assert part_weights(g, loose, 4)[:, 0].max() > 1.02 * g.n / 4  # the looser bound is used


@pytest.mark.parametrize("kwargs, match", [
    ({"tpwgts": [0.5, 0.6]}, "sum to 1"), ({"tpwgts": [1.0]}, "k=2 rows"), ({"tpwgts": [-0.5, 1.5]}, "non-negative"),
    ({"tpwgts": "half"}, "sequence of finite numbers"), ({"tpwgts": [0.5, float("nan")]}, "finite"),
    ({"ubvec": [0.9]}, "tolerances"), ({"ubvec": [1.1, 1.1]}, "ncon=1"),
    ({"fixed": [0, 1]}, "2 entries for 16"), ({"fixed": [2] * 16}, "fixed part 2 is outside"),
    ({"fixed": ["a"] * 16}, "integers"), ({"contiguous": "yes"}, "true or false"),
    ({"objective": "vol"}, "objective must be one of cut, volume"),
])
def test_bad_option_values_raise_input_error(kwargs, match):
    with pytest.raises(InputError, match=match):
        partkit.partition(grid2d(4, 4), 2, **kwargs)


def test_targets_only_for_methods_that_take_them():
    with pytest.raises(InputError, match="method 'fm' has no option 'tpwgts'"):
        partkit.partition(grid2d(4, 4), 2, "fm", tpwgts=[0.5, 0.5])


@pytest.mark.parametrize("method", ["multilevel", "block", "labelprop"])
def test_fixed_vertices_end_in_their_parts(mesh, method):
    rng = np.random.default_rng(5)
    fixed = np.full(mesh.n, -1)
    chosen = rng.choice(mesh.n, 200, replace=False)
    fixed[chosen] = rng.integers(0, 6, chosen.size)
    part = partkit.partition(mesh, 6, method, fixed=fixed, seed=1)
    assert np.array_equal(part[chosen], fixed[chosen])
    assert np.bincount(part).max() <= np.floor(1.03 * mesh.n / 6)
    forced = partkit.partition(mesh, 6, method, seed=1)
    forced[chosen] = fixed[chosen]  # the fixed vertices forced into a free partition: our cut is lower
    assert edge_cut(mesh, part) < edge_cut(mesh, forced)


def test_contiguous_parts_on_a_connected_mesh(mesh):
    shuffled = np.random.default_rng(1).permutation(mesh.n)
    scrambled = mesh.subgraph(shuffled)  # block partitions of it are scattered
    assert disconnected_parts(scrambled, partkit.partition(scrambled, 8, "block"), 8) > 0
    part = partkit.partition(scrambled, 8, "block", contiguous=True)
    assert disconnected_parts(scrambled, part, 8) == 0 and np.bincount(part, minlength=8).min() > 0
    part = partkit.partition(mesh, 16, contiguous=True, seed=4)
    assert disconnected_parts(mesh, part, 16) == 0
    assert np.bincount(part).max() <= np.floor(1.03 * mesh.n / 16)


def test_contiguity_pass_joins_the_pieces_of_a_random_partition():
    g = grid2d(12, 12)
    part = np.random.default_rng(2).integers(0, 4, g.n)
    joined = make_contiguous(g, part, np.full((4, 1), g.n), np.ones(g.n, dtype=bool))
    assert disconnected_parts(g, joined, 4) == 0


def test_volume_objective_lowers_the_volume(mesh):
    cut_part = partkit.partition(mesh, 16, seed=1)
    volume_part = partkit.partition(mesh, 16, seed=1, objective="volume")
    assert communication_volume(mesh, volume_part)[0] < communication_volume(mesh, cut_part)[0]
    assert np.bincount(volume_part).max() <= np.floor(1.03 * mesh.n / 16)


def test_volume_pass_leaves_no_move_that_keeps_the_volume_and_lowers_the_cut():
    """The pass ends with rounds in which a move keeping the volume must lower the cut: none is left."""
    from partkit.constraints import refine_volume
    from partkit.generators import grid3d
    from partkit.metrics import max_part_weights

    g = grid3d(12, 10, 8)
    k = 4
    maxw = max_part_weights(g, k, 0.03)
    part = refine_volume(g, partkit.partition(g, k, seed=0), maxw, np.ones(g.n, dtype=bool))
    volume, cut = communication_volume(g, part, k)[0], edge_cut(g, part)
    weights = part_weights(g, part, k)
    for v in range(g.n):
        for b in set(part[g.adjncy[g.xadj[v]:g.xadj[v + 1]]].tolist()) - {part[v]}:
            if weights[b, 0] + g.vwgt[v, 0] > maxw[b, 0]:
                continue
            moved = part.copy()
            moved[v] = b
            if communication_volume(g, moved, k)[0] == volume:
                assert edge_cut(g, moved) >= cut, (v, b)


@pytest.mark.parametrize("name, k", [("4elt.graph", 8), ("4elt.graph", 64), ("rgg_n_2_15_s0.graph", 8)])
def test_volume_objective_against_metis_objtype_vol(data_dir, name, k):
    pymetis = pytest.importorskip("pymetis")
    from partkit.io import read_graph

    g = read_graph(data_dir / name)
    options = pymetis.Options(ufactor=30, seed=1, objtype=1)  # METIS_OBJTYPE_VOL
    _, metis = pymetis.part_graph(k, pymetis.CSRAdjacency(g.xadj, g.adjncy), recursive=False, options=options)
    # the mean of four seeds: one seed's volume swings by about 5 % on 4elt at k = 8 (seed 1: 564 before the
    # initial bisections were coarsened to 100 vertices, 633 after, against 566-655 over seeds 0-3)
    ours = [communication_volume(g, partkit.partition(g, k, seed=s, objective="volume"))[0] for s in range(4)]
    assert np.mean(ours) <= communication_volume(g, np.asarray(metis))[0]


def test_cli_options(tmp_path):
    path = tmp_path / "g.graph"
    g = grid2d(20, 20)
    from partkit.io import write_metis_graph

    write_metis_graph(path, g)
    fixed = np.full(g.n, -1)
    fixed[[0, 399]] = [1, 0]
    (tmp_path / "fixed").write_text("".join(f"{v}\n" for v in fixed))

    def run(*args):
        return subprocess.run([sys.executable, "-m", "partkit", "partition", str(path), *args], capture_output=True,
                              text=True, cwd=tmp_path)

    result = run("-k", "2", "--tpwgts", "0.25,0.75", "--fixed", "fixed", "--contiguous", "--objective", "volume",
                 "--json", "-o", "out")
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    part = np.loadtxt(tmp_path / "out", dtype=np.int64)
    assert report["balanced"] and report["disconnected_parts"] == 0 and part[0] == 1 and part[399] == 0
    assert 400 - 309 <= np.bincount(part)[0] <= 103  # both parts within 1.03 times their targets
    result = run("-k", "2", "--ubvec", "1.1", "--json", "-o", "out")
    assert json.loads(result.stdout)["imbalance_bound"] == pytest.approx(0.1)
    for args, message in [(("--tpwgts", "0.5,x"), "invalid list of numbers"),
                          (("--method", "fm", "--ubvec", "1.1"), "has no option 'ubvec'"),
                          (("-objtype=vol",), "long options take two dashes"),
                          (("-contig",), "long options take two dashes"),
                          (("-ocontig",), "long options take two dashes"),
                          (("--ubvec", "1.1", "--imbalance", "0.1"), "not both")]:
        result = run("-k", "2", *args)
        assert result.returncode == 2 and message in result.stderr, (args, result.stderr)
        assert not (tmp_path / "bjtype=vol").exists() and not (tmp_path / "contig").exists()
    (tmp_path / "badfixed").write_text("-2\n" + "0\n" * 399)
    result = run("-k", "2", "--fixed", "badfixed")
    assert result.returncode == 2 and "below -1" in result.stderr


def test_contiguous_with_fixed_corners(mesh):
    corners = np.array([[0, 0], [1, 0], [0, 1], [1, 1]])
    lo, hi = mesh.coords.min(axis=0), mesh.coords.max(axis=0)
    distance = np.linalg.norm((mesh.coords - lo) / (hi - lo) - corners[[3, 2, 1, 0]][:, None, :], axis=2)
    fixed = np.full(mesh.n, -1)
    for p in range(4):
        fixed[np.argsort(distance[p])[:20]] = p  # part p holds the 20 vertices nearest the opposite corner
    part = partkit.partition(mesh, 4, fixed=fixed, contiguous=True, seed=2)
    assert np.array_equal(part[fixed >= 0], fixed[fixed >= 0])
    assert disconnected_parts(mesh, part, 4) == 0 and np.bincount(part).max() <= np.floor(1.03 * mesh.n / 4)


def test_tpwgts_per_constraint():
    g = grid2d(24, 24)
    rng = np.random.default_rng(3)
    g = Graph(g.xadj, g.adjncy, vwgt=np.stack([np.ones(g.n), rng.integers(1, 4, g.n)], axis=1).astype(np.int64))
    tpwgts = [[0.5, 0.45], [0.25, 0.3], [0.25, 0.25]]  # several constraints are balanced as best it can
    _, part, report = partition_report(g, 3, tpwgts=tpwgts, imbalance=0.1, seed=1)
    bound = np.floor(1.1 * np.array(tpwgts) * g.total_vertex_weight() + 1e-9)
    assert report["balanced"] and np.all(part_weights(g, part, 3) <= bound)
    assert len(report["imbalance_per_constraint"]) == 2 and report["imbalance"] <= 0.1
    with pytest.raises(InputError, match="one constraint only"):
        pytest.importorskip("pymetis")
        partkit.partition(g, 3, "metis", tpwgts=tpwgts)


def _two_regions(nx=40, ny=40):
    """A grid whose second constraint weighs 1 on the left 40 % of the columns and 6 on the rest: the
    left strip holds 40 % of constraint 0 and 10 % of constraint 1."""
    g = grid2d(nx, ny)
    light = g.coords[:, 0] < 0.4 * nx
    vwgt = np.stack([np.ones(g.n), np.where(light, 1, 6)], axis=1).astype(np.int64)
    return Graph(g.xadj, g.adjncy, vwgt=vwgt, coords=g.coords, name="two-regions")


def test_tpwgts_per_constraint_are_met_by_the_multilevel_engine(tmp_path):
    # issue 28, item 8: part 0 got 2.76 times its target of constraint 1 (exit 3)
    from partkit.io import write_metis_graph

    g = _two_regions()
    tpwgts = np.array([[0.4, 0.1], [0.2, 0.3], [0.2, 0.3], [0.2, 0.3]])
    columns = g.coords[:, 0]
    strips = np.where(columns < 16, 0, 1 + (columns - 16) // 8).astype(np.int64)  # a coordinate split
    bound = np.floor(1.03 * tpwgts * g.total_vertex_weight() + 1e-9)
    assert np.all(part_weights(g, strips, 4) <= bound)
    for seed in range(3):
        part = partkit.partition(g, 4, tpwgts=tpwgts, seed=seed)
        assert np.all(part_weights(g, part, 4) <= bound), seed
        assert edge_cut(g, part) <= edge_cut(g, strips), seed
    write_metis_graph(tmp_path / "g.graph", g)
    result = subprocess.run([sys.executable, "-m", "partkit", "partition", "g.graph", "-k", "4", "--tpwgts",
                             "0.4:0.1,0.2:0.3,0.2:0.3,0.2:0.3", "--json"], capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["balanced"]


@pytest.mark.parametrize("weights_seed", [0, 2])
def test_ubvec_holds_for_every_seed_with_three_constraints(weights_seed):
    # issue 28, item 9: --ubvec 1.03,1.1,1.05 left a constraint above its bound for one seed in six (here the
    # third constraint of grid 0 at 1.071 with seed 1, of grid 2 at 1.058 with seed 3): parts full on
    # different constraints had no plain move left
    g = grid2d(20, 20)
    rng = np.random.default_rng(weights_seed)
    right = g.coords[:, 0] > 9.5
    vwgt = np.stack([np.ones(g.n), rng.integers(1, 10, g.n) * right + 1, rng.exponential(5, g.n).astype(int) + 1],
                    axis=1).astype(np.int64)
    g = Graph(g.xadj, g.adjncy, vwgt=vwgt, coords=g.coords)
    ubvec = np.array([1.03, 1.1, 1.05])
    bound = np.floor(ubvec * g.total_vertex_weight() / 4 + 1e-9)
    for seed in range(6):
        _, part, report = partition_report(g, 4, ubvec=ubvec, seed=seed)
        assert report["balanced"] and np.all(part_weights(g, part, 4) <= bound), (seed, part_weights(g, part, 4))


def test_metis_refuses_several_constraints(tmp_path):
    # issue 28, item 11: pymetis reads any weight array as one constraint (constraint 1 ended at 2.47 x its bound)
    pytest.importorskip("pymetis")
    from partkit.io import write_metis_graph

    g = _two_regions(20, 20)
    with pytest.raises(InputError, match="method 'metis': pymetis gives METIS one constraint only .* has 2"):
        partkit.partition(g, 4, "metis")
    write_metis_graph(tmp_path / "g.graph", g)
    result = subprocess.run([sys.executable, "-m", "partkit", "partition", "g.graph", "-k", "4", "--method", "metis"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2 and "use method 'multilevel' for several constraints" in result.stderr


def test_imbalance_of_one_or_more_is_refused(tmp_path):
    # issue 28, item 12: imbalance 1.05 (METIS's ubvec habit) was taken as 105 % and left a part empty
    from partkit.io import write_metis_graph

    g = grid2d(20, 20)
    for value in (1.05, 1, 3.0):
        with pytest.raises(InputError, match=r"imbalance is a fraction in \[0, 1\) .* is ubvec: --ubvec"):
            partkit.partition(g, 4, imbalance=value)
    assert np.bincount(partkit.partition(g, 4, imbalance=0.05), minlength=4).min() > 0
    write_metis_graph(tmp_path / "g.graph", g)
    result = subprocess.run([sys.executable, "-m", "partkit", "partition", "g.graph", "-k", "4", "--imbalance", "1.05"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2 and "0.05 allows 5 %" in result.stderr and "--ubvec 1.05" in result.stderr


def test_contiguous_on_a_disconnected_graph_is_refused(tmp_path):
    # issue 28, item 10: --contiguous on two grids side by side dropped the balance to 1.50 with a warning
    from partkit.io import write_metis_graph

    one = grid2d(10, 10)
    edges = np.c_[one.edge_sources(), one.adjncy]
    edges = edges[edges[:, 0] < edges[:, 1]]
    two = Graph.from_edges(200, np.concatenate([edges, edges + 100]))
    with pytest.raises(InputError, match="contiguous parts need a connected graph and this one has 2 components"):
        partkit.partition(two, 3, contiguous=True)
    write_metis_graph(tmp_path / "g.graph", two)
    result = subprocess.run([sys.executable, "-m", "partkit", "partition", "g.graph", "-k", "3", "--contiguous"],
                            capture_output=True, text=True, cwd=tmp_path)
    assert result.returncode == 2 and "METIS refuses -contig" in result.stderr
