"""The λ-1 (connectivity-1, Mt-KaHyPar's km1) gain type of refinement on hypergraphs.

State: ``pc[e, t]`` pins of net ``e`` in part ``t`` (int32, ``m x k``),
``lam[e]`` the parts net ``e`` spans, ``pw[t]`` part weights. The λ-1 gain
of moving ``u`` from part ``p`` to part ``t`` is

    sum of w(e) over nets of u with pc[e, p] == 1   (e leaves p)
  - sum of w(e) over nets of u with pc[e, t] == 0   (e enters t),

read in O(k) from Mt-KaHyPar's gain cache (:func:`gain_cache`), which
:func:`move_cached` keeps exact by delta updates on the nets whose pin
counts cross 0/1 or 1/2. :func:`best_cached_move` rates a vertex's moves
from it, for the engine's label propagation
(:data:`~partkit.multilevel.kernels.label_propagation.KM1_REFINE`) and the
hypergraph FM and rebalancer (:mod:`partkit.hypergraph.kernels.refinement`).
No move empties a part.
"""

import numpy as np

from partkit._jit import njit


@njit(cache=True)
def pin_counts(net_ptr, pins, part, k):
    """``pc`` (m x k, int32) and ``lam`` (m,) of a partition."""
    m = net_ptr.size - 1
    pc = np.zeros((m, k), dtype=np.int32)
    lam = np.zeros(m, dtype=np.int64)
    for e in range(m):
        for q in range(net_ptr[e], net_ptr[e + 1]):
            t = part[pins[q]]
            if pc[e, t] == 0:
                lam[e] += 1
            pc[e, t] += 1
    return pc, lam


@njit(cache=True)
def connectivity_cost(nwgt, lam):
    """``sum_e w(e) * (lam[e] - 1)`` over non-empty nets."""
    total = 0
    for e in range(nwgt.size):
        if lam[e] > 1:
            total += nwgt[e] * (lam[e] - 1)
    return total


@njit(cache=True)
def gain_cache(net_ptr, pins, nwgt, part, pc, k):
    """Mt-KaHyPar's λ-1 gain cache of a partition: ``(benefit, conn)``.

    ``benefit[v]`` sums ``w(e)`` over the nets of ``v`` where ``v`` is the
    last pin in its part; ``conn[v, t]`` sums ``w(e)`` over the nets of
    ``v`` with a pin in part ``t`` (``conn[v, part[v]]`` is the weighted
    degree of ``v``). The gain of moving ``v`` from ``p`` to ``t`` is
    ``benefit[v] - conn[v, p] + conn[v, t]``.
    """
    n = part.size
    benefit = np.zeros(n, dtype=np.int64)
    conn = np.zeros((n, k), dtype=np.int64)
    for e in range(net_ptr.size - 1):
        w = nwgt[e]
        for q in range(net_ptr[e], net_ptr[e + 1]):
            v = pins[q]
            if pc[e, part[v]] == 1:
                benefit[v] += w
            for t in range(k):
                if pc[e, t] > 0:
                    conn[v, t] += w
    return benefit, conn


@njit(cache=True)
def on_boundary(u, vptr, vnets, lam):
    """Whether ``u`` lies on a net that spans more than one part."""
    for j in range(vptr[u], vptr[u + 1]):
        if lam[vnets[j]] > 1:
            return True
    return False


@njit(cache=True)
def best_cached_move(v, benefit, conn, vwgt, part, pw, maxw, any_part, slack, shed, factor, first=0, last=-1):
    """Best λ-1 move of ``v`` to a part with room that shares a net with it (any part with room when
    ``any_part``: rebalancing), from the gain cache: ``(gain, part)``, part -1 if none (also when ``v``
    is all its part weighs: a move never empties a part); ties go to the lighter part. Only parts
    ``first .. last - 1`` are rated (default: all).

    With ``slack`` > 0 a part has room up to ``(1 + slack)`` times its bound (Mt-KaHyPar's
    unconstrained FM), and a move's gain loses what shedding the weight it puts above the bound will
    cost: ``factor`` times that weight times the price at which the part's :func:`shed_table` row
    ``shed`` reaches the part's whole excess; a part that cannot shed so much has no room.
    """
    p = part[v]
    if pw[p] == vwgt[v]:
        return 0, -1
    base = benefit[v] - conn[v, p]
    best_gain = 0
    best = -1
    for t in range(first, pw.size if last < 0 else last):
        if t == p or not (any_part or conn[v, t] > 0):
            continue
        above = pw[t] + vwgt[v] - maxw[t]  # the weight the move leaves above t's bound (if positive)
        if above > 0 and (slack == 0 or above > slack * maxw[t]):
            continue
        g = base + conn[v, t]
        if above > 0:
            b = 0
            while b < SHED_CLASSES and shed[t, b] < above:
                b += 1
            if b == SHED_CLASSES:
                continue
            g -= np.int64(np.ceil(factor * shed_price(b) * (above - max(pw[t] - maxw[t], 0))))
        if best < 0 or g > best_gain or (g == best_gain and pw[t] < pw[best]):
            best_gain, best = g, t
    return best_gain, best


