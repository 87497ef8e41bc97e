"""The staged multilevel engine: presets as data, randomness, exact balance, disconnected inputs."""

import dataclasses

import numpy as np
import pytest

from partkit._random import derive, integers, permutation
from partkit.errors import InputError
from partkit.generators import delaunay, grid2d, grid3d
from partkit.graph import Graph
from partkit.metrics import edge_cut, max_part_weights, part_weights
from partkit.multilevel import partition, run
from partkit.multilevel.context import PRESET_OVERRIDES, Context, preset
from partkit.multilevel.kernels.refinement_balance import balance_along_paths
from partkit.multilevel.objectives import CUT
from partkit.multilevel.refinement import balance, rebalance


# ------------------------------------------------------------ presets
@pytest.mark.parametrize("name", ["fast", "default", "strong"])
def test_presets_are_the_default_with_their_overrides(name):
    ctx, default = preset(name), Context()
    for stage in ("coarsening", "initial", "refinement"):
        for field in dataclasses.fields(getattr(default, stage)):
            key = f"{stage}.{field.name}"
            expected = PRESET_OVERRIDES[name].get(key, getattr(getattr(default, stage), field.name))
            assert getattr(getattr(ctx, stage), field.name) == expected, key
    assert (ctx.runs, ctx.vcycles) == (PRESET_OVERRIDES[name].get("runs", 1), PRESET_OVERRIDES[name].get("vcycles", 0))


def test_contexts_are_frozen_and_checked():
    ctx = preset("default")
    with pytest.raises(dataclasses.FrozenInstanceError):
        ctx.refinement.fm_passes = 9
    with pytest.raises(InputError, match="unknown parameter"):
        preset("default", refinement__fm_pases=2)
    with pytest.raises(InputError, match="unknown refinement"):
        preset("default", refinement__algorithms=("lp", "jet"))
    with pytest.raises(InputError, match="preset"):
        preset("ultra")


def test_refinement_algorithms_are_the_contexts_list():
    g = delaunay(4000, seed=3)
    maxw = max_part_weights(g, 8, 0.03)
    cuts = {}
    for algorithms in (("balance",), ("balance", "lp"), ("balance", "lp", "fm")):
        ctx = preset("default", refinement__algorithms=algorithms)
        part = run(g, 8, maxw, 0.03, ctx, seed=0)
        assert np.all(part_weights(g, part, 8) <= maxw)
        cuts[algorithms] = edge_cut(g, part)
    assert cuts[("balance", "lp", "fm")] <= cuts[("balance", "lp")] < cuts[("balance",)]


def test_bisections_use_their_own_list_with_two_way_fm():
    from partkit.generators import grid3d
    g = grid3d(16, 16, 16)
    maxw = max_part_weights(g, 2, 0.03)
    default = run(g, 2, maxw, 0.03, preset("default"), seed=0)
    assert edge_cut(g, default) == 256  # the mid plane
    # the k-way list does not apply to k = 2
    kway_changed = run(g, 2, maxw, 0.03, preset("default", refinement__algorithms=("balance",)), seed=0)
    assert np.array_equal(default, kway_changed)
    without_fm = run(g, 2, maxw, 0.03, preset("default", refinement__bisection_algorithms=("balance",)), seed=0)
    assert np.all(part_weights(g, without_fm, 2) <= maxw)
    assert edge_cut(g, without_fm) > 256
    with pytest.raises(InputError, match="unknown refinement"):
        preset("default", refinement__bisection_algorithms=("fm", "jet"))


# ------------------------------------------------------------ randomness
def test_streams_are_pure_functions_of_seed_and_labels():
    key = derive(7, "coarsen", 3)
    assert key == derive(7, "coarsen", 3) and 0 <= key < 2**63
    assert len({derive(7, "coarsen", i) for i in range(100)}) == 100
    assert derive(7, "a") != derive(8, "a") and derive(-1) != derive(2**64 - 1 + 2)
    p = permutation(1000, key)
    assert np.array_equal(np.sort(p), np.arange(1000)) and np.array_equal(p, permutation(1000, key))
    # uniformity: where element 0 lands over many streams, and the draws below m
    positions = np.array([np.flatnonzero(permutation(10, derive(1, i)) == 0)[0] for i in range(5000)])
    assert np.bincount(positions, minlength=10).min() > 400
    assert np.abs(np.bincount(integers(key, 7, 70000)) - 10000).max() < 400


@pytest.mark.parametrize("name", ["fast", "default", "strong"])
def test_same_seed_same_partition(name):
    g = delaunay(3000, seed=1)
    a = partition(g, 7, seed=11, preset=name)
    assert np.array_equal(a, partition(g, 7, seed=11, preset=name))
    assert not np.array_equal(a, partition(g, 7, seed=12, preset=name))


