"""The classic partitioners: kl, fm, spectral, inertial, rcb, labelprop."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp

import partkit
from partkit import Graph, InputError
from partkit.errors import InfeasibleBalanceWarning
from partkit.generators import delaunay, grid2d
from partkit.io import read_graph
from partkit.layout import spectral_layout
from partkit.methods import METHODS
from partkit.methods.spectral import fiedler_vector, laplacian, spectral_split
from partkit.metrics import edge_cut, is_balanced, max_part_weights, part_weights

CLASSIC = ["kl", "fm", "spectral", "inertial", "rcb", "labelprop"]
GEOMETRIC = {"inertial", "rcb"}
REAL = ["4elt.graph", "bcsstk13.mtx", "rgg_n_2_15_s0.graph"]

_cache = {}


def _real(data_dir, name):
    """A real graph with spectral-layout coordinates added (the files have none)."""
    if name not in _cache:
        g = read_graph(data_dir / name)
        _cache[name] = Graph(g.xadj, g.adjncy, vwgt=g.vwgt, adjwgt=g.adjwgt,
                             coords=spectral_layout(g), name=g.name, validate=False)
    return _cache[name]


def _partition(graph, k, method, **options):
    with warnings.catch_warnings():
        warnings.simplefilter("error", InfeasibleBalanceWarning)
        return partkit.partition(graph, k, method, imbalance=0.03, seed=1, **options)


def _random_cut(graph, k):
    """Expected cut of a uniformly random k-way assignment."""
    return graph.adjwgt.sum() / 2 * (1 - 1 / k)


def test_methods_are_registered():
    assert set(CLASSIC) <= set(METHODS)


@pytest.mark.parametrize("name", REAL)
@pytest.mark.parametrize("method", CLASSIC)
def test_valid_balanced_partition_on_real_graphs(data_dir, name, method):
    g = _real(data_dir, name)
    options = {"max_vertices": g.n, "npasses": 1} if method == "kl" and g.n > 20_000 else {}
    k = 5
    part = _partition(g, k, method, **options)
    assert part.shape == (g.n,) and part.dtype == np.int64
    assert set(np.unique(part)) == set(range(k))
    assert is_balanced(g, part, k, 0.03)
    assert edge_cut(g, part) < 0.35 * _random_cut(g, k)


@pytest.mark.parametrize("method,options,factor", [
    ("fm", {}, 1.3),
    ("spectral", {"refine": "fm"}, 1.3),
    ("spectral", {"refine": "fm", "multilevel": True}, 1.3),
    ("inertial", {"refine": "fm"}, 1.5),
])
def test_quality_on_4elt_bisection(data_dir, metis_mean_cut, method, options, factor):
    # METIS's mean over seeds 0-3 is 151 (2026-12-04); fm 184, spectral + fm 142 and 151, inertial + fm 155
    g = _real(data_dir, "4elt.graph")
    part = _partition(g, 2, method, **options)
    assert edge_cut(g, part) <= factor * metis_mean_cut(g, 2, range(4))


@pytest.mark.parametrize("method", ["spectral", "inertial", "rcb", "kl"])
def test_fm_refinement_does_not_hurt(method):
    g = delaunay(3000, seed=4)  # k=2: both runs refine the same initial bisection
    plain = edge_cut(g, _partition(g, 2, method))
    refined = edge_cut(g, _partition(g, 2, method, refine="fm"))
    assert refined <= plain


@pytest.mark.parametrize("method", CLASSIC)
def test_same_seed_same_partition(method):
    g = delaunay(1200, seed=6)
    a = partkit.partition(g, 3, method, seed=5)
    b = partkit.partition(g, 3, method, seed=5)
    assert np.array_equal(a, b)


@pytest.mark.parametrize("method", CLASSIC)
def test_vertex_weights_and_two_constraints(method):
    g0 = grid2d(30, 20)
    rng = np.random.default_rng(0)
    vwgt = np.column_stack([rng.integers(1, 5, g0.n), np.ones(g0.n, dtype=np.int64)])
    g = Graph(g0.xadj, g0.adjncy, vwgt=vwgt, coords=g0.coords)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfeasibleBalanceWarning)  # the second constraint may be missed
        part = partkit.partition(g, 6, method, imbalance=0.05, seed=0)
    assert np.all(part_weights(g, part, 6)[:, 0] <= max_part_weights(g, 6, 0.05)[:, 0])


@pytest.mark.parametrize("method", ["inertial", "rcb"])
def test_geometric_methods_need_coordinates(method):
    g = Graph.from_edges(4, [[0, 1], [1, 2], [2, 3]], name="path.graph")
    with pytest.raises(InputError, match="path.graph.*coordinates"):
        partkit.partition(g, 2, method)


def test_rcb_cuts_a_grid_straight():
    g = grid2d(40, 10)  # longest extent along x
    part = _partition(g, 2, "rcb")
    assert edge_cut(g, part) == 10


def test_kl_refuses_large_graphs_unless_allowed():
    g = grid2d(30, 30)
    with pytest.raises(InputError, match="O\\(n\\^2\\).*max_vertices"):
        partkit.partition(g, 2, "kl", max_vertices=500)
    assert is_balanced(g, _partition(g, 2, "kl", max_vertices=900), 2, 0.03)


def test_kl_finds_the_optimal_grid_bisection():
    g = grid2d(16, 16)
    assert edge_cut(g, _partition(g, 2, "kl", init="random", npasses=30)) <= 20


def test_invalid_options_are_refused():
    g = grid2d(8, 8)
    with pytest.raises(InputError, match="refine"):
        partkit.partition(g, 2, "spectral", refine="kl")
    with pytest.raises(InputError, match="init"):
        partkit.partition(g, 2, "fm", init="magic")


def test_spectral_handles_disconnected_graphs():
    a, b = grid2d(10, 10), grid2d(10, 5)
    edges = np.vstack([_edges(a), _edges(b) + a.n])
    n = a.n + b.n + 3  # three isolated vertices
    g = Graph.from_edges(n, edges)
    part = spectral_split(g, 0.5, 0)
    assert abs(int((part == 0).sum()) - n / 2) <= 1
    assert edge_cut(g, part) <= 12  # only the 10x10 grid is cut, about straight across
    two = Graph.from_edges(2 * a.n, np.vstack([_edges(a), _edges(a) + a.n]))
    assert edge_cut(two, _partition(two, 2, "spectral")) == 0


def test_multilevel_fiedler_vector_is_close_to_lanczos():
    g = delaunay(6000, seed=2)
    lap = laplacian(g.to_scipy())
    exact = fiedler_vector(g, seed=0, multilevel=False)
    approx = fiedler_vector(g, seed=0, multilevel=True)

    def rayleigh(x):
        x = x - x.mean()
        return (x @ (lap @ x)) / (x @ x)

    assert rayleigh(approx) <= 1.5 * rayleigh(exact)
    assert abs(np.corrcoef(approx, exact)[0, 1]) > 0.8


def test_labelprop_respects_bound_from_lopsided_regions():
    g0 = grid2d(50, 40)
    vwgt = np.where(np.arange(g0.n) < 200, 10, 1)  # a heavy strip
    g = Graph(g0.xadj, g0.adjncy, vwgt=vwgt)
    for k in (3, 16):
        part = _partition(g, k, "labelprop")
        assert is_balanced(g, part, k, 0.03)
        assert edge_cut(g, part) < 0.2 * _random_cut(g, k)


def _edges(g):
    a = sp.triu(g.to_scipy()).tocoo()
    return np.column_stack([a.row, a.col])


def test_cli_methods_and_refine_option(tmp_path, capsys):
    import json

    from partkit.cli import main
    from partkit.io import write_coordinates, write_metis_graph

    g = delaunay(800, seed=3)
    path, xyz = tmp_path / "d.graph", tmp_path / "points.xyz"  # not d.xyz, which would be found beside d.graph
    write_metis_graph(path, g)
    write_coordinates(xyz, g.coords)
    for argv in (["--method", "spectral", "--refine", "fm"], ["--method", "kl"], ["--method", "labelprop"],
                 ["--method", "rcb", "--refine", "fm", "--coords", str(xyz)]):
        assert main(["partition", str(path), "-k", "3", "--json", "-o", str(tmp_path / "p")] + argv) == 0
        result = json.loads(capsys.readouterr().out)
        assert result["balanced"] and result["cut"] < 0.2 * g.m
    assert main(["partition", str(path), "-k", "3", "--method", "inertial", "-o", str(tmp_path / "p")]) == 2
    assert "needs vertex coordinates" in capsys.readouterr().err
    assert main(["partition", str(path), "-k", "3", "--method", "fm", "--refine", "fm"]) == 2
    assert "has no option 'refine'" in capsys.readouterr().err


@pytest.mark.parametrize("method", ["inertial", "rcb"])
def test_geometric_methods_cut_a_3d_bar_across_its_long_axis(method):
    shape = (4, 5, 24)
    index = np.arange(np.prod(shape)).reshape(shape)
    edges = np.vstack([np.column_stack([index.take(range(s - 1), axis=a).ravel(),
                                        index.take(range(1, s), axis=a).ravel()])
                       for a, s in enumerate(shape)])
    coords = np.column_stack([c.ravel() for c in np.indices(shape)]).astype(float)
    rotation = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    if method == "inertial":
        coords = coords @ rotation  # the principal axis need not be a coordinate axis
    g = Graph.from_edges(index.size, edges, coords=coords)
    part = _partition(g, 2, method)
    assert edge_cut(g, part) == 4 * 5
