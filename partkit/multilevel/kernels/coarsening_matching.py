"""Heavy-edge matching with a two-hop fallback, for multilevel coarsening.

A matching pairs each vertex with at most one neighbour; contracting the
pairs roughly halves the graph. A vertex takes its heaviest edge to an
unmatched neighbour, the lighter neighbour on ties (keeps coarse vertex
weights even); plain heavy-edge rating gave lower cuts than
``w**2 / (c(u) c(v))`` on the shared test graphs. ``group`` restricts
matching to vertices of the same group (the current partition in a V-cycle).

:func:`parallel_matching` matches along locally dominant edges in
synchronous rounds, in parallel, with the same result for any thread
count; :func:`two_hop_matching` pairs the vertices it leaves single, and
:func:`matching_map` turns a matching into the coarse vertices.
"""

import numpy as np

from partkit import _threads
from partkit._borrow import borrow
from partkit._jit import njit
from partkit._prefetch import AHEAD, prefetch, prefetch_adjacency, prefetch_neighbours
from partkit._random import fill_permutation
from partkit._threads import current_threads, run_ranges
from partkit.graph import has_empty_list
from partkit.multilevel.kernels.coarsening_contraction import compact_labels


@njit(cache=True)
def _fits(vwgt, u, v, maxvw):
    for c in range(vwgt.shape[1]):
        if vwgt[u, c] + vwgt[v, c] > maxvw[c]:
            return False
    return True


@njit(cache=True, inline="always")
def two_hop_matching(xadj, adjncy, adjwgt, vwgt, maxvw, order, group, match):
    """Pair still-unmatched vertices that share their heaviest neighbour.

    Leaves of a star or vertices whose neighbours are all matched cannot be
    matched directly; pairing them through a common neighbour keeps the
    coarsening from stalling on irregular graphs. ``match`` is updated in
    place; returns the number of new pairs.
    """
    n = xadj.size - 1
    pending = np.full(n, -1, dtype=np.int64)
    pairs = 0
    for idx in range(n):
        v = order[idx]
        if match[v] != v:
            continue
        hub = -1
        best_w = -1
        for e in range(xadj[v], xadj[v + 1]):
            if adjwgt[e] > best_w:
                best_w = adjwgt[e]
                hub = adjncy[e]
        if hub < 0:
            continue
        other = pending[hub]
        if other >= 0 and group[other] == group[v] and _fits(vwgt, other, v, maxvw):
            match[v] = other
            match[other] = v
            pending[hub] = -1
            pairs += 1
        else:
            pending[hub] = v
    return pairs


@njit(cache=True)
def pair_labels(match):
    """The cluster label of every vertex of a matching, the lower id of its pair (its own id when it is
    single), and the number of single vertices: ``(labels, singles)``."""
    n = match.size
    labels = np.empty(n, dtype=np.int64)
    singles = 0
    for v in range(n):
        u = match[v]
        labels[v] = min(u, v)
        if u == v:
            singles += 1
    return labels, singles


@njit(cache=True, inline="always")
def group_isolated(xadj, vwgt, maxvw, order, group, labels):
    """Put isolated vertices together in clusters of weight at most ``maxvw``.

    Neither matching nor label propagation can merge a vertex without
    neighbours, so a graph with many isolated vertices would stop
    coarsening; as METIS does, they are merged with each other (in visiting
    ``order``, within their group). ``labels`` (a cluster representative
    per vertex, a vertex id) is updated in place; returns the number of
    vertices merged.
    """
    n = xadj.size - 1
    ncon = vwgt.shape[1]
    open_label = -1
    open_weight = np.zeros(ncon, dtype=np.int64)
    merged = 0
    for idx in range(n):
        v = order[idx]
        if xadj[v + 1] > xadj[v]:
            continue
        fits = open_label >= 0 and group[open_label] == group[v]
        for c in range(ncon):
            if fits and open_weight[c] + vwgt[v, c] > maxvw[c]:
                fits = False
        if fits:
            labels[v] = open_label
            for c in range(ncon):
                open_weight[c] += vwgt[v, c]
            merged += 1
        else:
            open_label = v
            labels[v] = v
            for c in range(ncon):
                open_weight[c] = vwgt[v, c]
    return merged


@njit(cache=True)
def matching_map(xadj, adjncy, adjwgt, vwgt, maxvw, group, match, order_key, two_hop_share):
    """The coarse vertices of a matching: ``(cmap, nc)``.

    When more than ``two_hop_share`` of the vertices are single,
    :func:`two_hop_matching` first pairs them through common neighbours
    (``match`` is updated in place), visiting the vertices in the random
    order of stream ``order_key``; then :func:`numbered_clusters`.
    """
    n = xadj.size - 1
    labels, singles = pair_labels(match)
    order = np.empty(0, dtype=np.int64)
    if singles > two_hop_share * n:
        order = np.empty(n, dtype=np.int64)
        fill_permutation(order, order_key)
        if two_hop_matching(xadj, adjncy, adjwgt, vwgt, maxvw, order, group, match):
            labels, _ = pair_labels(match)
    return numbered_clusters(xadj, vwgt, maxvw, group, labels, order, order_key)


