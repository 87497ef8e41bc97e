"""The one place the ordering package uses an internal of the multilevel engine: its coarsening."""

from partkit.multilevel.coarsening import coarsen as _coarsen
from partkit.multilevel.context import CoarseningContext

#: Separators coarsen by heavy-edge matching, as METIS's orderings do.
_MATCHING = CoarseningContext(algorithm="matching")


def coarsen(graph, coarsest_size, keys):
    """The hierarchy of ``graph`` down to ``coarsest_size`` vertices: ``(levels, coarsest)``.

    ``keys`` is a :class:`partkit._random.KeyStream`; ``levels`` lists
    ``(graph, cmap)`` from the finest level down.
    """
    hierarchy = _coarsen(graph, _MATCHING, coarsest_size, keys.next())
    return hierarchy.levels, hierarchy.coarsest
