"""Refinement by minimum cuts between pairs of parts, in corridors around their boundary (KaHIP's flows).

For two adjacent parts a and b, a corridor is grown in each, breadth
first from the vertices that touch the other, while its weight fits the
room the other part has: moving all of it over would keep that part
within its bound, so every cut inside the corridor keeps both balanced.
The rest of a is contracted into the source, the rest of b into the sink;
a maximum flow between them (FIFO push-relabel with global relabelling,
as in KaHIP) is the cheapest way to split the corridor between a and b.
Of the two minimum cuts the flow gives (the vertices the source still
reaches, and those that do not reach the sink) the better balanced one
replaces the corridor's assignment when it costs less. Unlike FM, which
moves one vertex at a time and must climb over moves that cost, a flow
finds the best split of the whole corridor at once. The pairs are taken
in decreasing order of the objective between them.

The objective is any sum of edge costs and per-vertex terms
(:mod:`partkit.multilevel.kernels.objectives`: the cut, the mapping cost,
the migration objective; not the volume): an edge inside the corridor costs
its weight times the cost between a and b when it is cut, and what a
vertex's edges out of the corridor (to a, b or a third part) and its own
term cost in either part becomes an arc from the source or to the sink,
as in Mt-KaHyPar's flows for the Steiner-tree objective. For the cut,
edges to third parts are cut either way and cost nothing here.
"""

import numpy as np

from partkit._borrow import borrow
from partkit._heap import heap_build, heap_pop, new_heap
from partkit._jit import njit
from partkit._prefetch import MIN_VERTICES, prefetch_adjacency, prefetch_neighbours
from partkit.multilevel.kernels.objectives import edge_cost, vertex_gain

#: Pairwise flows need the (k, k) table of the weights cut between parts: none above this many parts.
MAX_PARTS = 256


