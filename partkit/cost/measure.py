"""``mpiexec -n k partkit measure FILE PARTFILE...``: the real communication of CG iterations, timed.

Every rank loads the matrix and the partitions, builds a
:class:`~partkit.cost.halo.HaloPlan` for each, and runs ``iterations``
CG steps (:func:`cg_step`, after ``warmup`` untimed ones) of each:

1. the halo exchange of the SpMV (:func:`partkit.cost.exchange.exchange`:
   exactly the words and messages the estimate counts);
2. with ``spmv=True``, the local SpMV with scipy (timed, not modelled);
3. the two AllReduces of CG (one float64 each: the dot products).

A barrier starts each phase, so a phase's time is its own and not the
previous phase's imbalance. A phase's time in one step is the largest
over the ranks (the step lasts as long as the slowest rank); the result
is the median over the steps, next to the prediction of
:func:`partkit.estimate.estimate` for the same partition and machine.

Several partitions are timed in one launch, in blocks of steps that take
turns (:func:`partkit.machine.calibrate.interleaved`): on a shared or
virtual machine the speed of shared-memory messages changes from one
``mpiexec`` launch to the next (by up to a factor 1.5 for 4 KB exchanges
on the development machine, with the same code and input) and over
seconds within one, so partitions compared in one launch see the same
machine.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

from partkit.cost.exchange import exchange
from partkit.cost.halo import halo_plan

PHASES = ("halo", "spmv", "allreduce")


class Step:
    """The buffers of CG steps under one halo plan: owned ``x`` and ghosts (the SpMV's input), ``y``, dot products.

    ``plan.local`` (the owned rows in local numbering) is needed for
    ``spmv=True`` only.
    """

    def __init__(self, plan, seed=0):
        self.plan = plan
        n_local = plan.rows.size
        self.buffer = np.empty(n_local + plan.ghosts)
        self.buffer[:n_local] = np.random.default_rng([seed, plan.rank]).random(n_local)
        self.x, self.ghost = self.buffer[:n_local], self.buffer[n_local:]
        self.y = np.zeros(n_local)
        self.local_sum, self.total = np.zeros(1), np.zeros(1)


def cg_step(comm, step, *, spmv=False, allreduces=2):
    """One CG step's communication on every rank: ``(halo, spmv, allreduce)`` seconds of this rank.

    A barrier, the halo exchange; with ``spmv`` a barrier and the local
    SpMV; a barrier and ``allreduces`` Allreduces of one float64. This is
    the step ``partkit measure`` times, and the one ``partkit calibrate``
    times its exchanges in (a halo exchange between AllReduces takes longer
    than one repeated back to back: 35 % at 4 KB on the development
    machine).
    """
    comm.Barrier()
    start = MPI.Wtime()
    exchange(comm, step.plan, step.x, step.ghost)
    halo = MPI.Wtime() - start
    spmv_time = 0.0
    if spmv:
        comm.Barrier()
        start = MPI.Wtime()
        step.y = step.plan.local @ step.buffer
        spmv_time = MPI.Wtime() - start
    step.local_sum[0] = float(step.x @ step.y) if spmv else float(step.x.sum())
    comm.Barrier()
    start = MPI.Wtime()
    for _ in range(allreduces):
        comm.Allreduce(step.local_sum, step.total, op=MPI.SUM)
    return halo, spmv_time, MPI.Wtime() - start


def time_steps(comm, steps, iterations, *, warmup=3, spmv=False, allreduces=2):
    """``iterations`` CG steps of each :class:`Step` on every rank of ``comm``, the steps' blocks taking turns.

    Returns
    -------
    list of dict
        Per step object, ``{phase: float64 array of shape (iterations,)}``
        (seconds of each phase, max over ranks) for the phases run.
    """
    from partkit.machine.calibrate import interleaved

    for step in steps:
        for _ in range(warmup):
            cg_step(comm, step, spmv=spmv, allreduces=allreduces)
    times = interleaved(comm, steps, [iterations] * len(steps),
                        lambda step: cg_step(comm, step, spmv=spmv, allreduces=allreduces))
    result = []
    for seconds in times:
        seconds = np.ascontiguousarray(seconds.reshape(-1, len(PHASES)).T)
        slowest = np.empty_like(seconds)
        comm.Allreduce(seconds, slowest, op=MPI.MAX)
        result.append({phase: slowest[i] for i, phase in enumerate(PHASES) if phase != "spmv" or spmv})
    return result


def measure(comm, matrix, parts, k, predictions, *, iterations=50, warmup=3, spmv=False, allreduces=2, seed=0):
    """Measured (median over steps of the max over ranks) against predicted seconds, per phase and partition.

    Parameters
    ----------
    comm : mpi4py communicator with ``k`` ranks
    matrix : scipy.sparse matrix, square
    parts : list of int arrays
        The partitions, timed in one launch in blocks that take turns.
    predictions : list of partkit.estimate.Estimate
        The estimate of each partition (its halo and AllReduce times).

    Returns
    -------
    list of dict
        Per partition ``measured_halo_s``, ``predicted_halo_s``,
        ``measured_allreduce_s``, ``predicted_allreduce_s`` (per step, all
        its AllReduces and the phase's start), their ratios (predicted /
        measured), quartiles of the measured times, and
        ``measured_spmv_s`` with ``spmv=True``.
    """
    steps = [Step(halo_plan(matrix, part, k, comm.rank, local_matrix=spmv), seed) for part in parts]
    times = time_steps(comm, steps, iterations, warmup=warmup, spmv=spmv, allreduces=allreduces)
    results = []
    for prediction, measured in zip(predictions, times):
        phase = prediction.allreduce_start + allreduces * prediction.allreduce_time if allreduces and k > 1 else 0.0
        predicted = {"halo": prediction.halo_time, "allreduce": phase}
        result = {"iterations": iterations, "ranks": comm.size}
        for phase, seconds in measured.items():
            result[f"measured_{phase}_s"] = float(np.median(seconds))
            result[f"measured_{phase}_quartiles_s"] = [float(q) for q in np.percentile(seconds, [25, 75])]
            if phase in predicted:
                result[f"predicted_{phase}_s"] = float(predicted[phase])
                result[f"{phase}_ratio"] = ratio(predicted[phase], result[f"measured_{phase}_s"])
        results.append(result)
    return results


def ratio(predicted, measured):
    """``predicted / measured`` (1 when both are 0, None when only the measurement is 0)."""
    if measured > 0:
        return float(predicted / measured)
    return 1.0 if predicted == 0 else None
