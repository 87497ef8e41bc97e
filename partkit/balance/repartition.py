"""Repartitioning: restore balance after vertex weights change, moving little weight.

After mesh refinement (or any change of the per-vertex work), an existing
partition is unbalanced. Partitioning again from scratch gives a good cut
but moves most vertices to another process; repartitioning keeps most
vertices where they are. As in ParMETIS ``AdaptiveRepart`` the trade-off is
one number, ``itr``: the objective is

    itr * edge_cut + migration

where ``migration`` is the total ``vsize`` of the vertices whose part
changed (``vsize`` defaults to the new vertex weight, the data a vertex
carries). A large ``itr`` (ParMETIS recommends 1000 when unknown) favours a
small cut; a small one favours little migration.

Strategies
----------
``multilevel`` (default)
    ParMETIS ``AdaptiveRepart`` (Schloegel, Karypis and Kumar's unified
    repartitioning) on partkit's multilevel engine: coarsen merging only
    vertices of the same old part, so every coarse vertex has one old part
    and the summed ``vsize``; on the coarsest graph take the best, by the
    objective, of the old partition (balanced and refined there), the
    ``diffusion`` and the ``remap`` strategies run on that graph; then
    project it level by level, balancing and refining (label propagation,
    k-way FM) ``itr * cut + migration`` on every level
    (:func:`partkit.multilevel.objectives.migration`). Then V-cycles
    (coarsening within the old and the current parts) refine that result,
    and separately the scratch partition of ``remap`` and two scratch
    partitions of the graph with its edges between old parts made cheaper
    (:data:`BOUNDARY_PREFERENCES`, :func:`preferring_old_boundaries`),
    whose parts follow the old boundaries where a cut nearly as good does;
    the best of these and of the ``diffusion`` and ``remap`` strategies'
    results (cheap next to the V-cycles) is kept.
``diffusion``
    Compute a flow of load between neighbouring parts (on the quotient graph
    of the partition) that balances them: by default the flow of least total
    volume, a small linear program, which moves the least weight; or
    (``flow="l2"``) the flow of least 2-norm that first-order diffusion
    converges to, ``x_a - x_b`` with ``L x = w - w_avg`` on the quotient
    Laplacian (Hu and Blake). With several constraints the load combines
    them (:func:`vertex_load`). Boundary vertices move along half the flow
    one at a time, best gain first; the flow is recomputed from the new
    weights and the rounds repeat while the overload decreases. Then the
    engine's refinement (its balancer, label propagation and k-way FM)
    improves ``itr * cut + migration`` and restores the bound.
``remap``
    Partition from scratch with the new weights, relabel the new parts to
    maximise the weight that stays in place (an assignment problem), then
    run the same refinement.
``auto``
    All three; keep the one with the lower objective.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace

import numpy as np
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment, linprog

from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.graph import Graph
from partkit.metrics import (check_partition, edge_cut, imbalance, is_balanced, max_part_weights,
                             part_count, part_weights)
from partkit.balance.kernels.repartition import flow_moves

STRATEGIES = ("multilevel", "diffusion", "remap", "auto")

#: Rounds of (flow from the current weights, moves along it); each round
#: sends only this fraction of the flow, because a flow that crosses several
#: parts cannot always be realised at once (a transit part may lose its
#: boundary with the next part before it has passed the load on).
FLOW_ROUNDS = 20
FLOW_DAMPING = 0.5
#: The diffusion runs once without a limit and once keeping every part at half the average part's load or more
#: (a part passing load on may otherwise give all it holds away before its inflow arrives and drop out of the
#: flow: heavy particle cells at k = 256 left parts empty and others up to 4 x over the bound), and keeps the
#: better result; the limit alone left a few steps with cells of nearly a part's weight (k = 128) unbalanced.
FLOW_FLOORS = (-1.0, 0.5)
#: Most V-cycles of the multilevel strategy from each of its starts (each kept only when it lowers the objective).
VCYCLES = 5
#: Scratch partitions that prefer the old boundaries, as starts of the multilevel strategy's V-cycles:
#: ``(inside, across)`` weighs an edge inside an old part ``inside`` times and one between two old parts
#: ``across`` times its weight, so that of the cuts nearly as good as the best the partitioner takes those
#: along the old boundaries, whose vertices stay home.
BOUNDARY_PREFERENCES = ((5, 4), (3, 2))


@dataclass
class RepartitionResult:
    """A partition with its cut, migration and balance.

    Attributes
    ----------
    part : numpy.ndarray of int64
    k : int
    cut : int
        Edge cut.
    migration : int
        Total ``vsize`` of the vertices whose part changed.
    moved : int
        Number of vertices whose part changed.
    imbalance : float
        Max part weight / average - 1 (worst constraint), with the new weights.
    strategy : str
    balanced : bool
        Whether every part meets the bound (set by :func:`repartition`).
    """

    part: np.ndarray
    k: int
    cut: int
    migration: int
    moved: int
    imbalance: float
    strategy: str
    balanced: bool = True

    def objective(self, itr) -> float:
        """``itr * cut + migration``."""
        return itr * self.cut + self.migration

    def to_dict(self) -> dict:
        return {"strategy": self.strategy, "k": self.k, "cut": self.cut,
                "migration": self.migration, "moved": self.moved, "imbalance": self.imbalance}


def migration_volume(old, new, vsize) -> tuple[int, int]:
    """Total ``vsize`` and number of the vertices whose part differs between ``old`` and ``new``."""
    changed = np.asarray(old) != np.asarray(new)
    return int(np.asarray(vsize)[changed].sum()), int(changed.sum())


def relabel_to_match(old, new, k, vsize) -> np.ndarray:
    """Rename the parts of ``new`` so that as much ``vsize`` as possible keeps its old part id.

    Solves the assignment problem on the ``k x k`` overlap matrix (Hungarian
    algorithm), the "remap" step of scratch-remap repartitioning.
    """
    overlap = np.zeros((k, k), dtype=np.float64)
    np.add.at(overlap, (np.asarray(new), np.asarray(old)), np.asarray(vsize, dtype=np.float64))
    rows, cols = linear_sum_assignment(overlap, maximize=True)
    mapping = np.empty(k, dtype=np.int64)
    mapping[rows] = cols
    return mapping[new]


def with_weights(graph, vwgt):
    """``graph`` with its vertex weights replaced by ``vwgt`` (shape (n,) or (n, ncon)), checked."""
    if vwgt is None:
        return graph
    vwgt = np.asarray(vwgt)
    if vwgt.ndim == 1:
        vwgt = vwgt.reshape(-1, 1)
    if vwgt.ndim != 2 or vwgt.shape[0] != graph.n:
        raise InputError(f"{graph.name}: new vertex weights have {vwgt.shape[0] if vwgt.ndim else 0} "
                         f"rows for {graph.n} vertices")
    if vwgt.size and vwgt.dtype.kind not in "iu":
        raise InputError(f"{graph.name}: vertex weights must be integers")
    if vwgt.size and vwgt.min() < 0:
        raise InputError(f"{graph.name}: negative vertex weight {int(vwgt.min())}")
    return Graph(graph.xadj, graph.adjncy, vwgt.astype(np.int64), graph.adjwgt, graph.coords,
                 name=graph.name, validate=False)


def _quotient_adjacency(graph, part, k):
    src = graph.edge_sources()
    dst = part[graph.adjncy]
    crossing = part[src] != dst
    adjacency = np.zeros((k, k), dtype=bool)
    adjacency[part[src[crossing]], dst[crossing]] = True
    return adjacency


def vertex_load(graph) -> np.ndarray:
    """One load per vertex for the diffusion: the weights summed over constraints,
    each constraint scaled to the total of the first (just the weight when ``ncon = 1``)."""
    totals = graph.vwgt.sum(axis=0).astype(np.float64)
    scale = np.divide(totals[0], totals, out=np.zeros_like(totals), where=totals > 0)
    return graph.vwgt @ scale if graph.ncon > 1 else graph.vwgt[:, 0].astype(np.float64)


def balancing_flow(graph, part, k, method="l1", load=None) -> np.ndarray:
    """The flow of load between neighbouring parts that balances them, shape ``(k, k)``.

    ``flow[a, b] > 0`` is what part ``a`` sends to its neighbour part ``b``
    (``flow`` is antisymmetric); the net outflow of every part is its excess
    load over the average, taken within each connected component of the
    quotient graph (what cannot be balanced along part adjacencies is left
    to the balancing moves).

    Parameters
    ----------
    method : {"l1", "l2"}
        ``l1``: the flow of least total volume ``sum |flow|``, a linear
        program (HiGHS): since every unit of flow on a quotient edge is a
        unit of weight changing part, it moves the least weight. ``l2``: the
        flow of least 2-norm, ``flow[a, b] = x_a - x_b`` with
        ``L x = excess`` on the quotient Laplacian ``L`` -- the solution
        first-order diffusion converges to (Hu and Blake); it spreads the
        flow over more paths and moves more.
    load : numpy.ndarray, optional
        Load per vertex (default :func:`vertex_load`).
    """
    from scipy.sparse.csgraph import connected_components

    load = vertex_load(graph) if load is None else load
    adjacency = _quotient_adjacency(graph, part, k)
    weights = np.bincount(part, weights=load, minlength=k)
    _, component = connected_components(sp.csr_matrix(adjacency), directed=False)
    sizes = np.bincount(component)
    excess = weights - (np.bincount(component, weights=weights) / sizes)[component]
    if method == "l2":
        laplacian = np.diag(adjacency.sum(axis=1)) - adjacency.astype(np.float64)
        x = np.linalg.lstsq(laplacian, excess, rcond=None)[0]
        return adjacency * (x[:, None] - x[None, :])
    if method != "l1":
        raise InputError(f"unknown flow {method!r}; available: l1, l2")
    a, b = np.nonzero(np.triu(adjacency))
    flow = np.zeros((k, k))
    if a.size == 0:
        return flow
    edges = np.arange(a.size)
    # variables: forward part f+ (a -> b), then backward part f- (b -> a), both >= 0
    rows = np.concatenate([a, b, a, b])
    cols = np.concatenate([edges, edges, edges + a.size, edges + a.size])
    vals = np.concatenate([np.ones(a.size), -np.ones(a.size), -np.ones(a.size), np.ones(a.size)])
    divergence = sp.csr_matrix((vals, (rows, cols)), shape=(k, 2 * a.size))
    # HiGHS's presolve finds nothing to remove in a network LP and takes nine tenths of the time
    # (2.7 of 2.9 s on a quotient graph of 256 parts and 63,556 edges; the simplex alone 0.18 s)
    solution = linprog(np.ones(2 * a.size), A_eq=divergence, b_eq=excess, bounds=(0, None),
                       method="highs", options={"presolve": False})
    if solution.status != 0:
        raise RuntimeError(f"balancing flow LP failed: {solution.message}")
    f = solution.x[:a.size] - solution.x[a.size:]
    flow[a, b] = f
    flow[b, a] = -f
    return flow


def _result(graph, home, part, k, vsize, strategy):
    migration, moved = migration_volume(home, part, vsize)
    imb = imbalance(graph, part, k)
    return RepartitionResult(part, k, edge_cut(graph, part), migration, moved,
                             float(imb.max()) if imb.size else 0.0, strategy)


def _ranking(graph, k, imbalance_bound, itr):
    def key(result):
        return (not is_balanced(graph, result.part, k, imbalance_bound), result.objective(itr))
    return key


def _improve(graph, home, part, k, vsize, maxw, itr, seed, flow=None):
    """Flow rounds (when ``flow`` names a norm), then the engine's refinement (balancer, label propagation,
    k-way FM) of ``itr * cut + migration``, in place. With a flow, once for each of :data:`FLOW_FLOORS`, and
    the better result (within the bound first, then by the objective) is kept."""
    from partkit._random import derive
    from partkit.multilevel.objectives import migration
    from partkit.multilevel.refinement import refine

    objective = migration(home, vsize, itr)
    key = derive(seed, "repartition", "refine")
    ctx = _refinement_context().refinement
    if flow is None:
        refine(graph, part, maxw, ctx, key, objective=objective)
        return part
    results, flowed, first = [], [], None
    for share in FLOW_FLOORS:
        candidate = part.copy()
        first = _flow_rounds(graph, candidate, k, maxw, flow, share, objective, first)
        if any(np.array_equal(candidate, before) for before in flowed):
            continue  # the floor never held a move back: the same refinement would follow
        flowed.append(candidate.copy())
        refine(graph, candidate, maxw, ctx, key, objective=objective)
        results.append(candidate)
    part[:] = min(results, key=lambda candidate: objective.rank(graph, candidate, maxw))
    return part


def _flow_rounds(graph, part, k, maxw, flow, floor_share, objective, first=None):
    """Rounds of moves along the balancing flow of norm ``flow`` (:func:`balancing_flow`, damped by
    :data:`FLOW_DAMPING`), each for the most overloaded constraint, while they lower the overload; no move
    leaves a part with less than ``floor_share`` of the average part's load (negative: no limit).

    Returns the first round's flow (None when no round ran), which a later call from the same ``part``
    takes as ``first`` instead of solving it again (a linear program: 0.2-0.3 s
    on the quotient graph of 256 parts of a Barabási-Albert graph)."""
    pw = part_weights(graph, part, k)
    previous = np.inf
    for step in range(FLOW_ROUNDS):
        per_constraint = (np.maximum(pw - maxw, 0) / np.maximum(maxw, 1)).sum(axis=0)
        overload = float(per_constraint.sum())
        if overload == 0 or overload >= previous:
            break
        previous = overload
        load = graph.vwgt[:, int(np.argmax(per_constraint))].astype(np.float64)
        if step == 0 and first is None:
            first = FLOW_DAMPING * balancing_flow(graph, part, k, flow, load)
        # flow_moves consumes what it is given
        owed = first.copy() if step == 0 else FLOW_DAMPING * balancing_flow(graph, part, k, flow, load)
        flow_moves(graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt, part, pw, load, owed, objective.data,
                   floor_share * load.sum() / k)
    return first


def _refinement_context():
    """The default preset with the refinement of the migration objective: on two parts as on many (balancer,
    label propagation, k-way FM: 2-way FM lowers the cut only, then flows), and one global search a k-way FM
    pass, two passes: localized passes, the default for the cut, left 2-3 % more objective in the diffusion
    strategy, 0.1-0.6 % in the multilevel one (steps 1, 4, 8 of the quick benchmark's scenarios, k = 16).
    Flows on every level (the least ``itr * cut + migration`` between two parts in a corridor) lowered the
    multilevel strategy's objective by 1.0 % (itr 1: 1.7 %, itr 1000: 0.3 %) and its migration by 2.0 % over
    the 80 steps of the quick benchmark, for 1.26 x its time."""
    from partkit.multilevel import preset

    engine = preset("default")
    refinement = engine.refinement.with_flows()
    return replace(engine, refinement=replace(refinement, bisection_algorithms=refinement.algorithms, fm_local_bad=0,
                                              fm_passes=2))


def _multilevel(graph, home, k, vsize, maxw, imbalance, itr, seed, flow, starts, finished):
    """The ``multilevel`` strategy: coarsen within the old parts, start from the best of the old partition,
    diffusion and scratch-remap on the coarsest graph, refine ``itr * cut + migration`` on every level; then
    V-cycles from that result and from each of ``starts`` (scratch partitions of the fine graph, relabelled);
    the best of them and of the partitions ``finished`` (the diffusion and remap strategies' results)."""
    from partkit._random import derive
    from partkit.multilevel import _hierarchy, preset, run
    from partkit.multilevel.objectives import migration
    from partkit.multilevel.refinement import level_bounds, refine, uncoarsen

    engine = preset("default")
    ctx = _refinement_context()
    hierarchy = _hierarchy(graph, maxw, imbalance, ctx, derive(seed, "repartition"), None, group=home)
    objective = migration(home, vsize, itr).on(hierarchy)
    coarsest = hierarchy.coarsest
    to_coarsest = hierarchy.to_coarsest() if len(hierarchy) else np.arange(graph.n)
    coarse_home = np.empty(coarsest.n, dtype=np.int64)
    coarse_home[to_coarsest] = home
    coarse_vsize = np.bincount(to_coarsest, weights=vsize, minlength=coarsest.n).astype(np.int64)
    bounds = level_bounds(coarsest, maxw, hierarchy.input_heaviest())
    kept = coarse_home.copy()
    refine(coarsest, kept, bounds, ctx.refinement, derive(seed, "repartition", "old"), objective=objective)
    coarse_diffused = _improve(coarsest, coarse_home, coarse_home.copy(), k, coarse_vsize, bounds, itr, seed,
                               flow)
    coarse_scratch = run(coarsest, k, bounds, imbalance, engine, derive(seed, "repartition", "scratch"))
    remapped = relabel_to_match(coarse_home, coarse_scratch, k, coarse_vsize)
    _improve(coarsest, coarse_home, remapped, k, coarse_vsize, bounds, itr, seed)
    part = min((kept, coarse_diffused, remapped), key=lambda p: objective.rank(coarsest, p, bounds))
    if len(hierarchy):
        part = uncoarsen(hierarchy, part, maxw, ctx.refinement, derive(seed, "repartition", "uncoarsen"),
                         objective=objective)
    results = [_vcycles(graph, home, k, start, objective, maxw, imbalance, ctx, derive(seed, "repartition", i))
               for i, start in enumerate((part, *starts))]
    results += [(part, objective.rank(graph, part, maxw)) for part in finished]
    return min(results, key=lambda result: result[1])[0]


def _vcycles(graph, home, k, part, objective, maxw, imbalance, ctx, key):
    """Up to :data:`VCYCLES` V-cycles of the migration ``objective`` from ``part``: coarsen within the old
    parts and the current ones, refine from the coarsest graph back up; each kept while it lowers the
    objective. Returns ``(part, its rank)``."""
    from partkit._random import derive
    from partkit.multilevel import vcycle

    best_rank = objective.rank(graph, part, maxw)
    for cycle in range(VCYCLES):
        candidate = vcycle(graph, part, maxw, imbalance, ctx, derive(key, "vcycle", cycle), objective,
                           group=home * k + part, relaxed_coarsest=True)
        if candidate is None:
            break
        rank = objective.rank(graph, candidate, maxw)
        if rank > best_rank:
            break
        part, best_rank = candidate, rank
    return part, best_rank


def preferring_old_boundaries(graph, home, inside, across) -> Graph:
    """``graph`` with the weight of every edge inside an old part (``home``) multiplied by ``inside`` and of
    every edge between two old parts by ``across``: with ``across < inside`` a partition cut along the old
    boundaries costs less, so partitioning it from scratch keeps more vertices home at nearly the same cut."""
    factor = np.where(home[graph.edge_sources()] == home[graph.adjncy], inside, across)
    return Graph(graph.xadj, graph.adjncy, graph.vwgt, factor * graph.adjwgt, graph.coords, name=graph.name,
                 validate=False)


def scratch_method():
    """The method used to partition from scratch: ``multilevel`` when available, else ``metis``."""
    from partkit.methods import METHODS

    return "multilevel" if "multilevel" in METHODS else "metis"


def partition_from_scratch(graph, part, k, *, vwgt=None, imbalance=0.03, method=None, seed=0,
                           vsize=None, relabel=True) -> RepartitionResult:
    """Partition again with the new weights, ignoring the old partition (for comparison).

    Parameters
    ----------
    relabel : bool, default True
        Rename the new parts to maximise the weight that keeps its old part
        id (:func:`relabel_to_match`); without it, part ids are arbitrary and
        nearly everything counts as migrated.
    """
    from partkit.api import partition

    graph = with_weights(graph, vwgt)
    home = check_partition(graph, part, k)
    vsize = graph.vwgt[:, 0] if vsize is None else np.asarray(vsize, dtype=np.int64)
    new = partition(graph, k, method or scratch_method(), imbalance=imbalance, seed=seed)
    if relabel:
        new = relabel_to_match(home, new, k, vsize)
    return _result(graph, home, new, k, vsize, "scratch" + ("+relabel" if relabel else ""))


def repartition(graph, part, vwgt=None, k=None, *, imbalance=0.03, itr=1000.0, vsize=None,
                strategy="multilevel", flow="l1", method=None, seed=0) -> RepartitionResult:
    """Rebalance ``part`` for new vertex weights, keeping the cut and the migration low.

    Parameters
    ----------
    graph : partkit.Graph
    part : array_like of int, shape (n,)
        The current partition.
    vwgt : array_like of int, shape (n,) or (n, ncon), optional
        The new vertex weights (default: ``graph.vwgt``). Every constraint is
        balanced; the diffusion flow uses the first.
    k : int, optional
        Number of parts (default ``max(part) + 1``).
    imbalance : float, default 0.03
        Allowed imbalance, as in :func:`partkit.partition`.
    itr : float, default 1000
        Weight of the edge cut against the migration volume in the objective
        ``itr * cut + migration``.
    vsize : array_like of int, shape (n,), optional
        Migration cost per vertex (default: the first new weight).
    strategy : {"multilevel", "diffusion", "remap", "auto"}, default "multilevel"
        See the module's description.
    flow : {"l1", "l2"}, default "l1"
        The balancing flow of the diffusion strategy (:func:`balancing_flow`, also
        on the coarsest graph of ``multilevel``):
        least total volume (least migration) or least 2-norm (diffusion).
    method : str, optional
        Partitioning method from scratch for ``remap``, ``multilevel`` and ``auto``
        (default :func:`scratch_method`).
    seed : int

    Returns
    -------
    RepartitionResult
        ``imbalance`` may exceed the bound only when no partition can meet it
        (a vertex heavier than the maxw).
    """
    graph = with_weights(graph, vwgt)
    home = check_partition(graph, part)
    k = part_count(home, k)
    home = check_partition(graph, home, k)
    if not (0 <= imbalance < 10) or not np.isfinite(imbalance):
        raise InputError(f"imbalance must be in [0, 10), got {imbalance}")
    if not (itr >= 0) or not np.isfinite(itr):
        raise InputError(f"itr must be a non-negative number, got {itr}")
    if strategy not in STRATEGIES:
        raise InputError(f"unknown strategy {strategy!r}; available: {', '.join(STRATEGIES)}")
    if flow not in ("l1", "l2"):
        raise InputError(f"unknown flow {flow!r}; available: l1, l2")
    vsize = graph.vwgt[:, 0].copy() if vsize is None else np.asarray(vsize, dtype=np.int64)
    if vsize.shape != (graph.n,) or (vsize.size and vsize.min() < 0):
        raise InputError(f"{graph.name}: vsize must be {graph.n} non-negative integers")
    maxw = max_part_weights(graph, k, imbalance)
    # the diffusion and remap results (and the scratch partition) serve their strategies and the multilevel one
    diffused = scratch = remapped = None
    if strategy != "remap":
        diffused = _improve(graph, home, home.copy(), k, vsize, maxw, itr, seed, flow)
    if strategy != "diffusion":
        with warnings.catch_warnings():
            if strategy == "multilevel":  # only a start of its V-cycles: the result's balance is what counts
                warnings.simplefilter("ignore", InfeasibleBalanceWarning)
            scratch = partition_from_scratch(graph, home, k, imbalance=imbalance, method=method,
                                             seed=seed, vsize=vsize).part
        remapped = _improve(graph, home, scratch.copy(), k, vsize, maxw, itr, seed)
    candidates = []
    if strategy in ("multilevel", "auto"):
        with warnings.catch_warnings():  # starts of the V-cycles: the result's balance is what counts
            warnings.simplefilter("ignore", InfeasibleBalanceWarning)
            starts = [scratch] + [partition_from_scratch(preferring_old_boundaries(graph, home, inside, across), home,
                                                         k, imbalance=imbalance, method=method, seed=seed,
                                                         vsize=vsize).part
                                  for inside, across in BOUNDARY_PREFERENCES]
        part = _multilevel(graph, home, k, vsize, maxw, imbalance, itr, seed, flow, starts, (diffused, remapped))
        candidates.append(_result(graph, home, part, k, vsize, "multilevel"))
    if strategy in ("diffusion", "auto"):
        candidates.append(_result(graph, home, diffused, k, vsize, "diffusion"))
    if strategy in ("remap", "auto"):
        candidates.append(_result(graph, home, remapped, k, vsize, "remap"))
    best = min(candidates, key=_ranking(graph, k, imbalance, itr))
    best.balanced = is_balanced(graph, best.part, k, imbalance)
    return best
