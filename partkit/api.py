"""The top-level partitioning entry point shared by the API and the CLI."""

from __future__ import annotations

import warnings

import numpy as np

from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.methods import DEFAULT_METHOD, get_method
from partkit.methods.options import check_seed, validate
from partkit.metrics import check_partition, max_part_weights, part_weights


def partition(graph, k, method=None, *, imbalance=0.03, seed=0, **options):
    """Partition ``graph`` into ``k`` parts.

    Parameters
    ----------
    graph : partkit.Graph
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
        For an invalid ``k``, ``imbalance``, ``seed``, method name or option.
    """
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