@njit(cache=True)
def _touch(v, stamp, visit, touched, nt):
    """List ``v`` in ``touched`` (``nt`` long) unless stamped ``visit`` already; returns the new length."""
    if stamp[v] != visit:
        stamp[v] = visit
        touched[nt] = v
        nt += 1
    return nt


@njit(cache=True)
def move_cached(u, t, net_ptr, pins, vptr, vnets, nwgt, vwgt, part, pc, lam, pw, benefit, conn, large_net,
                stamp, visit, touched):
    """Move ``u`` to ``t``, updating pin counts, connectivities, part weights and, by the delta rules,
    the gain cache.

    Only pin counts crossing 0/1 or 1/2 change cache entries; the pins of
    such nets with at most ``large_net`` pins are listed in ``touched`` to
    be re-keyed (their keys also catch up with the part weights, which
    keeps λ-1 as with full recomputation); their number is returned. Cost: the pins of the nets
    whose counts crossed, not every pin of ``u``'s nets.
    """
    p = part[u]
    part[u] = t
    pw[p] -= vwgt[u]
    pw[t] += vwgt[u]
    nt = 0
    own = 0
    for j in range(vptr[u], vptr[u + 1]):
        e = vnets[j]
        w = nwgt[e]
        eager = net_ptr[e + 1] - net_ptr[e] <= large_net
        pc[e, p] -= 1
        pc[e, t] += 1
        if pc[e, p] == 0:
            lam[e] -= 1
        if pc[e, t] == 1:
            lam[e] += 1
            own += w
        if pc[e, p] > 1 and pc[e, t] > 2:
            continue
        for q in range(net_ptr[e], net_ptr[e + 1]):
            v = pins[q]
            if pc[e, p] == 0:
                conn[v, p] -= w
            elif pc[e, p] == 1 and part[v] == p:
                benefit[v] += w
            if pc[e, t] == 1:
                conn[v, t] += w
            elif pc[e, t] == 2 and part[v] == t and v != u:
                benefit[v] -= w
            if eager and v != u:
                nt = _touch(v, stamp, visit, touched, nt)
    benefit[u] = own
    return nt


#: price classes of :func:`shed_table`: class 0 costs nothing, class 1 at most 0.5 per unit of weight,
#: class b >= 2 at most 1.5 ** (b - 2) (Mt-KaHyPar's buckets; the last class takes every dearer vertex)
SHED_CLASSES = 16


@njit(cache=True)
def no_shed():
    """The shed table that moves within the bound pass (never read)."""
    return np.zeros((1, SHED_CLASSES), dtype=np.int64)


@njit(cache=True)
def shed_price(b):
    """λ-1 per unit of weight that price class ``b`` of :func:`shed_table` stands for."""
    if b == 0:
        return 0.0
    if b == 1:
        return 0.5
    return 1.5 ** (b - 2)


@njit(cache=True)
def shed_table(vwgt, part, benefit, conn, k, interior):
    """What each part could shed, by price: ``table[t, b]`` is the weight of the vertices of ``t`` whose
    removal costs at most :func:`shed_price` ``(b)`` of λ-1 per unit of weight (cumulative in ``b``).

    Only vertices with at least ``interior`` of their nets' weight on nets that keep another pin in
    their part count (Mt-KaHyPar's candidates for rebalancing, 0.7 there): the cost of removing such a
    vertex hardly depends on where it goes. Vertices without nets cost nothing.
    """
    table = np.zeros((k, SHED_CLASSES), dtype=np.int64)
    for v in range(vwgt.size):
        w = vwgt[v]
        p = part[v]
        inside = conn[v, p] - benefit[v]  # weight of v's nets that keep a pin in p without v
        if w == 0 or inside < interior * conn[v, p]:
            continue
        per_weight = inside / w
        b = 0
        if per_weight > 0.5:
            b = 2
            while b < SHED_CLASSES - 1 and shed_price(b) < per_weight:
                b += 1
        elif per_weight > 0:
            b = 1
        table[p, b] += w
    for b in range(1, SHED_CLASSES):
        table[:, b] += table[:, b - 1]
    return table