"""Launching under MPI, and telling whether we were launched so, without importing mpi4py.

The serial package never imports mpi4py; the CLI asks :func:`world_size`,
which reads the variables the common launchers set (MPICH/Hydra and Intel
MPI ``PMI_SIZE``, Open MPI ``OMPI_COMM_WORLD_SIZE``, MVAPICH
``MV2_COMM_WORLD_SIZE``), and only imports mpi4py when it is above one.
"""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

from partkit.errors import InputError

#: Environment variables holding the number of ranks, by launcher.
SIZE_VARIABLES = ("PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "MV2_COMM_WORLD_SIZE")

#: Set for the ranks we launch: MPICH yields the core while it waits, so that
#: more ranks than cores (tests and benchmarks on a small machine) do not spin.
OVERSUBSCRIBED_ENVIRONMENT = {"MPIR_CVAR_ENABLE_HEAVY_YIELD": "1"}


def world_size(environ=None) -> int:
    """The number of MPI ranks this process was launched with (1 when not under MPI).

    Examples
    --------
    >>> world_size({"PMI_SIZE": "4"}), world_size({})
    (4, 1)
    """
    environ = os.environ if environ is None else environ
    for name in SIZE_VARIABLES:
        value = environ.get(name, "")
        if value.isdigit():
            return int(value)
    return 1


def mpiexec() -> str:
    """Path of the ``mpiexec`` of this Python environment (the mpich wheel's), else the one on PATH.

    Raises
    ------
    InputError
        When there is none (install the extra: ``pip install partkit[mpi]``).
    """
    beside = Path(sys.prefix) / "bin" / "mpiexec"
    if beside.exists():
        return str(beside)
    found = shutil.which("mpiexec")
    if found is None:
        raise InputError("mpiexec not found: install the MPI extra (pip install 'partkit[mpi]')")
    return found


def mpiexec_command(nprocs, argv):
    """The command and environment running ``argv`` on ``nprocs`` ranks of this machine.

    Returns
    -------
    command : list of str
    environ : dict
        ``os.environ`` plus :data:`OVERSUBSCRIBED_ENVIRONMENT`.

    Examples
    --------
    >>> command, environ = mpiexec_command(2, ["python", "-c", "pass"])
    >>> command[1:], environ["MPIR_CVAR_ENABLE_HEAVY_YIELD"]
    (['-n', '2', 'python', '-c', 'pass'], '1')
    """
    return [mpiexec(), "-n", str(int(nprocs)), *argv], {**os.environ, **OVERSUBSCRIBED_ENVIRONMENT}
