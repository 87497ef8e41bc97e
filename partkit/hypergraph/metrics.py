"""Hypergraph metrics (cut-net, connectivity-1) and the exact communication of a parallel SpMV.

All metrics are vectorised (one sort of (part, column) keys); they handle
matrices with millions of nonzeros without Python loops.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from partkit.errors import InputError
from partkit.graph import entry_rows
from partkit.hypergraph.model import Hypergraph, _pattern
from partkit.metrics import check_partition, part_count


def _check_part(part, n, k, name):
    """``part`` checked as a partition of ``n`` vertices, as int64, and ``k`` (default: largest id + 1)."""
    part = check_partition(SimpleNamespace(n=n, name=name), part, k)
    top = part_count(part)
    if k is None:
        k = top
    elif top > k:  # what check_partition lets through: an empty partition with k < 1
        raise InputError(f"{name}: part id {top - 1} is not below k={k}")
    return part, int(k)


# --------------------------------------------------------------- metrics
def net_connectivity(h: Hypergraph, part, k=None) -> np.ndarray:
    """``λ_e``: the number of distinct parts among the pins of every net (0 for an empty net)."""
    part, k = _check_part(part, h.n, k, h.name)
    keys = np.unique(h.net_of_pin() * k + part[h.pins])
    return np.bincount(keys // k, minlength=h.num_nets).astype(np.int64)


def cut_nets(h: Hypergraph, part, k=None) -> int:
    """Cut-net metric: total cost of the nets that span more than one part."""
    lam = net_connectivity(h, part, k)
    return int(h.net_cost[lam > 1].sum())


def connectivity_minus_one(h: Hypergraph, part, k=None) -> int:
    """Connectivity-1 metric: ``sum_e cost_e * (λ_e - 1)`` over non-empty nets."""
    lam = net_connectivity(h, part, k)
    return int((h.net_cost * np.maximum(lam - 1, 0)).sum())


def part_volumes(h: Hypergraph, part, k=None) -> np.ndarray:
    """Words every part sends: each net's owner part sends its value to the ``λ_e - 1`` other parts.

    The owner is the part of ``h.net_owner[e]`` when the hypergraph has
    owners (a square matrix's models: ``x_j`` lives with row ``j``), else the
    part holding most of the net's pins (lowest id on ties). The sum is the
    connectivity-1 metric; the maximum is what the busiest part sends.
    Shape ``(k,)``.
    """
    part, k = _check_part(part, h.n, k, h.name)
    nets = h.net_of_pin()
    keys, counts = np.unique(nets * k + part[h.pins], return_counts=True)
    lam = np.bincount(keys // k, minlength=h.num_nets)
    if h.net_owner is not None:
        owner = part[h.net_owner]
    else:  # majority part: keys are sorted by net then part, so the first maximum is the lowest id
        order = np.lexsort((keys % k, -counts, keys // k))
        first = np.unique(keys[order] // k, return_index=True)[1]
        owner = np.zeros(h.num_nets, dtype=np.int64)
        owner[keys[order][first] // k] = keys[order][first] % k
    words = h.net_cost * np.maximum(lam - 1, 0)
    return np.bincount(owner, weights=words, minlength=k).astype(np.int64)


def summary(h: Hypergraph, part, k) -> dict:
    """The metrics of a hypergraph partition in one dictionary (JSON-serialisable).

    ``connectivity_minus_one`` (= ``volume``, the words SpMV sends),
    ``cut_nets``, ``max_volume`` (:func:`part_volumes`), ``imbalance``
    (heaviest part / average - 1) and ``empty_parts``.
    """
    part, k = _check_part(part, h.n, k, h.name)
    weights = np.bincount(part, weights=h.vwgt, minlength=k)
    total = float(weights.sum())
    lam = net_connectivity(h, part, k)
    volume = int((h.net_cost * np.maximum(lam - 1, 0)).sum())
    return {"n": h.n, "nets": h.num_nets, "pins": h.num_pins, "k": k,
            "connectivity_minus_one": volume, "cut_nets": int(h.net_cost[lam > 1].sum()),
            "imbalance": float(weights.max() * k / total - 1.0) if total > 0 else 0.0,
            "volume": volume, "max_volume": int(part_volumes(h, part, k).max(initial=0)),
            "empty_parts": int(np.count_nonzero(np.bincount(part, minlength=k) == 0))}


@dataclass(frozen=True)
class SpMVCommunication:
    """What every part sends and receives in the expand phase of ``y = A x``.

    Attributes
    ----------
    k : int
        Number of parts.
    send_words, recv_words : ndarray of int64, shape (k,)
        Words (entries of ``x``) each part sends / receives.
    send_messages, recv_messages : ndarray of int64, shape (k,)
        Messages each part sends / receives: its distinct destination /
        source parts.
    src, dst, words : ndarray of int64, shape (number of messages,)
        One entry per message, sorted by ``(src, dst)``.
    """

    k: int
    send_words: np.ndarray
    recv_words: np.ndarray
    send_messages: np.ndarray
    recv_messages: np.ndarray
    src: np.ndarray
    dst: np.ndarray
    words: np.ndarray

    @property
    def total_words(self) -> int:
        return int(self.words.sum())

    @property
    def total_messages(self) -> int:
        return int(self.words.size)

    def to_dict(self) -> dict:
        """Totals and maxima (JSON-serialisable)."""
        return {
            "total_words": self.total_words,
            "max_send_words": int(self.send_words.max(initial=0)),
            "max_recv_words": int(self.recv_words.max(initial=0)),
            "total_messages": self.total_messages,
            "max_send_messages": int(self.send_messages.max(initial=0)),
            "max_recv_messages": int(self.recv_messages.max(initial=0)),
        }


def _majority_owner(a, part, k):
    """For every column of the CSR pattern ``a``, the part holding most of its nonzeros (lowest on ties)."""
    rows = entry_rows(a.indptr)
    keys, counts = np.unique(a.indices.astype(np.int64) * k + part[rows], return_counts=True)
    cols = keys // k
    first = np.lexsort((keys % k, -counts, cols))  # by column, most nonzeros first, then lowest part
    head = first[np.r_[True, cols[first][1:] != cols[first][:-1]]]
    owner = np.zeros(a.shape[1], dtype=np.int64)
    owner[cols[head]] = keys[head] % k
    return owner


def foreign_words(a, part, x_part, k):
    """``(src, dst, col)``: every ``x_col`` part ``dst`` needs from its owner ``src``, once, by (col, dst).

    ``a`` is a CSR pattern whose row ``i`` is computed by ``part[i]``;
    several rows of one part share one word.
    """
    rows = entry_rows(a.indptr)
    cols = a.indices.astype(np.int64)
    need = part[rows]
    foreign = need != x_part[cols]
    keys = np.unique(cols[foreign] * k + need[foreign])
    col = keys // k
    return x_part[col], keys % k, col


def spmv_communication(matrix, part, k=None, *, x_part=None, name=None) -> SpMVCommunication:
    """Exact expand-phase communication of a row-parallel ``y = A x``.

    Row ``i`` is computed by part ``part[i]``; ``x_j`` is owned by
    ``x_part[j]``. Every part receives each ``x_j`` it needs and does not
    own exactly once, in one message per source part, whichever of its rows
    use it (the graph model would count it once per row).

    Parameters
    ----------
    matrix : scipy.sparse matrix or partkit.Graph
        A graph stands for ``adjacency + I`` (each vertex needs its own
        value and those of its neighbours).
    part : array_like of int, shape (nrows,)
        Row partition.
    k : int, optional
        Number of parts (default: largest id + 1).
    x_part : array_like of int, shape (ncols,), optional
        Owner of every ``x_j``. Default: ``part`` for a square matrix
        (conformal partition); for a rectangular one, the part holding most
        of column ``j``'s nonzeros (lowest id on ties, part 0 for an empty
        column), so that every ``x_j`` is sent ``λ_j - 1`` times, the
        column-net λ-1.
    name : str, optional
        Used in error messages.

    Returns
    -------
    SpMVCommunication
    """
    name = name or getattr(matrix, "name", "matrix")
    a = _pattern(matrix, False, name)
    nrows, ncols = a.shape
    if x_part is None:
        part, k = _check_part(part, nrows, k, name)
        x_part = part if nrows == ncols else _majority_owner(a, part, k)
    else:
        if k is None:
            k = max(int(np.max(part, initial=0)), int(np.max(x_part, initial=0))) + 1
        part, k = _check_part(part, nrows, k, name)
        x_part, k = _check_part(x_part, ncols, k, name)
    src, dst, _ = foreign_words(a, part, x_part, k)
    pairs, words = np.unique(src * k + dst, return_counts=True)
    msg_src, msg_dst = pairs // k, pairs % k
    return SpMVCommunication(
        k=k,
        send_words=np.bincount(src, minlength=k).astype(np.int64),
        recv_words=np.bincount(dst, minlength=k).astype(np.int64),
        send_messages=np.bincount(msg_src, minlength=k).astype(np.int64),
        recv_messages=np.bincount(msg_dst, minlength=k).astype(np.int64),
        src=msg_src.astype(np.int64), dst=msg_dst.astype(np.int64), words=words.astype(np.int64))
