"""The one place the ordering package uses internals of the multilevel engine: coarsening, components."""

from partkit.multilevel.coarsening import coarsen as _coarsen
from partkit.multilevel.context import CoarseningContext
from partkit.multilevel.kernels.initial_packing import EVERY_EDGE, component_labels

__all__ = ["EVERY_EDGE", "coarsen", "component_labels"]

#: Separators coarsen by heavy-edge matching, as METIS's orderings do.
_MATCHING = CoarseningContext(algorithm="matching")


def coarsen(graph, coarsest_size, keys):
    """The hierarchy of ``graph`` down to ``coarsest_size`` vertices: ``(levels, coarsest)``.

    ``keys`` is a :class:`partkit._random.KeyStream`; ``levels`` lists
    ``(graph, cmap)`` from the finest level down.
    """
    hierarchy = _coarsen(graph, _MATCHING, coarsest_size, keys.next())
    return hierarchy.levels, hierarchy.coarsest
