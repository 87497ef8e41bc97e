"""Commands run on every rank under ``mpiexec`` (``calibrate``, ``measure``): refusals and the end.

Every rank runs the same checks; their outcomes are gathered, so if any
rank failed every rank stops with status 2 (none waits in a collective
for a rank that already left) and rank 0 alone prints the one line.

The ranks leave together: the CLI ends a process with ``os._exit`` (no
``MPI_Finalize``), and the launcher may stop the job when one rank ends,
so a rank that left before rank 0 finished writing could cut its output.
"""

from __future__ import annotations

import sys

from partkit.cli import EXIT_INPUT
from partkit.errors import InputError


class Refused(Exception):
    """Some rank's input failed (rank 0 printed why): this rank stops with status 2."""


def agree(comm, setup):
    """``setup()`` on every rank; its result, or :class:`Refused` on every rank if one rank raised InputError."""
    result, error = None, None
    try:
        result = setup()
    except InputError as exc:
        error = str(exc)
    errors = [e for e in comm.allgather(error) if e is not None]
    if errors:
        if comm.rank == 0:
            print(f"partkit: error: {errors[0].splitlines()[0]}", file=sys.stderr)
        raise Refused(errors[0])
    return result


def run_collective(func, args):
    """``func(comm, args)`` on COMM_WORLD, then a barrier; a refused run exits with status 2 on every rank."""
    from mpi4py import MPI

    comm = MPI.COMM_WORLD
    try:
        status = func(comm, args)
    except Refused:
        status = EXIT_INPUT
    sys.stdout.flush()
    sys.stderr.flush()
    comm.Barrier()
    return status
