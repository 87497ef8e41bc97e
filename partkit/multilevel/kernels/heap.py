"""An indexed binary max-heap of vertices keyed by integer gains.

The heap is three plain arrays so that the refinement kernels can keep it
across calls without allocation: ``heap`` (vertices in heap order),
``key`` (the key of the vertex at each heap slot) and ``pos`` (slot of
every vertex, -1 when absent). Every function returns the new heap size.
"""

from numba import njit


@njit(cache=True)
def _sift_up(heap, key, pos, i):
    v = heap[i]
    kv = key[i]
    while i > 0:
        parent = (i - 1) >> 1
        if key[parent] >= kv:
            break
        heap[i] = heap[parent]
        key[i] = key[parent]
        pos[heap[i]] = i
        i = parent
    heap[i] = v
    key[i] = kv
    pos[v] = i


@njit(cache=True)
def _sift_down(heap, key, pos, i, size):
    v = heap[i]
    kv = key[i]
    while True:
        child = 2 * i + 1
        if child >= size:
            break
        if child + 1 < size and key[child + 1] > key[child]:
            child += 1
        if key[child] <= kv:
            break
        heap[i] = heap[child]
        key[i] = key[child]
        pos[heap[i]] = i
        i = child
    heap[i] = v
    key[i] = kv
    pos[v] = i


@njit(cache=True)
def heap_push(heap, key, pos, size, v, k):
    """Insert ``v`` with key ``k``, or change its key when already present."""
    i = pos[v]
    if i >= 0:
        old = key[i]
        key[i] = k
        if k > old:
            _sift_up(heap, key, pos, i)
        elif k < old:
            _sift_down(heap, key, pos, i, size)
        return size
    heap[size] = v
    key[size] = k
    pos[v] = size
    _sift_up(heap, key, pos, size)
    return size + 1


@njit(cache=True)
def heap_remove(heap, key, pos, size, v):
    """Remove ``v`` if present."""
    i = pos[v]
    if i < 0:
        return size
    pos[v] = -1
    size -= 1
    if i == size:
        return size
    heap[i] = heap[size]
    key[i] = key[size]
    pos[heap[i]] = i
    if i > 0 and key[(i - 1) >> 1] < key[i]:
        _sift_up(heap, key, pos, i)
    else:
        _sift_down(heap, key, pos, i, size)
    return size


@njit(cache=True)
def heap_clear(heap, pos, size):
    """Empty the heap (resets ``pos`` of the vertices still in it)."""
    for i in range(size):
        pos[heap[i]] = -1
    return 0
