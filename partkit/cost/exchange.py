"""The halo exchange itself (mpi4py): every rank sends its send lists and receives its ghosts.

Receives are posted first, straight into slices of the ghost array; each
send packs the listed owned entries (one gather) and is posted at once;
then one ``Waitall``. This is the code ``partkit measure`` times, and the
code ``partkit calibrate`` times for its exchange benchmark.
"""

from __future__ import annotations

from mpi4py import MPI

TAG = 33


def exchange(comm, plan, x, ghost):
    """One halo exchange: ghost values of ``plan`` arrive in ``ghost``; ``x`` holds the owned entries."""
    requests = [comm.Irecv(ghost[plan.recv_offsets[i]:plan.recv_offsets[i + 1]], source=int(q), tag=TAG)
                for i, q in enumerate(plan.recv_from)]
    packed = [x[index] for index in plan.send_index]  # alive until Waitall
    requests += [comm.Isend(buffer, dest=int(q), tag=TAG) for q, buffer in zip(plan.send_to, packed)]
    MPI.Request.Waitall(requests)
