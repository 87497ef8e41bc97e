"""The top-level partitioning entry point shared by the API and the CLI."""

from __future__ import annotations

import warnings
from pathlib import PurePath

import numpy as np

from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.graph import Graph
from partkit.methods import DEFAULT_METHOD, get_method
from partkit.methods.options import check_imbalance, check_seed, validate
from partkit.metrics import check_partition, part_weights, summary, weight_bounds


def partition(graph, k, method=None, *, vwgt=None, adjwgt=None, imbalance=0.03, seed=0, tpwgts=None, ubvec=None,
              fixed=None, contiguous=False, objective="cut", **options):
    """Partition ``graph`` into ``k`` parts.

    Parameters
    ----------
    graph : partkit.Graph, scipy sparse matrix or array, numpy array, networkx graph or (xadj, adjncy)
        The graph; anything but a :class:`partkit.Graph` is converted by
        :func:`as_graph`.
    k : int
        Number of parts, ``1 <= k <= graph.n`` (``k = 1`` is allowed for any n).
    method : str, optional
        A name from :data:`partkit.methods.METHODS`; default
        :data:`partkit.methods.DEFAULT_METHOD`.
    vwgt : array_like of int, shape (n,), (n * ncon,) or (n, ncon), optional
        Vertex weights as pymetis and METIS take them: one per vertex, or
        ``ncon`` per vertex flattened vertex by vertex, or one column per
        constraint. They replace the graph's own.
    adjwgt : array_like of int, shape (2 m,), optional
        Edge weights, one per adjacency entry: aligned with ``adjncy`` for
        an ``(xadj, adjncy)`` input (pymetis's ``eweights``), else with the
        adjacency of the converted graph (``as_graph(graph).adjncy``); each
        edge's two entries must agree. They replace the graph's own.
    imbalance : float, default 0.03
        Allowed imbalance ε in ``[0, 1)``: every part weighs at most
        ``(1 + ε)`` times its target, per constraint (see
        :func:`partkit.metrics.weight_bounds`). METIS's tolerance 1.05 is
        ``ubvec=[1.05]``, ε = 0.05 here.
    seed : int, default 0
        Random seed; the same seed gives the same partition.
    tpwgts : array_like of float, shape (k,) or (k, ncon), optional
        METIS ``tpwgts``: the target share of every part (per constraint),
        each column summing to 1. Default ``1 / k``. Methods ``multilevel``
        (its bisections split every constraint in its targets' proportions)
        and ``metis`` (one constraint).
    ubvec : array_like of float, shape (ncon,), optional
        METIS ``ubvec``: the allowed imbalance per constraint, ``1.05`` for
        5 %; replaces ``imbalance``. Methods ``multilevel`` and ``metis``.
    fixed : array_like of int, shape (n,), optional
        The part of every fixed vertex, -1 for a free one (a partition file
        with -1 lines, :func:`partkit.io.read_fixed`). Every fixed vertex
        ends in its part (:mod:`partkit.constraints`).
    contiguous : bool, default False
        Make every part connected, as METIS ``contig``; the graph must be
        connected (as in METIS, a graph of several components is refused).
    objective : {"cut", "volume"}
        Minimise the edge cut, or then refine for the total communication
        volume (METIS ``objtype=vol``).
    **options
        Passed to the method, after checking them against its entry in
        :data:`partkit.methods.options.OPTIONS` (name, type, range).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        Part id of every vertex.

    Warns
    -----
    InfeasibleBalanceWarning
        If the returned partition does not meet the balance bound (for
        example because one vertex is heavier than the bound).

    Raises
    ------
    InputError
        For an input that is not a graph, an invalid ``k``, ``imbalance``,
        ``seed``, method name, option, target weights or fixed parts, or
        ``contiguous`` on a disconnected graph.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> path = sp.diags([1.0, 1.0], [-1, 1], shape=(6, 6))  # a path of 6 vertices
    >>> partition(path, 2, "block").tolist()
    [0, 0, 0, 1, 1, 1]
    >>> partition(([0, 1, 3, 4], [1, 0, 2, 1]), 3, "block").tolist()  # (xadj, adjncy)
    [0, 1, 2]
    >>> np.bincount(partition(path, 2, tpwgts=[1 / 3, 2 / 3], imbalance=0.0)).tolist()
    [2, 4]

    Weights as pymetis takes them, here on the path 0 - 1 - 2 - 3 whose
    vertex 0 weighs as much as the others together:

    >>> xadj, adjncy = [0, 1, 3, 5, 6], [1, 0, 2, 1, 3, 2]
    >>> part = partition((xadj, adjncy), 2, vwgt=[3, 1, 1, 1], adjwgt=[1, 1, 4, 4, 4, 4], imbalance=0.0)
    >>> int(part[0]) != int(part[1]) == int(part[2]) == int(part[3])
    True
    """
    graph, part, problem, _ = _partition(with_weights(as_graph(graph), vwgt, adjwgt), k, method, imbalance, seed,
                                         tpwgts, ubvec, fixed, contiguous, objective, options)
    if problem is not None:
        warnings.warn(problem, InfeasibleBalanceWarning, stacklevel=2)
    return part