@njit(cache=True)
def flow_refine(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, boundary, rounds, share, degree_limit, objective, data):
    """Flow refinement of every pair of adjacent parts of ``part`` under the bound ``maxw`` (k, ncon), in place,
    for ``objective`` and its ``data`` (the cut, the mapping cost or the migration objective).

    Each pair gets up to ``rounds`` flows, each from the partition the
    previous one left, until one lowers the objective no further; a corridor
    uses ``share`` of the room of the parts and no vertex with more than
    ``degree_limit`` edges (the hubs of a power-law graph stay where they
    are, as in k-way FM: through them a corridor would reach most of the
    graph). ``pw`` (k, ncon) holds the
    parts' weights and is kept up to date; ``boundary`` lists the
    vertices with a neighbour in another part (more are allowed). Only a
    pair's first round reads its part of them: a later round's seeds are
    the last corridor, its neighbours and the last seeds.

    Returns the reduction of the objective (at least 0).
    """
    n = xadj.size - 1
    k = maxw.shape[0]
    if k < 2 or k > MAX_PARTS:
        return 0
    local = np.full(n, -1, dtype=np.int64)
    region = np.empty(n, dtype=np.int64)
    listed = np.zeros(n if rounds > 1 else 0, dtype=np.bool_)  # marks of _next_seeds (a later round)
    # the pairs by the weight cut between them, and each pair's seeds: its vertices touching the other
    # part, those of the lower part first, each side in the order of ``boundary`` (listed per pair: on a
    # power-law graph at k = 256, scanning both parts' boundaries for each of 32,000 pairs took 100
    # million edge visits a call where the lists hold 400,000 vertices)
    between = np.zeros((k, k), dtype=np.int64)
    touching = np.zeros((k, k), dtype=np.int64)  # [a, b]: the vertices of a with a neighbour in b
    stamp = np.full(k, -1, dtype=np.int64)  # stamp[p] == v: v's neighbours in part p are counted
    touch_vertex = np.empty((xadj[boundary + 1] - xadj[boundary]).sum(), dtype=np.int64)
    touch_part = np.empty_like(touch_vertex)  # (touch_vertex[i], touch_part[i]): a vertex and a part it touches
    ntouch = 0
    for v in boundary:
        a = part[v]
        stamp[a] = v
        for e in range(xadj[v], xadj[v + 1]):
            b = part[adjncy[e]]
            if a < b:
                between[a, b] += adjwgt[e]
            if stamp[b] != v:
                stamp[b] = v
                touching[a, b] += 1
                touch_vertex[ntouch] = v
                touch_part[ntouch] = b
                ntouch += 1
    npairs = np.int64(0)  # not a literal 0 (new_heap would compile for it)
    for a in range(k):
        for b in range(a + 1, k):
            if between[a, b] > 0:
                npairs += 1
    pairs = np.empty((npairs, 2), dtype=np.int64)
    weights = np.empty(npairs, dtype=np.int64)
    start = np.zeros(npairs + 1, dtype=np.int64)
    at = touching  # from here: where the next vertex of a touching b goes in seed_lists
    npairs = np.int64(0)
    for a in range(k):
        for b in range(a + 1, k):
            if between[a, b] > 0:
                pairs[npairs, 0] = a
                pairs[npairs, 1] = b
                weights[npairs] = between[a, b] * edge_cost(objective, data, a, b)
                start[npairs + 1] = start[npairs] + touching[a, b] + touching[b, a]
                at[b, a] = start[npairs] + touching[a, b]
                at[a, b] = start[npairs]
                npairs += 1
    seed_lists = np.empty(start[npairs], dtype=np.int64)
    for i in range(ntouch):
        v = touch_vertex[i]
        a = part[v]
        b = touch_part[i]
        if between[min(a, b), max(a, b)] > 0:
            seed_lists[at[a, b]] = v
            at[a, b] += 1
    total = 0
    blocks = np.empty(2, dtype=np.int64)
    # the pairs by decreasing weight, ties in listed order, by the heap of the FM kernels (shared with them;
    # a sort compiled here took 1.6 s of a first call)
    items, keys, pos, size = new_heap(npairs)
    heap_build(items, keys, pos, size, np.arange(npairs), weights, np.ones(npairs, dtype=np.bool_))
    while size[0] > 0:
        index = heap_pop(items, keys, pos, size)
        blocks[0] = pairs[index, 0]
        blocks[1] = pairs[index, 1]
        seeds = seed_lists[start[index]:start[index + 1]]
        for r in range(rounds):
            nr = _corridor(xadj, adjncy, vwgt, part, pw, maxw, blocks, seeds, local, region, share, degree_limit)
            gain = 0
            if nr > 0:
                gain = _min_cut(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, blocks, local, region, nr, objective,
                                data)
            total += gain
            if gain > 0 and r + 1 < rounds:
                seeds = _next_seeds(xadj, adjncy, part, blocks, seeds, region, nr, listed)
            for i in range(nr):
                local[region[i]] = -1
            if gain <= 0:
                break
    return total


@njit(cache=True, inline="always")
def _touches(xadj, adjncy, part, v, other):
    """Whether ``v`` has a neighbour in part ``other``."""
    for e in range(xadj[v], xadj[v + 1]):
        if part[adjncy[e]] == other:
            return True
    return False


@njit(cache=True, inline="always")
def _side(part, blocks, v):
    """0 or 1 for a vertex of ``blocks[0]`` or ``blocks[1]``, else -1."""
    return 0 if part[v] == blocks[0] else (1 if part[v] == blocks[1] else -1)


@njit(cache=True)
def _next_seeds(xadj, adjncy, part, blocks, seeds, region, nr, listed):
    """The vertices of the pair touching the other part among ``seeds``, the corridor ``region[:nr]`` and its
    neighbours, once each."""
    size = seeds.size
    for i in range(nr):
        size += 1 + xadj[region[i] + 1] - xadj[region[i]]
    out = np.empty(size, dtype=np.int64)
    count = 0
    for v in seeds:
        count = _list_seed(xadj, adjncy, part, blocks, v, listed, out, count)
    for i in range(nr):
        v = region[i]
        count = _list_seed(xadj, adjncy, part, blocks, v, listed, out, count)
        for e in range(xadj[v], xadj[v + 1]):
            count = _list_seed(xadj, adjncy, part, blocks, adjncy[e], listed, out, count)
    for i in range(count):
        listed[out[i]] = False
    return out[:count]


@njit(cache=True, inline="always")
def _list_seed(xadj, adjncy, part, blocks, u, listed, out, count):
    """Append ``u`` to ``out[:count]`` when it is in the pair, touches the other part and is not listed yet."""
    s = _side(part, blocks, u)
    if listed[u] or s < 0 or not _touches(xadj, adjncy, part, u, blocks[1 - s]):
        return count
    listed[u] = True
    out[count] = u
    return count + 1