# ------------------------------------------------------------ exact balance
@pytest.mark.parametrize("graph,k", [(grid2d(37, 23), 7), (delaunay(5000, seed=2), 64), (delaunay(3001, seed=5), 2)])
def test_zero_imbalance_gives_parts_of_floor_or_ceil_size(graph, k):
    part = partition(graph, k, imbalance=0.0, seed=0)
    sizes = np.bincount(part, minlength=k)
    assert sizes.max() == -(-graph.n // k) and sizes.min() == graph.n // k
    # exact balance costs little cut against 3%
    assert edge_cut(graph, part) <= 1.15 * edge_cut(graph, partition(graph, k, imbalance=0.03, seed=0)) + 5


@pytest.mark.parametrize("k,bound", [(2, 700), (8, 2500)])
def test_zero_imbalance_on_a_grid_is_worked_at_the_working_imbalance(k, bound):
    # at the final bound every part is full and the k-way moves find almost none: worked at ε = 0 throughout,
    # the 24^3 grid cut 880.5 (k = 2, the optimum is the plane, 576) and 2919 (k = 8) over seeds 0-3
    g = grid3d(24, 24, 24)
    cuts = []
    for seed in range(4):
        part = partition(g, k, imbalance=0.0, seed=seed)
        assert np.all(np.bincount(part, minlength=k) == g.n // k)
        cuts.append(edge_cut(g, part))
    assert np.mean(cuts) < bound


def test_working_imbalance_zero_works_at_the_final_bound():
    g = delaunay(3000, seed=1)
    ctx = dataclasses.replace(preset(), working_imbalance=0.0)
    maxw = max_part_weights(g, 4, 0.0)
    part = run(g, 4, maxw, 0.0, ctx, 0)
    assert np.all(part_weights(g, part, 4) <= maxw)
    assert not np.array_equal(part, partition(g, 4, imbalance=0.0, seed=0))  # the default works at 0.003


def test_path_balancer_moves_weight_through_a_full_part():
    g = grid2d(10, 30)  # rows of 10; three horizontal bands of parts 0 | 1 | 2
    part = np.repeat(np.array([0, 1, 2]), [105, 100, 95]).astype(np.int64)
    maxw = np.full((3, 1), 100, dtype=np.int64)
    before = edge_cut(g, part)
    args = (g.xadj, g.adjncy, g.adjwgt, g.vwgt)
    stuck = part.copy()
    assert not rebalance(g, stuck, part_weights(g, stuck, 3), maxw, 20, False)  # part 1 is full
    pw = part_weights(g, part, 3)
    assert balance_along_paths(*args, part, pw, maxw, CUT.code, CUT.data, 50)
    assert np.array_equal(pw, part_weights(g, part, 3)) and np.all(pw <= maxw)
    # five vertices cross two boundaries: far moves from part 0 to part 2 would cut about 20 more edges
    assert edge_cut(g, part) <= before + 10


def test_balance_without_paths_leaves_what_adjacent_moves_cannot_place():
    g = grid2d(10, 30)  # as above: part 1, between the overloaded part 0 and part 2, is full
    part = np.repeat(np.array([0, 1, 2]), [105, 100, 95]).astype(np.int64)
    maxw = np.full((3, 1), 100, dtype=np.int64)
    ctx = preset("default").refinement
    pw = part_weights(g, part, 3)
    assert not balance(g, part, pw, maxw, ctx, paths=False)
    assert pw[0, 0] == 105 and np.array_equal(pw, part_weights(g, part, 3))
    assert balance(g, part, pw, maxw, ctx) and np.all(part_weights(g, part, 3) <= maxw)


@pytest.mark.parametrize("k", [16, 64])
def test_path_balancer_reaches_exact_balance_from_a_skewed_partition(k):
    # a good partition whose parts then grew into their neighbours unevenly: many overloaded parts, many
    # paths per round through parts that earlier paths changed (their candidate lists must follow)
    # (seed 3: from the partition of seed 2 since bisection_coarsest = 100, the paths alone stop 78 vertices
    # short at k = 64, ε = 0; refinement.balance then finishes with moves to non-adjacent parts)
    g = delaunay(6000, seed=5)
    part = partition(g, k, imbalance=0.03, seed=3)
    rng = np.random.default_rng(0)
    src = g.edge_sources()
    grow = rng.random(k) < 0.5
    for _ in range(3):  # a few layers of foreign vertices join the growing parts
        cross = (part[src] != part[g.adjncy]) & grow[part[src]]
        part[g.adjncy[cross]] = part[src[cross]]
    maxw = max_part_weights(g, k, 0.0)
    pw = part_weights(g, part, k)
    assert (pw > maxw).sum() >= k // 8
    before = edge_cut(g, part)
    assert balance_along_paths(g.xadj, g.adjncy, g.adjwgt, g.vwgt, part, pw, maxw, CUT.code, CUT.data, 200)
    assert np.array_equal(pw, part_weights(g, part, k)) and np.all(pw <= maxw)
    assert edge_cut(g, part) <= 1.5 * before


# ------------------------------------------------------------ disconnected inputs
def _components_graph(seed):
    """Paths of 1..30 vertices (many isolated vertices among them)."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(1, 31, 3000)
    lengths[rng.random(lengths.size) < 0.3] = 1
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    edges = [(s + i, s + i + 1) for s, length in zip(starts, lengths) for i in range(length - 1)]
    return Graph.from_edges(int(lengths.sum()), np.array(edges, dtype=np.int64), name="components")


@pytest.mark.parametrize("k,eps", [(64, 0.03), (256, 0.03), (8, 0.0)])
def test_small_components_are_packed_without_cut(k, eps):
    g = _components_graph(0)
    part = partition(g, k, imbalance=eps, seed=0)
    assert edge_cut(g, part) == 0
    assert np.all(part_weights(g, part, k) <= max_part_weights(g, k, eps))


def test_big_and_small_components_and_isolated_vertices():
    mesh = delaunay(4000, seed=9)
    small = _components_graph(1)
    g = Graph(np.concatenate([mesh.xadj, small.xadj[1:] + mesh.xadj[-1]]),
              np.concatenate([mesh.adjncy, small.adjncy + mesh.n]), name="mixed")
    k = 16
    part = partition(g, k, imbalance=0.03, seed=0)
    assert np.all(part_weights(g, part, k) <= max_part_weights(g, k, 0.03))
    # only the mesh is cut, and the small pieces fill around it: its own partition could not
    # leave room for them, so the mixed graph's cut is at most the mesh's cut at 3%
    mesh_only = partition(mesh, k, imbalance=0.03, seed=0)
    assert edge_cut(g, part) <= edge_cut(mesh, mesh_only)
    # every cut edge is a mesh edge: no small component is split
    assert edge_cut(g, part) == edge_cut(mesh, part[:mesh.n])


def test_stray_vertices_beside_one_component_are_left_to_the_whole_graph_unless_eps_is_tight():
    from partkit.multilevel.components import partition_by_components
    from partkit.multilevel.kernels.initial_packing import EVERY_EDGE, component_labels

    mesh = delaunay(4000, seed=3)
    g = Graph(np.concatenate([mesh.xadj, np.full(5, mesh.xadj[-1])]), mesh.adjncy, name="mesh+5")
    ncomp, labels = component_labels(g.xadj, g.adjncy, EVERY_EDGE)
    k = 8
    calls = []

    def core(sub, ids, eps):
        assert np.array_equal(ids, np.arange(mesh.n))
        calls.append(eps)
        return partition(sub, k, imbalance=eps, seed=0)

    # 5 of 4005 vertices: less room than a tenth of 3%, so the whole graph is partitioned
    assert partition_by_components(g, max_part_weights(g, k, 0.03), labels, ncomp, core, 0.03) is None
    assert calls == []
    # at ε = 0 the stray vertices are the only room there is: the mesh is partitioned around them
    part = partition_by_components(g, max_part_weights(g, k, 0.0), labels, ncomp, core, 0.0)
    assert len(calls) == 1 and calls[0] > 0
    assert np.all(part_weights(g, part, k) <= max_part_weights(g, k, 0.0))


def test_core_of_a_tight_partition_reuses_the_first_hierarchy(monkeypatch):
    import partkit.multilevel as engine
    from partkit.multilevel.coarsening import coarsen
    from partkit.multilevel.context import CoarseningContext

    mesh = delaunay(4000, seed=3)
    pairs = np.array([[mesh.n + 2 * i, mesh.n + 2 * i + 1] for i in range(3)])
    g = Graph.from_edges(mesh.n + 6, np.concatenate([mesh.edge_sources()[:, None], mesh.adjncy[:, None]], 1).tolist()
                         + pairs.tolist(), name="mesh+3 pairs")
    # the hierarchy restricted to the mesh is a hierarchy of the mesh ...
    h = coarsen(g, CoarseningContext(), 300, key=1)
    core = h.restricted(np.arange(mesh.n))
    assert np.array_equal(core.levels[0][0].xadj, mesh.xadj) and np.array_equal(core.levels[0][0].adjncy, mesh.adjncy)
    for (fine, cmap), coarse in zip(core.levels, [lv[0] for lv in core.levels[1:]] + [core.coarsest]):
        assert cmap.size == fine.n and np.array_equal(np.bincount(cmap, minlength=coarse.n) > 0, np.ones(coarse.n, bool))
        assert np.array_equal(np.bincount(cmap, weights=fine.vwgt[:, 0], minlength=coarse.n), coarse.vwgt[:, 0])
    assert int(core.coarsest.total_vertex_weight()[0]) == mesh.n
    # ... and a set that splits coarse vertices has none
    assert h.restricted(np.arange(mesh.n // 2)) is None
    # at ε = 0 the mesh is partitioned around the pairs without a second coarsening
    built = []
    original = engine._hierarchy
    monkeypatch.setattr(engine, "_hierarchy", lambda *a, **kw: built.append(1) or original(*a, **kw))
    part = partition(g, 8, imbalance=0.0, seed=0)
    sizes = np.bincount(part, minlength=8)
    assert len(built) == 1 and sizes.max() == -(-g.n // 8) and sizes.min() == g.n // 8


# ------------------------------------------------------------ start-up
def test_help_loads_neither_numpy_nor_numba():
    import subprocess
    import sys

    code = ("import sys, partkit.cli; partkit.cli.build_parser(); "
            "print(sorted(m for m in ('numpy', 'numba', 'scipy') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


def test_compile_notice_reports_a_cold_compilation(monkeypatch):
    import io

    from numba import njit

    from partkit.cli import _compile

    monkeypatch.setattr(_compile, "kernels_cached", lambda family, **kernels: False)

    @njit
    def fresh(x):
        return x + 1

    stream = io.StringIO()
    with _compile.compiling("order", stream=stream) as compiled:
        assert stream.getvalue().startswith("partkit: compiling the order kernels")  # before the work
        since = compiled.clock()
        assert fresh(1) == 2
        work = compiled.work(since)
    assert compiled.cold and compiled.seconds > 0 and work < compiled.seconds
    _compile.report_compilation(compiled, stream=stream)
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and lines[1].startswith("partkit: compiled the kernels in ")
    assert lines[1].endswith(" s (once; later runs reuse them)")
    quiet = io.StringIO()
    with _compile.compiling("hypergraph", False, stream=quiet) as compiled:
        fresh(2.0)
    _compile.report_compilation(compiled, quiet=True, stream=quiet)
    assert quiet.getvalue() == "" and compiled.seconds > 0


def test_compile_notice_only_when_the_family_is_cold(monkeypatch):
    import io

    from partkit.cli import _compile

    asked = []
    monkeypatch.setattr(_compile, "kernels_cached",
                        lambda family, **kernels: asked.append((family, kernels)) or True)
    stream = io.StringIO()
    with _compile.compiling("distributed", stream=stream) as compiled:
        pass
    _compile.report_compilation(compiled, stream=stream)
    assert stream.getvalue() == "" and not compiled.cold and compiled.seconds == 0
    assert asked == [("distributed", {})]
    compiled.seconds = _compile.REPORT_SECONDS + 1  # a warm family that compiled long all the same
    assert compiled.report().startswith("partkit: compiled the kernels in 3.0 s")


def test_every_family_names_cached_kernels_that_exist():
    import importlib

    from partkit.cli import _compile

    cases = [("partition", {"file": "g.graph", "method": method, "refine": "fm", "k": 8})
             for method in _compile.METHOD_KERNELS]
    cases += [(family, {"file": name}) for family in _compile.FAMILIES
              for name in ("g.graph", "m.mtx", "e.mesh", "h.hgr")]
    for family, kernels in cases:
        pairs = _compile.family_kernels(family, **kernels)
        assert pairs, (family, kernels)
        for module, name in pairs:
            dispatcher = getattr(importlib.import_module(module), name)
            dispatcher._cache._cache_file._load_index()  # Numba's cache API as _cached reads it
        assert _compile.kernels_cached(family, **kernels) in (True, False)
    assert _compile.family_kernels("partition", method="rcb") == ()  # numpy only: nothing to announce


def test_notice_ends_an_open_progress_line(monkeypatch, capsys):
    from partkit.cli import _common
    from partkit.cli._compile import notice

    monkeypatch.setattr(_common, "_progress_open", True)
    notice("partkit: compiling the partition kernels")
    assert capsys.readouterr().err == "\r\033[Kpartkit: compiling the partition kernels\n"
    notice("again")
    assert capsys.readouterr().err == "again\n"  # the line is closed once



# ------------------------------------------------------------ kernels
def test_every_kernel_is_compiled_with_the_one_option_set():
    """Every Numba kernel of partkit comes from partkit._jit.njit (nogil, no C wrapper): library functions
    that kernels with different options call would be compiled once per option set."""
    from numba.core.registry import CPUDispatcher

    from partkit._jit import KERNEL_OPTIONS
    from tests.conftest import package_modules

    kernels, other = 0, []
    for module in package_modules():
        for name, obj in vars(module).items():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == module.__name__:
                kernels += 1
                if any(obj.targetoptions.get(key) != value for key, value in KERNEL_OPTIONS.items()):
                    other.append(f"{module.__name__}.{name}")
    assert kernels > 100 and other == []
