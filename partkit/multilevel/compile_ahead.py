"""Compile ahead: on a first run, a helper process compiles the refinement while this one coarsens.

A partition's first call in a fresh environment compiles the Numba kernels
one after the other as it reaches them: the coarsening's, the initial
partitioning's, then the refinement's (at k = 64 on a Delaunay mesh of
2^20 vertices: 5.7, 4.9 and 6.5 s). Numba compiles under one lock in a
process, so a second core sits idle. When the refinement's kernels are not
in Numba's on-disk cache and the process may run on two cores or more,
:func:`start` launches a Python process (:data:`HELPER`) that compiles
them into the same cache by refining a small generated graph
(:func:`compile_task`: the engine's own calls, so the signatures are the
engine's) while this process coarsens and partitions the coarsest graph;
when it reaches the refinement, Numba loads the kernels from the cache. A
kernel the helper has not finished by then is compiled here as well, as
without a helper. The tasks: ``kway`` (the balancer, label propagation and
k-way FM of k > 2) and ``flow`` (the flows of the bisections on large
levels at k = 2, of every level in ``strong``). The measurements are in
``docs/history/tuning.md`` (2026-12-05).

No helper is started when ``PARTKIT_COMPILE_AHEAD`` is ``0``, when the
process may use one core only, under an MPI launcher (every rank would
start one), in a frozen application, or when Numba's JIT is disabled; at
most one per task and process, whatever ``threads`` the partition uses
(it is a one-time compile). The helper belongs to the caller's process
group, so Ctrl-C ends it too; its output is discarded.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from dataclasses import replace

import numpy as np

from partkit._numba_cache import in_cache

#: The refinement kernels of each task (module, function): a task is due when one of them is not cached.
TASK_KERNELS = {
    "kway": (("partkit.multilevel.kernels.refinement_fm", "fm_pass"),
             ("partkit.multilevel.kernels.label_propagation", "_refine_sweeps"),
             ("partkit.multilevel.kernels.refinement_balance", "apply_balance_moves")),
    "flow": (("partkit.multilevel.kernels.refinement_flow", "flow_refine"),),
}

#: Variables an MPI launcher (MPICH/Hydra, Open MPI, Slurm's PMI) sets in every rank.
MPI_VARIABLES = ("PMI_RANK", "PMI_SIZE", "OMPI_COMM_WORLD_SIZE", "PMIX_RANK")

#: The helper's program, given the tasks as arguments (``python -c HELPER kway``).
HELPER = ("import sys; from partkit.multilevel.compile_ahead import compile_task; "
          "[compile_task(task) for task in sys.argv[1:]]")

#: The tasks looked at in this process: the helper started for each, or None when the task was cached.
_started = {}


def tasks_for(k, n, ctx):
    """The compile-ahead tasks of a partition into ``k`` parts of a graph of ``n`` vertices under the
    :class:`~partkit.multilevel.context.Context` ``ctx``: the refinement algorithms its levels will run.

    Examples
    --------
    >>> from partkit.multilevel.context import preset
    >>> tasks_for(64, 10**6, preset()), tasks_for(2, 10**6, preset()), tasks_for(2, 1000, preset())
    (['kway'], ['flow'], [])
    """
    refinement = ctx.refinement
    algorithms = refinement.bisection_algorithms if k == 2 else refinement.algorithms
    tasks = ["kway"] if k > 2 else []
    if "flow" in algorithms and n >= refinement.flow_level:
        tasks.append("flow")
    return tasks


def helper_allowed(environ=None):
    """Whether this process may start a helper: not disabled, two usable cores or more, no MPI launcher,
    Numba's JIT on, a Python interpreter to start (not a frozen application)."""
    environ = os.environ if environ is None else environ
    if environ.get("PARTKIT_COMPILE_AHEAD", "1") == "0" or environ.get("NUMBA_DISABLE_JIT", "0") != "0":
        return False
    if any(name in environ for name in MPI_VARIABLES) or not sys.executable or getattr(sys, "frozen", False):
        return False  # a frozen application's executable is not a Python that runs -c
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    return cores >= 2


def due(task):
    """Whether a kernel of ``task`` is missing from Numba's on-disk cache."""
    return not all(in_cache(getattr(importlib.import_module(module), name)) for module, name in TASK_KERNELS[task])


def start(k, n, ctx):
    """Start a helper process for each task of :func:`tasks_for` that is due and not started yet (see the
    module docstring); returns the tasks started.

    A task is looked at once a process: found cached, it is not looked at
    again (reading the cache's indexes costs about 0.1 ms, a tenth of a
    small partition).
    """
    tasks = [task for task in tasks_for(k, n, ctx) if task not in _started]
    if not tasks or not helper_allowed():
        return []
    started = []
    for task in tasks:
        _started[task] = None
        if due(task):
            _started[task] = subprocess.Popen([sys.executable, "-c", HELPER, task], stdin=subprocess.DEVNULL,
                                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            started.append(task)
    return started


def compile_task(task):
    """Compile the kernels of ``task`` (into Numba's cache) by the engine's refinement of a small graph."""
    from partkit.generators import grid2d
    from partkit.metrics import max_part_weights
    from partkit.multilevel.context import preset
    from partkit.multilevel.refinement import refine

    graph = grid2d(120, 120)  # grouped k-way FM needs 10 000 vertices and 16 parts
    k = 16 if task == "kway" else 2
    part = np.arange(graph.n, dtype=np.int64) * k // graph.n
    part[: graph.n // (2 * k)] = k - 1  # an overweight part: the balancer runs too
    ctx = preset().refinement
    if task == "flow":
        ctx = replace(ctx, bisection_algorithms=("flow",), flow_level=0)
    refine(graph, part, max_part_weights(graph, k, 0.03), ctx, 1)
