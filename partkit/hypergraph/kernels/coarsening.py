"""Kernels of coarsening: heavy-net clustering and contraction (identical nets merged).

A hypergraph is passed as plain arrays: ``net_ptr``/``pins`` (nets -> pins),
``vptr``/``vnets`` (vertices -> nets), ``vwgt`` and ``nwgt`` (int64).
"""

import numpy as np
from partkit._jit import njit
from partkit._random import fill_permutation


@njit(cache=True)
def transpose(n, net_ptr, pins):
    """Vertex -> nets CSR ``(vptr, vnets)`` of a nets -> pins CSR; nets in increasing order."""
    vptr = np.zeros(n + 1, dtype=np.int64)
    for q in range(pins.size):
        vptr[pins[q] + 1] += 1
    for v in range(n):
        vptr[v + 1] += vptr[v]
    fill = vptr[:-1].copy()
    vnets = np.empty(pins.size, dtype=np.int64)
    for e in range(net_ptr.size - 1):
        for q in range(net_ptr[e], net_ptr[e + 1]):
            v = pins[q]
            vnets[fill[v]] = e
            fill[v] += 1
    return vptr, vnets


@njit(cache=True)
def _join(u, c, rep, cw, vwgt, joined):
    """Vertex ``u`` joins the cluster of representative ``c``."""
    rep[u] = c
    cw[c] += vwgt[u]
    joined[u] = True
    joined[c] = True


@njit(cache=True)
def cluster(net_ptr, pins, vptr, vnets, vwgt, nwgt, community, max_weight, large_net, min_clusters, penalty, seed):
    """One clustering pass by the heavy-net rating; returns ``(coarse_of, number of clusters)``.

    Vertices are visited in a random order; a vertex ``u`` not yet clustered
    joins the neighbouring cluster ``C`` maximising
    ``sum over shared nets e of w(e) / (|e| - 1)`` (divided by
    ``w(u) * w(C)`` when ``penalty``: the heavy-node penalty),
    among those of its own ``community`` whose weight stays within
    ``max_weight``; ties prefer a
    vertex not yet clustered, then the lighter cluster. Nets with more than ``large_net`` pins are not
    rated. The pass stops once ``min_clusters`` clusters remain.

    Vertices left alone (every rated cluster too heavy, or no rated net:
    only large nets, or none) are then grouped two hops apart, as in
    Mt-KaHyPar: those whose best cluster is the same, those whose first
    large net is the same, and those with no net at all, each group filled
    up to ``max_weight`` in visiting order (a vertex of another community
    than the group's opens a new one). No cluster spans two communities. Without this step, coarsening
    of a power-law hypergraph stalls on its hubs' satellites and its
    isolated vertices long before the target.
    """
    n = vwgt.size
    order = np.empty(n, dtype=np.int64)
    fill_permutation(order, seed)
    rep = np.arange(n)
    cw = vwgt.copy()
    joined = np.zeros(n, dtype=np.bool_)
    rating = np.zeros(n)
    stamp = np.full(n, -1, dtype=np.int64)
    touched = np.empty(n, dtype=np.int64)
    m = net_ptr.size - 1
    # two-hop key of a vertex left alone: its best cluster (< n), n + its first large net, n + m: no net
    alone_key = np.full(n, -1, dtype=np.int64)
    clusters = n
    for idx in range(n):
        if clusters <= min_clusters:
            break
        u = order[idx]
        if joined[u]:
            continue
        nt = 0
        alone_key[u] = n + m
        for j in range(vptr[u], vptr[u + 1]):
            e = vnets[j]
            size = net_ptr[e + 1] - net_ptr[e]
            if size > large_net and alone_key[u] == n + m:
                alone_key[u] = n + e
            if size < 2 or size > large_net:
                continue
            score = nwgt[e] / (size - 1)
            for q in range(net_ptr[e], net_ptr[e + 1]):
                v = pins[q]
                if v == u:
                    continue
                c = rep[v]
                if stamp[c] != u:
                    stamp[c] = u
                    rating[c] = 0.0
                    touched[nt] = c
                    nt += 1
                rating[c] += score
        best = -1
        favourite = -1
        for t in range(nt):
            c = touched[t]
            if community[c] != community[u]:
                continue
            if favourite < 0 or rating[c] > rating[favourite]:
                favourite = c
            if cw[c] + vwgt[u] > max_weight:
                continue
            if penalty:
                rating[c] /= max(cw[c], 1) * max(vwgt[u], 1)
            if best < 0 or rating[c] > rating[best] or (rating[c] == rating[best] and (
                    (joined[best] and not joined[c])
                    or (joined[best] == joined[c] and cw[c] < cw[best]))):
                best = c
        if best >= 0:
            _join(u, best, rep, cw, vwgt, joined)
            clusters -= 1
        elif favourite >= 0:
            alone_key[u] = favourite
    # two-hop grouping of the vertices left alone, in visiting order
    open_group = np.full(n + m + 1, -1, dtype=np.int64)
    for idx in range(n):
        if clusters <= min_clusters:
            break
        u = order[idx]
        if joined[u] or alone_key[u] < 0:
            continue
        r = open_group[alone_key[u]]
        if r >= 0 and cw[r] + vwgt[u] <= max_weight and community[r] == community[u]:
            _join(u, r, rep, cw, vwgt, joined)
            clusters -= 1
        else:
            open_group[alone_key[u]] = u
    ids = np.full(n, -1, dtype=np.int64)
    coarse_of = np.empty(n, dtype=np.int64)
    nc = 0
    for v in range(n):
        r = rep[v]
        if ids[r] < 0:
            ids[r] = nc
            nc += 1
        coarse_of[v] = ids[r]
    return coarse_of, nc


