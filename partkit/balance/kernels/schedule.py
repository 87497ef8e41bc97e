"""Discrete-event kernels for the scheduling simulators of :mod:`partkit.balance`.

Every simulator keeps one pending event per worker in a min-heap of
``(time, worker)`` pairs (:mod:`heapq`, which Numba compiles), so that
events are processed in time order and ties are broken by worker id (the
simulation is deterministic). The state a
worker sees when it acts (queue position, deque contents) is therefore the
state at that instant.

Worker noise is the same for every policy: worker ``w`` runs ``slow[w]``
times slower than nominal, and it is frozen (makes no progress) during
``[phase[w] + j * period, phase[w] + j * period + freeze)`` for every
integer ``j`` when ``period > 0``. :func:`advance` turns a nominal duration
into a finishing time under that model.

Random choices are draws of a counter-based stream (:mod:`partkit._random`)
passed as ``stream = [key, counter]``, derived by the caller from the user's seed.
"""

from __future__ import annotations

import heapq

import numpy as np

from partkit._jit import njit
from partkit._random import below


# ------------------------------------------------------------------ helpers
@njit(cache=True)
def rand_below(stream, m):
    """The next integer in ``[0, m)`` of ``stream = [key, counter]`` (int64); advances the counter."""
    r = below(stream[0], stream[1], m)
    stream[1] += 1
    return r


@njit(cache=True)
def advance(start, duration, slow, phase, period, freeze):
    """Time at which ``duration`` units of nominal work started at ``start`` end.

    The work is stretched by the slowdown factor ``slow`` and suspended during
    the periodic freezes ``[phase + j period, phase + j period + freeze)``.
    """
    d = duration * slow
    if d <= 0.0:
        return start
    if period <= 0.0 or freeze <= 0.0:
        return start + d
    avail = period - freeze
    u = start - phase
    j = np.floor(u / period)
    available_before = j * avail + max(0.0, (u - j * period) - freeze)
    a = available_before + d
    jj = np.ceil(a / avail) - 1.0
    r = a - jj * avail
    return jj * period + freeze + r + phase


@njit(cache=True)
def _start_events(p):
    """The event heap with ``(0.0, w)`` for every worker ``w`` (in this order, already a heap)."""
    return [(0.0, w) for w in range(p)]


# --------------------------------------------------- independent tasks
@njit(cache=True)
def simulate_central(costs, p, policy, chunk, overhead, serialize, slow, phase, period, freeze):
    """Workers take chunks of consecutive tasks from one central queue.

    Parameters
    ----------
    costs : float64 (n,)
        Nominal task costs, executed in index order.
    policy : int
        0 self scheduling (one task per access), 1 fixed chunks of ``chunk``
        tasks, 2 guided self scheduling (``ceil(remaining / p)`` tasks).
    overhead : float
        Nominal time of one queue access.
    serialize : bool
        When true the queue is a lock: accesses of different workers do not
        overlap (a worker waits until the previous access has finished).

    Returns
    -------
    finish, busy, over : float64 (p,)
        Time of the last task completion, time spent running tasks and time
        spent on (or waiting for) queue accesses, per worker.
    accesses : int64 (p,)
        Queue accesses per worker.
    """
    n = costs.size
    events = _start_events(p)
    finish = np.zeros(p, dtype=np.float64)
    busy = np.zeros(p, dtype=np.float64)
    over = np.zeros(p, dtype=np.float64)
    accesses = np.zeros(p, dtype=np.int64)
    next_task = 0
    queue_free = 0.0
    while len(events) > 0:
        t, w = heapq.heappop(events)
        remaining = n - next_task
        if remaining <= 0:
            continue
        if policy == 0:
            k = 1
        elif policy == 1:
            k = min(chunk, remaining)
        else:
            k = (remaining + p - 1) // p
        start = max(t, queue_free) if serialize else t
        t1 = advance(start, overhead, slow[w], phase[w], period, freeze)
        if serialize:
            queue_free = t1
        work = 0.0
        for i in range(next_task, next_task + k):
            work += costs[i]
        next_task += k
        t2 = advance(t1, work, slow[w], phase[w], period, freeze)
        over[w] += t1 - t
        busy[w] += t2 - t1
        accesses[w] += 1
        finish[w] = t2
        heapq.heappush(events, (t2, w))
    return finish, busy, over, accesses


