"""An indexed binary max-heap of vertices keyed by int64 gains.

``keys`` and ``items`` hold the heap, ``pos[v]`` the slot of vertex v or
-1; ``size`` is a one-element array. Ties leave the earlier-inserted
vertex first only as far as the heap order allows (deterministic).
"""

import numpy as np
from numba import njit


def new_heap(n):
    """An empty heap for vertices ``0..n-1``: ``(keys, items, pos, size)``."""
    return (np.zeros(n, np.int64), np.zeros(n, np.int64), np.full(n, -1, np.int64),
            np.zeros(1, np.int64))


@njit(cache=True)
def _sift_up(keys, items, pos, i):
    key, item = keys[i], items[i]
    while i > 0:
        parent = (i - 1) >> 1
        if keys[parent] >= key:
            break
        keys[i], items[i] = keys[parent], items[parent]
        pos[items[i]] = i
        i = parent
    keys[i], items[i] = key, item
    pos[item] = i


@njit(cache=True)
def _sift_down(keys, items, pos, size, i):
    key, item = keys[i], items[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and keys[child + 1] > keys[child]:
            child += 1
        if keys[child] <= key:
            break
        keys[i], items[i] = keys[child], items[child]
        pos[items[i]] = i
        i = child
    keys[i], items[i] = key, item
    pos[item] = i


@njit(cache=True)
def heap_push(keys, items, pos, size, v, key):
    i = size[0]
    size[0] += 1
    keys[i] = key
    items[i] = v
    _sift_up(keys, items, pos, i)


@njit(cache=True)
def heap_remove(keys, items, pos, size, v):
    i = pos[v]
    pos[v] = -1
    size[0] -= 1
    last = size[0]
    if i == last:
        return
    moved = items[last]
    keys[i], items[i] = keys[last], moved
    pos[moved] = i
    _sift_up(keys, items, pos, i)
    _sift_down(keys, items, pos, last, pos[moved])


@njit(cache=True)
def heap_update(keys, items, pos, size, v, key):
    i = pos[v]
    old = keys[i]
    keys[i] = key
    if key > old:
        _sift_up(keys, items, pos, i)
    else:
        _sift_down(keys, items, pos, size[0], i)


@njit(cache=True)
def heap_clear(items, pos, size):
    for i in range(size[0]):
        pos[items[i]] = -1
    size[0] = 0