@njit(cache=True)
def _sort_pins(out, s, e):
    """Sort ``out[s:e]`` in place: insertion sort for the short runs of most nets, else numpy's."""
    if e - s > 16:
        out[s:e].sort()
        return
    for i in range(s + 1, e):
        x = out[i]
        j = i - 1
        while j >= s and out[j] > x:
            out[j + 1] = out[j]
            j -= 1
        out[j + 1] = x


@njit(cache=True)
def _same_net(ptr, pins, a, b):
    if ptr[a + 1] - ptr[a] != ptr[b + 1] - ptr[b]:
        return False
    for i in range(ptr[a + 1] - ptr[a]):
        if pins[ptr[a] + i] != pins[ptr[b] + i]:
            return False
    return True


@njit(cache=True)
def contract(net_ptr, pins, nwgt, vwgt, coarse_of, nc, max_net_weight):
    """The hypergraph with vertex ``v`` replaced by ``coarse_of[v]`` (``-1``: dropped).

    Pins are mapped and de-duplicated, nets left with fewer than two pins or
    whose pins weigh more than ``max_net_weight`` are dropped, identical nets
    are merged into one whose weight is their sum.
    Returns ``(net_ptr, pins, nwgt, vwgt)`` of the coarse hypergraph.
    """
    m = net_ptr.size - 1
    cvwgt = np.zeros(nc, dtype=np.int64)
    for v in range(vwgt.size):
        if coarse_of[v] >= 0:
            cvwgt[coarse_of[v]] += vwgt[v]
    marker = np.full(nc, -1, dtype=np.int64)
    out = np.empty(pins.size, dtype=np.int64)
    start = np.empty(m + 1, dtype=np.int64)
    weight = np.empty(m, dtype=np.int64)
    nk = 0
    pos = 0
    for e in range(m):
        s = pos
        heft = 0
        for q in range(net_ptr[e], net_ptr[e + 1]):
            c = coarse_of[pins[q]]
            if c >= 0 and marker[c] != e:
                marker[c] = e
                out[pos] = c
                pos += 1
                heft += cvwgt[c]
        if pos - s < 2 or heft > max_net_weight:
            pos = s
            continue
        _sort_pins(out, s, pos)
        start[nk] = s
        weight[nk] = nwgt[e]
        nk += 1
    start[nk] = pos
    # identical nets: equal fingerprints first, then compared pin by pin
    finger = np.empty(nk, dtype=np.int64)
    for i in range(nk):
        x = np.int64(start[i + 1] - start[i])
        for q in range(start[i], start[i + 1]):
            x = (x ^ out[q]) * np.int64(1099511628211)
        finger[i] = x
    order = np.argsort(finger, kind="mergesort")
    keep = np.ones(nk, dtype=np.bool_)
    i = 0
    while i < nk:
        j = i
        while j + 1 < nk and finger[order[j + 1]] == finger[order[i]]:
            j += 1
        for a in range(i + 1, j + 1):
            for b in range(i, a):
                if keep[order[b]] and _same_net(start, out, order[a], order[b]):
                    keep[order[a]] = False
                    weight[order[b]] += weight[order[a]]
                    break
        i = j + 1
    count = 0
    size = 0
    for i in range(nk):
        if keep[i]:
            count += 1
            size += start[i + 1] - start[i]
    cptr = np.zeros(count + 1, dtype=np.int64)
    cpins = np.empty(size, dtype=np.int64)
    cnwgt = np.empty(count, dtype=np.int64)
    c = 0
    for i in range(nk):
        if keep[i]:
            length = start[i + 1] - start[i]
            cpins[cptr[c]:cptr[c] + length] = out[start[i]:start[i + 1]]
            cptr[c + 1] = cptr[c] + length
            cnwgt[c] = weight[i]
            c += 1
    return cptr, cpins, cnwgt, cvwgt