@njit(cache=True)
def numbered_clusters(xadj, vwgt, maxvw, group, labels, order, order_key):
    """Clusters (a representative vertex per vertex, ``labels``) numbered ``0..nc-1``: ``(cmap, nc)``.

    Isolated vertices are merged with each other first
    (:func:`group_isolated`, ``labels`` updated in place) in ``order``, the
    random order of stream ``order_key``; ``order`` may be empty, and is
    then drawn only when the graph has isolated vertices.
    """
    n = xadj.size - 1
    if has_empty_list(xadj):
        if order.size != n:
            order = np.empty(n, dtype=np.int64)
            fill_permutation(order, order_key)
        group_isolated(xadj, vwgt, maxvw, order, group, labels)
    return compact_labels(labels)


_PHI = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)

#: The matching prefetches (:mod:`partkit._prefetch`) on levels of more than this many vertices only, a
#: higher bound than the other kernels' ``MIN_VERTICES``: its loop does little per neighbour, and below
#: about 200 000 vertices the prefetch's extra walk over the neighbours ahead cost more than it saved (one
#: thread, the matching without it took 0.81-0.98 x the time on levels of 72k-139k vertices of Delaunay
#: and tetrahedral meshes and of the 64^3 grid, 0.89 x on the grid itself (262k), 0.96-1.00 x on a
#: 176k Delaunay level; with it, a Delaunay mesh's levels of 318k-1M vertices take 1.3-2.1 x less).
FETCH_MIN_VERTICES = 200_000


@njit(cache=True, inline="always")
def _edge_order(key, u, v):
    """A pseudo-random priority of the edge {u, v} under stream ``key``, the same seen from both ends.

    Two multiplications and a shift (a full :func:`partkit._random.draw`
    per edge cost a third of a matching round).
    """
    z = ((np.uint64(min(u, v)) + np.uint64(key)) * _PHI) ^ (np.uint64(max(u, v)) * _M1)
    return z ^ (z >> np.uint64(29))