def partition_report(graph, k, method=None, *, imbalance=0.03, seed=0, tpwgts=None, ubvec=None, fixed=None,
                     contiguous=False, objective="cut", **options):
    """:func:`partition` and its metrics, computed once: ``(graph, part, report)``.

    ``report`` is :func:`partkit.metrics.summary` with ``balanced`` (bool),
    ``warning`` (the balance problem, or None; nothing is warned) and
    ``imbalance_bound`` (the largest ε allowed). With ``tpwgts`` the
    imbalance is measured against each part's target. ``graph`` is the
    input as a :class:`partkit.Graph`.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> _, part, report = partition_report(grid2d(4, 4), 2, "block")
    >>> report["cut"], report["balanced"]
    (4, True)
    """
    graph, part, problem, (fractions, eps) = _partition(graph, k, method, imbalance, seed, tpwgts, ubvec, fixed,
                                                        contiguous, objective, options)
    report = summary(graph, part, k)
    if fractions is not None:
        target = fractions * graph.total_vertex_weight()
        ratio = np.where(target > 0, part_weights(graph, part, k) / np.maximum(target, 1e-300), 0.0)
        per_constraint = np.maximum(ratio.max(axis=0) - 1.0, 0.0)
        report.update(imbalance=float(per_constraint.max()), imbalance_per_constraint=per_constraint.tolist())
    return graph, part, {**report, "balanced": problem is None, "warning": problem,
                         "imbalance_bound": float(np.max(eps))}


def _partition(graph, k, method, imbalance, seed, tpwgts, ubvec, fixed, contiguous, objective, options):
    """``(graph, part, balance problem or None, (tpwgts, ε))`` after checking every argument once."""
    from partkit.constraints import constrain, contract_fixed, rank
    from partkit.multilevel.kernels.initial_packing import EVERY_EDGE, component_labels

    graph = as_graph(graph)
    method = method or DEFAULT_METHOD
    k = _check_k(graph, k)
    imbalance = check_imbalance(imbalance)
    seed = check_seed(seed)
    function = get_method(method)
    options.update({name: value for name, value in (("tpwgts", tpwgts), ("ubvec", ubvec)) if value is not None})
    options = validate(method, options)  # the method's table says whether it takes tpwgts and ubvec
    fractions = check_tpwgts(graph, k, options.get("tpwgts"))
    ubvec = None if options.get("ubvec") is None else check_ubvec(graph, options["ubvec"])
    eps = imbalance if ubvec is None else ubvec - 1.0
    options.update({name: value for name, value in (("tpwgts", fractions), ("ubvec", ubvec)) if value is not None})
    fixed = check_fixed(graph, k, fixed)
    if not isinstance(contiguous, (bool, np.bool_)):
        raise InputError(f"contiguous must be true or false, got {contiguous!r}")
    if contiguous and k > 1 and (ncomp := component_labels(graph.xadj, graph.adjncy, EVERY_EDGE)[0]) > 1:
        raise InputError(f"{graph.name}: contiguous parts need a connected graph and this one has {ncomp} "
                         "components (METIS refuses -contig on it too); partition without contiguous, or each "
                         "component apart")
    if objective not in OBJECTIVES:
        raise InputError(f"objective must be one of {', '.join(OBJECTIVES)}, got {objective!r}")
    bound = weight_bounds(graph.total_vertex_weight(), np.full(k, 1.0 / k) if fractions is None else fractions, eps)
    # with target weights, a part may also not fall below its target / (1 + ε)
    lower = None if fractions is None else \
        np.floor(fractions * graph.total_vertex_weight() / (1.0 + np.asarray(eps)) + 1e-9).astype(np.int64)
    if k == 1:
        part = np.zeros(graph.n, dtype=np.int64)
    else:
        # with fixed vertices, the method also partitions the graph with each part's fixed vertices merged
        inputs = [(graph, np.arange(graph.n))]
        if fixed is not None and k <= np.count_nonzero(fixed < 0) + np.unique(fixed[fixed >= 0]).size:
            inputs.append(contract_fixed(graph, fixed))
        candidates = []
        for g, cmap in inputs:
            part = check_partition(g, function(g, k, imbalance=imbalance, seed=seed, **options), k)[cmap]
            candidates.append(constrain(graph, part, bound, fixed=fixed, contiguous=bool(contiguous),
                                        objective=objective, lower=lower))
        part = candidates[0] if len(candidates) == 1 else \
            min(candidates, key=lambda candidate: rank(graph, candidate, bound, objective))
    return graph, part, balance_problem(graph, part, bound, method), (fractions, eps)


