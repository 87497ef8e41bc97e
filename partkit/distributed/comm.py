"""The communication layer: mpi4py's buffer methods on int64 arrays, with every call counted.

All distributed stages talk through one :class:`Channel`. It moves int64
numpy arrays only (records are rows of a 2-D array), with the uppercase
mpi4py methods, and logs each operation under the current ``phase`` (for
example ``"coarsen 2"``): its kind, the 8-byte words and point-to-point
messages this rank sent, which :mod:`partkit.distributed.cost` turns into
alpha-beta predictions.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from mpi4py import MPI

from partkit.distributed.kernels.routing import group_by_destination


@dataclass
class Operation:
    """One logged communication call of this rank.

    ``kind`` is ``"alltoallv"`` (sparse, ``messages`` non-empty sends to
    other ranks carrying ``words`` words), or a dense collective
    (``"alltoall"``, ``"allreduce"``, ``"allgather"``, ``"exscan"``,
    ``"bcast"``) of ``words`` words per rank.
    """

    phase: str
    kind: str
    words: int
    messages: int


class Channel:
    """A communicator that logs what it sends.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    """

    def __init__(self, comm):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()
        self.phase = "setup"
        self.log: list[Operation] = []

    def _record(self, kind, words, messages=0):
        self.log.append(Operation(self.phase, kind, int(words), int(messages)))

    # ----------------------------------------------------------- sparse
    def exchange(self, rows, counts, recv_counts=None):
        """Send ``counts[q]`` consecutive rows of ``rows`` to each rank ``q``; return what arrives.

        Parameters
        ----------
        rows : int64 array, shape (total,) or (total, width)
            Rows grouped by destination rank, in rank order.
        counts : int64 array, shape (size,)
        recv_counts : int64 array, shape (size,), optional
            Rows to expect from each rank when already known (a halo plan);
            otherwise an Alltoall of the counts finds them.

        Returns
        -------
        received : int64 array, shape (sum of recv_counts,) + rows.shape[1:]
            Grouped by source rank, in rank order.
        recv_counts : int64 array, shape (size,)
        """
        rows = np.ascontiguousarray(rows, dtype=np.int64)
        counts = np.ascontiguousarray(counts, dtype=np.int64)
        if recv_counts is None:
            recv_counts = np.empty(self.size, dtype=np.int64)
            self.comm.Alltoall(counts, recv_counts)
            self._record("alltoall", self.size)
        width = int(np.prod(rows.shape[1:], dtype=np.int64))
        received = np.empty((int(recv_counts.sum()),) + rows.shape[1:], dtype=np.int64)
        send_words, recv_words = counts * width, recv_counts * width
        self.comm.Alltoallv([rows, (send_words, _offsets(send_words)), MPI.INT64_T],
                            [received, (recv_words, _offsets(recv_words)), MPI.INT64_T])
        others = np.arange(self.size) != self.rank
        self._record("alltoallv", send_words[others].sum(), np.count_nonzero(counts[others]))
        return received, recv_counts

    def route(self, destination, rows):
        """Send each row to the rank ``destination[i]``.

        Returns
        -------
        received : int64 array
            The rows that arrive here, grouped by source rank.
        order : int64 array
            The stable order that grouped ``rows`` by destination.
        counts, recv_counts : int64 arrays, shape (size,)
            Rows sent to and received from each rank.
        """
        order, counts = group_by_destination(np.ascontiguousarray(destination, dtype=np.int64), self.size)
        received, recv_counts = self.exchange(np.asarray(rows)[order], counts)
        return received, order, counts, recv_counts

    # ------------------------------------------------------------ dense
    def allreduce(self, values, op="sum"):
        """Element-wise sum / min / max of an int64 array over all ranks."""
        values = np.ascontiguousarray(values, dtype=np.int64)
        result = np.empty_like(values)
        self.comm.Allreduce(values, result, op={"sum": MPI.SUM, "min": MPI.MIN, "max": MPI.MAX}[op])
        self._record("allreduce", values.size)
        return result

    def exscan(self, values):
        """Element-wise sum of ``values`` over the lower ranks (zeros on rank 0)."""
        values = np.ascontiguousarray(values, dtype=np.int64)
        result = np.zeros_like(values)
        self.comm.Exscan(values, result, op=MPI.SUM)
        if self.rank == 0:
            result[:] = 0
        self._record("exscan", values.size)
        return result

    def allgather(self, values):
        """Every rank's int64 array concatenated in rank order, on every rank; and the counts."""
        values = np.ascontiguousarray(values, dtype=np.int64)
        counts = np.empty(self.size, dtype=np.int64)
        self.comm.Allgather(np.array([values.size], dtype=np.int64), counts)
        result = np.empty(int(counts.sum()), dtype=np.int64)
        self.comm.Allgatherv(values, [result, (counts, _offsets(counts)), MPI.INT64_T])
        self._record("allgather", 1)
        self._record("allgather", result.size)
        return result, counts

    def bcast(self, values, root):
        """Rank ``root``'s int64 array of the same shape, on every rank."""
        values = np.ascontiguousarray(values, dtype=np.int64)
        self.comm.Bcast(values, root=root)
        self._record("bcast", values.size)
        return values


def _offsets(counts):
    return np.concatenate([[0], np.cumsum(counts)[:-1]]).astype(np.int64)