@njit(cache=True)
def simulate_stealing(costs, p, steal_half, root_only, overhead, latency, slow, phase, period,
                      freeze, stream):
    """Randomized work stealing over independent tasks.

    Each worker's deque holds a contiguous range ``[lo, hi)`` of task ids:
    the owner pops from the top end (LIFO, ``hi - 1``), a thief takes from
    the bottom end (FIFO, ``lo``) of a uniformly random other worker, either
    one task or half of the range (rounded up). A steal attempt takes
    ``latency`` and sees the victim's deque when the attempt ends; a pop
    takes ``overhead``. Initially the tasks are split into ``p`` equal
    blocks, or all given to worker 0 when ``root_only``. Workers stop when
    every deque is empty.

    Returns
    -------
    finish, busy, over : float64 (p,)
        As in :func:`simulate_central` (``over`` includes steal attempts).
    pops, attempts, steals : int64 (p,)
        Local pops, steal attempts and successful steals per worker.
    """
    n = costs.size
    lo = np.zeros(p, dtype=np.int64)
    hi = np.zeros(p, dtype=np.int64)
    if root_only:
        hi[0] = n
    else:
        for w in range(p):
            lo[w] = (w * n) // p
            hi[w] = ((w + 1) * n) // p
    events = _start_events(p)
    finish = np.zeros(p, dtype=np.float64)
    busy = np.zeros(p, dtype=np.float64)
    over = np.zeros(p, dtype=np.float64)
    pops = np.zeros(p, dtype=np.int64)
    attempts = np.zeros(p, dtype=np.int64)
    steals = np.zeros(p, dtype=np.int64)
    victim = np.full(p, -1, dtype=np.int64)
    queued = n
    while len(events) > 0:
        t, w = heapq.heappop(events)
        v = victim[w]
        if v >= 0:
            victim[w] = -1
            count = hi[v] - lo[v]
            if count > 0:
                take = (count + 1) // 2 if steal_half else 1
                lo[w] = lo[v]
                hi[w] = lo[v] + take
                lo[v] += take
                steals[w] += 1
        if hi[w] > lo[w]:
            hi[w] -= 1
            task = hi[w]
            queued -= 1
            t1 = advance(t, overhead, slow[w], phase[w], period, freeze)
            t2 = advance(t1, costs[task], slow[w], phase[w], period, freeze)
            over[w] += t1 - t
            busy[w] += t2 - t1
            pops[w] += 1
            finish[w] = t2
            heapq.heappush(events, (t2, w))
        elif queued > 0:
            other = rand_below(stream, p - 1)
            victim[w] = other + 1 if other >= w else other
            attempts[w] += 1
            t1 = advance(t, latency, slow[w], phase[w], period, freeze)
            over[w] += t1 - t
            heapq.heappush(events, (t1, w))
    return finish, busy, over, pops, attempts, steals


# ------------------------------------------------------------ task DAGs
@njit(cache=True)
def _in_degrees(n, adj):
    """Number of predecessors of every task, from the successor lists ``adj``."""
    indeg = np.zeros(n, dtype=np.int64)
    for e in range(adj.size):
        indeg[adj[e]] += 1
    return indeg


@njit(cache=True)
def _sources(indeg):
    """The tasks without predecessors at the front of an ``n``-slot FIFO array: ``(queue, tail)``."""
    queue = np.empty(indeg.size, dtype=np.int64)
    tail = 0
    for v in range(indeg.size):
        if indeg[v] == 0:
            queue[tail] = v
            tail += 1
    return queue, tail


@njit(cache=True)
def dag_longest_path(costs, xadj, adj):
    """Work-weighted longest path of a DAG given by successor lists.

    Returns
    -------
    span : float
        Largest sum of costs along a path, or -1.0 when the graph has a cycle.
    finish : float64 (n,)
        Earliest finishing time of every task with unlimited workers.
    """
    n = costs.size
    indeg = _in_degrees(n, adj)
    order, tail = _sources(indeg)
    head = 0
    start = np.zeros(n, dtype=np.float64)
    finish = np.zeros(n, dtype=np.float64)
    span = 0.0
    while head < tail:
        v = order[head]
        head += 1
        finish[v] = start[v] + costs[v]
        span = max(span, finish[v])
        for e in range(xadj[v], xadj[v + 1]):
            u = adj[e]
            start[u] = max(start[u], finish[v])
            indeg[u] -= 1
            if indeg[u] == 0:
                order[tail] = u
                tail += 1
    if tail < n:
        return -1.0, finish
    return span, finish


@njit(cache=True)
def _complete(task, xadj, adj, indeg, out):
    """Decrement the successors of ``task``; write the newly ready ones to ``out``."""
    count = 0
    for e in range(xadj[task], xadj[task + 1]):
        u = adj[e]
        indeg[u] -= 1
        if indeg[u] == 0:
            out[count] = u
            count += 1
    return count


@njit(cache=True)
def _push_bottom(top, bottom, nxt, prv, count, w, u):
    """Append task ``u`` at the bottom of worker ``w``'s deque (a doubly linked list)."""
    if bottom[w] < 0:
        top[w] = u
        prv[u] = -1
    else:
        nxt[bottom[w]] = u
        prv[u] = bottom[w]
    nxt[u] = -1
    bottom[w] = u
    count[w] += 1


@njit(cache=True)
def _pop_end(first, last, after, before, count, w):
    """Take the task at the ``first`` end of worker ``w``'s deque: its top with ``(top, bottom, nxt, prv)``,
    its bottom with ``(bottom, top, prv, nxt)``."""
    u = first[w]
    first[w] = after[u]
    if first[w] < 0:
        last[w] = -1
    else:
        before[first[w]] = -1
    count[w] -= 1
    return u