@njit(cache=True)
def _corridor(xadj, adjncy, vwgt, part, pw, maxw, blocks, seeds, local, region, share, degree_limit):
    """Grow the corridor in each part of the pair breadth first from its seeds touching the other part,
    through vertices of at most ``degree_limit`` edges, while it fits ``share`` of the other part's room;
    ``region[:nr]`` lists it, ``local[v]`` is v's place in it. Returns ``nr``."""
    # borrowed views: no reference counting per call of the inlined prefetch (partkit._borrow)
    xadj, adjncy, vwgt, part, local, region = borrow(xadj), borrow(adjncy), borrow(vwgt), borrow(part), \
        borrow(local), borrow(region)
    fetch = xadj.size > MIN_VERTICES  # the corridor's vertices are scattered over memory, their neighbours too
    ncon = vwgt.shape[1]
    nr = np.int64(0)  # not a literal 0: _min_cut and _max_flow then compiled a second time, for it
    for s in range(2):
        own, other = blocks[s], blocks[1 - s]
        room = np.empty(ncon, dtype=np.int64)
        for c in range(ncon):
            room[c] = np.int64(share * (maxw[other, c] - pw[other, c]))
        first = nr
        for j in range(seeds.size):
            if fetch:
                prefetch_adjacency(xadj, adjncy, adjncy, vwgt, part, seeds, j, seeds.size)
            v = seeds[j]
            if (part[v] == own and local[v] < 0 and xadj[v + 1] - xadj[v] <= degree_limit
                    and _touches(xadj, adjncy, part, v, other) and _take(vwgt, v, room)):
                local[v] = nr
                region[nr] = v
                nr += 1
        i = first
        while i < nr:
            if fetch:
                prefetch_adjacency(xadj, adjncy, adjncy, vwgt, part, region, i, nr)
                prefetch_neighbours(xadj, adjncy, local, region, i, nr)
            v = region[i]
            i += 1
            for e in range(xadj[v], xadj[v + 1]):
                u = adjncy[e]
                if part[u] == own and local[u] < 0 and xadj[u + 1] - xadj[u] <= degree_limit and _take(vwgt, u, room):
                    local[u] = nr
                    region[nr] = u
                    nr += 1
    return nr


@njit(cache=True, inline="always")
def _take(vwgt, v, room):
    """Whether ``v`` fits ``room`` (then taken from it)."""
    for c in range(vwgt.shape[1]):
        if vwgt[v, c] > room[c]:
            return False
    for c in range(vwgt.shape[1]):
        room[c] -= vwgt[v, c]
    return True


