"""One randomness policy: the user's seed, split into counter-based streams.

Every random choice in partkit descends from the ``seed`` a user passes, as
a *stream key*: a 63-bit integer derived from the seed and a path of labels
that names the choice (``derive(seed, "coarsening", level)``). A kernel
never keeps a generator state: its ``i``-th draw is a pure function of the
key and ``i`` (:func:`draw`, the SplitMix64 finaliser of ``key + i * phi``),
so a loop whose iterations draw by their own index gives the same numbers
in any order, on any number of threads. This is the counter-based scheme
of Salmon et al., "Parallel random numbers: as easy as 1, 2, 3" (SC 2011),
with SplitMix64 (Steele, Lea, Flood 2014) as the bijection.

Examples
--------
>>> from partkit._random import derive, permutation
>>> key = derive(0, "example")
>>> p = permutation(5, key)
>>> sorted(p.tolist())
[0, 1, 2, 3, 4]
>>> bool((permutation(5, key) == p).all())
True
>>> derive(0, "example") == derive(0, "other")
False
"""

from __future__ import annotations

import hashlib

import numpy as np

from partkit._jit import njit

_PHI = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_KEY_MASK = (1 << 63) - 1


@njit(cache=True, inline="always")
def _mix(z):
    z = (z ^ (z >> np.uint64(30))) * _M1
    z = (z ^ (z >> np.uint64(27))) * _M2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, inline="always")
def draw(key, counter):
    """The ``counter``-th 64-bit draw (uint64) of stream ``key``."""
    return _mix(np.uint64(key) + (np.uint64(counter) + np.uint64(1)) * _PHI)


@njit(cache=True, inline="always")
def below(key, counter, m):
    """The ``counter``-th draw of stream ``key`` as an integer in ``[0, m)`` (m > 0).

    Lemire's multiply-shift on the top 32 bits: the bias is below
    ``m / 2**32``, far under any effect on a partition.
    """
    return np.int64(((draw(key, counter) >> np.uint64(32)) * np.uint64(m)) >> np.uint64(32))


@njit(cache=True, inline="always")
def pair_draw(key, a, b):
    """A draw of stream ``key`` for the pair ``(a, b)``, as a non-negative int64 (a tie-breaking hash)."""
    return np.int64(draw(subkey(key, a), b) >> np.uint64(1))


@njit(cache=True, inline="always")
def subkey(key, label):
    """The key of sub-stream ``label`` (an integer) of stream ``key``, in ``[0, 2**63)``."""
    return np.int64(_mix(np.uint64(key) ^ _mix(np.uint64(label) + _PHI)) >> np.uint64(1))


@njit(cache=True)
def shuffle(values, count, key):
    """Shuffle ``values[:count]`` in place with stream ``key`` (Fisher-Yates, step ``i`` uses draw ``i``)."""
    for i in range(count - 1, 0, -1):
        j = below(key, i, i + 1)
        t = values[i]
        values[i] = values[j]
        values[j] = t


@njit(cache=True)
def fill_permutation(order, key):
    """Fill ``order`` with a uniformly random permutation of ``0..n-1`` from stream ``key``."""
    n = order.size
    for i in range(n):
        order[i] = i
    for i in range(n - 1, 0, -1):  # shuffle(order, n, key), written out: one kernel fewer to compile
        j = below(key, i, i + 1)
        t = order[i]
        order[i] = order[j]
        order[j] = t


def derive(seed, *labels):
    """The stream key of ``labels`` under ``seed`` (an int or a stream key).

    The key is a BLAKE2b hash of the seed and the labels, so keys of
    different paths are independent and a key never depends on how many
    other keys were derived before it.

    Parameters
    ----------
    seed : int
        The user's seed, or a key returned by an earlier ``derive``.
    *labels : int or str
        The path of the choice below ``seed``.

    Returns
    -------
    int
        A key in ``[0, 2**63)``, accepted by every kernel as int64.
    """
    path = [int(seed)]
    for label in labels:
        path.append(label if isinstance(label, str) else int(label))
    digest = hashlib.blake2b(repr(tuple(path)).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & _KEY_MASK


class KeyStream:
    """Stream keys handed out in order: the ``i``-th :meth:`next` is ``derive(seed, i)``.

    For code whose random choices follow one sequential path (one key per
    call in program order), where naming every choice would add nothing.

    Examples
    --------
    >>> keys = KeyStream(5)
    >>> keys.next() == derive(5, 0) and keys.next() == derive(5, 1)
    True
    """

    def __init__(self, seed):
        self.seed = int(seed)
        self.count = 0

    def next(self):
        """The next key."""
        key = derive(self.seed, self.count)
        self.count += 1
        return key


def permutation(n, key):
    """A random permutation of ``0..n-1`` (int64) from stream ``key``."""
    order = np.empty(int(n), dtype=np.int64)
    fill_permutation(order, np.int64(key))
    return order


def integers(key, m, size):
    """``size`` integers in ``[0, m)`` (int64): draws ``0..size-1`` of stream ``key``."""
    out = np.empty(int(size), dtype=np.int64)
    _fill_below(out, np.int64(key), np.int64(m))
    return out


@njit(cache=True)
def _fill_below(out, key, m):
    for i in range(out.size):
        out[i] = below(key, i, m)
