"""Kernels that prepare the rows of a sparse exchange: grouping by destination, removing repeats."""

import numpy as np

from partkit._jit import njit
from partkit._random import _mix


@njit(cache=True)
def group_by_destination(destination, size):
    """``(order, counts)``: the stable order that groups rows by destination rank (a counting sort).

    ``destination`` holds ranks in ``0 .. size - 1``; ``counts[q]`` is the
    number of rows for rank ``q``.
    """
    counts = np.zeros(size, dtype=np.int64)
    for q in destination:
        counts[q] += 1
    start = np.empty(size, dtype=np.int64)
    total = 0
    for q in range(size):
        start[q] = total
        total += counts[q]
    order = np.empty(destination.size, dtype=np.int64)
    for i in range(destination.size):
        q = destination[i]
        order[start[q]] = i
        start[q] += 1
    return order, counts


@njit(cache=True, inline="always")
def hash_slots(n):
    """The slots of an open-addressing hash table for ``n`` values: a power of two, at least ``2 n``."""
    slots = 2
    while slots < 2 * n:
        slots *= 2
    return slots


@njit(cache=True, inline="always")
def slot_of(value, table, keys, slots):
    """The slot of ``value`` in an open-addressing hash table: the one holding it, or the empty one where
    it goes. ``table[slot]`` is -1 (empty) or the index into ``keys`` of the value held."""
    slot = np.int64(_mix(np.uint64(value)) & np.uint64(slots - 1))
    while table[slot] >= 0 and keys[table[slot]] != value:
        slot = (slot + 1) & (slots - 1)
    return slot


@njit(cache=True)
def unique_inverse(ids):
    """``(unique, inverse)`` with ``unique[inverse] == ids``; ``unique`` in order of first appearance.

    An open-addressing hash table of at least twice as many slots as ids:
    linear time, where sorting (``numpy.unique``) is ``n log n``.
    """
    slots = hash_slots(ids.size)
    table = np.full(slots, -1, dtype=np.int64)  # index into unique
    unique = np.empty(ids.size, dtype=np.int64)
    inverse = np.empty(ids.size, dtype=np.int64)
    count = 0
    for i in range(ids.size):
        slot = slot_of(ids[i], table, unique, slots)
        if table[slot] < 0:
            table[slot] = count
            unique[count] = ids[i]
            count += 1
        inverse[i] = table[slot]
    return unique[:count].copy(), inverse


@njit(cache=True)
def split_lookups(ids, first, last, values):
    """Look up the ids ``first .. last - 1`` (this rank's) here; list the others once each for their owners.

    Returns ``(found, remote_at, unique, inverse)``: ``found`` holds ``values[id - first]`` at the positions of
    this rank's ids, the positions of the other ids, their distinct values in order of first appearance,
    and each one's index into those (:func:`unique_inverse` of the others).
    """
    found = np.empty(ids.size, dtype=np.int64)
    remote_at = np.empty(ids.size, dtype=np.int64)
    slots = hash_slots(ids.size)
    table = np.full(slots, -1, dtype=np.int64)
    unique = np.empty(ids.size, dtype=np.int64)
    inverse = np.empty(ids.size, dtype=np.int64)
    nremote = 0
    count = 0
    for i in range(ids.size):
        value = ids[i]
        if first <= value < last:
            found[i] = values[value - first]
            continue
        slot = slot_of(value, table, unique, slots)
        if table[slot] < 0:
            table[slot] = count
            unique[count] = value
            count += 1
        remote_at[nremote] = i
        inverse[nremote] = table[slot]
        nremote += 1
    return found, remote_at[:nremote], unique[:count].copy(), inverse[:nremote]
