"""Kernels of community detection: Louvain on the star expansion of a hypergraph (Mt-KaHyPar's preprocessing).

The star expansion is the bipartite graph with a node per vertex and a node
per net, and an edge from every net to each of its pins. Louvain (Blondel et
al. 2008) maximises its modularity: rounds of local moving (every node, in a
random order, joins the neighbouring community of largest modularity gain)
until fewer than ``min_move_fraction`` of the nodes move or ``max_rounds``
rounds are done, then the communities are contracted into nodes and the same
runs on the contracted graph, until a level moves nothing. The coarsening
then merges only vertices of one community.
"""

import numpy as np
from partkit._jit import njit
from partkit._random import fill_permutation, subkey
from partkit.hypergraph.kernels.coarsening import transpose

#: edge weights of the star expansion (Mt-KaHyPar's ``p-louvain-edge-weight-function``)
UNIFORM, NON_UNIFORM, DEGREE = 0, 1, 2


@njit(cache=True)
def star_expansion(net_ptr, pins, vptr, vnets, nwgt, weighting):
    """CSR ``(ptr, adj, weight)`` of the star expansion: nodes ``0..n-1`` are the vertices, ``n + e`` net ``e``.

    The edge between net ``e`` and its pin ``v`` weighs ``w(e)`` (``UNIFORM``),
    ``w(e) / |e|`` (``NON_UNIFORM``) or ``w(e) d(v) / |e|`` (``DEGREE``, with
    ``d(v)`` the number of nets of ``v``).
    """
    n = vptr.size - 1
    m = net_ptr.size - 1
    ptr = np.empty(n + m + 1, dtype=np.int64)
    ptr[:n + 1] = vptr
    ptr[n + 1:] = vptr[n] + net_ptr[1:]
    adj = np.empty(2 * pins.size, dtype=np.int64)
    weight = np.empty(2 * pins.size)
    for v in range(n):
        for j in range(vptr[v], vptr[v + 1]):
            e = vnets[j]
            adj[j] = n + e
            weight[j] = _star_weight(nwgt[e], net_ptr[e + 1] - net_ptr[e], vptr[v + 1] - vptr[v], weighting)
    for e in range(m):
        for q in range(net_ptr[e], net_ptr[e + 1]):
            v = pins[q]
            adj[vptr[n] + q] = v
            weight[vptr[n] + q] = _star_weight(nwgt[e], net_ptr[e + 1] - net_ptr[e], vptr[v + 1] - vptr[v],
                                               weighting)
    return ptr, adj, weight


@njit(cache=True, inline="always")
def _star_weight(net_weight, size, degree, weighting):
    if weighting == UNIFORM:
        return float(net_weight)
    if weighting == NON_UNIFORM:
        return net_weight / size
    return net_weight * degree / size


@njit(cache=True)
def _community_weights(u, mark, ptr, adj, weight, community, to, stamp, touched, nt):
    """Add the weights of the edges of ``u`` into ``to[community]``; communities first reached under
    ``mark`` are listed in ``touched`` from ``nt`` on. Returns the new length of ``touched``."""
    for j in range(ptr[u], ptr[u + 1]):
        c = community[adj[j]]
        if stamp[c] != mark:
            stamp[c] = mark
            to[c] = 0.0
            touched[nt] = c
            nt += 1
        to[c] += weight[j]
    return nt


@njit(cache=True)
def _local_moving(ptr, adj, weight, volume, community, max_rounds, min_move_fraction, key):
    """Rounds of modularity local moving on ``community`` (in place); True when a node moved."""
    nn = volume.size
    total = volume.sum()
    if total <= 0.0:
        return False
    community_volume = volume.copy()
    to = np.zeros(nn)
    stamp = np.full(nn, -1, dtype=np.int64)
    touched = np.empty(nn, dtype=np.int64)
    order = np.empty(nn, dtype=np.int64)
    changed = False
    for rnd in range(max_rounds):
        fill_permutation(order, subkey(key, rnd))
        moved = 0
        for i in range(nn):
            u = order[i]
            mark = rnd * nn + i  # a new mark for every visit
            nt = _community_weights(u, mark, ptr, adj, weight, community, to, stamp, touched, 0)
            own = community[u]
            if stamp[own] != mark:
                to[own] = 0.0
            factor = volume[u] / total
            best = own
            best_gain = to[own] - factor * (community_volume[own] - volume[u])
            for t in range(nt):
                c = touched[t]
                if c != own:
                    gain = to[c] - factor * community_volume[c]
                    if gain > best_gain:
                        best = c
                        best_gain = gain
            if best != own:
                community_volume[own] -= volume[u]
                community_volume[best] += volume[u]
                community[u] = best
                moved += 1
        changed |= moved > 0
        if moved < min_move_fraction * nn:
            break
    return changed


@njit(cache=True)
def _aggregate(ptr, adj, weight, volume, community):
    """The graph of the communities (renumbered ``0..c-1`` in place): edges summed, volumes kept."""
    nn = volume.size
    ids = np.full(nn, -1, dtype=np.int64)
    c = 0
    for u in range(nn):
        if ids[community[u]] < 0:
            ids[community[u]] = c
            c += 1
    for u in range(nn):
        community[u] = ids[community[u]]
    members_ptr, members = transpose(c, np.arange(nn + 1), community)
    cvolume = np.zeros(c)
    cptr = np.zeros(c + 1, dtype=np.int64)
    cadj = np.empty(adj.size, dtype=np.int64)
    cweight = np.empty(adj.size)
    to = np.zeros(c)
    stamp = np.full(c, -1, dtype=np.int64)
    touched = np.empty(c, dtype=np.int64)
    for a in range(c):
        nt = 0
        for i in range(members_ptr[a], members_ptr[a + 1]):
            u = members[i]
            cvolume[a] += volume[u]
            nt = _community_weights(u, a, ptr, adj, weight, community, to, stamp, touched, nt)
        end = cptr[a]
        for t in range(nt):
            b = touched[t]
            if b != a:  # edges inside a community are not stored
                cadj[end] = b
                cweight[end] = to[b]
                end += 1
        cptr[a + 1] = end
    return cptr, cadj[:cptr[c]].copy(), cweight[:cptr[c]].copy(), cvolume


@njit(cache=True)
def louvain(ptr, adj, weight, max_rounds, min_move_fraction, key):
    """Community of every node of the graph ``(ptr, adj, weight)`` by multilevel Louvain, numbered from 0.

    A node's volume is the weight of its edges; contracted levels keep the
    volumes of the nodes they merge (self-loops are not stored).
    """
    nn = ptr.size - 1
    volume = np.zeros(nn)
    for u in range(nn):
        volume[u] = weight[ptr[u]:ptr[u + 1]].sum()
    of = np.arange(nn)
    level = 0
    while True:
        community = np.arange(volume.size)
        if not _local_moving(ptr, adj, weight, volume, community, max_rounds, min_move_fraction,
                             subkey(key, level)):
            break
        ptr, adj, weight, volume = _aggregate(ptr, adj, weight, volume, community)
        for u in range(nn):
            of[u] = community[of[u]]
        level += 1
    return of
