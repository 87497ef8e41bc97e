"""The addressable binary max-heap on int64 keys of every FM kernel (graph, hypergraph, separators).

A heap is three arrays: ``items`` and ``keys`` (the heap order, ``size``
used entries) and ``pos`` (position of every item, -1 when absent). Ties
are broken towards the smaller item id, so the order is deterministic.
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def new_heap(n):
    """Empty heap for items ``0..n-1``: ``(items, keys, pos, size)`` with ``size`` in a 1-array."""
    return (np.empty(n, dtype=np.int64), np.empty(n, dtype=np.int64), np.full(n, -1, dtype=np.int64),
            np.zeros(1, dtype=np.int64))


@njit(cache=True, inline="always")
def _above(ka, ia, kb, ib):
    return ka > kb or (ka == kb and ia < ib)


@njit(cache=True)
def _sift_up(items, keys, pos, i):
    item, key = items[i], keys[i]
    while i > 0:
        parent = (i - 1) >> 1
        if not _above(key, item, keys[parent], items[parent]):
            break
        items[i], keys[i] = items[parent], keys[parent]
        pos[items[i]] = i
        i = parent
    items[i], keys[i] = item, key
    pos[item] = i


@njit(cache=True)
def _sift_down(items, keys, pos, size, i):
    item, key = items[i], keys[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and _above(keys[child + 1], items[child + 1], keys[child], items[child]):
            child += 1
        if not _above(keys[child], items[child], key, item):
            break
        items[i], keys[i] = items[child], keys[child]
        pos[items[i]] = i
        i = child
    items[i], keys[i] = item, key
    pos[item] = i


@njit(cache=True)
def heap_push(items, keys, pos, size, item, key):
    """Insert ``item`` (absent) with ``key``."""
    i = size[0]
    size[0] += 1
    items[i], keys[i] = item, key
    _sift_up(items, keys, pos, i)


@njit(cache=True)
def heap_pop(items, keys, pos, size):
    """Remove and return the item with the largest key (the heap must not be empty)."""
    top = items[0]
    pos[top] = -1
    size[0] -= 1
    if size[0] > 0:
        items[0], keys[0] = items[size[0]], keys[size[0]]
        pos[items[0]] = 0
        _sift_down(items, keys, pos, size[0], np.int64(0))  # not a literal 0: one compiled _sift_down
    return top


@njit(cache=True)
def heap_set(items, keys, pos, size, item, key):
    """Insert ``item`` or change its key."""
    i = pos[item]
    if i < 0:  # heap_push, written out: one kernel fewer to compile for the callers of heap_set
        i = size[0]
        size[0] += 1
        items[i], keys[i] = item, key
        _sift_up(items, keys, pos, i)
        return
    old = keys[i]
    keys[i] = key
    if key > old:
        _sift_up(items, keys, pos, i)
    elif key < old:
        _sift_down(items, keys, pos, size[0], i)


@njit(cache=True)
def heap_remove(items, keys, pos, size, item):
    """Remove ``item`` if present."""
    i = pos[item]
    if i < 0:
        return
    pos[item] = -1
    size[0] -= 1
    if i == size[0]:
        return
    moved = items[size[0]]
    items[i], keys[i] = moved, keys[size[0]]
    pos[moved] = i
    _sift_up(items, keys, pos, i)
    _sift_down(items, keys, pos, size[0], pos[moved])


@njit(cache=True)
def heap_clear(items, keys, pos, size):
    """Empty the heap (resets ``pos`` of the items still in it)."""
    for i in range(size[0]):
        pos[items[i]] = -1
    size[0] = 0


@njit(cache=True)
def heap_build(items, keys, pos, size, new_items, new_keys, mask):
    """Fill an empty heap with ``new_items[i]`` keyed ``new_keys[i]`` where ``mask[i]``, in O(count).

    The items must be distinct. Bottom-up heap construction: the heap then
    pops in the same order as after one :func:`heap_set` per item (the
    order of (key, item) is total).
    """
    count = 0
    for i in range(new_items.size):
        if mask[i]:
            items[count], keys[count] = new_items[i], new_keys[i]
            pos[new_items[i]] = count
            count += 1
    size[0] = count
    for i in range(count // 2 - 1, -1, -1):
        _sift_down(items, keys, pos, size[0], i)
