"""Heavy-edge matching with a two-hop fallback, for multilevel coarsening.

A matching pairs each vertex with at most one neighbour; contracting the
pairs roughly halves the graph. A vertex takes its heaviest edge to an
unmatched neighbour, the lighter neighbour on ties (keeps coarse vertex
weights even); plain heavy-edge rating gave lower cuts than
``w**2 / (c(u) c(v))`` on the shared test graphs. ``group`` restricts
matching to vertices of the same group (the current partition in a V-cycle).

:func:`parallel_matching` matches along locally dominant edges in
synchronous rounds, in parallel, with the same result for any thread
count; :func:`two_hop_matching` pairs the vertices it leaves single.
"""

import numpy as np
from numba import njit, prange

from partkit._threads import prange_only



@njit(cache=True)
def _fits(vwgt, u, v, maxvw):
    for c in range(vwgt.shape[1]):
        if vwgt[u, c] + vwgt[v, c] > maxvw[c]:
            return False
    return True


@njit(cache=True, nogil=True)
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


@njit(cache=True, nogil=True)
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


_PHI = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)


@njit(cache=True, inline="always")
def _edge_order(key, u, v):
    """A pseudo-random priority of the edge {u, v} under stream ``key``, the same seen from both ends.

    Two multiplications and a shift (a full :func:`partkit._random.draw`
    per edge cost a third of a matching round).
    """
    z = ((np.uint64(min(u, v)) + np.uint64(key)) * _PHI) ^ (np.uint64(max(u, v)) * _M1)
    return z ^ (z >> np.uint64(29))


@njit(parallel=prange_only(), cache=True, nogil=True)
def parallel_matching(xadj, adjncy, adjwgt, vwgt, maxvw, group, key, max_rounds):
    """Heavy-edge matching along locally dominant edges, in parallel rounds.

    Every edge has a priority seen alike from both ends: its weight, then
    the lighter pair, then a random draw of stream ``key`` for the pair.
    In each round every unmatched vertex proposes its best edge to an
    unmatched neighbour (a pair that fits ``maxvw``, of the same
    ``group``), reading the matching of the previous round only; two
    vertices proposing each other are matched. The globally best free edge
    is always mutual, so each round matches something, and the result
    depends on the graph and ``key`` only, not on the thread count. A
    vertex with no free neighbour left drops out for good. Stops after
    ``max_rounds`` rounds or when a round matches less than 1% of the
    vertices.

    Returns
    -------
    match : int64 array, shape (n,)
        Partner of every vertex, or the vertex itself when unmatched.
    """
    n = xadj.size - 1
    ncon = vwgt.shape[1]
    vsum = np.zeros(n, dtype=np.int64)
    heaviest = np.zeros(ncon, dtype=np.int64)
    for v in range(n):
        for c in range(ncon):
            vsum[v] += vwgt[v, c]
            heaviest[c] = max(heaviest[c], vwgt[v, c])
    check_fit = False
    for c in range(ncon):
        if 2 * heaviest[c] > maxvw[c]:
            check_fit = True
    check_group = False
    uniform = True
    for v in range(1, n):
        if group[v] != group[0]:
            check_group = True
        if vsum[v] != vsum[0]:
            uniform = False
    match = np.full(n, -1, dtype=np.int64)
    proposal = np.full(n, -1, dtype=np.int64)
    active = np.arange(n)
    nactive = n
    for _ in range(max_rounds):
        for i in prange(nactive):
            v = active[i]
            best = -1
            best_w = -1
            best_s = 0
            best_h = np.uint64(0)
            for e in range(xadj[v], xadj[v + 1]):
                u = adjncy[e]
                if u == v or match[u] >= 0:
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
        matched = 0
        for i in prange(nactive):
            v = active[i]
            u = proposal[v]
            if u >= 0 and proposal[u] == v:
                match[v] = u
                matched += 1
        # still free and with a free neighbour: the next round's vertices
        kept = 0
        for i in range(nactive):
            v = active[i]
            if match[v] < 0 and proposal[v] >= 0:
                active[kept] = v
                kept += 1
        nactive = kept
        if nactive == 0 or 100 * matched < n:
            break
    for v in range(n):
        if match[v] < 0:
            match[v] = v
    return match
