"""Parts placed on the machine: the mapping cost and how to lower it.

A partition into ``k`` parts runs on ``k`` processing elements (PEs) of a
:class:`partkit.machine.Machine`. Where part ``i`` runs is a *placement*
``pe[i]``; its cost is

    J = sum over cut edges {u, v} of w_uv * D(pe[part[u]], pe[part[v]]),

the communication volume weighted by the distance it travels.

* :func:`mapping_cost` is ``J``;
* :func:`place` places an existing partition: the quotient graph (parts
  and the weight between them) onto the machine, by greedy construction
  (and, on a hierarchy, by splitting the quotient graph along it) and
  pairwise swaps, as Scotch, VieM and Brandfass et al. do; it never
  returns a placement that costs more than the one it was given;
* :func:`partition_onto` partitions for the machine: the multilevel
  engine with the mapping cost as its objective
  (``partkit.partition(graph, k, topology=machine)``): on a hierarchy the
  graph itself is split level by level from the outermost
  (:func:`hierarchical_start`: the nodes, then the processors in a node,
  ...; the outermost split, whose cut costs most, with more V-cycles and
  most of the imbalance), so heavy communication stays on short
  distances (on graphs of fewer than :data:`RUNS_COMPETE_BELOW` vertices
  the engine's runs compete with it); V-cycles refine that start by the
  mapping gains on every level, and the parts' PEs are improved by swaps.
  On other machines (tori, distance files) the engine's runs start from
  the coarsest graph's partition placed by :func:`place`.

Examples
--------
>>> from partkit.generators import grid2d
>>> from partkit.machine import parse_machine
>>> g = grid2d(32, 32)
>>> machine = parse_machine(hierarchy="4:4", distance="1:10")
>>> part = partition_onto(g, machine, seed=0)
>>> int(part.max()) + 1
16
>>> in_order = partkit.partition(g, 16, seed=0)
>>> bool(mapping_cost(g, part, machine) <= mapping_cost(g, in_order, machine))
True
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.sparse as sp

import partkit
from partkit._random import derive
from partkit.errors import InputError
from partkit.machine import Machine
from partkit.mapping.kernels.placement import greedy_placement, swap_round
from partkit.metrics import check_partition, max_part_weights

__all__ = ["mapping_cost", "place", "partition_onto", "quotient_graph", "multisection", "hierarchical_start"]

#: Rounds of swaps at most (each round tries every part against every other).
MAX_SWAP_ROUNDS = 20
#: Largest imbalance of one split of :func:`multisection` (a coarse graph of the engine, whose bound is
#: relaxed, may allow more than :func:`partkit.partition` takes; the balancer restores the bound later).
MAX_SPLIT_IMBALANCE = 0.5
#: V-cycles of the outermost split of :func:`hierarchical_start` beyond those of the engine's context.
OUTER_VCYCLES = 2
#: Whether the outermost split of :func:`hierarchical_start` refines every level by flows (at any k and size):
#: the cut between the outermost groups costs most in ``J``. On the tuning meshes and grid (delaunay_n15,
#: delaunay_n17, tet3d_n17, grid3d_64 on 4:8, 4:8:8 and 2:16:16, seeds 0-1) J 0.980 x in 1.076 x the time.
OUTER_FLOWS = True
#: Share of the imbalance the outermost split of :func:`hierarchical_start` may use, as an exponent of
#: the room ``B * P / W`` (the levels below share what is left).
OUTER_SHARE = 0.9
#: Below this many vertices the engine's runs compete with :func:`hierarchical_start` (they are cheap there, and
#: on small graphs the coarsest graph's partition, placed, often wins: on a 32 x 32 grid on 4:4 / 1:10, 16 parts
#: of 64 vertices, J 790 against 854, geometric means over 5 seeds); above it they are not made.
RUNS_COMPETE_BELOW = 20_000


def quotient_graph(graph, part, k) -> sp.csr_matrix:
    """The ``(k, k)`` symmetric matrix of the edge weight between every two parts (zero diagonal)."""
    src = graph.edge_sources()
    ps, pd = part[src], part[graph.adjncy]
    cut = ps != pd
    q = sp.csr_matrix((graph.adjwgt[cut].astype(np.float64), (ps[cut], pd[cut])), shape=(k, k))
    q.sum_duplicates()
    q.sort_indices()
    return q


def mapping_cost(graph, part, machine: Machine, placement=None) -> float:
    """``J``: every cut edge's weight times the distance between the PEs of its two parts.

    Parameters
    ----------
    graph : partkit.Graph
    part : array_like of int, shape (n,)
        Part of every vertex, ``0 <= part < machine.k``.
    machine : partkit.machine.Machine
    placement : array_like of int, shape (machine.k,), optional
        PE of every part; default: part ``i`` on PE ``i``.

    Returns
    -------
    float
        An integer value for integer weights and distances.
    """
    part = check_partition(graph, part, machine.k)
    pe = part if placement is None else _check_placement(placement, machine.k)[part]
    src = graph.edge_sources()
    return float(np.dot(graph.adjwgt, machine.distance[pe[src], pe[graph.adjncy]])) / 2


def place(graph, part, machine: Machine, placement=None, *, seed=0) -> np.ndarray:
    """A placement of the parts on the machine's PEs with a low :func:`mapping_cost`.

    Candidates: the given placement (default in order), a greedy
    construction and, on a hierarchy, the quotient graph split along it
    (:func:`partkit.partition` with exact group sizes); each is improved by
    rounds of pairwise swaps of two parts' PEs (every part against every
    other, best exchange first), and the cheapest is returned. The given
    placement is a candidate, so the result never costs more than it.

    Parameters
    ----------
    graph : partkit.Graph
    part : array_like of int, shape (n,)
    machine : partkit.machine.Machine
    placement : array_like of int, shape (machine.k,), optional
        The placement to improve (default: part ``i`` on PE ``i``).
    seed : int, default 0
        Seed of the quotient-graph splits.

    Returns
    -------
    numpy.ndarray of int64, shape (machine.k,)
        PE of every part.
    """
    k = machine.k
    part = check_partition(graph, part, k)
    given = np.arange(k, dtype=np.int64) if placement is None else _check_placement(placement, k).copy()
    q = quotient_graph(graph, part, k)
    return _place_quotient(q, machine, given, seed)


def _place_quotient(q, machine, given, seed):
    dist = np.ascontiguousarray(machine.distance, dtype=np.float64)
    qptr, qidx, qw = q.indptr.astype(np.int64), q.indices.astype(np.int64), q.data
    rows = np.repeat(np.arange(qptr.size - 1), np.diff(qptr))

    def cost(pe):
        return float(np.dot(qw, dist[pe[rows], pe[qidx]])) / 2

    candidates = [given, greedy_placement(qptr, qidx, qw, dist)]
    if len(machine.hierarchy) > 1:
        split = _split_quotient(q, machine.hierarchy, seed)
        if split is not None:
            candidates.append(split)
    best, best_cost = None, np.inf
    for pe in candidates:
        for _ in range(MAX_SWAP_ROUNDS):  # one compiled round per call: Ctrl-C ends the process between rounds
            if swap_round(qptr, qidx, qw, dist, pe) <= 0:
                break
        c = cost(pe)
        if c < best_cost:
            best, best_cost = pe, c
    return best


def _split_quotient(q, hierarchy, seed):
    """PEs from splitting the quotient graph along the hierarchy (None if a split is not exact)."""
    from partkit.graph import INDEX_DTYPE, WEIGHT_DTYPE, Graph

    weights = np.maximum(1, np.rint(q.data)).astype(WEIGHT_DTYPE)  # q is symmetric with a zero diagonal
    quotient = Graph(q.indptr.astype(INDEX_DTYPE), q.indices.astype(INDEX_DTYPE), adjwgt=weights, name="quotient",
                     validate=False)
    return multisection(quotient, hierarchy, 0.0, seed)


def partition_onto(graph, machine: Machine, *, imbalance=0.03, seed=0, **options) -> np.ndarray:
    """Partition ``graph`` into ``machine.k`` parts placed for a low :func:`mapping_cost`.

    Part ``i`` of the result runs on PE ``i``. This is
    ``partkit.partition(graph, machine.k, topology=machine, ...)``: the
    multilevel engine lowering :func:`mapping_cost` on every level, its
    initial partition split along the machine's hierarchy
    (:func:`multisection`) or placed (:func:`place`), and the parts' PEs
    improved by swaps at the end.

    Parameters
    ----------
    graph : partkit.Graph or anything :func:`partkit.partition` takes
    machine : partkit.machine.Machine
    imbalance : float, default 0.03
    seed : int, default 0
    **options
        Passed to :func:`partkit.partition` (``preset``, ``threads``, ...).

    Returns
    -------
    numpy.ndarray of int64, shape (n,)
        The PE of every vertex.
    """
    return partkit.partition(graph, machine.k, imbalance=imbalance, seed=seed, topology=machine, **options)


def hierarchical_start(graph, objective, maxw, imbalance, ctx, seed):
    """The hierarchy of the machine of the mapping ``objective`` split on ``graph`` itself: the start of the
    engine's mapping runs on a hierarchy (:mod:`partkit.multilevel.objectives`).

    Each of ``ctx.runs`` splits (:func:`multisection`) cuts the outermost
    level, whose cut costs most in ``J``, by one run of the engine with
    ``ctx``, :data:`OUTER_VCYCLES` more V-cycles and flows on every level
    (:data:`OUTER_FLOWS`), using
    :data:`OUTER_SHARE` of the imbalance, and every level below by one run
    of ``ctx`` without V-cycles; the best, balanced first, then by ``J``,
    is returned. None when the machine has no hierarchy of two levels or
    more, the parts' bounds ``maxw`` differ, or every split leaves a group
    with fewer vertices than PEs.
    """
    hierarchy = objective.machine.hierarchy
    if len(hierarchy) < 2 or not (maxw == maxw[0]).all():
        return None
    best, best_rank = None, None
    for r in range(ctx.runs):
        part = multisection(graph, hierarchy, imbalance, derive(seed, r), contexts=split_contexts(ctx),
                            outer_share=OUTER_SHARE)
        if part is None:  # a group with fewer vertices than its PEs
            continue
        rank = objective.rank(graph, part, maxw)
        if best is None or rank < best_rank:
            best, best_rank = part, rank
    return best


def split_contexts(ctx):
    """The contexts of the splits of :func:`hierarchical_start` from the engine's ``ctx``: the outermost
    level's (:data:`OUTER_VCYCLES` more V-cycles, flows if :data:`OUTER_FLOWS`) and the other levels'."""
    refinement = ctx.refinement.with_flows() if OUTER_FLOWS else ctx.refinement
    return (replace(ctx, runs=1, vcycles=ctx.vcycles + OUTER_VCYCLES, refinement=refinement),
            replace(ctx, runs=1, vcycles=0))


def multisection(graph, hierarchy, imbalance, seed, contexts=None, outer_share=None):
    """Split ``graph`` along ``hierarchy`` (outermost level first); PE ids count the innermost level fastest.

    Every level gets the imbalance that is still allowed: a group of ``P``
    PEs holding weight ``W`` with ``r`` levels below and including this one
    splits with ``(B * P / W) ** (1 / r) - 1``, ``B`` being the final bound
    (KaHIP's adaptive imbalance), so the last level uses all that is left;
    ``outer_share``, when given, replaces ``1 / r`` on the outermost level.
    Every split is the multilevel engine's (:func:`partkit.multilevel.run`)
    with ``contexts[i]`` on the ``i``-th level from the outside, the last
    context on the levels beyond (default: the default preset on all).
    Returns None when a split at ``imbalance = 0`` on unit weights is not exact.
    """
    from partkit.multilevel import preset, run

    contexts = (preset("default"),) if contexts is None else tuple(contexts)
    k = int(np.prod(hierarchy))
    bound = max_part_weights(graph, k, imbalance)[0].astype(np.float64)
    part = np.zeros(graph.n, dtype=np.int64)
    groups = [np.arange(graph.n)]
    levels = [a for a in hierarchy if a > 1][::-1]
    width = k
    for depth, a in enumerate(levels):
        width //= a
        remaining = len(levels) - depth
        ctx = contexts[min(depth, len(contexts) - 1)]
        next_groups = []
        for index, vertices in enumerate(groups):
            base = part[vertices[0]] if vertices.size else 0
            sub = graph if vertices.size == graph.n else graph.subgraph(vertices)
            total = sub.total_vertex_weight().astype(np.float64)
            room = np.min(bound * width * a / np.maximum(total, 1)) if imbalance > 0 else 1.0
            share = outer_share if depth == 0 and remaining > 1 and outer_share is not None else 1.0 / remaining
            eps = min(max(0.0, room ** share - 1.0), MAX_SPLIT_IMBALANCE)
            split = run(sub, a, max_part_weights(sub, a, eps), eps, ctx,
                        derive(seed, "multisection", depth, index) % 2**31) if sub.n >= a else None
            if split is None or (imbalance == 0 and np.any(np.bincount(split, minlength=a) != sub.n // a)):
                return None
            part[vertices] = base + split * width
            next_groups += [vertices[split == j] for j in range(a)]
        groups = next_groups
    return part


def _check_placement(placement, k):
    pe = np.asarray(placement)
    if pe.shape != (k,) or not np.issubdtype(pe.dtype, np.integer) or not np.array_equal(np.sort(pe), np.arange(k)):
        raise InputError(f"a placement must be a permutation of the {k} processing elements")
    return pe.astype(np.int64)
