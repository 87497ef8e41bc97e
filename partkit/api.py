"""The top-level partitioning entry point shared by the API and the CLI."""

from __future__ import annotations

import warnings
from pathlib import PurePath

import numpy as np
import scipy.sparse as sp

from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.graph import Graph
from partkit.methods import DEFAULT_METHOD, get_method
from partkit.methods.options import check_seed, validate
from partkit.metrics import check_partition, max_part_weights, part_weights


def partition(graph, k, method=None, *, imbalance=0.03, seed=0, **options):
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
    imbalance : float, default 0.03
        Allowed imbalance ε: every part weighs at most ``(1 + ε)`` times the
        average, per constraint (see :func:`partkit.metrics.max_part_weights`).
    seed : int, default 0
        Random seed; the same seed gives the same partition.
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
        ``seed``, method name or option.

    Examples
    --------
    >>> import scipy.sparse as sp
    >>> path = sp.diags([1, 1], [-1, 1], shape=(6, 6))  # a path of 6 vertices
    >>> partition(path, 2, "block").tolist()
    [0, 0, 0, 1, 1, 1]
    >>> partition(([0, 1, 3, 4], [1, 0, 2, 1]), 3, "block").tolist()  # (xadj, adjncy)
    [0, 1, 2]
    """
    graph = as_graph(graph)
    method = method or DEFAULT_METHOD
    k = _check_k(graph, k)
    if isinstance(imbalance, bool) or not isinstance(imbalance, (int, float, np.number)) \
            or not np.isfinite(imbalance) or not 0 <= imbalance < 10:
        raise InputError(f"imbalance must be a number in [0, 10), got {imbalance!r}")
    seed = check_seed(seed)
    function = get_method(method)
    options = validate(method, options)
    if k == 1:
        part = np.zeros(graph.n, dtype=np.int64)
    else:
        part = function(graph, k, imbalance=imbalance, seed=seed, **options)
    part = check_partition(graph, part, k)
    warn_if_unbalanced(graph, part, k, imbalance, method)
    return part


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
        if sp.issparse(data):
            return Graph.from_scipy(data)
        if isinstance(data, np.ndarray) and data.ndim == 2:
            return Graph.from_scipy(sp.csr_matrix(data), name="array")
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


def warn_if_unbalanced(graph, part, k, imbalance, method="partition"):
    """Warn with :class:`InfeasibleBalanceWarning` when a part exceeds the bound.

    Returns
    -------
    bool
        True when the partition is balanced.
    """
    weights = part_weights(graph, part, k)
    bound = max_part_weights(graph, k, imbalance)
    if np.all(weights <= bound):
        return True
    if graph.n and np.any(graph.vwgt.max(axis=0) > bound.max(axis=0)):
        reason = "a single vertex is heavier than the balance bound allows"
    else:
        reason = "the method could not meet the bound"
    warnings.warn(f"{graph.name}: {method} partition exceeds the balance bound "
                  f"(max part weight {weights.max(axis=0).tolist()} > {bound.max(axis=0).tolist()}): {reason}",
                  InfeasibleBalanceWarning, stacklevel=3)
    return False
