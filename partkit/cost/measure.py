"""``mpiexec -n k partkit measure FILE PARTFILE``: the real communication of CG iterations, timed.

Every rank loads the matrix and the partition, builds its
:class:`~partkit.cost.halo.HaloPlan`, and runs ``iterations`` times (after
``warmup`` untimed ones):

1. the halo exchange of the SpMV (:func:`partkit.cost.exchange.exchange`:
   exactly the words and messages the estimate counts);
2. with ``spmv=True``, the local SpMV with scipy (timed, not modelled);
3. the two AllReduces of CG (one float64 each: the dot products).

A barrier starts each phase, so a phase's time is its own and not the
previous phase's imbalance. A phase's time in one iteration is the
largest over the ranks (the step lasts as long as the slowest rank); the
result is the median over iterations, next to the prediction of
:func:`partkit.estimate.estimate` for the same partition and machine.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI

from partkit.cost.exchange import exchange
from partkit.cost.halo import halo_plan

PHASES = ("halo", "spmv", "allreduce")


def time_iterations(comm, plan, iterations, *, warmup=3, spmv=False, allreduces=2, seed=0):
    """Run the iterations on every rank of ``comm``; per-iteration seconds of each phase, max over ranks.

    Returns
    -------
    dict
        ``{phase: float64 array of shape (iterations,)}`` for the phases run.
    """
    n_local = plan.rows.size
    buffer = np.empty(n_local + plan.ghosts)  # owned x, then ghosts: the SpMV's input
    buffer[:n_local] = np.random.default_rng([seed, plan.rank]).random(n_local)
    x, ghost = buffer[:n_local], buffer[n_local:]
    y = np.zeros(n_local)
    local_sum, total = np.zeros(1), np.zeros(1)
    times = np.zeros((len(PHASES), iterations))
    for it in range(-warmup, iterations):
        comm.Barrier()
        start = MPI.Wtime()
        exchange(comm, plan, x, ghost)
        halo = MPI.Wtime() - start
        spmv_time = 0.0
        if spmv:
            comm.Barrier()
            start = MPI.Wtime()
            y = plan.local @ buffer
            spmv_time = MPI.Wtime() - start
        local_sum[0] = float(x @ y[:n_local]) if spmv else float(x.sum())
        comm.Barrier()
        start = MPI.Wtime()
        for _ in range(allreduces):
            comm.Allreduce(local_sum, total, op=MPI.SUM)
        reduce_time = MPI.Wtime() - start
        if it >= 0:
            times[:, it] = (halo, spmv_time, reduce_time)
    slowest = np.empty_like(times)
    comm.Allreduce(times, slowest, op=MPI.MAX)
    return {phase: slowest[i] for i, phase in enumerate(PHASES) if phase != "spmv" or spmv}


def measure(comm, matrix, part, k, prediction, *, iterations=50, warmup=3, spmv=False, allreduces=2, seed=0):
    """Measured (median over iterations of the max over ranks) against predicted seconds, per phase.

    Parameters
    ----------
    comm : mpi4py communicator with ``k`` ranks
    matrix : scipy.sparse matrix, square
    part : int array
    prediction : partkit.estimate.Estimate
        The estimate of the same partition (its halo and AllReduce times).

    Returns
    -------
    dict
        ``measured_halo_s``, ``predicted_halo_s``, ``measured_allreduce_s``,
        ``predicted_allreduce_s`` (per iteration, all its AllReduces and the
        phase's start),
        their ratios (predicted / measured), quartiles of the measured
        times, and ``measured_spmv_s`` with ``spmv=True``.
    """
    plan = halo_plan(matrix, part, k, comm.rank, local_matrix=spmv)
    times = time_iterations(comm, plan, iterations, warmup=warmup, spmv=spmv, allreduces=allreduces, seed=seed)
    phase = prediction.allreduce_start + allreduces * prediction.allreduce_time if allreduces and k > 1 else 0.0
    predicted = {"halo": prediction.halo_time, "allreduce": phase}
    result = {"iterations": iterations, "ranks": comm.size}
    for phase, seconds in times.items():
        result[f"measured_{phase}_s"] = float(np.median(seconds))
        result[f"measured_{phase}_quartiles_s"] = [float(q) for q in np.percentile(seconds, [25, 75])]
        if phase in predicted:
            result[f"predicted_{phase}_s"] = float(predicted[phase])
            result[f"{phase}_ratio"] = ratio(predicted[phase], result[f"measured_{phase}_s"])
    return result


def ratio(predicted, measured):
    """``predicted / measured`` (1 when both are 0, None when only the measurement is 0)."""
    if measured > 0:
        return float(predicted / measured)
    return 1.0 if predicted == 0 else None
