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


@njit(cache=True)
def unique_inverse(ids):
    """``(unique, inverse)`` with ``unique[inverse] == ids``; ``unique`` in order of first appearance.

    An open-addressing hash table of at least twice as many slots as ids:
    linear time, where sorting (``numpy.unique``) is ``n log n``.
    """
    slots = 2
    while slots < 2 * ids.size:
        slots *= 2
    mask = np.uint64(slots - 1)
    table = np.full(slots, -1, dtype=np.int64)  # index into unique
    unique = np.empty(ids.size, dtype=np.int64)
    inverse = np.empty(ids.size, dtype=np.int64)
    count = 0
    for i in range(ids.size):
        value = ids[i]
        slot = np.int64(_mix(np.uint64(value)) & mask)
        while table[slot] >= 0 and unique[table[slot]] != value:
            slot = (slot + 1) & (slots - 1)
        if table[slot] < 0:
            table[slot] = count
            unique[count] = value
            count += 1
        inverse[i] = table[slot]
    return unique[:count].copy(), inverse