@njit(cache=True)
def simulate_dag_stealing(costs, xadj, adj, p, overhead, latency, slow, phase, period, freeze,
                          stream):
    """Randomized work stealing on a task DAG.

    Every worker owns a deque (a doubly linked list over task ids). When a
    task completes, its newly ready successors are pushed at the bottom of
    the deque of the worker that ran it; the owner pops from the bottom
    (LIFO), thieves take one task from the top (FIFO) of a uniformly random
    other worker. The sources start in worker 0's deque. Idle workers keep
    attempting steals (each taking ``latency``) until every task is done.

    Returns
    -------
    makespan : float
    busy, over : float64 (p,)
    pops, attempts, steals : int64 (p,)
    worker : int64 (n,)
        The worker that ran each task.
    """
    n = costs.size
    indeg = _in_degrees(n, adj)
    nxt = np.full(n, -1, dtype=np.int64)
    prv = np.full(n, -1, dtype=np.int64)
    top = np.full(p, -1, dtype=np.int64)
    bottom = np.full(p, -1, dtype=np.int64)
    count = np.zeros(p, dtype=np.int64)
    for v in range(n):
        if indeg[v] == 0:
            _push_bottom(top, bottom, nxt, prv, count, 0, v)
    events = _start_events(p)
    busy = np.zeros(p, dtype=np.float64)
    over = np.zeros(p, dtype=np.float64)
    pops = np.zeros(p, dtype=np.int64)
    attempts = np.zeros(p, dtype=np.int64)
    steals = np.zeros(p, dtype=np.int64)
    victim = np.full(p, -1, dtype=np.int64)
    running = np.full(p, -1, dtype=np.int64)
    worker = np.full(n, -1, dtype=np.int64)
    ready = np.empty(n, dtype=np.int64)
    done = 0
    makespan = 0.0
    while len(events) > 0:
        t, w = heapq.heappop(events)
        task = running[w]
        if task >= 0:
            running[w] = -1
            done += 1
            makespan = max(makespan, t)
            nready = _complete(task, xadj, adj, indeg, ready)
            for i in range(nready):
                _push_bottom(top, bottom, nxt, prv, count, w, ready[i])
        if done == n:
            continue
        v = victim[w]
        if v >= 0:
            victim[w] = -1
            if count[v] > 0:  # into the thief's deque, empty while it steals
                _push_bottom(top, bottom, nxt, prv, count, w, _pop_end(top, bottom, nxt, prv, count, v))
                steals[w] += 1
        if count[w] > 0:
            u = _pop_end(bottom, top, prv, nxt, count, w)
            running[w] = u
            worker[u] = w
            t1 = advance(t, overhead, slow[w], phase[w], period, freeze)
            t2 = advance(t1, costs[u], slow[w], phase[w], period, freeze)
            over[w] += t1 - t
            busy[w] += t2 - t1
            pops[w] += 1
            heapq.heappush(events, (t2, w))
        elif p > 1:
            other = rand_below(stream, p - 1)
            victim[w] = other + 1 if other >= w else other
            attempts[w] += 1
            t1 = advance(t, latency, slow[w], phase[w], period, freeze)
            over[w] += t1 - t
            heapq.heappush(events, (t1, w))
    return makespan, busy, over, pops, attempts, steals, worker


@njit(cache=True)
def simulate_dag_greedy(costs, xadj, adj, p, slow, phase, period, freeze):
    """Greedy list scheduling of a DAG: no worker is idle while a task is ready.

    Ready tasks wait in one FIFO queue; a worker that becomes free takes the
    oldest ready task at once, without overhead (Graham's list scheduling,
    whose makespan is at most ``work / p + span`` without noise).

    Returns
    -------
    makespan : float
    busy : float64 (p,)
    worker : int64 (n,)
    """
    n = costs.size
    indeg = _in_degrees(n, adj)
    queue, qtail = _sources(indeg)
    qhead = 0
    idle = np.empty(p, dtype=np.int64)
    nidle = 0
    for w in range(p - 1, -1, -1):
        idle[nidle] = w
        nidle += 1
    events = _start_events(0)
    running = np.full(p, -1, dtype=np.int64)
    worker = np.full(n, -1, dtype=np.int64)
    busy = np.zeros(p, dtype=np.float64)
    ready = np.empty(n, dtype=np.int64)
    t = 0.0
    makespan = 0.0
    while True:
        while nidle > 0 and qhead < qtail:
            nidle -= 1
            w = idle[nidle]
            u = queue[qhead]
            qhead += 1
            running[w] = u
            worker[u] = w
            t2 = advance(t, costs[u], slow[w], phase[w], period, freeze)
            busy[w] += t2 - t
            heapq.heappush(events, (t2, w))
        if len(events) == 0:
            break
        t, w = heapq.heappop(events)
        makespan = max(makespan, t)
        nready = _complete(running[w], xadj, adj, indeg, ready)
        running[w] = -1
        for i in range(nready):
            queue[qtail] = ready[i]
            qtail += 1
        idle[nidle] = w
        nidle += 1
    return makespan, busy, worker
