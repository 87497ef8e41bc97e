"""Symbolic Cholesky kernels: elimination tree, postorder, column counts.

All take the symmetric pattern of A in CSR form (``xadj``, ``adjncy``,
diagonal absent) plus the ordering (``perm[k]`` = original index of the
k-th pivot, ``iperm`` its inverse), and work in the permuted numbering
without forming ``P A P^T``.
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def elimination_tree(xadj, adjncy, perm, iperm):
    """Parent of every column of L (-1 for roots), Liu's algorithm with path compression."""
    n = perm.size
    parent = np.full(n, -1, np.int64)
    ancestor = np.full(n, -1, np.int64)
    for k in range(n):
        v = perm[k]
        for p in range(xadj[v], xadj[v + 1]):
            i = iperm[adjncy[p]]
            while i != -1 and i < k:
                nxt = ancestor[i]
                ancestor[i] = k
                if nxt == -1:
                    parent[i] = k
                i = nxt
    return parent


@njit(cache=True)
def postorder(parent):
    """A postorder of the forest ``parent`` (children in increasing order)."""
    n = parent.size
    head = np.full(n, -1, np.int64)
    nxt = np.full(n, -1, np.int64)
    for j in range(n - 1, -1, -1):
        if parent[j] != -1:
            nxt[j] = head[parent[j]]
            head[parent[j]] = j
    post = np.empty(n, np.int64)
    stack = np.empty(n, np.int64)
    k = 0
    for root in range(n):
        if parent[root] != -1:
            continue
        top = 0
        stack[0] = root
        while top >= 0:
            p = stack[top]
            child = head[p]
            if child == -1:
                top -= 1
                post[k] = p
                k += 1
            else:
                head[p] = nxt[child]
                top += 1
                stack[top] = child
    return post


@njit(cache=True)
def column_counts(xadj, adjncy, perm, iperm, parent, post):
    """Nonzeros of every column of L, diagonal included (Gilbert, Ng and Peyton).

    Row subtrees are counted through their leaves: ``first[j]`` is the
    postorder index of the first descendant of j; a skeleton entry (i, j)
    adds one at j and removes one at the least common ancestor of j and the
    previous leaf of row i's subtree (found by path-compressed ancestors).
    """
    n = perm.size
    first = np.full(n, -1, np.int64)
    maxfirst = np.full(n, -1, np.int64)
    prevleaf = np.full(n, -1, np.int64)
    ancestor = np.arange(n)
    delta = np.zeros(n, np.int64)
    for k in range(n):
        j = post[k]
        delta[j] = 1 if first[j] == -1 else 0
        while j != -1 and first[j] == -1:
            first[j] = k
            j = parent[j]
    for k in range(n):
        j = post[k]
        if parent[j] != -1:
            delta[parent[j]] -= 1
        v = perm[j]
        for p in range(xadj[v], xadj[v + 1]):
            i = iperm[adjncy[p]]
            if i <= j or first[j] <= maxfirst[i]:
                continue
            maxfirst[i] = first[j]
            jprev = prevleaf[i]
            prevleaf[i] = j
            delta[j] += 1
            if jprev != -1:
                q = jprev
                while q != ancestor[q]:
                    q = ancestor[q]
                s = jprev
                while s != q:
                    nxt = ancestor[s]
                    ancestor[s] = q
                    s = nxt
                delta[q] -= 1
        if parent[j] != -1:
            ancestor[j] = parent[j]
    for j in range(n):
        if parent[j] != -1:
            delta[parent[j]] += delta[j]
    return delta
