"""The start of PuLP-style label propagation (:mod:`partkit.methods.labelprop`): regions grown at once.

The sweeps themselves are the multilevel engine's
(:mod:`partkit.multilevel.kernels.label_propagation`).
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def grow_regions(xadj, adjncy, vwgt, seeds, cap):
    """Label every vertex by breadth-first searches grown from all ``seeds`` at once.

    Seed ``i`` gets label ``i``; a vertex takes the label of the region that
    reaches it first, unless that would push the region's weight (first
    constraint) above ``cap``. Vertices no region reaches (other components,
    or pockets enclosed by full regions) start new searches, each with the
    currently lightest label. Returns the label array.
    """
    n = xadj.size - 1
    nlabels = seeds.size
    labels = np.full(n, -1, dtype=np.int64)
    sizes = np.zeros(nlabels, dtype=np.int64)
    queue = np.empty(n, dtype=np.int64)
    qtail = 0
    for i in range(nlabels):
        v = seeds[i]
        if labels[v] == -1:
            labels[v] = i
            sizes[i] += vwgt[v, 0]
            queue[qtail] = v
            qtail += 1
    qhead = 0
    next_root = 0
    while True:
        while qhead < qtail:
            v = queue[qhead]
            qhead += 1
            lab = labels[v]
            for j in range(xadj[v], xadj[v + 1]):
                u = adjncy[j]
                if labels[u] == -1 and sizes[lab] + vwgt[u, 0] <= cap:
                    labels[u] = lab
                    sizes[lab] += vwgt[u, 0]
                    queue[qtail] = u
                    qtail += 1
        while next_root < n and labels[next_root] != -1:
            next_root += 1
        if next_root == n:
            break
        lab = np.argmin(sizes)
        labels[next_root] = lab
        sizes[lab] += vwgt[next_root, 0]
        queue[qtail] = next_root
        qtail += 1
    return labels
