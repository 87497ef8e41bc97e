"""Graph kernels of nested dissection: induced subgraphs, components, compression."""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def induced_subgraph(xadj, adjncy, vwgt, vertices, local):
    """CSR of the subgraph induced by ``vertices`` (renumbered in that order).

    ``local`` is a length-n workspace of -1 and is left that way.
    """
    m = vertices.size
    for i in range(m):
        local[vertices[i]] = i
    sub_xadj = np.zeros(m + 1, np.int64)
    for i in range(m):
        v = vertices[i]
        c = 0
        for p in range(xadj[v], xadj[v + 1]):
            if local[adjncy[p]] != -1:
                c += 1
        sub_xadj[i + 1] = sub_xadj[i] + c
    sub_adjncy = np.empty(sub_xadj[m], np.int64)
    sub_vwgt = np.empty(m, np.int64)
    for i in range(m):
        v = vertices[i]
        sub_vwgt[i] = vwgt[v]
        q = sub_xadj[i]
        for p in range(xadj[v], xadj[v + 1]):
            u = local[adjncy[p]]
            if u != -1:
                sub_adjncy[q] = u
                q += 1
    for i in range(m):
        local[vertices[i]] = -1
    return sub_xadj, sub_adjncy, sub_vwgt


@njit(cache=True)
def halo_subgraph(xadj, adjncy, vwgt, vertices, local):
    """The subgraph of ``vertices`` plus their halo (neighbours outside them), without halo-halo edges.

    Returns ``(sub_xadj, sub_adjncy, sub_vwgt)``: the given vertices are
    numbered first, in their order, then the halo. Costs the
    edges of ``vertices`` only, however large the halo vertices' degrees.
    ``local`` is a length-n workspace of -1 and is left that way.
    """
    m = vertices.size
    for i in range(m):
        local[vertices[i]] = i
    edges = 0
    for i in range(m):
        edges += xadj[vertices[i] + 1] - xadj[vertices[i]]
    everything = np.empty(m + edges, np.int64)  # sized by the leaf's edges, not the graph's
    for i in range(m):
        everything[i] = vertices[i]
    count = m
    degree = np.zeros(m + edges, np.int64)
    for i in range(m):
        v = vertices[i]
        degree[i] = xadj[v + 1] - xadj[v]
        for p in range(xadj[v], xadj[v + 1]):
            u = adjncy[p]
            if local[u] == -1:
                local[u] = count
                everything[count] = u
                count += 1
            if local[u] >= m:
                degree[local[u]] += 1
    sub_xadj = np.zeros(count + 1, np.int64)
    for i in range(count):
        sub_xadj[i + 1] = sub_xadj[i] + degree[i]
    sub_adjncy = np.empty(sub_xadj[count], np.int64)
    fill = sub_xadj[:count].copy()
    for i in range(m):
        v = vertices[i]
        for p in range(xadj[v], xadj[v + 1]):
            j = local[adjncy[p]]
            sub_adjncy[fill[i]] = j
            fill[i] += 1
            if j >= m:
                sub_adjncy[fill[j]] = i
                fill[j] += 1
    sub_vwgt = np.empty(count, np.int64)
    for i in range(count):
        sub_vwgt[i] = vwgt[everything[i]]
        local[everything[i]] = -1
    return sub_xadj, sub_adjncy, sub_vwgt


@njit(cache=True)
def indistinguishable_classes(xadj, adjncy):
    """Group vertices with equal closed neighbourhoods: ``(cmap, nclasses)``.

    Candidates share a hash (vertex plus the sum of its neighbours) and a
    degree; they are compared exactly with a marker array. Classes are
    numbered in the order of their representatives.
    """
    n = xadj.size - 1
    keys = np.empty(n, np.int64)
    for v in range(n):
        h = v
        for p in range(xadj[v], xadj[v + 1]):
            h += adjncy[p]
        keys[v] = h
    ranked = np.argsort(keys, kind="mergesort")
    rep = np.arange(n)
    seen = np.full(n, -1, np.int64)
    a = 0
    while a < n:
        b = a + 1
        while b < n and keys[ranked[b]] == keys[ranked[a]]:
            b += 1
        for x in range(a, b - 1):
            v = ranked[x]
            if rep[v] != v:
                continue
            seen[v] = v
            for p in range(xadj[v], xadj[v + 1]):
                seen[adjncy[p]] = v
            for y in range(x + 1, b):
                u = ranked[y]
                if rep[u] != u or xadj[u + 1] - xadj[u] != xadj[v + 1] - xadj[v] or seen[u] != v:
                    continue
                same = True
                for p in range(xadj[u], xadj[u + 1]):
                    if seen[adjncy[p]] != v:
                        same = False
                        break
                if same:
                    rep[u] = v
        a = b
    cmap = np.empty(n, np.int64)
    nclasses = 0
    for v in range(n):
        if rep[v] == v:
            cmap[v] = nclasses
            nclasses += 1
    for v in range(n):
        if rep[v] != v:
            cmap[v] = cmap[rep[v]]
    return cmap, nclasses


@njit(cache=True)
def quotient_graph(xadj, adjncy, cmap, nclasses):
    """Adjacency between the classes of ``cmap`` (one representative's neighbours, deduplicated)."""
    n = xadj.size - 1
    rep = np.full(nclasses, -1, np.int64)
    weight = np.zeros(nclasses, np.int64)
    for v in range(n):
        weight[cmap[v]] += 1
        if rep[cmap[v]] == -1:
            rep[cmap[v]] = v
    seen = np.full(nclasses, -1, np.int64)
    cxadj = np.zeros(nclasses + 1, np.int64)
    cadjncy = np.empty(adjncy.size, np.int64)
    q = 0
    for c in range(nclasses):
        v = rep[c]
        seen[c] = c
        for p in range(xadj[v], xadj[v + 1]):
            d = cmap[adjncy[p]]
            if seen[d] != c:
                seen[d] = c
                cadjncy[q] = d
                q += 1
        cxadj[c + 1] = q
    return cxadj, cadjncy[:q].copy(), weight