@njit(cache=True)
def _min_cut(xadj, adjncy, adjwgt, vwgt, part, pw, maxw, blocks, local, region, nr, objective, data):
    """The flow network of the corridor ``region[:nr]``, its maximum flow and the better balanced of its two
    minimum cuts, applied to ``part`` (and ``pw``) when it lowers the objective; returns the reduction.

    A corridor vertex costs ``delta`` more in the pair's second part than in its first (its edges leaving
    the corridor, to any part, and its own term: the migration's): an arc from the source of ``delta``,
    or to the sink of ``-delta``; an edge inside the corridor costs its weight times the objective's cost
    between the two parts when it is cut, an arc of that capacity each way. Every assignment of the
    corridor then costs ``sum of the negative deltas`` plus the capacity it cuts.
    """
    source, sink = nr, nr + 1
    nodes = nr + 2
    a, b = blocks[0], blocks[1]
    pair_cost = edge_cost(objective, data, a, b)
    delta = np.zeros(nr, dtype=np.int64)
    degree = np.zeros(nodes, dtype=np.int64)
    old = 0  # the cost of the corridor's assignment as it is, on the scale of the network's
    fetch = xadj.size > MIN_VERTICES
    xadj, adjncy, adjwgt, vwgt, part, local = borrow(xadj), borrow(adjncy), borrow(adjwgt), borrow(vwgt), \
        borrow(part), borrow(local)
    for i in range(nr):
        if fetch:
            prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, part, region, i, nr)
            prefetch_neighbours(xadj, adjncy, local, region, i, nr)
        v = region[i]
        sv = _side(part, blocks, v)
        d = -vertex_gain(objective, data, v, a, b)
        for e in range(xadj[v], xadj[v + 1]):
            u = adjncy[e]
            if local[u] >= 0:
                degree[i] += 1
                if sv == 0 and _side(part, blocks, u) == 1:
                    old += adjwgt[e] * pair_cost
            else:
                c = part[u]
                d += adjwgt[e] * (edge_cost(objective, data, b, c) - edge_cost(objective, data, a, c))
        delta[i] = d
        if sv == 1:
            old += d
        if d != 0:
            degree[i] += 1
            degree[source if d > 0 else sink] += 1
    # the arcs, made in pairs with their reverses: between corridor neighbours (once, from the lower
    # place), and from the source or to the sink for a vertex's delta
    first = np.zeros(nodes + 1, dtype=np.int64)
    for x in range(nodes):
        first[x + 1] = first[x] + degree[x]
    narcs = first[nodes]
    head = np.empty(narcs, dtype=np.int64)
    cap = np.empty(narcs, dtype=np.int64)
    rev = np.empty(narcs, dtype=np.int64)
    fill = np.empty(nodes, dtype=np.int64)
    for x in range(nodes):
        fill[x] = first[x]
    base = 0
    for i in range(nr):
        if fetch:
            prefetch_adjacency(xadj, adjncy, adjwgt, vwgt, local, region, i, nr)
        v = region[i]
        for e in range(xadj[v], xadj[v + 1]):
            j = local[adjncy[e]]
            if j > i:
                _arc_pair(head, cap, rev, fill, i, j, adjwgt[e] * pair_cost, adjwgt[e] * pair_cost)
        if delta[i] > 0:
            _arc_pair(head, cap, rev, fill, source, i, delta[i], 0)
        elif delta[i] < 0:
            _arc_pair(head, cap, rev, fill, i, sink, -delta[i], 0)
            base += delta[i]
    flow = _max_flow(first, head, cap, rev, source, sink)
    if base + flow >= old:
        return 0
    # the two minimum cuts: in part a the vertices the source reaches, or those that do not reach the sink
    reach = np.zeros(nodes, dtype=np.bool_)
    _search(first, head, cap, rev, source, reach, np.bool_(False))  # not literals: one compiled _search
    to_sink = np.zeros(nodes, dtype=np.bool_)
    _search(first, head, cap, rev, sink, to_sink, np.bool_(True))
    ncon = vwgt.shape[1]
    weights = np.empty((2, 2, ncon), dtype=np.int64)  # the pair's weights after either cut
    best = 0
    best_over = -1.0
    for choice in range(2):
        w = weights[choice]
        for s in range(2):
            for c in range(ncon):
                w[s, c] = pw[blocks[s], c]
        for i in range(nr):
            v = region[i]
            side = _cut_side(reach, to_sink, choice, i)
            was = _side(part, blocks, v)
            if side != was:
                for c in range(ncon):
                    w[was, c] -= vwgt[v, c]
                    w[side, c] += vwgt[v, c]
        over = 0.0
        for s in range(2):
            for c in range(ncon):
                over = max(over, w[s, c] / max(maxw[blocks[s], c], 1))
        if best_over < 0 or over < best_over:
            best_over = over
            best = choice
    for i in range(nr):
        part[region[i]] = blocks[_cut_side(reach, to_sink, best, i)]
    for s in range(2):
        for c in range(ncon):
            pw[blocks[s], c] = weights[best, s, c]
    return old - base - flow


@njit(cache=True, inline="always")
def _arc_pair(head, cap, rev, fill, x, y, capacity, back):
    """The arc from ``x`` to ``y`` of ``capacity`` and its reverse of ``back``."""
    p = fill[x]
    q = fill[y]
    fill[x] += 1
    fill[y] += 1
    head[p] = y
    head[q] = x
    cap[p] = capacity
    cap[q] = back
    rev[p] = q
    rev[q] = p


@njit(cache=True, inline="always")
def _cut_side(reach, to_sink, choice, i):
    """The side of corridor vertex ``i`` under minimum cut ``choice``: 0 for the vertices the source
    reaches (choice 0) or those that do not reach the sink (choice 1), else 1."""
    return 0 if (reach[i] if choice == 0 else not to_sink[i]) else 1


