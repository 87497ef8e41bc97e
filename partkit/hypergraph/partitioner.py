"""Multilevel k-way hypergraph partitioning on the connectivity-1 (λ-1) objective.

The scheme of hMETIS, PaToH and KaHyPar, with our own kernels
(:mod:`partkit.hypergraph.kernels`):

1. **Coarsening** (``kernels/coarsening.py``): passes of clustering by the
   heavy-net rating ``sum over shared nets of w(e) / (|e| - 1)``, divided
   by the product of the two weights (nets larger than ``large_net`` are
   not rated; a cluster weighs at most ``W / (contraction_limit * k)``;
   optionally clusters stay within the Louvain communities of the star
   expansion, ``kernels/communities.py``), each followed by contraction, which
   drops single-pin nets and merges identical nets into one heavier net;
   vertices a pass leaves alone are grouped two hops apart (Mt-KaHyPar's
   two-hop clustering); until ``contraction_limit * k`` vertices remain or
   a pass shrinks by less than 1 %.
2. **Initial partitioning** (``kernels/initial.py``): recursive bisection of
   the coarsest hypergraph, by the graph engine's driver
   (:func:`partkit.multilevel.recursive.recursive_bisection`: ``k`` split
   into ``k // 2`` and the rest, one seed per sub-problem). Every
   bisection is itself multilevel: coarsen to ``2 * bisection_limit`` vertices, take the best of ``tries`` greedy
   hypergraph growings each refined by 2-way FM on the cut-net gain (passes
   end by KaHyPar's adaptive random-walk stopping rule), then
   2-way FM on every level back up. The coarse levels of a bisection drop
   the nets heavier than either side's bound (cut whatever the bisection). Cut nets are split between the two
   halves (their pins on each side stay a net), so summing the cut nets of
   all bisections gives λ-1. The imbalance of each bisection is set so
   that the final parts respect the bound: ``(1 + ε')^depth * W_sub / k_sub <= L``.
   ``initial_runs`` recursive bisections are made; the ``refined_runs``
   best of them (least overweight, then smallest λ-1) are refined on the
   coarsest level and the best of those is kept.
3. **Uncoarsening** (``refinement.py``, ``kernels/refinement.py``): on
   every level, the partition is projected, label propagation (the graph
   engine's sweeps with the λ-1 rating; unconstrained: parts may overfill
   within a round, the rebalancer restores the bound after it, and a round
   that did not pay is undone) then rounds of localized k-way
   FM (Mt-KaHyPar's: many small searches, each started from a few boundary
   vertices and grown by the neighbours its moves touch, each keeping its
   best prefix) improve λ-1 from the gain cache of Mt-KaHyPar
   (:mod:`partkit.multilevel.kernels.refinement_km1`, kept exact by
   delta updates on the nets whose pin counts cross 0/1 or 1/2, also by the
   roll-backs), then a few passes of global k-way FM, overweight parts are rebalanced and
   an empty part gets the vertex that costs least to move there. No move
   empties a part.

The balance bound is partkit's: ``L = max(floor((1 + ε) W / k), ceil(W / k))``
for the total vertex weight ``W``.
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from partkit.errors import InfeasibleBalanceWarning, InputError
from partkit.hypergraph.kernels.coarsening import cluster, contract, transpose
from partkit.hypergraph.kernels.communities import DEGREE, NON_UNIFORM, UNIFORM, louvain, star_expansion
from partkit.hypergraph.kernels.initial import fm_refine, grow_and_refine
from partkit.hypergraph.kernels.refinement import fill_empty_parts, fm, localized_fm, part_weights, rebalance
from partkit.hypergraph.model import Hypergraph
from partkit.hypergraph.refinement import label_propagation
from partkit._random import KeyStream
from partkit.metrics import max_part_weights
from partkit.multilevel.kernels.refinement_km1 import connectivity_cost, gain_cache, pin_counts
from partkit.multilevel.recursive import bisection_bounds, recursive_bisection


@dataclass(frozen=True)
class Context:
    """Parameters of the partitioner (defaults in parentheses are the ``default`` preset).

    Attributes
    ----------
    contraction_limit : int
        Coarsen until ``contraction_limit * k`` vertices remain (160).
    max_shrink : float
        One clustering pass divides the vertex count by at most this (2.5).
    heavy_node_penalty : bool
        Divide the rating by the product of the two weights, which keeps
        clusters even (True; False is Mt-KaHyPar default's ``no_penalty``,
        which lost λ-1 on 3 of 4 matrices tried).
    communities : bool
        Coarsening merges only vertices of one Louvain community of the star
        expansion, as Mt-KaHyPar does (False: on R-MAT scale 16 at k = 8 it
        cost 15 % of λ-1, on Barabási-Albert 60k it gained 0.8 %).
    louvain_rounds, louvain_min_moves
        Local-moving rounds per Louvain level (5); a level stops early when
        fewer than this fraction of its nodes moved (0.01).
    large_net : int
        Nets with more pins are ignored while rating and in FM's eager
        gain updates (1000).
    bisection_limit : int
        Coarsest size of a bisection's hierarchy: ``2 * bisection_limit`` (150).
    tries : int
        Greedy growings per bisection (5).
    initial_runs, refined_runs : int
        Recursive bisections of the coarsest hypergraph (3), and how many of
        the best of them are refined there before the best is kept (1; the
        measurements are in ``docs/history/tuning.md``).
    fm2_stop, fm2_alpha, fm2_passes
        2-way FM: a pass stops after ``fm2_stop`` moves without improvement
        (400) or earlier by the adaptive rule with ``alpha = fm2_alpha``
        (16.0, see ``kernels/initial.py``); at most ``fm2_passes`` passes (10).
    fm2_nets_per_vertex : int
        On a level whose vertices lie on more nets than this on average
        (32), the 2-way FM's ``fm2_stop`` shrinks in proportion, to a
        quarter at least: the coarse levels of a power-law matrix's
        bisections hold a few hundred vertices on hundreds of nets each.
    lp_rounds, lp_batches : int
        Label-propagation rounds per level (5), and batches a round (0: one
        vertex a batch, each rated after the moves before it; a batch of
        several is rated at once, in parallel with threads: see
        :mod:`partkit.multilevel.kernels.label_propagation`).
    lp_slack, lp_penalty : float
        With ``lp_slack`` > 0 label propagation is *unconstrained*, as
        Mt-KaHyPar default's: its moves may fill a part to ``1 + lp_slack``
        times its bound, each paying ``lp_penalty`` times the estimated
        cost of shedding the excess (as localized FM's, below, with
        ``local_interior``), the rebalancer restores the bound after each
        round and a round that then did not lower λ-1 is undone and ends the
        rounds (0.3 and 0.2; 0 keeps every move within the bound; the
        measurements are in ``docs/history/tuning.md``).
    local_rounds, local_seeds, local_stop : int
        Localized k-way FM: rounds (10, fewer when a round gains little),
        boundary vertices that start one search (5), moves without
        improvement before a search stops (100).
    local_alpha, local_min_share : float
        A search also stops by the adaptive rule with ``alpha = local_alpha``
        (4.0; 0 turns it off); the rounds stop after one that lowered λ-1 by
        no more than ``local_min_share`` of its value (0.001); the
        measurements are in ``docs/history/tuning.md``.
    local_slack, local_interior, local_penalty, local_penalty_last : float
        With ``local_slack`` > 0 the localized rounds are *unconstrained*
        (Mt-KaHyPar's): a part may be filled to ``1 + local_slack`` times
        its bound, a move's gain losing what shedding the weight it puts
        above the bound is estimated to cost, from the vertices of that part
        with at least ``local_interior`` of their nets' weight inside it
        (0.7), times a factor growing from ``local_penalty`` (0.2) in the
        first round to ``local_penalty_last`` (1.0) in the last; the
        rebalancer restores the bound after each round, and a round that
        then did not lower λ-1 is undone and ends the rounds (0.3; 0 keeps
        every move within the bound).
    fm_stop, fm_passes : int
        Global k-way FM after the localized rounds (its long move sequences
        matter at k = 2 on power-law matrices): moves without improvement
        before a pass stops (350), passes (3).
    rebalance_rounds : int
        Rounds of the rebalancer (10).
    """

    contraction_limit: int = 160
    max_shrink: float = 2.5
    heavy_node_penalty: bool = True
    communities: bool = False
    louvain_rounds: int = 5
    louvain_min_moves: float = 0.01
    large_net: int = 1000
    bisection_limit: int = 150
    tries: int = 5
    initial_runs: int = 3
    refined_runs: int = 1
    fm2_stop: int = 400
    fm2_alpha: float = 16.0
    fm2_passes: int = 10
    fm2_nets_per_vertex: int = 32
    lp_rounds: int = 5
    lp_batches: int = 0
    lp_slack: float = 0.3
    lp_penalty: float = 0.2
    local_rounds: int = 10
    local_seeds: int = 5
    local_stop: int = 100
    local_alpha: float = 4.0
    local_min_share: float = 0.001
    local_slack: float = 0.3
    local_interior: float = 0.7
    local_penalty: float = 0.2
    local_penalty_last: float = 1.0
    fm_stop: int = 350
    fm_passes: int = 3
    rebalance_rounds: int = 10


PRESETS = {"fast": Context(tries=2, initial_runs=1, fm2_passes=3, local_rounds=2),
           "default": Context(),
           "strong": Context(tries=10, initial_runs=5, refined_runs=5, fm2_alpha=64.0, fm_stop=1000,
                             fm_passes=10)}


class _Level(NamedTuple):
    net_ptr: np.ndarray
    pins: np.ndarray
    vptr: np.ndarray
    vnets: np.ndarray
    nwgt: np.ndarray
    vwgt: np.ndarray

    @property
    def n(self):
        return self.vwgt.size

    def total_vertex_weight(self):
        """Shape ``(1,)``, as :meth:`partkit.Graph.total_vertex_weight` (for the recursive bisection)."""
        return np.array([self.vwgt.sum()], dtype=np.int64)

    def arrays(self):
        return self.net_ptr, self.pins, self.vptr, self.vnets, self.nwgt, self.vwgt


def _level(net_ptr, pins, nwgt, vwgt) -> _Level:
    vptr, vnets = transpose(vwgt.size, net_ptr, pins)
    return _Level(net_ptr, pins, vptr, vnets, nwgt, vwgt)


def _contract(level: _Level, coarse_of, nc, max_net_weight=None) -> _Level:
    """``level`` contracted by ``coarse_of``; nets whose pins weigh more than ``max_net_weight`` dropped."""
    heaviest = int(level.vwgt.sum()) if max_net_weight is None else max_net_weight
    cptr, cpins, cnwgt, cvwgt = contract(level.net_ptr, level.pins, level.nwgt, level.vwgt, coarse_of, nc, heaviest)
    return _level(cptr, cpins, cnwgt, cvwgt)


def _communities(level: _Level, ctx: Context, key) -> np.ndarray:
    """Louvain community of every vertex of ``level``, on its star expansion.

    The edge weights follow Mt-KaHyPar's ``hybrid`` rule: ``w(e) d(v) / |e|``
    when there are fewer than 0.75 nets a vertex, ``w(e) / |e|`` below 2
    nets a vertex when a net has more than ``large_net`` pins, else ``w(e)``.
    The vertices without nets form one community (the coarsening groups them).
    """
    density = level.nwgt.size / max(level.n, 1)
    largest = int(np.diff(level.net_ptr).max(initial=0))
    weighting = DEGREE if density < 0.75 else NON_UNIFORM if density < 2 and largest > ctx.large_net else UNIFORM
    graph = star_expansion(level.net_ptr, level.pins, level.vptr, level.vnets, level.nwgt, weighting)
    community = louvain(*graph, ctx.louvain_rounds, ctx.louvain_min_moves, key)[:level.n]
    community[np.diff(level.vptr) == 0] = level.n + level.nwgt.size  # Louvain numbers below the n + m nodes
    return community


def _coarsen(level: _Level, limit: int, ctx: Context, keys, max_net_weight=None, community=None):
    """The hierarchy ``[finest, ..., coarsest]`` and the maps from each level to the next.

    Coarse levels drop the nets whose pins weigh more than ``max_net_weight``
    (default: none dropped). With a ``community`` for every vertex, a
    cluster never spans two communities.
    """
    hierarchy, maps = [level], []
    community = np.zeros(level.n, dtype=np.int64) if community is None else community
    max_weight = max(math.ceil(int(level.vwgt.sum()) / limit), 1)
    while hierarchy[-1].n > limit:
        cur = hierarchy[-1]
        min_clusters = max(limit, int(cur.n / ctx.max_shrink))
        coarse_of, nc = cluster(cur.net_ptr, cur.pins, cur.vptr, cur.vnets, cur.vwgt, cur.nwgt, community,
                                max_weight, ctx.large_net, min_clusters, ctx.heavy_node_penalty, keys.next())
        if nc * 1.01 > cur.n:
            break
        hierarchy.append(_contract(cur, coarse_of, nc, max_net_weight))
        maps.append(coarse_of)
        coarse_community = np.empty(nc, dtype=np.int64)
        coarse_community[coarse_of] = community
        community = coarse_community
    return hierarchy, maps


def _bisect(level: _Level, maxw, target0, ctx: Context, keys):
    """Multilevel bisection: sides 0/1 with weights at most ``maxw``, side 0 aimed at ``target0``.

    A net whose pins weigh more than either side may is cut by every
    bisection within the bound, whatever it is: the coarse levels drop such
    nets, which on power-law and dense-line hypergraphs hold most of the pins
    there (the halves keep them: they are split by the caller).
    """
    hierarchy, maps = _coarsen(level, 2 * ctx.bisection_limit, ctx, keys, int(maxw.max()))
    part = grow_and_refine(*hierarchy[-1].arrays(), maxw, target0, ctx.tries, _fm2_stop(hierarchy[-1], ctx),
                           ctx.fm2_alpha, ctx.fm2_passes, keys.next())
    for finer, coarse_of in zip(hierarchy[-2::-1], maps[::-1]):
        part = part[coarse_of]
        fm_refine(*finer.arrays(), part, maxw, _fm2_stop(finer, ctx), ctx.fm2_alpha, ctx.fm2_passes)
    return part


def _fm2_stop(level: _Level, ctx: Context) -> int:
    """The 2-way FM's patience on ``level``: ``fm2_stop`` moves, fewer in proportion where its vertices
    lie on more than ``fm2_nets_per_vertex`` nets on average (each move costs that much more), at least
    a quarter of ``fm2_stop``."""
    nets_per_vertex = level.pins.size / max(level.n, 1)
    if nets_per_vertex <= ctx.fm2_nets_per_vertex:
        return ctx.fm2_stop
    return max(ctx.fm2_stop // 4, int(ctx.fm2_stop * ctx.fm2_nets_per_vertex / nets_per_vertex))


def _recursive_bisection(level: _Level, k, imbalance, ctx: Context, seed) -> np.ndarray:
    """``k`` parts of ``level`` by the engine's recursive bisection
    (:func:`partkit.multilevel.recursive.recursive_bisection`), each bisection :func:`_bisect`."""

    def bisect(sub, fraction0, eps, key):
        total = sub.total_vertex_weight()
        maxw = bisection_bounds(total, fraction0, eps)[:, 0]
        return _bisect(sub, maxw, int(round(int(total[0]) * fraction0)), ctx, KeyStream(key))

    return recursive_bisection(level, k, bisect, imbalance=imbalance, seed=seed, split_sides=_split_sides)


def _split_sides(level: _Level, side):
    """The sub-hypergraphs of the two sides of a bisection (nets cut by it split between them)."""
    out = []
    for s in (0, 1):
        inside = side == s
        mapping = np.where(inside, np.cumsum(inside) - 1, -1)
        out.append((np.flatnonzero(inside), _contract(level, mapping, int(inside.sum()))))
    return out


def _refine(level: _Level, part, maxw, ctx: Context, keys) -> bool:
    """λ-1 refinement of ``part`` (in place) on one level; True when the balance bound holds."""
    k = maxw.size
    arrays = level.arrays()
    pc, lam = pin_counts(level.net_ptr, level.pins, part, k)
    pw = part_weights(level.vwgt, part, k)
    state = (part, pc, lam, pw, maxw, *gain_cache(level.net_ptr, level.pins, level.nwgt, part, pc, k))
    rebalance(*arrays, *state, ctx.rebalance_rounds)
    label_propagation(*arrays, *state, ctx.lp_rounds, ctx.lp_slack, ctx.local_interior, ctx.lp_penalty,
                      ctx.rebalance_rounds, ctx.lp_batches, keys.next())
    localized_fm(*arrays, *state, ctx.local_rounds, ctx.local_seeds, ctx.local_stop, ctx.local_alpha,
                 ctx.local_min_share, ctx.large_net, ctx.local_slack, ctx.local_interior, ctx.local_penalty,
                 ctx.local_penalty_last, ctx.rebalance_rounds, keys.next())
    for _ in range(ctx.fm_passes):
        if fm(*arrays, *state, ctx.fm_stop, ctx.large_net) <= 0:
            break
    balanced = rebalance(*arrays, *state, ctx.rebalance_rounds)
    fill_empty_parts(*arrays, *state)
    return balanced


def _quality(level: _Level, part, maxw):
    """``(overweight, λ-1)`` of ``part`` on ``level``: the order in which partitions are preferred."""
    k = maxw.size
    over = int(np.maximum(part_weights(level.vwgt, part, k) - maxw, 0).sum())
    return over, int(connectivity_cost(level.nwgt, pin_counts(level.net_ptr, level.pins, part, k)[1]))


def partition(h: Hypergraph, k: int, *, imbalance: float = 0.03, seed: int = 0, preset: str = "default",
              context: Context | None = None) -> np.ndarray:
    """Partition a hypergraph into ``k`` parts minimising connectivity-1 (λ-1).

    Parameters
    ----------
    h : Hypergraph
    k : int
        Number of parts, ``1 <= k <= h.n``.
    imbalance : float, default 0.03
        Every part weighs at most ``max(floor((1 + imbalance) W / k), ceil(W / k))``.
    seed : int, default 0
        The same seed gives the same partition.
    preset : {"fast", "default", "strong"}
        Speed/quality trade-off (:data:`PRESETS`).
    context : Context, optional
        Explicit parameters (override ``preset``).

    Returns
    -------
    numpy.ndarray of int64, shape (h.n,)
        Part of every vertex. If the bound cannot be met (a vertex heavier
        than it, say), an :class:`~partkit.InfeasibleBalanceWarning` is
        issued and the partition is returned anyway.

    Examples
    --------
    A 20 x 20 grid's column-net hypergraph (a net per vertex: the vertex
    and its neighbours) in 4 parts, against its four quadrants (the nets of
    the vertices along the two middle lines are cut):

    >>> import numpy as np
    >>> from partkit.generators import grid2d
    >>> from partkit.hypergraph import Hypergraph, connectivity_minus_one, partition
    >>> h = Hypergraph.from_graph(grid2d(20, 20))
    >>> part = partition(h, 4, seed=1)
    >>> ids = np.arange(400)
    >>> quadrants = 2 * (ids // 20 >= 10) + (ids % 20 >= 10)
    >>> int(connectivity_minus_one(h, quadrants))
    80
    >>> int(connectivity_minus_one(h, part)) <= 80
    True
    """
    if not isinstance(h, Hypergraph):
        raise InputError(f"expected a partkit.hypergraph.Hypergraph, got {type(h).__name__}")
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= max(h.n, 1):
        raise InputError(f"{h.name}: k must be an integer in [1, {h.n}], got {k!r}")
    if not (imbalance >= 0 and np.isfinite(imbalance)):
        raise InputError(f"{h.name}: imbalance must be a non-negative number, got {imbalance!r}")
    if context is None:
        if preset not in PRESETS:
            raise InputError(f"{h.name}: preset must be one of {', '.join(PRESETS)}, got {preset!r}")
        context = PRESETS[preset]
    k = int(k)
    if k == 1:
        return np.zeros(h.n, dtype=np.int64)
    keys = KeyStream(seed)
    bound = int(max_part_weights(h, k, imbalance)[0, 0])
    maxw = np.full(k, bound, dtype=np.int64)
    finest = _contract(_level(h.net_ptr, h.pins, h.net_cost, h.vwgt), np.arange(h.n, dtype=np.int64), h.n)
    # with two parts, as in a bisection, a net heavier than the bound is cut whatever the partition
    community = _communities(finest, context, keys.next()) if context.communities else None
    hierarchy, maps = _coarsen(finest, context.contraction_limit * k, context, keys, bound if k == 2 else None,
                               community)
    coarsest = hierarchy[-1]
    candidates = []
    for _ in range(context.initial_runs):
        candidate = _recursive_bisection(coarsest, k, imbalance, context, keys.next())
        candidates.append((_quality(coarsest, candidate, maxw), len(candidates), candidate))
    best = None
    for _, _, candidate in sorted(candidates)[:context.refined_runs]:
        fits = _refine(coarsest, candidate, maxw, context, keys)
        quality = _quality(coarsest, candidate, maxw)
        if best is None or quality < best[0]:
            best = (quality, candidate, fits)
    _, part, balanced = best
    for finer, coarse_of in zip(hierarchy[-2::-1], maps[::-1]):
        part = part[coarse_of]
        balanced = _refine(finer, part, maxw, context, keys)
    if not balanced:
        warnings.warn(f"{h.name}: no partition into {k} parts within imbalance {imbalance} was found "
                      f"(heaviest part {int(np.bincount(part, h.vwgt, k).max())} > bound {bound})",
                      InfeasibleBalanceWarning, stacklevel=2)
    return part
