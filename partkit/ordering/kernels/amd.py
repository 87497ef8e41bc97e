"""Approximate minimum degree on the quotient graph (Amestoy, Davis and Duff, 1996).

The quotient graph keeps, for every uneliminated variable i, its adjacent
elements E_i and variables A_i (one list in ``iw`` starting at ``pe[i]``:
``elen[i]`` elements first, ``ln[i]`` entries in all) and, for every element
e (an eliminated pivot), its variables L_e. Eliminating the variable p of
least approximate degree builds ``L_p = A_p ∪ (∪ L_e, e ∈ E_p) \\ {p}`` and
absorbs the elements of E_p into p. The degree of each i in L_p is then
bounded by the AMD formula

    d_i = min(W - |i|, d_i + |L_p \\ i|, |A_i \\ i| + |L_p \\ i| + Σ_{e ∈ E_i \\ p} |L_e \\ L_p|)

(W: remaining weight; ``|L_e \\ L_p|`` from one scan of the E_i); an element
with ``L_e ⊆ L_p`` is absorbed (aggressive absorption) and entries of A_i
covered by L_p are pruned. Sizes are weighted by ``nv`` (vertices that the
caller compressed); variables whose lists become equal are merged into
supervariables. As in multiple minimum degree (Liu, 1985), pivots are
taken in stages: all variables of the stage's minimum degree that no pivot
of the stage touched are eliminated before the touched ones return to the
degree buckets. Lists that no longer fit are moved to the end of ``iw``
with garbage collection.
"""

import numpy as np

from partkit._jit import njit

VARIABLE, ELEMENT, DEAD, ABSORBED = 0, 1, 2, 3


@njit(cache=True)
def _compact(iw, pe, ln, status, need):
    """Copy the live lists into a fresh workspace with room for ``need`` more entries."""
    n = pe.size
    used = 0
    for v in range(n):
        if status[v] != DEAD:
            used += ln[v]
    fresh = np.empty(max(iw.size, used + need + n), np.int64)
    q = 0
    for v in range(n):
        if status[v] != DEAD:
            start = pe[v]
            pe[v] = q
            for t in range(ln[v]):
                fresh[q + t] = iw[start + t]
            q += ln[v]
    return fresh, q


@njit(cache=True)
def _merge_indistinguishable(iw, pe, elen, ln, nv, status, degree, hashes, members, tail, seen, counter, lp,
                             neliminate):
    """Merge variables of ``lp`` with equal lists (same elements and variables) into supervariables.

    The kept variable takes the merged weight and loses it from its external
    degree; merged vertices follow it in the order (``members`` chains).
    Halo vertices (from ``neliminate`` on) merge only with each other.
    """
    keys = hashes[lp]
    ranked = lp[np.argsort(keys, kind="mergesort")]
    m = ranked.size
    a = 0
    while a < m:
        b = a + 1
        while b < m and hashes[ranked[b]] == hashes[ranked[a]]:
            b += 1
        for x in range(a, b - 1):
            i = ranked[x]
            if status[i] != VARIABLE:
                continue
            counter[0] += 1
            for s in range(pe[i], pe[i] + ln[i]):
                seen[iw[s]] = counter[0]
            for y in range(x + 1, b):
                j = ranked[y]
                if (status[j] != VARIABLE or ln[j] != ln[i] or elen[j] != elen[i]
                        or (i < neliminate) != (j < neliminate)):
                    continue
                same = True
                for s in range(pe[j], pe[j] + ln[j]):
                    if seen[iw[s]] != counter[0]:
                        same = False
                        break
                if same:
                    nv[i] += nv[j]
                    degree[i] -= nv[j]
                    nv[j] = 0
                    status[j] = ABSORBED
                    members[tail[i]] = j
                    tail[i] = tail[j]
        a = b


@njit(cache=True)
def _bucket_insert(head, nxt, prv, inbucket, i, d):
    prv[i] = -1
    nxt[i] = head[d]
    if head[d] != -1:
        prv[head[d]] = i
    head[d] = i
    inbucket[i] = True


@njit(cache=True)
def _bucket_remove(head, nxt, prv, inbucket, i, d):
    if prv[i] != -1:
        nxt[prv[i]] = nxt[i]
    else:
        head[d] = nxt[i]
    if nxt[i] != -1:
        prv[nxt[i]] = prv[i]
    inbucket[i] = False


