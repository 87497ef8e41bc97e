"""Communication cost: the halo plan of a row partition and its measured exchange (``partkit measure``).

The prediction is :func:`partkit.estimate.estimate` (the alpha-beta model
of :mod:`partkit.collectives`); :mod:`partkit.cost.halo` builds the send
lists a rank needs for the real exchange without importing mpi4py, and
:mod:`partkit.cost.measure` runs it under ``mpiexec``.
"""

from partkit.cost.halo import HaloPlan, halo_plan

__all__ = ["HaloPlan", "halo_plan"]
