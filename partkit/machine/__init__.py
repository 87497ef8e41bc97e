"""The machine: its processing elements and the distances between them, and its measured alpha and beta.

:mod:`partkit.machine.topology` describes the processing elements and their
distances (hierarchies, tori, fat trees, distance files) for the mapping;
:mod:`partkit.machine.fit` fits ``t(M) = alpha + M / beta`` to timings and
:mod:`partkit.machine.machinefile` reads and checks a machine file and
:mod:`partkit.machine.fitted` builds one from calibration timings (one
calibration, or the medians of several: ``partkit calibrate --combine``);
none of them imports mpi4py. :mod:`partkit.machine.calibrate` runs the
measurements under ``mpiexec`` (``partkit calibrate``). The collective bound model is
:mod:`partkit.collectives`.
"""

from partkit.machine.fit import Fit, fit_alpha_beta
from partkit.machine.machinefile import load_machine, validate_machine
from partkit.machine.topology import Machine, parse_machine

__all__ = ["Fit", "Machine", "fit_alpha_beta", "load_machine", "parse_machine", "validate_machine"]
