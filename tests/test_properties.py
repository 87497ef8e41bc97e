"""Property tests: the guarantees every method gives, on small hostile graphs."""

import importlib.util
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import partkit
from partkit import Graph, InfeasibleBalanceWarning, InputError
from partkit.methods import METHODS
from partkit.metrics import is_balanced, max_part_weights, part_weights

OPTIONAL = {"metis": "pymetis"}
AVAILABLE = [name for name in METHODS
             if name not in OPTIONAL or importlib.util.find_spec(OPTIONAL[name]) is not None]
#: Wrappers of other tools: partkit only guarantees that their imbalance is reported.
EXTERNAL = {"metis"}
OWN = [name for name in AVAILABLE if name not in EXTERNAL]

PROPERTY_SETTINGS = settings(max_examples=30, deadline=None, derandomize=True,
                             suppress_health_check=[HealthCheck.too_slow])


def with_coords(n, edges, vwgt=None, seed=0):
    coords = np.random.default_rng(seed).random((n, 2))
    return Graph.from_edges(n, np.asarray(edges, dtype=np.int64).reshape(-1, 2), vwgt=vwgt, coords=coords,
                            name="generated")


@st.composite
def graphs(draw):
    """Random graphs plus the special families: isolated vertices, stars, cliques, components."""
    family = draw(st.sampled_from(["random", "star", "complete", "components", "isolated"]))
    n = draw(st.integers(1, 40))
    if family == "random":
        pairs = draw(st.lists(st.tuples(st.integers(0, n - 1), st.integers(0, n - 1)), max_size=4 * n))
        edges = [(u, v) for u, v in pairs if u != v]
    elif family == "star":
        edges = [(0, v) for v in range(1, n)]
    elif family == "complete":
        n = min(n, 12)
        edges = [(u, v) for u in range(n) for v in range(u + 1, n)]
    elif family == "components":
        size = draw(st.integers(1, 6))
        edges = [(v, v + 1) for v in range(n - 1) if (v + 1) % size]
    else:
        edges = []
    return with_coords(n, edges, seed=draw(st.integers(0, 3)))


@pytest.mark.parametrize("method", OWN)
@PROPERTY_SETTINGS
@given(graph=graphs(), data=st.data())
def test_every_method_gives_valid_balanced_deterministic_partitions(method, graph, data):
    k = data.draw(st.integers(1, graph.n), label="k")
    seed = data.draw(st.integers(0, 2**16), label="seed")
    with warnings.catch_warnings():
        warnings.simplefilter("error", InfeasibleBalanceWarning)
        part = partkit.partition(graph, k, method, seed=seed)  # unit weights: always feasible
    assert part.shape == (graph.n,) and part.dtype == np.int64
    assert part.min() >= 0 and part.max() < k
    assert is_balanced(graph, part, k, 0.03)
    again = partkit.partition(graph, k, method, seed=seed)
    assert np.array_equal(part, again)


@pytest.mark.parametrize("method", sorted(EXTERNAL.intersection(AVAILABLE)))
@PROPERTY_SETTINGS
@given(graph=graphs(), data=st.data())
def test_external_tools_never_return_silent_imbalance(method, graph, data):
    k = data.draw(st.integers(1, graph.n), label="k")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", InfeasibleBalanceWarning)
        part = partkit.partition(graph, k, method)
    assert part.min() >= 0 and part.max() < k
    warned = any(issubclass(w.category, InfeasibleBalanceWarning) for w in caught)
    assert warned != is_balanced(graph, part, k, 0.03)


@pytest.mark.parametrize("method", AVAILABLE)
def test_k_larger_than_n_is_refused(method):
    graph = with_coords(3, [(0, 1), (1, 2)])
    with pytest.raises(InputError, match="exceeds the number of vertices"):
        partkit.partition(graph, 4, method)


@pytest.mark.parametrize("method", OWN)
def test_empty_graph_and_k_equals_n(method):
    empty = Graph(np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int64), name="empty")
    assert partkit.partition(empty, 1, method).size == 0
    graph = with_coords(6, [(0, 1), (1, 2), (3, 4)])
    part = partkit.partition(graph, 6, method)
    assert sorted(part.tolist()) == list(range(6))


@pytest.mark.parametrize("method", AVAILABLE)
def test_vertex_heavier_than_the_bound_warns(method):
    n = 30
    vwgt = np.ones(n, dtype=np.int64)
    vwgt[7] = 40  # bound for k=2 is floor(1.03 * 69 / 2) = 35 < 40
    graph = with_coords(n, [(v, v + 1) for v in range(n - 1)], vwgt=vwgt)
    with pytest.warns(InfeasibleBalanceWarning, match="single vertex is heavier"):
        part = partkit.partition(graph, 2, method)
    assert part.max() < 2


def test_default_method_isolates_a_too_heavy_vertex():
    """The best possible partition: the heavy vertex alone, the rest balanced around it."""
    n = 40
    vwgt = np.ones(n, dtype=np.int64)
    vwgt[5] = 30  # total 69, k=3: bound floor(1.03 * 23) = 23 < 30
    graph = with_coords(n, [(v, v + 1) for v in range(n - 1)], vwgt=vwgt)
    with pytest.warns(InfeasibleBalanceWarning):
        part = partkit.partition(graph, 3)
    weights = part_weights(graph, part, 3)[:, 0]
    assert weights.max() == 30
    assert np.sort(weights)[:2].max() <= max_part_weights(graph, 3, 0.03)[0, 0]


@pytest.mark.parametrize("method", AVAILABLE)
def test_weighted_and_multi_constraint_inputs_are_accepted(method):
    rng = np.random.default_rng(5)
    n = 60
    edges = [(v, v + 1) for v in range(n - 1)] + [(v, v + 10) for v in range(n - 10)]
    graph = with_coords(n, edges, vwgt=rng.integers(1, 4, size=(n, 2)))
    if method == "metis":  # pymetis hands METIS one constraint: refused rather than balanced on the wrong weights
        with pytest.raises(partkit.InputError, match="one constraint"):
            partkit.partition(graph, 4, method)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfeasibleBalanceWarning)
        part = partkit.partition(graph, 4, method)
    assert part.shape == (n,) and part.max() < 4
