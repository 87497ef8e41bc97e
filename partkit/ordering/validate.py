"""Input checks shared by the ordering entry points (run once, at the edge)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from partkit.errors import InputError
from partkit.graph import Graph


def as_graph(data) -> Graph:
    """A :class:`partkit.Graph` from a graph or a square scipy sparse matrix."""
    if isinstance(data, Graph):
        return data
    if sp.issparse(data):
        return Graph.from_scipy(data)
    raise InputError(f"expected a partkit.Graph or a scipy sparse matrix, got {type(data).__name__}")


def check_permutation(perm, n, what="perm") -> np.ndarray:
    """``perm`` as int64 after checking it is a permutation of ``0..n-1``."""
    arr = np.asarray(perm)
    if arr.shape != (n,) or (arr.size and arr.dtype.kind not in "iu"):
        raise InputError(f"{what} must be {n} integers, got shape {arr.shape} of {arr.dtype}")
    arr = arr.astype(np.int64)
    seen = np.zeros(n, dtype=bool)
    if n and (arr.min() < 0 or arr.max() >= n):
        raise InputError(f"{what} has an entry outside [0, {n})")
    seen[arr] = True
    if not seen.all():
        raise InputError(f"{what} is not a permutation: {int(n - seen.sum())} indices are missing")
    return arr
