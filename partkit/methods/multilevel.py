"""Multilevel k-way partitioning, the default method: :func:`partkit.multilevel.partition`.

The engine, its stages and its presets live in :mod:`partkit.multilevel`.
"""

from partkit.multilevel import partition

__all__ = ["partition"]