#: The objectives of :func:`partition`.
OBJECTIVES = ("cut", "volume")


def with_weights(graph, vwgt=None, adjwgt=None):
    """``graph`` with the vertex weights ``vwgt`` and edge weights ``adjwgt`` of :func:`partition` (None keeps its own).

    Raises
    ------
    InputError
        When ``vwgt`` has neither n, n * ncon nor (n, ncon) entries, or
        ``adjwgt`` not one per adjacency entry, or either is not made of
        non-negative integers (or the edge weights are not symmetric).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> with_weights(grid2d(2, 2), vwgt=[1, 5, 1, 5, 1, 5, 1, 5]).vwgt.tolist()
    [[1, 5], [1, 5], [1, 5], [1, 5]]
    >>> with_weights(grid2d(2, 2), adjwgt=[1, 2, 3])
    Traceback (most recent call last):
    ...
    partkit.errors.InputError: grid2x2: adjwgt has 3 entries for 8 adjacency entries: give one weight per entry of adjncy (each edge twice, as pymetis's eweights)
    """
    if vwgt is None and adjwgt is None:
        return graph
    if vwgt is not None:
        shape = np.shape(vwgt)
        flat = len(shape) == 1 and shape[0] > 0 and graph.n > 0 and shape[0] % graph.n == 0
        if not flat and not (len(shape) == 2 and shape[0] == graph.n and shape[1] > 0):
            raise InputError(f"{graph.name}: vwgt has shape {shape} for {graph.n} vertices: give n weights, "
                             "n * ncon (ncon per vertex, vertex by vertex, as METIS) or an (n, ncon) array")
    if adjwgt is not None and np.size(adjwgt) != graph.adjncy.size:
        raise InputError(f"{graph.name}: adjwgt has {np.size(adjwgt)} entries for {graph.adjncy.size} adjacency "
                         "entries: give one weight per entry of adjncy (each edge twice, as pymetis's eweights)")
    return Graph(graph.xadj, graph.adjncy, vwgt=graph.vwgt if vwgt is None else vwgt,
                 adjwgt=graph.adjwgt if adjwgt is None else np.ravel(adjwgt), coords=graph.coords, vsize=graph.vsize,
                 name=graph.name)


def check_tpwgts(graph, k, tpwgts):
    """``tpwgts`` as a (k, ncon) float array whose columns sum to 1 (None stays None).

    Raises
    ------
    InputError
        Unless it has k rows (and 1 or ncon columns) of non-negative
        numbers, each column summing to 1 within 0.001.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> check_tpwgts(grid2d(2, 2), 2, [0.25, 0.75]).tolist()
    [[0.25], [0.75]]
    """
    if tpwgts is None:
        return None
    array = np.asarray(tpwgts, dtype=np.float64)
    array = array.reshape(-1, 1) if array.ndim == 1 else array
    if array.ndim != 2 or array.shape[0] != k or array.shape[1] not in (1, graph.ncon):
        raise InputError(f"tpwgts must have k={k} rows of 1 or ncon={graph.ncon} fractions, got shape "
                         f"{np.shape(tpwgts)}")
    if array.min() < 0:
        raise InputError("tpwgts must be non-negative")
    sums = array.sum(axis=0)
    if np.any(np.abs(sums - 1.0) > 1e-3):
        raise InputError(f"tpwgts must sum to 1 (per constraint), got {sums.round(6).tolist()}")
    return np.ascontiguousarray(np.broadcast_to(array / sums, (k, graph.ncon)))


def check_ubvec(graph, ubvec):
    """``ubvec`` as an (ncon,) float array of tolerances in [1, 11), else InputError.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> check_ubvec(grid2d(2, 2), [1.05]).tolist()
    [1.05]
    """
    array = np.asarray(ubvec, dtype=np.float64).ravel()
    if array.size != graph.ncon:
        raise InputError(f"ubvec must have ncon={graph.ncon} values, got {array.size}")
    if np.any(array < 1) or np.any(array >= 11):
        raise InputError(f"ubvec values are tolerances in [1, 11) (1.05 allows 5%), got {array.tolist()}")
    return array


