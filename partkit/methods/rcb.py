"""Recursive coordinate bisection; see :mod:`partkit.methods.inertial`."""

from partkit.methods.inertial import rcb_partition as partition

__all__ = ["partition"]
