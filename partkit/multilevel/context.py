"""The parameters of the multilevel engine: one frozen context per stage, presets as data.

A :class:`Context` holds a :class:`CoarseningContext`, an
:class:`InitialContext` and a :class:`RefinementContext`, plus the number of
independent runs and V-cycles. The presets are the default context with a
few overrides (:data:`PRESET_OVERRIDES`), so the difference between two
presets reads off one table; :func:`preset` builds them. The measurements
that chose the defaults are in ``docs/history/tuning.md``.

Examples
--------
>>> from partkit.multilevel.context import preset
>>> ctx = preset("fast")
>>> ctx.refinement.algorithms
('balance', 'lp', 'fm')
>>> ctx.coarsening.coarse_per_part, preset("default").coarsening.coarse_per_part
(20, 80)
>>> preset("strong", coarsening="clustering").coarsening.algorithm
'clustering'
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cache

from partkit.errors import InputError

#: Coarsening algorithms: heavy-edge matching (with two-hop and clustering
#: fallbacks when it stalls), size-constrained label-propagation clustering,
#: or ``auto``: clustering when the degrees are skewed (power-law graphs) or
#: most paths of length two close a triangle (random geometric graphs).
COARSENINGS = ("auto", "matching", "clustering")

#: Refinement algorithms, applied in the order a context lists them.
REFINEMENTS = ("balance", "lp", "fm", "flow")


@dataclass(frozen=True)
class CoarseningContext:
    """How the hierarchy is built.

    Attributes
    ----------
    algorithm : {"auto", "matching", "clustering"}
    coarse_per_part, coarsest_min : int
        Coarsening stops at ``max(coarse_per_part * k, coarsest_min)`` vertices.
    matched_coarsest, matched_coarsest_share : int, float
        ... and a hierarchy built by matching at no fewer than
        ``min(matched_coarsest, matched_coarsest_share * n)``: the
        multilevel bisections of the initial partitioning (their own
        hierarchies, grown starts and relaxed bound) then take the
        coarse levels of a mesh, where they cut less than the k-way
        refinement of those levels (small k only: 80 vertices a part
        exceed it from k = 25; ``fast`` leaves it out). Not for
        clustered hierarchies (random geometric graphs cut more), nor
        for small inputs (the share).
    stall_ratio : float
        A level must shrink the graph to at most this fraction, else coarsening stops.
    two_hop_share : float
        Two-hop matching runs when more than this share of the vertices stay unmatched.
    cluster_fallback : float
        Clustering replaces a matching that shrinks the graph to more than this fraction.
    matching_rounds : int
        Rounds of the parallel matching (locally dominant edges) at most.
    cluster_rounds : int
        Label-propagation sweeps of one clustering step.
    cluster_batches : int
        Batches of a sweep: the vertices of a batch choose their cluster in
        parallel from the labels left by the previous batch.
    cluster_weight_share : float
        When the input is clustered, a cluster may weigh this share of ε
        times the perfect weight of the lightest part where that exceeds
        the cap of the coarse vertices (KaMinPar's limit: ε leaves room for
        such a vertex in every part): the clusters of a clustered graph
        then follow its clusters, for a smaller cut.
    skew : float
        ``auto`` picks clustering when the maximum degree exceeds ``skew``
        times the average degree (and the graph has over 1000 vertices).
    bisect_skewed : bool
        A graph with skewed degrees (by ``skew``) gets no k-way levels:
        the initial partitioning's recursive multilevel bisections, each
        with its own hierarchy and 2-way FM on every level, split the
        input itself, then k-way refinement (V-cycles still coarsen). On
        the tuning set's R-MAT graph this cut 41, 33 and 14 % less at
        k = 2, 8, 64 than the k-way hierarchy and its refinement (label
        propagation clusters the hubs with their neighbourhoods, whose
        k-way moves then cut a lot), as METIS's recursive bisection cuts
        less than its k-way scheme there.
    triangle_share : float
        ... or when more than this share of the paths of length two close
        a triangle (the transitivity, estimated by
        :func:`kernels.coarsening_clustering.sampled_transitivity`).
    triangle_sample, triangle_step, triangle_neighbours : int
        The estimate looks at about ``triangle_sample`` evenly spread
        vertices, at most every ``triangle_step``-th, and at the paths through
        ``triangle_neighbours`` neighbours of each: cheap, and close to the
        exact share. Neighbourhoods that overlap this much (a random geometric
        graph: 0.59) give label propagation compact clusters, where a matching
        of equal-weight edges pairs vertices at random across them; triangle
        and tetrahedral meshes have about 0.4, the FEM matrix bcsstk13 0.48:
        clustering cuts less on the first, matching on meshes.
    """

    algorithm: str = "auto"
    coarse_per_part: int = 80
    coarsest_min: int = 300
    matched_coarsest: int = 2000
    matched_coarsest_share: float = 0.05
    stall_ratio: float = 0.95
    two_hop_share: float = 0.25
    cluster_fallback: float = 0.9
    matching_rounds: int = 8
    cluster_rounds: int = 3
    cluster_batches: int = 16
    cluster_weight_share: float = 1.0
    skew: float = 20.0
    bisect_skewed: bool = True
    triangle_share: float = 0.5
    triangle_sample: int = 1000
    triangle_step: int = 16
    triangle_neighbours: int = 4


@dataclass(frozen=True)
class InitialContext:
    """How the coarsest graph is partitioned (recursive multilevel bisection).

    Attributes
    ----------
    runs : int
        Recursive bisections of the coarsest graph, the best is kept (half as many for k > 16).
    tries : int
        Grown starts of the first bisection; later ones get a share by weight.
    min_tries : int
        Fewest grown starts of a bisection deep in the recursion. The
        coarse levels of a random geometric graph are partitioned almost
        only by the initial bisections (more FM or label propagation on
        the way up changes no cut), so its bad seeds are bad starts: more
        starts cut less there, for a few percent more time.
    start_fm_passes : int
        2-way FM passes refining each grown start.
    level_fm_passes : int
        2-way FM passes per level on the way up a bisection's hierarchy.
    bisection_coarsest : int
        A bisection's own coarsening stops at this many vertices; smaller
        sub-problems are bisected flat (grown starts and FM on the
        subgraph itself). At 300, every bisection below the first one of
        a k = 8 coarsest graph (about 640 vertices) was flat, and flat FM
        cannot move the branches of a sparse, tree-like graph (moving a
        branch costs until all of it has moved); coarser bisections move
        them as coarse vertices (with the relaxed bound on the coarse
        levels of a bisection, see
        :func:`partkit.multilevel.initial.multilevel_bisection`); METIS
        and KaMinPar coarsen a bisection to about 20 vertices.
    min_bad_moves : int
        Lower bound on the fruitless FM moves of a pass; a low one pays for
        part of the extra starts of ``min_tries``.
    imbalance_share : float
        The initial partition may use this multiple of ε (the k-way
        refinement restores the bound), or the relaxed bound of the
        coarsest level if that is larger.
    min_imbalance : float
        ... and at least this imbalance.
    """

    runs: int = 1
    tries: int = 10
    min_tries: int = 8
    start_fm_passes: int = 4
    level_fm_passes: int = 4
    bisection_coarsest: int = 100
    min_bad_moves: int = 40
    imbalance_share: float = 2.0
    min_imbalance: float = 0.03


@dataclass(frozen=True)
class RefinementContext:
    """How every level is refined on the way up.

    Attributes
    ----------
    algorithms : tuple of {"balance", "lp", "fm", "flow"}
        Applied in this order: ``balance`` restores the bound (moves along
        paths of parts when no direct move fits), ``lp`` is boundary label
        propagation, ``fm`` k-way FM with rollback, ``flow`` the cheapest
        split of every two adjacent parts in a corridor around their
        boundary (a maximum flow, :mod:`kernels.refinement_flow`; the cut,
        mapping and migration objectives, not the volume; k up to 256).
    bisection_algorithms : tuple of {"balance", "lp", "fm", "flow"}
        The list used when k = 2, where ``fm`` is 2-way FM with bucket queues,
        balance-aware moves and rollback (the kernel that refines the initial
        bisections), run for ``bisection_fm_passes`` passes of at most
        ``max(50, bisection_bad_share * n)`` fruitless moves: it cuts less
        than the k-way list, in less time. It restores the bound itself: an
        overweight bisection starts a pass from every vertex and moves out of
        the heavier side first, so no ``balance`` runs before it (the balancer
        would spend the zero-gain moves, such as isolated vertices, that FM
        uses to balance the sides at no cost).
    bisection_fm_passes : int
    flow_rounds, flow_level, flow_share : int, int, float
        ``flow`` makes up to ``flow_rounds`` flows a pair of parts (until
        one lowers the objective no further), on levels of at least
        ``flow_level`` vertices, in corridors of ``flow_share`` of the room
        the bound leaves the other part. ``default`` refines bisections by
        flows on levels of 100 000 vertices and more: on the tuning set at
        k = 2 they cut 0.985 x in 1.014 x the time (delaunay_n20 12 %
        less in 1.08 x); at k = 8 and 64 they cost more than they gain
        there (cut 0.992 x for 1.05 x the time). ``strong`` refines every
        level by flows at every k: cut 0.993 x in 1.09 x the time
        (``docs/history/tuning.md``).
    bisection_bad_share : float
    bisection_stop_alpha : float
        With more than 0, a 2-way FM pass on a balanced bisection also stops
        by the adaptive rule with this ``alpha``
        (:func:`kernels.stop_rule.adaptive_stop`, ``beta = ln n``; KaHyPar's
        2-way FM and the hypergraph's initial FM use 16 too).
    lp_rounds : int
    lp_batches : int
        Batches of a label-propagation sweep (rated in parallel, moved in order).
    fm_passes : int
    fm_large_level, fm_large_passes : int
        Levels of at least ``fm_large_level`` vertices get ``fm_large_passes``
        FM passes (0: no such levels). The passes are sequential; on these
        levels the parallel label propagation does most of the work, so
        fewer passes cost little cut.
    fm_groups, fm_group_level, fm_group_parts : int
        On levels of at least ``fm_group_level`` vertices with at least
        ``fm_group_parts`` parts a group, a k-way FM pass (for the cut) is
        ``fm_groups`` passes, one per group of consecutive parts (the
        halves of the first bisection for 2), run at once on the threads;
        a vertex with a neighbour in another group stays where it is in
        them, and a sequential pass from these vertices follows. The FM
        moves are the sequential part of the refinement; the partition is
        the same for any thread count.
    fm_max_bad : int
    fm_bad_share : float
        A k-way FM pass stops after ``max(50, min(fm_max_bad, fm_bad_share * n))``
        moves without a new best cut.
    fm_local_bad : int
        With more than 0, k-way FM passes are localized: one search from
        each boundary vertex in turn, stopped after this many moves without
        a new best of its own (``fm_max_bad`` and ``fm_bad_share`` unused),
        from the vertices whose best move loses at most ``fm_seed_loss``
        times their weighted degree.
    fm_stop_alpha : float
        With more than 0, a localized search also stops once its moves since
        its last best make a new best unlikely (KaHyPar's random-walk rule,
        :func:`kernels.stop_rule.adaptive_stop`, with this ``alpha`` and
        ``beta = ln n``): a search whose moves keep losing stops before
        ``fm_local_bad`` moves.
    fm_degree_factor, fm_degree_min : float, int
        FM moves only vertices with at most
        ``max(fm_degree_min, fm_degree_factor * average degree)`` edges;
        the hubs of power-law graphs are left to label propagation.
    balance_rounds : int
        Rounds of the balancer before it gives up.
    """

    algorithms: tuple = ("balance", "lp", "fm")
    bisection_algorithms: tuple = ("fm", "flow")
    bisection_fm_passes: int = 4
    flow_rounds: int = 1
    flow_level: int = 100_000
    flow_share: float = 1.0
    bisection_bad_share: float = 0.02
    bisection_stop_alpha: float = 16.0
    lp_rounds: int = 4
    lp_batches: int = 16
    fm_passes: int = 1
    fm_groups: int = 2
    fm_group_level: int = 10_000
    fm_group_parts: int = 8
    fm_max_bad: int = 1000
    fm_large_level: int = 200_000
    fm_large_passes: int = 1
    fm_bad_share: float = 0.1
    fm_local_bad: int = 20
    fm_seed_loss: float = 0.125
    fm_stop_alpha: float = 1.0
    fm_degree_factor: float = 8.0
    fm_degree_min: int = 64
    balance_rounds: int = 20

    def with_flows(self):
        """This context with ``flow`` after the other algorithms of both lists, on levels of every size.

        Examples
        --------
        >>> ctx = RefinementContext().with_flows()
        >>> ctx.algorithms, ctx.bisection_algorithms, ctx.flow_level
        (('balance', 'lp', 'fm', 'flow'), ('fm', 'flow'), 0)
        """
        def plus_flow(names):
            return names if "flow" in names else names + ("flow",)

        return replace(self, algorithms=plus_flow(self.algorithms),
                       bisection_algorithms=plus_flow(self.bisection_algorithms), flow_level=0)


@dataclass(frozen=True)
class Context:
    """The whole engine: one context per stage, plus repetitions.

    Attributes
    ----------
    runs, vcycles : int
        Independent multilevel runs (the best is kept) and V-cycles after them.
    working_imbalance : float
        A tighter ε is worked to at this one: the hierarchy, the initial
        partition and the refinement of every level use the bound of
        ``working_imbalance``, and the final bound is restored on the input
        graph at the end (the balancer, along paths of parts, then label
        propagation and FM at the final bound; with ε = 0 the parts are then
        evened out). At the final bound itself every part is full, and the
        k-way moves, which keep a part within its bound, find almost no
        move; a little room on the way up cuts much less at ε = 0 and
        0.001, for the time of the refinement at the final bound. ε of at
        least ``working_imbalance`` is unchanged.
    mapping_vcycles : int
        Fewest V-cycles for a mapping objective (``topology``). The cost of
        a mesh mapped on a hierarchy is mostly its cut between the
        outermost groups, set by the initial split; V-cycles, which coarsen
        within the parts and refine again, move those boundaries further
        than the refinement of one hierarchy.
    """

    coarsening: CoarseningContext = field(default_factory=CoarseningContext)
    initial: InitialContext = field(default_factory=InitialContext)
    refinement: RefinementContext = field(default_factory=RefinementContext)
    runs: int = 1
    vcycles: int = 0
    working_imbalance: float = 0.003
    mapping_vcycles: int = 2


#: Each preset is the default :class:`Context` with these overrides
#: (``"stage.field"`` or a top-level field).
PRESET_OVERRIDES = {
    "fast": {"coarsening.coarse_per_part": 20, "coarsening.matched_coarsest": 0, "initial.tries": 4,
             "initial.min_tries": 4, "initial.min_bad_moves": 50, "initial.level_fm_passes": 2,
             "refinement.lp_rounds": 2, "refinement.bisection_fm_passes": 2, "refinement.fm_seed_loss": 0.0,
             "refinement.bisection_algorithms": ("fm",)},
    "default": {},
    "strong": {"initial.tries": 40, "initial.start_fm_passes": 10,
               "initial.level_fm_passes": 8, "initial.runs": 4, "initial.min_bad_moves": 50,
               "refinement.lp_rounds": 6, "refinement.fm_passes": 3, "refinement.bisection_fm_passes": 8,
               "refinement.fm_local_bad": 30, "refinement.fm_seed_loss": 0.25, "refinement.fm_stop_alpha": 0.0,
               "refinement.bisection_stop_alpha": 0.0, "refinement.fm_large_level": 0,
               "refinement.algorithms": ("balance", "lp", "fm", "flow"),
               "refinement.flow_rounds": 2, "refinement.flow_level": 0,
               "runs": 4, "vcycles": 3},
}

PRESETS = tuple(PRESET_OVERRIDES)


def preset(name="default", **overrides):
    """The :class:`Context` of preset ``name``, with optional further overrides.

    Parameters
    ----------
    name : {"fast", "default", "strong"}
    **overrides
        ``coarsening="matching"`` sets the coarsening algorithm; any
        ``stage__field=value`` (for example ``refinement__fm_passes=5``)
        or top-level field (``runs=2``) overrides that parameter.

    Raises
    ------
    InputError
        For an unknown preset, field or coarsening algorithm.
    """
    if name not in PRESET_OVERRIDES:
        raise InputError(f"multilevel: preset must be one of {', '.join(PRESETS)}, got {name!r}")
    ctx = _preset_context(name)
    for key, value in overrides.items():
        if key == "coarsening":
            if value not in COARSENINGS:
                raise InputError(f"multilevel: coarsening must be one of {', '.join(COARSENINGS)}, got {value!r}")
            key = "coarsening.algorithm"
        ctx = _override(ctx, key.replace("__", "."), value)
    unknown = set(ctx.refinement.algorithms + ctx.refinement.bisection_algorithms) - set(REFINEMENTS)
    if unknown:
        raise InputError(f"multilevel: unknown refinement {sorted(unknown)}; available: {', '.join(REFINEMENTS)}")
    return ctx


@cache
def _preset_context(name):
    """The :class:`Context` of preset ``name`` without further overrides, built once (it is frozen)."""
    ctx = Context()
    for key, value in PRESET_OVERRIDES[name].items():
        ctx = _override(ctx, key, value)
    return ctx


def _override(ctx, key, value):
    """``ctx`` with ``key`` set to ``value`` (``ctx`` itself when it has that value already)."""
    stage, _, name = key.rpartition(".")
    if not stage:
        _check_field(ctx, name)
        return ctx if getattr(ctx, name) == value else replace(ctx, **{name: value})
    _check_field(ctx, stage)
    sub = getattr(ctx, stage)
    _check_field(sub, name)
    return ctx if getattr(sub, name) == value else replace(ctx, **{stage: replace(sub, **{name: value})})


def _check_field(obj, name):
    if name not in getattr(obj, "__dataclass_fields__", {}):
        raise InputError(f"multilevel: unknown parameter {name!r} of {type(obj).__name__}")
