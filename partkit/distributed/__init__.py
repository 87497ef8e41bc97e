"""Distributed partitioning on MPI (mpi4py): ParMETIS-style entry point and parallel reading.

Import this package only under MPI: its modules import mpi4py (the serial
package never does). Run with ``mpiexec -n P python ...`` or
``mpiexec -n P partkit partition FILE -k K``.

* :func:`partition` -- ``partition(comm, vtxdist, xadj, adjncy, k, ...)``, the
  part ids of this rank's vertices;
* :func:`repartition` -- ``repartition(comm, vtxdist, xadj, adjncy, old_part, k, ...)``,
  the new part ids of this rank's vertices after the weights changed
  (gathered on rank 0 for the multilevel repartitioner);
* :func:`read_graph` -- every rank reads its own row block of a file;
* :class:`DistributedGraph` -- such a block.
"""


__all__ = ["DistributedGraph", "partition", "read_graph", "repartition"]


def __getattr__(name):
    # the MPI-using modules load on first use, so that partkit.distributed.launch stays mpi4py-free
    if name == "DistributedGraph":
        from partkit.distributed.graph import DistributedGraph
        return DistributedGraph
    if name == "partition":
        from partkit.distributed.multilevel import partition
        return partition
    if name == "repartition":
        from partkit.distributed.adaptive import repartition
        return repartition
    if name == "read_graph":
        from partkit.distributed.io import read_graph
        return read_graph
    raise AttributeError(f"module 'partkit.distributed' has no attribute {name!r}")