def check_fixed(graph, k, fixed):
    """``fixed`` as an int64 array of n part ids in [-1, k) (-1: free), or None.

    Raises
    ------
    InputError
        For a wrong length, a non-integer entry or an id outside [-1, k).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> check_fixed(grid2d(2, 2), 2, [-1, 1, 0, -1]).tolist()
    [-1, 1, 0, -1]
    """
    if fixed is None:
        return None
    array = np.asarray(fixed)
    if array.ndim != 1 or array.size != graph.n:
        raise InputError(f"{graph.name}: fixed has {array.size} entries for {graph.n} vertices")
    if array.size and (array.dtype.kind not in "iu" and not (array.dtype.kind == "f" and np.all(array == np.round(array)))):
        raise InputError(f"{graph.name}: fixed parts must be integers (-1 for a free vertex)")
    array = array.astype(np.int64)
    if array.size and (array.min() < -1 or array.max() >= k):
        bad = array[(array < -1) | (array >= k)][0]
        raise InputError(f"{graph.name}: fixed part {bad} is outside [-1, {k})")
    return array


def as_graph(data) -> Graph:
    """``data`` as a :class:`partkit.Graph`.

    Accepted: a Graph (returned as it is); a scipy sparse matrix or array
    or a square numpy array (the pattern of ``A + A^T`` without the
    diagonal, unit edge weights: :meth:`Graph.from_scipy`); a networkx
    graph (edge attribute ``weight``: :meth:`Graph.from_networkx`); a pair
    ``(xadj, adjncy)`` of 0-based CSR arrays (checked like a METIS graph).

    Raises
    ------
    InputError
        For anything else, or when the conversion finds the data malformed.

    Examples
    --------
    >>> import networkx as nx
    >>> as_graph(nx.cycle_graph(5))
    Graph(name='networkx graph', n=5, m=5, ncon=1)
    >>> as_graph("4elt.graph")
    Traceback (most recent call last):
    ...
    partkit.errors.InputError: cannot partition a str: give a partkit.Graph, a scipy sparse matrix, a square numpy array, a networkx graph or an (xadj, adjncy) pair (read files with partkit.io.read_graph)
    """
    if isinstance(data, Graph):
        return data
    try:
        if type(data).__module__.split(".")[0] == "scipy":  # scipy is imported only for its own objects
            import scipy.sparse as sp
            if sp.issparse(data):
                return Graph.from_scipy(data)
        if isinstance(data, np.ndarray) and data.ndim == 2:
            return Graph.from_scipy(data, name="array")
        if type(data).__module__.split(".")[0] == "networkx":
            return Graph.from_networkx(data)
        if isinstance(data, (tuple, list)) and len(data) == 2:
            return Graph(data[0], data[1], name="(xadj, adjncy)")
    except InputError:
        raise
    except (TypeError, ValueError, AttributeError, KeyError) as exc:
        raise InputError(f"cannot convert the {type(data).__name__} to a graph: {exc}") from None
    hint = " (read files with partkit.io.read_graph)" if isinstance(data, (str, PurePath)) else ""
    raise InputError(f"cannot partition a {type(data).__name__}: give a partkit.Graph, a scipy sparse matrix, "
                     f"a square numpy array, a networkx graph or an (xadj, adjncy) pair{hint}")


def _check_k(graph, k):
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise InputError(f"k must be an integer, got {k!r}")
    k = int(k)
    if k < 1:
        raise InputError(f"k must be at least 1, got {k}")
    if k > max(graph.n, 1):
        raise InputError(f"{graph.name}: k={k} exceeds the number of vertices n={graph.n}")
    return k


def balance_problem(graph, part, bound, method="partition"):
    """Why ``part`` exceeds ``bound`` (k, ncon), or None when every part is within it.

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> balance_problem(grid2d(2, 2), np.array([0, 0, 0, 1]), np.array([[2], [2]]), "block")
    'grid2x2: block partition exceeds the balance bound (part 0 weighs [3] > [2]): the method could not meet the bound'
    """
    weights = part_weights(graph, part, bound.shape[0])
    if np.all(weights <= bound):
        return None
    if graph.n and np.any(graph.vwgt.max(axis=0) > bound.max(axis=0)):
        reason = "a single vertex is heavier than the balance bound allows"
    else:
        reason = "the method could not meet the bound"
    over = int(np.argmax((weights / np.maximum(bound, 1)).max(axis=1)))
    return (f"{graph.name}: {method} partition exceeds the balance bound (part {over} weighs "
            f"{weights[over].tolist()} > {bound[over].tolist()}): {reason}")
