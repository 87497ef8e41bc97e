"""Threads: how many a call uses, and how the engine's kernels run on them.

``threads=None`` (the default of :func:`partkit.partition` and ``--threads``)
means the cores this process may run on (``os.sched_getaffinity``), capped
by ``NUMBA_NUM_THREADS`` (read when Numba is imported; Numba's default is
the machine's cores: set it to run more threads than cores).

The count in effect is a per-Python-thread setting of this module
(:func:`current_threads`), set by :func:`using_threads` for a call and by
:func:`for_work` to one on small levels. The engine's parallel work runs
on Python threads, not in Numba ``prange`` loops: :func:`run_ranges` calls
a ``nogil`` Numba kernel on consecutive ranges of the work, the first in
the calling thread and the others on a persistent pool of Python threads,
which run truly in parallel since the kernels release the GIL (a range
gets at least :data:`MIN_RANGE` items: starting one costs tens of
microseconds). A kernel with rounds (matching, label propagation) keeps
its round loop compiled and returns to Python only when a round's
parallel step is due, so one thread makes one call. Numba's threading
layer is never started: no kernel has a ``prange`` loop.

Results never depend on the thread count: the parallel steps compute
from read-only state and apply in a fixed order, or resolve conflicts by
a counter-based hash (:mod:`partkit._random`), never by scheduling; a
range only decides where work is done, never what is computed.

Examples
--------
>>> from partkit._threads import resolve_threads, using_threads
>>> resolve_threads(1)
1
>>> with using_threads(1) as n:
...     n
1
"""

from __future__ import annotations

import contextlib
import numbers
import os
import threading

_local = threading.local()