@njit(cache=True)
def _max_flow(first, head, cap, rev, source, sink):
    """The maximum flow from ``source`` to ``sink`` by FIFO push-relabel with global relabelling (Goldberg and
    Tarjan; Cherkassky and Goldberg's heuristics, as KaHIP uses); ``cap`` is left as the residual capacities.

    Every node's label bounds its distance to the sink in the residual network (to the source, plus the
    number of nodes, once the sink is out of reach); an active node pushes its excess along arcs one label
    down and is relabelled when none is left. The labels are set exact by two breadth-first searches at the
    start and after every ``6 n + m`` units of relabelling work. The excess that cannot reach the sink flows
    back to the source, so the result is a flow, not only a preflow.
    """
    nodes = first.size - 1
    excess = np.zeros(nodes, dtype=np.int64)
    label = np.empty(nodes, dtype=np.int64)
    current = np.empty(nodes, dtype=np.int64)
    active = np.zeros(nodes, dtype=np.bool_)
    queue = np.empty(nodes + 1, dtype=np.int64)  # a ring: each node is in it at most once
    scratch = np.empty(nodes, dtype=np.int64)
    unlabelled = 2 * nodes
    qhead, qtail = 0, 0
    active[source] = True
    active[sink] = True
    for p in range(first[source], first[source + 1]):
        y = head[p]
        excess[y] += cap[p]
        cap[rev[p]] += cap[p]
        cap[p] = 0
        if excess[y] > 0 and not active[y]:
            active[y] = True
            queue[qtail] = y
            qtail = (qtail + 1) % queue.size
    budget = 6 * nodes + first[nodes]
    work = budget
    while qhead != qtail:
        if work >= budget:
            _exact_labels(first, head, cap, rev, source, sink, label, scratch)
            for x in range(nodes):
                current[x] = first[x]
            work = 0
        x = queue[qhead]
        qhead = (qhead + 1) % queue.size
        active[x] = False
        end = first[x + 1]
        while excess[x] > 0 and work < budget:
            p = current[x]
            if p == end:  # no admissible arc left: relabel
                low = unlabelled
                for q in range(first[x], end):
                    if cap[q] > 0:
                        low = min(low, label[head[q]] + 1)
                work += 12 + end - first[x]
                label[x] = low
                current[x] = first[x]
                if low >= unlabelled:
                    break
                continue
            y = head[p]
            if cap[p] > 0 and label[x] == label[y] + 1:
                amount = min(cap[p], excess[x])
                cap[p] -= amount
                cap[rev[p]] += amount
                excess[x] -= amount
                excess[y] += amount
                if not active[y]:
                    active[y] = True
                    queue[qtail] = y
                    qtail = (qtail + 1) % queue.size
            else:
                current[x] += 1
        if excess[x] > 0 and not active[x] and label[x] < unlabelled:
            active[x] = True
            queue[qtail] = x
            qtail = (qtail + 1) % queue.size
    return excess[sink]


@njit(cache=True)
def _exact_labels(first, head, cap, rev, source, sink, label, queue):
    """Each node's distance to the sink in the residual network, or the number of nodes plus its distance
    to the source when it cannot reach the sink (twice the number of nodes when neither)."""
    nodes = first.size - 1
    for x in range(nodes):
        label[x] = 2 * nodes
    for root, base in ((sink, 0), (source, nodes)):
        label[root] = base
        queue[0] = root
        qhead, qtail = 0, 1
        while qhead < qtail:
            x = queue[qhead]
            qhead += 1
            for p in range(first[x], first[x + 1]):
                y = head[p]
                if label[y] == 2 * nodes and y != source and cap[rev[p]] > 0:
                    label[y] = label[x] + 1
                    queue[qtail] = y
                    qtail += 1


@njit(cache=True)
def _search(first, head, cap, rev, start, seen, backwards):
    """Mark the nodes that ``start`` reaches through arcs with residual capacity (``backwards``: the nodes
    that reach ``start``)."""
    nodes = first.size - 1
    queue = np.empty(nodes, dtype=np.int64)
    seen[start] = True
    queue[0] = start
    qhead, qtail = 0, 1
    while qhead < qtail:
        x = queue[qhead]
        qhead += 1
        for p in range(first[x], first[x + 1]):
            y = head[p]
            residual = cap[rev[p]] if backwards else cap[p]
            if residual > 0 and not seen[y]:
                seen[y] = True
                queue[qtail] = y
                qtail += 1
