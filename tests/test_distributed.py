"""Distributed partitioning under MPI: each test launches ``mpiexec -n 2`` or ``-n 4`` in a subprocess."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from partkit.distributed.launch import mpiexec_command, world_size

HAVE_MPI = importlib.util.find_spec("mpi4py") is not None
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="mpi4py is not installed (pip install 'partkit[mpi]')")


def run_mpi(nprocs, argv, timeout=120):
    """Run ``argv`` on ``nprocs`` ranks; return stdout (fails the test on a non-zero exit)."""
    command, environ = mpiexec_command(nprocs, argv)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [os.path.dirname(os.path.dirname(__file__)),
                                                          environ.get("PYTHONPATH")]))
    result = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def run_script(nprocs, source, *args):
    return run_mpi(nprocs, [sys.executable, "-c", textwrap.dedent(source), *map(str, args)])


def test_serial_package_does_not_import_mpi4py():
    code = ("import sys, partkit, partkit.cli, partkit.distributed.launch; from partkit.generators import grid2d; "
            "partkit.partition(grid2d(6, 6), 2); "
            "from partkit.cli import build_parser; build_parser(); print('mpi4py' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(__file__))})
    assert result.stdout.strip() == "False", result.stderr


def test_world_size_reads_the_launchers_variables():
    assert world_size({}) == 1
    assert world_size({"PMI_SIZE": "4"}) == 4
    assert world_size({"OMPI_COMM_WORLD_SIZE": "3"}) == 3
    assert world_size({"PMI_SIZE": ""}) == 1