@njit(cache=True)
def approximate_minimum_degree(xadj, adjncy, nv, neliminate):
    """Elimination order of vertices ``0..neliminate-1`` (``order[k]`` = vertex eliminated k-th).

    Vertices are weighted by ``nv``. Vertices from ``neliminate`` on are a
    halo: never eliminated, but counted in the degrees (constrained minimum
    degree on a nested-dissection leaf whose halo is numbered later)."""
    n = xadj.size - 1
    nnz = adjncy.size
    iw = np.empty(nnz + nnz // 2 + 2 * n + 16, np.int64)
    for i in range(nnz):
        iw[i] = adjncy[i]
    pfree = nnz
    pe = xadj[:n].copy()
    ln = xadj[1:] - xadj[:n]
    elen = np.zeros(n, np.int64)
    status = np.zeros(n, np.int8)
    degree = np.zeros(n, np.int64)
    elemsize = np.zeros(n, np.int64)
    remaining = 0
    for i in range(n):
        remaining += nv[i]
        for t in range(xadj[i], xadj[i + 1]):
            degree[i] += nv[adjncy[t]]
    head = np.full(remaining + 1, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    prv = np.full(n, -1, np.int64)
    inbucket = np.zeros(n, np.bool_)
    for i in range(neliminate):
        _bucket_insert(head, nxt, prv, inbucket, i, degree[i])
    pending = np.empty(n, np.int64)  # variables updated in this stage, out of the buckets
    npending = 0
    mark = np.zeros(n, np.int64)
    wstamp = np.zeros(n, np.int64)
    w = np.zeros(n, np.int64)
    nv = nv.copy()
    members = np.full(n, -1, np.int64)  # next vertex merged into the same supervariable
    tail = np.arange(n)
    hashes = np.zeros(n, np.int64)
    seen = np.zeros(n, np.int64)
    counter = np.zeros(1, np.int64)
    order = np.empty(neliminate, np.int64)
    mindeg = 0
    done = 0
    k = 0
    stage = -1
    while done < neliminate:
        k += 1
        if stage == -1 or head[stage] == -1:  # a new stage of multiple elimination
            for t in range(npending):
                i = pending[t]
                if status[i] == VARIABLE and not inbucket[i] and i < neliminate:
                    _bucket_insert(head, nxt, prv, inbucket, i, degree[i])
                    mindeg = min(mindeg, degree[i])
            npending = 0
            while head[mindeg] == -1:
                mindeg += 1
            stage = mindeg
        p = head[stage]
        _bucket_remove(head, nxt, prv, inbucket, p, stage)
        v = p
        while v != -1:
            order[done] = v
            done += 1
            v = members[v]
        remaining -= nv[p]
        need = ln[p]
        for t in range(elen[p]):
            e = iw[pe[p] + t]
            if status[e] == ELEMENT:
                need += ln[e]
        if pfree + need > iw.size:
            iw, pfree = _compact(iw, pe, ln, status, need)
        # L_p: the variables of the elements around p, then p's own variables
        start = pfree
        mark[p] = k
        for t in range(elen[p]):
            e = iw[pe[p] + t]
            if status[e] != ELEMENT:
                continue
            for s in range(pe[e], pe[e] + ln[e]):
                i = iw[s]
                if status[i] == VARIABLE and mark[i] != k:
                    mark[i] = k
                    iw[pfree] = i
                    pfree += 1
            status[e] = DEAD
        for t in range(pe[p] + elen[p], pe[p] + ln[p]):
            j = iw[t]
            if status[j] == VARIABLE and mark[j] != k:
                mark[j] = k
                iw[pfree] = j
                pfree += 1
        status[p] = ELEMENT
        pe[p] = start
        ln[p] = pfree - start
        degme = 0
        for t in range(start, pfree):
            i = iw[t]
            degme += nv[i]
            if inbucket[i]:  # out of its degree bucket until the stage ends
                _bucket_remove(head, nxt, prv, inbucket, i, degree[i])
                pending[npending] = i
                npending += 1
        elemsize[p] = degme
        # |L_e \ L_p| for every other element around L_p
        for t in range(start, pfree):
            i = iw[t]
            for s in range(pe[i], pe[i] + elen[i]):
                e = iw[s]
                if status[e] != ELEMENT or e == p:
                    continue
                if wstamp[e] != k:
                    wstamp[e] = k
                    w[e] = elemsize[e]
                w[e] -= nv[i]
        # prune the lists of L_p's variables, put p in front of their variables, bound their degrees
        for t in range(start, pfree):
            i = iw[t]
            base = pe[i]
            external = 0
            q = base
            for s in range(base, base + elen[i]):
                e = iw[s]
                if status[e] != ELEMENT or e == p:
                    continue
                if w[e] == 0:
                    status[e] = DEAD  # L_e is inside L_p: absorbed
                    continue
                external += w[e]
                iw[q] = e
                q += 1
            nelem = q - base
            for s in range(base + elen[i], base + ln[i]):
                j = iw[s]
                if status[j] != VARIABLE or mark[j] == k:
                    continue
                external += nv[j]
                iw[q] = j
                q += 1
            # at least one entry (p, or an element absorbed into p) was dropped: room for p
            if q > base + nelem:
                iw[q] = iw[base + nelem]
            iw[base + nelem] = p
            elen[i] = nelem + 1
            ln[i] = q - base + 1
            d = min(degree[i] + degme - nv[i], external + degme - nv[i], remaining - nv[i])
            degree[i] = max(d, 0)
            h = 0
            for s in range(base, base + ln[i]):
                h += iw[s]
            hashes[i] = h
        _merge_indistinguishable(iw, pe, elen, ln, nv, status, degree, hashes, members, tail, seen, counter,
                                 iw[start:pfree].copy(), neliminate)
    return order