def available_cores():
    """The number of cores this process may run on."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):  # not Linux
        return max(os.cpu_count() or 1, 1)


def max_threads():
    """``NUMBA_NUM_THREADS``: no call uses more threads."""
    from numba import config

    return int(config.NUMBA_NUM_THREADS)


def resolve_threads(threads=None):
    """The thread count a call with ``threads`` uses: ``None`` or 0 means every available core.

    Raises
    ------
    partkit.InputError
        For a negative or non-integer ``threads``.
    """
    from partkit.errors import InputError

    if threads is None:
        threads = 0
    if isinstance(threads, bool) or not isinstance(threads, numbers.Integral):
        raise InputError(f"threads must be a non-negative integer, got {threads!r}")
    threads = int(threads)
    if threads < 0:
        raise InputError(f"threads must be a non-negative integer, got {threads}")
    if threads == 0:
        threads = available_cores()
    return max(1, min(threads, max_threads()))


def using_threads(threads=None):
    """Run the body with the thread count of the calling Python thread set to ``resolve_threads(threads)``;
    yields that count.

    The previous count is restored on exit. The engine calls no BLAS
    routine, so BLAS thread pools are left alone (limiting them through
    ``threadpoolctl`` cost about 1.2 ms per call).
    """
    return _Counting(resolve_threads(threads))


class _Counting:
    """The thread count of the calling Python thread set to ``n`` for the body (a class, not a generator:
    the engine enters one per level, and a generator-based context manager costs microseconds)."""

    __slots__ = ("n", "previous")

    def __init__(self, n):
        self.n = n

    def __enter__(self):
        self.previous = getattr(_local, "threads", None)
        _local.threads = self.n
        return self.n

    def __exit__(self, *exc):
        _local.threads = self.previous


def single_threaded():
    """Make one the thread count of the calling Python thread (for example, as the initializer of a pool
    whose threads each run a sub-problem)."""
    _local.threads = 1


def info():
    """What ``partkit info`` prints about threads: a dict."""
    import numba

    return {"default_threads": resolve_threads(None),
            "available_cores": available_cores(), "max_threads": max_threads(),
            "numba": numba.__version__}


def keep_freed_memory():
    """Ask glibc's malloc to keep freed memory in the process (no ``mmap`` per big array, no trimming).

    For processes that partition and exit (the CLI, the benchmarks): the
    engine allocates and frees arrays of n and m entries on every level,
    and returning them to the system each time makes every thread of the
    process take part in the unmapping (TLB shootdowns), which on a
    virtual machine stalled 2-thread runs in the kernel. A library call
    never changes this by itself. Returns True when the setting was made
    (glibc only).
    """
    import ctypes
    import ctypes.util

    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    m_trim_threshold, m_mmap_max = -1, -4
    return bool(mallopt(m_mmap_max, 0)) and bool(mallopt(m_trim_threshold, 2**31 - 1))


#: Work (vertices plus adjacency entries) below which a stage runs on one thread: a
#: parallel region costs more than it saves on a small graph, and on a busy machine
#: every region waits for a descheduled thread.
PARALLEL_MIN_WORK = 1 << 17


def for_work(work):
    """Run the body on one thread when ``work`` is below :data:`PARALLEL_MIN_WORK`, else unchanged.

    Results do not depend on the thread count, so this only changes the time.
    """
    return _UNCHANGED if work >= PARALLEL_MIN_WORK else _Counting(1)


_UNCHANGED = contextlib.nullcontext()


def current_threads():
    """The thread count in effect in the calling Python thread (outside :func:`using_threads`: :func:`max_threads`).

    :func:`using_threads` and :func:`for_work` set it, and the pool of a
    caller that runs Numba kernels on several Python threads sets it to 1 in
    its threads (:func:`single_threaded`); :func:`run_ranges` and the
    initial partitioning read it.
    """
    threads = getattr(_local, "threads", None)
    return max_threads() if threads is None else threads


_pool = None
_pool_lock = threading.Lock()


def _ranges_pool():
    """The persistent pool of :func:`run_ranges`: ``max_threads() - 1`` Python threads (the caller is one more)."""
    global _pool
    if _pool is None:
        with _pool_lock:
            if _pool is None:
                from concurrent.futures import ThreadPoolExecutor

                _pool = ThreadPoolExecutor(max(max_threads() - 1, 1), thread_name_prefix="partkit")
    return _pool


def _forget_pool():
    global _pool
    _pool = None  # a forked child has the pool object but not its threads


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


#: Items (vertices, candidates) below which the threads in effect do not split off a range: starting
#: a range on the pool costs tens of microseconds, more than a small range's work.
MIN_RANGE = 1024


def chunk_count(n, nchunks=None):
    """How many ranges ``n`` items run in: ``nchunks`` when given, else the threads in effect, but
    at most one range per :data:`MIN_RANGE` items; at least 1 and at most ``n``."""
    if nchunks is None:
        nchunks = min(current_threads(), n // MIN_RANGE)
    return max(min(nchunks, n), 1)


def run_ranges(kernel, args, n, nchunks=None, start=0):
    """Call ``kernel(*args, lo, hi)`` on ``nchunks`` consecutive ranges of ``range(start, start + n)`` at once;
    a list of the results.

    Range ``i`` is ``[start + i * n // nchunks, start + (i + 1) * n // nchunks)``. The
    kernel must be a Numba kernel compiled with ``nogil=True``, so that the
    ranges run truly in parallel on Python threads: the calling thread runs
    the first range, a persistent pool of Python threads the others (no
    Numba threading layer is involved). ``nchunks`` defaults to
    :func:`current_threads`, capped by ``n``; with one range the kernel is
    simply called. ``nchunks=None`` also keeps at least :data:`MIN_RANGE`
    items in a range (:func:`chunk_count`). The kernel decides what a range writes (its own slice
    of an output, or a result it returns), so the results do not depend on
    ``nchunks``.

    Examples
    --------
    >>> import numpy as np
    >>> from partkit._jit import njit
    >>> @njit
    ... def total(a, lo, hi):
    ...     return a[lo:hi].sum()
    >>> sum(run_ranges(total, (np.arange(10),), 10, 3))
    45
    """
    nchunks = chunk_count(n, nchunks)
    if nchunks == 1:
        return [kernel(*args, start, start + n)]
    return run_calls(kernel, [(*args, start + i * n // nchunks, start + (i + 1) * n // nchunks)
                              for i in range(nchunks)])


def run_calls(kernel, arguments):
    """Call ``kernel(*a)`` for every tuple ``a`` of ``arguments`` at once; a list of the results, in order.

    The first call runs in the calling thread, the others on the pool of
    :func:`run_ranges` (``kernel`` must be a ``nogil`` Numba kernel). For
    calls that differ in more than their range, such as each range's own
    scratch array.
    """
    if len(arguments) == 1:
        return [kernel(*arguments[0])]
    pool = _ranges_pool()
    futures = [pool.submit(kernel, *a) for a in arguments[1:]]
    try:
        first = kernel(*arguments[0])
    finally:
        rest = [future.result() for future in futures]
    return [first, *rest]
