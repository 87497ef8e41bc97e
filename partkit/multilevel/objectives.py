"""What the multilevel engine's refinement optimises: the objectives, their names and their data.

An :class:`Objective` is what the refinement kernels rate moves by (as
Mt-KaHyPar's gain types): a code and its data (None for the cut), handed
to every kernel that rates a move (label propagation, k-way FM, the
balancer), and the
gain of a move under each code in
:mod:`partkit.multilevel.kernels.objectives`. The engine's stages take an
``objective`` (default :data:`CUT`) and hand ``objective.code`` and
``objective.data`` to the kernels.

* :data:`CUT`: the edge cut;
* :func:`mapping`: the mapping cost ``J = sum over cut edges of w_uv *
  D(part(u), part(v))`` on a :class:`partkit.machine.Machine`, part ``i``
  running on PE ``i``;
* :data:`VOLUME`: METIS's total communication volume (``objtype=vol``):
  every vertex's size times the number of other parts it has neighbours
  in; its data are the sizes of the vertices of the graph
  (:meth:`Objective.at`). Its gains drive the greedy volume pass after the
  engine (:func:`partkit.constraints.refine_volume`). Refining
  for it on every level instead (a coarse vertex counting 1), without the
  pass, was tried and is not used: total volume 1278, 4807, 558, 2979,
  1079, 3906, 151, 831 where the cut's refinement plus the pass gives
  1281, 4787, 566, 2907, 920, 3882, 149, 796 and METIS ``objtype=vol``
  1346, 4977, 620, 2964, 1122, 4201, 152, 800 (Delaunay 2^15, 4elt,
  rgg_n_2_15, power; k = 8, 64; seed 0): better on three, much worse on
  rgg_n_2_15 at k = 8.
* :func:`migration`: ParMETIS's repartitioning objective ``itr * cut +
  migration``, the migration being the ``vsize`` of the vertices whose
  part differs from their old part. Its data are per vertex; on a
  hierarchy coarsened within the old parts (``coarsen(..., group=old)``)
  :meth:`Objective.on` gives every coarse vertex its one old part and the
  summed ``vsize``, so the gains of every level are exact
  (:func:`partkit.balance.repartition.repartition`, ``multilevel``).

A new objective is a code and a gain branch in the kernel module and a
constructor here that builds its data.

Examples
--------
>>> from partkit.generators import grid2d
>>> from partkit.machine import parse_machine
>>> g = grid2d(4, 4)
>>> part = np.repeat(np.arange(4), 4)  # four rows
>>> CUT.value(g, part)
12
>>> mapping(parse_machine(hierarchy="2:2", distance="1:10")).value(g, part)  # rows 0-1 and 2-3 on one node
48
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from partkit.errors import InputError
from partkit.multilevel.kernels import objectives as _kernels
from partkit.multilevel.kernels.objectives import objective_value
from partkit.multilevel.kernels.refinement_moves import part_weights

#: Largest distance of a mapping objective after scaling non-integer distances to integers.
DISTANCE_SCALE = 1 << 20


@dataclass(frozen=True)
class Objective:
    """An objective of refinement.

    Attributes
    ----------
    name : str
    code : int
        Its code in :mod:`partkit.multilevel.kernels.objectives`.
    data : int64 array, 2-D, or None
        Its data: the distances between the parts' PEs (k, k), the vertex
        sizes (1, n) of the graph given to :meth:`at`, or None for the cut
        (its kernels then compile without the other objectives' gains).
    machine : partkit.machine.Machine or None
        The machine of a mapping objective (its hierarchy shapes the
        initial partition, :func:`partkit.multilevel.initial.initial_mapping`).
    levels : tuple of (Graph, data) pairs
        A migration objective's data on the graphs of a hierarchy (:meth:`on`).
    """

    name: str
    code: int
    data: np.ndarray | None = field(repr=False)
    machine: object = field(default=None, repr=False)
    levels: tuple = field(default=(), repr=False, compare=False)

    def at(self, graph) -> Objective:
        """The objective with the data of ``graph`` (itself unless its data are per vertex)."""
        if self.code == _kernels.MIGRATION:
            for level, data in self.levels:
                if level is graph:
                    return replace(self, data=data, levels=())
            if self.data.shape[1] - 1 != graph.n:
                raise ValueError(f"the migration objective has data for {self.data.shape[1] - 1} vertices, "
                                 f"not {graph.n}: restrict it to the hierarchy first (Objective.on)")
            return self
        if self.code != _kernels.VOLUME:
            return self
        sizes = np.ones(graph.n, dtype=np.int64) if graph.vsize is None else graph.vsize.astype(np.int64)
        return replace(self, data=sizes.reshape(1, graph.n))

    def on(self, hierarchy) -> Objective:
        """The objective with data for every graph of ``hierarchy`` (itself unless its data are per vertex).

        For a migration objective the hierarchy must merge only vertices of
        the same old part (``coarsen(..., group=old_part)``): a coarse
        vertex gets that old part and the sum of the sizes.
        """
        if self.code != _kernels.MIGRATION:
            return self
        data = self.data
        levels = []
        for graph, cmap in hierarchy.levels:
            levels.append((graph, data))
            data = _coarse_migration_data(data, cmap, int(cmap.max()) + 1 if cmap.size else 0)
        levels.append((hierarchy.coarsest, data))
        return replace(self, levels=tuple(levels))

    def value(self, graph, part) -> int:
        """The objective of ``part`` on ``graph`` (in the units of :attr:`data`)."""
        return int(objective_value(np.int64(self.code), self.at(graph).data, graph.xadj, graph.adjncy,
                                   graph.adjwgt, np.asarray(part, dtype=np.int64)))

    def rank(self, graph, part, maxw) -> tuple:
        """``(over the bound maxw, objective value)``: the lower, the better partition."""
        over = bool(np.any(part_weights(graph.vwgt, part, maxw.shape[0]) > maxw))
        return over, self.value(graph, part)


#: The edge cut.
CUT = Objective("cut", _kernels.CUT, None)
#: The total communication volume (its data come from :meth:`Objective.at`).
VOLUME = Objective("volume", _kernels.VOLUME, np.ones((1, 1), dtype=np.int64))
#: The objectives of :func:`partkit.partition`'s ``objective`` by name.
BY_NAME = {"cut": CUT, "volume": VOLUME}


def migration(old_part, vsize, itr) -> Objective:
    """ParMETIS's repartitioning objective ``itr * cut + migration`` for a graph whose partition was ``old_part``.

    The migration is the total ``vsize`` of the vertices whose part is not
    their old one. The kernels work in integers: ``itr`` is taken as the
    fraction ``num / den`` nearest to it with ``den <= 1000``, and the
    objective's values are ``num * cut + den * migration`` (``den`` times
    ``itr * cut + migration``; 1 for an integer ``itr``).

    Examples
    --------
    >>> from partkit.generators import grid2d
    >>> g = grid2d(4, 4)
    >>> old = np.repeat(np.arange(4), 4)  # four rows
    >>> new = old.copy(); new[:2] = 1    # two vertices of row 0 move to row 1's part
    >>> migration(old, np.full(16, 5), 1000).value(g, new)  # cut 11, two vertices of size 5 moved
    11010
    >>> migration(old, np.full(16, 5), 0.5).value(g, new)  # 2 * (0.5 * 11 + 10)
    31
    """
    old = np.asarray(old_part, dtype=np.int64)
    sizes = np.asarray(vsize, dtype=np.int64)
    if old.ndim != 1 or sizes.shape != old.shape:
        raise InputError(f"migration objective: old parts {old.shape} and sizes {sizes.shape} must be one per vertex")
    if sizes.size and sizes.min() < 0:
        raise InputError(f"migration objective: negative vertex size {int(sizes.min())}")
    if not np.isfinite(itr) or itr < 0:
        raise InputError(f"itr must be a non-negative number, got {itr}")
    ratio = Fraction(float(itr)).limit_denominator(1000)
    data = np.empty((2, old.size + 1), dtype=np.int64)
    data[0, :-1] = old
    data[1, :-1] = sizes * ratio.denominator
    data[:, -1] = ratio.numerator, ratio.denominator
    return Objective("migration", _kernels.MIGRATION, data)


def _coarse_migration_data(data, cmap, nc):
    """The migration data of the graph ``cmap`` contracts to (``nc`` vertices): old part, summed sizes."""
    n = cmap.size
    coarse = np.empty((2, nc + 1), dtype=np.int64)
    coarse[0, cmap] = data[0, :n]
    if not np.array_equal(coarse[0, cmap], data[0, :n]):
        raise ValueError("a coarse vertex merges vertices of different old parts: coarsen with group=old part")
    coarse[1, :nc] = np.bincount(cmap, weights=data[1, :n], minlength=nc).astype(np.int64)
    coarse[:, -1] = data[:, -1]
    return coarse


def mapping(machine) -> Objective:
    """The mapping cost on ``machine`` (:class:`partkit.machine.Machine`), part ``i`` on PE ``i``.

    Integer distances are used as they are; others are scaled so that the
    largest is :data:`DISTANCE_SCALE` and rounded.
    """
    dist = np.asarray(machine.distance)
    if dist.ndim != 2 or dist.shape[0] != dist.shape[1] or dist.size == 0:
        raise InputError(f"machine {machine.name}: the distances must be a square matrix")
    if not np.all(dist == np.round(dist)):
        dist = np.rint(dist * (DISTANCE_SCALE / max(float(dist.max()), 1e-300)))
    return Objective("mapping", _kernels.MAPPING, np.ascontiguousarray(dist, dtype=np.int64), machine)
