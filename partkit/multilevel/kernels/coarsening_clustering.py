"""Size-constrained label-propagation clustering, for coarsening irregular graphs.

Every vertex starts in its own cluster and repeatedly joins the neighbouring
cluster it is most strongly connected to, as long as that cluster stays
under a weight limit. On power-law graphs this shrinks the graph much faster
than a matching (a star collapses in one round), as in KaMinPar.
"""

import numpy as np

from partkit import _threads
from partkit._jit import njit
from partkit._threads import current_threads, run_calls


@njit(cache=True, inline="always")
def _has_room(cw, vwgt, maxcw, cluster, v):
    """Whether ``v`` fits into ``cluster`` (of weight ``cw[cluster]``) under ``maxcw``, per constraint."""
    for c in range(maxcw.size):
        if cw[cluster, c] + vwgt[v, c] > maxcw[c]:
            return False
    return True


def parallel_label_propagation_clustering(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, rounds, batches,
                                          nchunks=None):
    """Cluster the vertices by size-constrained label propagation, in parallel, with the same
    result for any thread count.

    Parameters
    ----------
    xadj, adjncy, adjwgt : int64 arrays
    vwgt : int64 array, shape (n, ncon)
    maxcw : int64 array, shape (ncon,)
        Upper bound on the weight of a cluster, per constraint.
    order : int64 array, shape (n,)
        Visiting order (a random permutation).
    group : int64 array, shape (n,)
        Vertices only join clusters of their own group.
    rounds : int
        Maximum number of sweeps; stops early when nothing moves.
    batches, nchunks : int
        See below.

    Each sweep visits ``order`` in ``batches`` consecutive batches (a fixed
    number, not the thread count). Within a batch every vertex picks its
    best cluster in parallel (:func:`_cluster_rate`, in ``nchunks``
    ranges, default the threads in effect with at least
    :data:`partkit._threads.MIN_RANGE` vertices a range, each with its own
    rating array), reading the labels and
    cluster weights left by the previous batch; the moves are then made
    one by one in visiting order, each only if the cluster still has room.
    The sweeps run in :func:`_cluster_sweeps`, which rates the batches
    itself on one thread (one call for the whole clustering).

    Returns
    -------
    labels : int64 array, shape (n,)
        Cluster id of every vertex (a vertex id, not compacted).
    """
    grain = _threads.MIN_RANGE if nchunks is None else 1
    if nchunks is None:
        nchunks = current_threads()
    n = xadj.size - 1
    labels = np.arange(n, dtype=np.int64)
    cw = vwgt.copy()
    proposal = np.empty(n, dtype=np.int64)
    state = np.zeros(_STATE_SIZE, dtype=np.int64)
    args = (xadj, adjncy, adjwgt, vwgt, maxcw, order, group, labels, cw, proposal, state)
    if nchunks > 1:  # each range rates with its own scratch
        rating = np.zeros((nchunks, n), dtype=np.int64)
        touched = np.empty((nchunks, n), dtype=np.int64)
    while _cluster_sweeps(*args, rounds, batches, nchunks, grain):
        lo, hi = int(state[_LO]), int(state[_HI])
        count = min(nchunks, (hi - lo) // grain)
        run_calls(_cluster_rate, [(*args, rating[i], touched[i], lo + i * (hi - lo) // count,
                                   lo + (i + 1) * (hi - lo) // count) for i in range(count)])
        state[_RATED] = 1
    return labels


# fields of the state of a clustering between calls of _cluster_sweeps
_ROUND, _BATCH, _MOVED, _RATED, _LO, _HI, _CHECK_GROUP, _STATE_SIZE = range(8)


@njit(cache=True)
def _cluster_sweeps(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, labels, cw, proposal, state, rounds, batches,
                    nchunks, grain):
    """Run the sweeps of :func:`parallel_label_propagation_clustering` from ``state``. Returns True when
    batch ``state[_LO] .. state[_HI] - 1`` of ``order`` is to be rated in parallel (``nchunks > 1`` and at
    least two ranges of ``grain`` vertices), False when done. Rates the other batches itself."""
    n = xadj.size - 1
    ncon = vwgt.shape[1]
    rating = np.zeros(n, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    if state[_ROUND] == 0 and state[_BATCH] == 0 and state[_RATED] == 0:
        for v in range(1, n):
            if group[v] != group[0]:
                state[_CHECK_GROUP] = 1
                break
    while state[_ROUND] < rounds:
        while state[_BATCH] < batches:
            b = state[_BATCH]
            lo = b * n // batches
            hi = (b + 1) * n // batches
            if state[_RATED] == 0:
                if nchunks > 1 and hi - lo >= 2 * grain:
                    state[_LO] = lo
                    state[_HI] = hi
                    return True
                _cluster_rate(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, labels, cw, proposal, state, rating,
                              touched, lo, hi)
            for idx in range(lo, hi):
                v = order[idx]
                best = proposal[idx]
                own = labels[v]
                if best == own:
                    continue
                if not _has_room(cw, vwgt, maxcw, best, v):
                    continue
                for c in range(ncon):
                    cw[own, c] -= vwgt[v, c]
                    cw[best, c] += vwgt[v, c]
                labels[v] = best
                state[_MOVED] += 1
            state[_RATED] = 0
            state[_BATCH] += 1
        if state[_MOVED] == 0:
            break
        state[_MOVED] = 0
        state[_BATCH] = 0
        state[_ROUND] += 1
    return False


@njit(cache=True)
def _cluster_rate(xadj, adjncy, adjwgt, vwgt, maxcw, order, group, labels, cw, proposal, state, rate, seen, lo, hi):
    """The best cluster of each vertex ``order[lo:hi]`` (its own when no other is better and has room),
    into ``proposal[lo:hi]``; ``rate`` (all 0, left so) and ``seen`` are scratch of length n."""
    check_group = state[_CHECK_GROUP] != 0
    for idx in range(lo, hi):
        v = order[idx]
        own = labels[v]
        nt = 0
        for e in range(xadj[v], xadj[v + 1]):
            u = adjncy[e]
            if check_group and group[u] != group[v]:
                continue
            lab = labels[u]
            if rate[lab] == 0:
                seen[nt] = lab
                nt += 1
            rate[lab] += adjwgt[e]
        best = own
        best_rating = rate[own]
        for t in range(nt):
            lab = seen[t]
            r = rate[lab]
            rate[lab] = 0
            if lab == own or r <= best_rating:
                continue
            if _has_room(cw, vwgt, maxcw, lab, v):
                best = lab
                best_rating = r
        rate[own] = 0
        proposal[idx] = best


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (_cluster_sweeps,)


@njit(cache=True)
def sampled_transitivity(xadj, adjncy, step, neighbours):
    """Estimate the share of the paths of length two that close a triangle (the transitivity).

    Parameters
    ----------
    xadj, adjncy : int64 arrays
        A graph without self-loops or repeated edges.
    step : int
        Vertices ``0, step, 2 step, ...`` are the centres of the paths.
    neighbours : int
        At a centre ``v`` of degree ``d``, the paths through this many
        consecutive neighbours ``u`` (from an offset hashed from ``v``, all
        of them if ``d`` is smaller) are checked: ``u`` and ``v`` share
        ``c_u`` neighbours, and ``d`` times the mean ``c_u`` estimates the
        closed paths at ``v`` out of ``d (d - 1)``. A centre costs the
        adjacency lists of ``v`` and of the checked neighbours.

    Returns
    -------
    float
        Estimated closed paths over all paths at the centres (exact when
        ``step = 1`` and ``neighbours`` is at least the maximum degree); 0
        when no centre has two neighbours.
    """
    n = xadj.size - 1
    mark = np.zeros(n, dtype=np.int64)
    closed = 0.0
    paths = 0
    for v in range(0, n, step):
        degree = xadj[v + 1] - xadj[v]
        if degree < 2:
            continue
        for e in range(xadj[v], xadj[v + 1]):
            mark[adjncy[e]] = v + 1
        checked = min(degree, neighbours)
        offset = (v * 2654435761) % degree
        common = 0
        for j in range(checked):
            u = adjncy[xadj[v] + (offset + j) % degree]
            for f in range(xadj[u], xadj[u + 1]):
                if mark[adjncy[f]] == v + 1:
                    common += 1
        closed += degree * common / checked
        paths += degree * (degree - 1)
    return closed / paths if paths > 0 else 0.0
