"""The one place the ordering package uses an internal of the multilevel engine.

The lead is moving the engine to ``partkit/multilevel/``; when
``coarsen`` moves to ``partkit.multilevel.coarsening`` only this import changes.
"""

from partkit.methods.multilevel import coarsen

__all__ = ["coarsen"]
