"""The machine: measured alpha-beta parameters (calibration) and the machine file that holds them.

:mod:`partkit.machine.fit` fits ``t(M) = alpha + M / beta`` to timings and
:mod:`partkit.machine.machinefile` reads and checks a machine file; neither
imports mpi4py. :mod:`partkit.machine.calibrate` runs the measurements
under ``mpiexec`` (``partkit calibrate``). The collective bound model is
:mod:`partkit.collectives`.
"""

from partkit.machine.fit import Fit, fit_alpha_beta
from partkit.machine.machinefile import load_machine, validate_machine

__all__ = ["Fit", "fit_alpha_beta", "load_machine", "validate_machine"]