def parallel_matching(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, max_rounds, nchunks=None):
    """Heavy-edge matching along locally dominant edges, in parallel rounds.

    Every edge has a priority seen alike from both ends: its weight, then
    the lighter pair, then a random draw of stream ``key`` for the pair.
    In each round every unmatched vertex proposes its best edge to an
    unmatched neighbour (a pair that fits ``maxvw``, of the same
    ``group``), reading the matching of the previous round only; two
    vertices proposing each other are matched. A vertex whose last
    proposal went to a neighbour that is still free proposes to it again
    without a scan: the priorities are fixed and the free neighbours only
    fewer, so it is still the best (on a Delaunay mesh of 2^20 vertices
    this saves about a tenth of the matching time). The globally best free edge
    is always mutual, so each round matches something, and the result
    depends on the graph and ``key`` only, not on the thread count. A
    vertex with no free neighbour left drops out for good. Stops after
    ``max_rounds`` rounds or when a round matches less than 1% of the
    vertices.

    The proposals of a round are made in ``nchunks`` ranges of the active
    vertices in parallel (default: the threads in effect, each range with
    at least :data:`partkit._threads.MIN_RANGE` vertices,
    :func:`partkit._threads.run_ranges`); the rounds and the matching of
    mutual proposals run in :func:`_matching_rounds`, which makes the
    proposals itself on one thread; with one range the whole matching is
    one call of it.

    Returns
    -------
    match : int64 array, shape (n,)
        Partner of every vertex, or the vertex itself when unmatched.
    """
    grain = _threads.MIN_RANGE if nchunks is None else 1
    if nchunks is None:
        nchunks = current_threads()
    match, proposal, active, vsum, state = _matching_arrays(xadj.size - 1)
    args = (xadj, adjncy, adjwgt, vwgt, maxvw, group, key, vsum, state, match, proposal, active)
    while _matching_rounds(*args, max_rounds, nchunks, grain):
        nactive = int(state[_NACTIVE])
        run_ranges(_propose, args, nactive, min(nchunks, nactive // grain))
        state[_PROPOSED] = 1
    return match


# fields of the state of a matching between calls of _matching_rounds
_ROUND, _NACTIVE, _PROPOSED, _CHECK_FIT, _CHECK_GROUP, _UNIFORM, _STATE_SIZE = range(7)


@njit(cache=True, inline="always")
def sequential_matching(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, max_rounds):
    """:func:`parallel_matching` on one thread, for a kernel (the same matching).

    Inlined into its caller, :func:`~partkit.multilevel.kernels.coarsening_level.matched_level`, and
    not called from Python (as :func:`~partkit.multilevel.kernels.coarsening_contraction.contract_one_range`).
    """
    match, proposal, active, vsum, state = _matching_arrays(xadj.size - 1)
    # np.int64, not literals: the signature of the calls from Python (a literal compiles the rounds again)
    _matching_rounds(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, vsum, state, match, proposal, active,
                     max_rounds, np.int64(1), np.int64(1))
    return match


@njit(cache=True)
def _matching_arrays(n):
    """The arrays of a matching of ``n`` vertices: ``(match, proposal, active, vsum, state)``."""
    return (np.full(n, -1, dtype=np.int64), np.full(n, -1, dtype=np.int64), np.arange(n),
            np.empty(n, dtype=np.int64), np.zeros(_STATE_SIZE, dtype=np.int64))


@njit(cache=True)
def _matching_rounds(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, vsum, state, match, proposal, active,
                     max_rounds, nchunks, grain):
    """Run the rounds of :func:`parallel_matching` from ``state``; returns True when the proposals of the
    next round are to be made in parallel (``nchunks > 1`` and at least two ranges of ``grain`` active
    vertices), False when the matching is done (``match`` final). Makes the other proposals itself."""
    n = xadj.size - 1
    if state[_ROUND] == 0 and state[_PROPOSED] == 0:
        ncon = vwgt.shape[1]
        heaviest = np.zeros(ncon, dtype=np.int64)
        for v in range(n):
            vsum[v] = 0
            for c in range(ncon):
                vsum[v] += vwgt[v, c]
                heaviest[c] = max(heaviest[c], vwgt[v, c])
        for c in range(ncon):
            if 2 * heaviest[c] > maxvw[c]:
                state[_CHECK_FIT] = 1
        state[_UNIFORM] = 1
        for v in range(1, n):
            if group[v] != group[0]:
                state[_CHECK_GROUP] = 1
            if vsum[v] != vsum[0]:
                state[_UNIFORM] = 0
        state[_NACTIVE] = n
    while state[_ROUND] < max_rounds and state[_NACTIVE] > 0:
        nactive = state[_NACTIVE]
        if state[_PROPOSED] == 0:
            if nchunks > 1 and nactive >= 2 * grain:
                return True
            # np.int64(0), not a literal 0: the signature the pool's calls compile
            _propose(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, vsum, state, match, proposal, active,
                     np.int64(0), nactive)
        # mutual proposals match; the vertices still free and with a free neighbour go on
        matched = 0
        kept = 0
        for i in range(nactive):
            if n > FETCH_MIN_VERTICES and i + 2 * AHEAD < nactive:
                prefetch(proposal, proposal[active[i + 2 * AHEAD]])
            v = active[i]
            u = proposal[v]
            if u >= 0 and proposal[u] == v:
                match[v] = u
                matched += 1
            elif u >= 0:
                active[kept] = v
                kept += 1
        state[_NACTIVE] = kept
        state[_PROPOSED] = 0
        state[_ROUND] += 1
        if 100 * matched < n:
            break
    for v in range(n):
        if match[v] < 0:
            match[v] = v
    state[_NACTIVE] = 0
    return False


@njit(cache=True)
def _propose(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, vsum, state, match, proposal, active, lo, hi):
    """The proposals of ``active[lo:hi]`` in a round of :func:`parallel_matching`: each vertex's best edge
    to a free neighbour (-1 when there is none)."""
    check_fit = state[_CHECK_FIT] != 0
    check_group = state[_CHECK_GROUP] != 0
    uniform = state[_UNIFORM] != 0
    # the first round: every vertex is free, no proposal was made, and the active vertices come in order
    # of their id; reading the neighbours' matching, at random in memory, would only find them free
    first = state[_ROUND] == 0
    # borrowed views: no reference counting per call of _fits and of the prefetch (partkit._borrow)
    vwgt, maxvw = borrow(vwgt), borrow(maxvw)
    xadj, adjncy, adjwgt, match, active = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(match), borrow(active)
    vsum = borrow(vsum)
    fetch = xadj.size > FETCH_MIN_VERTICES and not (first and uniform)
    for i in range(lo, hi):
        if fetch:  # the neighbours' matching is read at random
            prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, match, active, i, hi)
            if not uniform:  # ... and their weights (the tie-break), on levels of unequal weights
                prefetch_neighbours(xadj, adjncy, vsum, active, i, hi)
        v = active[i]
        kept = -1 if first else proposal[v]
        if kept >= 0 and match[kept] < 0:
            # the neighbour proposed to in the last round is still free, so it is still the best free one
            # (the priorities are fixed and the free neighbours only fewer): the same proposal, no scan
            continue
        best = -1
        best_w = -1
        best_s = 0
        best_h = np.uint64(0)
        for e in range(xadj[v], xadj[v + 1]):
            u = adjncy[e]
            if u == v or (not first and match[u] >= 0):
                continue
            if check_group and group[u] != group[v]:
                continue
            if check_fit and not _fits(vwgt, u, v, maxvw):
                continue
            w = adjwgt[e]
            if w < best_w:
                continue
            s = 0 if uniform else vsum[u]
            if w == best_w and s > best_s:
                continue
            h = _edge_order(key, u, v)
            if w == best_w and s == best_s and h <= best_h:
                continue
            best = u
            best_w = w
            best_s = s
            best_h = h
        proposal[v] = best


#: The kernels here whose work runs on several threads (their ranges, or the rounds that hold them; the
#: matching that :func:`parallel_matching` makes in one call at one thread):
#: profiles count them as parallel (``benchmarks/compare.py``'s Amdahl estimate).
PARALLEL_KERNELS = (_matching_rounds,)
