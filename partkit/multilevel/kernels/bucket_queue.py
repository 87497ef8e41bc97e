"""Gain bucket priority queues for 2-way refinement (Fiduccia-Mattheyses).

A bucket queue holds vertices keyed by an integer gain in ``[-cap, cap]``.
Bucket ``gain + cap`` is a doubly linked list threaded through two arrays of
length n (``nxt``, ``prv``); ``head[q, b]`` is the first vertex of bucket ``b``
of queue ``q`` (-1 when empty) and ``top[q]`` is an upper bound on the
highest non-empty bucket (the max-gain pointer, lowered lazily when popping).
Several queues (one per side of a bisection) share the link arrays because
a vertex is in at most one queue; ``where[v]`` is its queue or -1 and
``bucket[v]`` its bucket.

Gains outside ``[-cap, cap]`` are clamped into the end buckets: the queue
then orders those vertices only approximately, but callers always use the
exact gain of the vertex they move, so results stay correct. This keeps the
memory at ``O(queues * cap)`` even for very heavy edge weights.

Insert, remove and update are O(1); popping the maximum costs O(1) plus the
distance the max-gain pointer walks down, which is amortised by the inserts.
"""

import numpy as np

from partkit._jit import njit

#: Largest number of buckets on each side of zero; larger gains are clamped.
MAX_GAIN_CAP = 1 << 18


def new_bucket_queues(n, nqueues, cap):
    """Empty queues: ``(head, top, nxt, prv, where, bucket)``.

    Parameters
    ----------
    n : int
        Number of vertices that can be queued.
    nqueues : int
        Number of independent queues sharing the vertex arrays.
    cap : int
        Gains are kept exactly in ``[-cap, cap]``.
    """
    return _new_bucket_queues(np.int64(n), np.int64(nqueues), np.int64(cap))


@njit(cache=True)
def _new_bucket_queues(n, nqueues, cap):
    head = np.full((nqueues, 2 * cap + 1), -1, dtype=np.int64)
    top = np.full(nqueues, -1, dtype=np.int64)
    nxt = np.full(n, -1, dtype=np.int64)
    prv = np.full(n, -1, dtype=np.int64)
    where = np.full(n, -1, dtype=np.int64)
    bucket = np.zeros(n, dtype=np.int64)
    return head, top, nxt, prv, where, bucket


@njit(cache=True)
def gain_cap(max_gain):
    """The bucket half-range for gains bounded by ``max_gain`` in absolute value."""
    return max(np.int64(1), min(np.int64(max_gain), np.int64(MAX_GAIN_CAP)))


@njit(cache=True)
def bq_insert(head, top, nxt, prv, where, bucket, q, v, gain):
    """Insert vertex ``v`` (not queued) into queue ``q`` with ``gain``."""
    cap = (head.shape[1] - 1) // 2
    b = min(max(gain, -cap), cap) + cap
    first = head[q, b]
    nxt[v] = first
    prv[v] = -1
    if first != -1:
        prv[first] = v
    head[q, b] = v
    where[v] = q
    bucket[v] = b
    if b > top[q]:
        top[q] = b


@njit(cache=True)
def bq_remove(head, top, nxt, prv, where, bucket, v):
    """Remove queued vertex ``v`` from its queue."""
    q = where[v]
    b = bucket[v]
    p = prv[v]
    s = nxt[v]
    if p != -1:
        nxt[p] = s
    else:
        head[q, b] = s
    if s != -1:
        prv[s] = p
    where[v] = -1


@njit(cache=True)
def bq_update(head, top, nxt, prv, where, bucket, v, gain):
    """Change the gain of queued vertex ``v`` (stays in the same queue)."""
    q = where[v]
    cap = (head.shape[1] - 1) // 2
    if min(max(gain, -cap), cap) + cap != bucket[v]:
        bq_remove(head, top, nxt, prv, where, bucket, v)
        bq_insert(head, top, nxt, prv, where, bucket, q, v, gain)


@njit(cache=True)
def bq_top(head, top, q):
    """A vertex of maximum (bucketed) gain in queue ``q`` without removing it; -1 if empty."""
    b = top[q]
    while b >= 0 and head[q, b] == -1:
        b -= 1
    top[q] = b
    if b < 0:
        return -1
    return head[q, b]
