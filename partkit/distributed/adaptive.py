"""Repartitioning under MPI in ParMETIS's convention (``ParMETIS_V3_AdaptiveRepart``).

Every rank passes its rows of the graph (``vtxdist``, ``xadj``, ``adjncy``)
with the old part, new weights and migration sizes of its vertices, and
gets back the new parts of its vertices.

How the work is spread: the input is checked on every rank at once, with
the distributed engine's checks (:func:`partkit.distributed.graph.check_block`,
the same error on every rank); then the graph, weights, sizes and old
parts are **gathered on rank 0**, which runs the serial multilevel
repartitioner (:func:`partkit.balance.repartition.repartition`,
``strategy="multilevel"``), and the new parts are scattered back. The
repartitioning itself therefore runs on one rank, with rank 0's memory
holding the whole graph; the distributed engine's stages (label
propagation clustering, distributed refinement) lower the cut only and do
not take the migration objective yet. What MPI adds today is the
ParMETIS-style call from a distributed application, its checks, and the
parallel reading and writing of ``mpiexec -n P partkit repartition``.
"""

from __future__ import annotations

import numpy as np

from partkit.distributed.comm import Channel
from partkit.distributed.graph import agree, check_block, parts_problem
from partkit.errors import InputError


def repartition(comm, vtxdist, xadj, adjncy, old_part, k, *, vwgt=None, vsize=None, adjwgt=None, itr=1000.0,
                imbalance=0.03, seed=0):
    """Rebalance a distributed partition for new vertex weights, keeping ``itr * cut + migration`` low.

    Call it on every rank of ``comm`` with that rank's rows, in ParMETIS's
    convention, 0-based.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    vtxdist : array_like of int, shape (size + 1,)
        Rank ``r`` owns the global vertices ``vtxdist[r] .. vtxdist[r+1] - 1``.
    xadj, adjncy : array_like of int
        This rank's rows; neighbours as global ids, the adjacency symmetric.
    old_part : array_like of int, shape (n_local,)
        The current part of every owned vertex, in ``0 .. k - 1``.
    k : int
    vwgt : array_like of int, shape (n_local,) or (n_local, ncon), optional
        The new vertex weights (default 1); every constraint is balanced.
    vsize : array_like of int, shape (n_local,), optional
        Migration cost of every vertex (default: its first new weight).
    adjwgt : array_like of int, optional
        Edge weights aligned with ``adjncy``; default 1.
    itr : float, default 1000
        Weight of the cut against the migration volume.
    imbalance : float, default 0.03
    seed : int, default 0

    Returns
    -------
    numpy.ndarray of int64, shape (n_local,)
        The new parts of the owned vertices.

    Raises
    ------
    InputError
        On every rank, when any rank's input is invalid.

    Examples
    --------
    A path of 8 vertices, parts 0 and 1 of four vertices each, whose last
    two vertices now weigh 3 (``mpiexec -n 2``; any number of ranks):

    >>> from mpi4py import MPI
    >>> import numpy as np
    >>> from partkit.distributed import repartition
    >>> comm = MPI.COMM_WORLD
    >>> vtxdist = np.linspace(0, 8, comm.size + 1).astype(int)
    >>> mine = np.arange(vtxdist[comm.rank], vtxdist[comm.rank + 1])
    >>> lists = [[u for u in (v - 1, v + 1) if 0 <= u < 8] for v in mine]
    >>> xadj = np.concatenate([[0], np.cumsum([len(l) for l in lists])])
    >>> adjncy = np.array([u for l in lists for u in l], dtype=int)
    >>> part = repartition(comm, vtxdist, xadj, adjncy, mine // 4, 2, vwgt=np.where(mine >= 6, 3, 1))
    >>> np.concatenate(comm.allgather(part)).tolist()  # weights 6 and 6: two vertices moved
    [0, 0, 0, 0, 0, 0, 1, 1]
    """
    return repartition_block(Channel(comm), vtxdist, xadj, adjncy, old_part, k, vwgt=vwgt, vsize=vsize,
                             adjwgt=adjwgt, itr=itr, imbalance=imbalance, seed=seed)[0]


def repartition_block(channel, vtxdist, xadj, adjncy, old_part, k, *, vwgt=None, vsize=None, adjwgt=None,
                      itr=1000.0, imbalance=0.03, seed=0, name="graph"):
    """:func:`repartition` over a :class:`~partkit.distributed.comm.Channel`: ``(part, result)``, ``result``
    the :class:`partkit.balance.repartition.RepartitionResult` of the whole graph on rank 0, None elsewhere."""
    channel.phase = "setup"
    vtxdist, xadj, adjncy, _, adjwgt = check_block(channel, vtxdist, xadj, adjncy, None, adjwgt, name)
    n_local = xadj.size - 1
    old, vwgt, vsize, problem = _checked(channel.rank, int(vtxdist[-1]), n_local, old_part, k, vwgt, vsize, itr,
                                         imbalance, name)
    agree(channel, problem)
    ncons = channel.comm.allgather(vwgt.shape[1])
    agree(channel, None if len(set(ncons)) == 1 else
          f"{name}: the ranks give different numbers of weights per vertex ({', '.join(map(str, ncons))})")
    channel.phase = "gather"
    blocks = channel.comm.gather((np.diff(xadj), adjncy, adjwgt, vwgt, vsize, old), root=0)
    chunks, result, failure = None, None, None
    if channel.rank == 0:
        try:
            result = _serial(blocks, vtxdist, k, itr, imbalance, seed, name)
            chunks = [result.part[vtxdist[r]:vtxdist[r + 1]] for r in range(channel.size)]
        except Exception as exc:  # every rank must learn of it, or the others wait in scatter forever
            failure = exc
    message = channel.comm.bcast(None if failure is None else (isinstance(failure, InputError), str(failure)),
                                 root=0)
    if message is not None:
        if failure is not None:
            raise failure
        raise (InputError if message[0] else RuntimeError)(f"repartitioning failed on rank 0: {message[1]}")
    channel.phase = "scatter"
    return np.asarray(channel.comm.scatter(chunks, root=0), dtype=np.int64), result


def _checked(rank, n, n_local, old_part, k, vwgt, vsize, itr, imbalance, name):
    """This rank's ``old``, ``vwgt`` (n_local, ncon), ``vsize`` as int64 and the first problem (or None)."""
    old = np.asarray(old_part)
    vwgt = np.ones((n_local, 1), dtype=np.int64) if vwgt is None else np.asarray(vwgt)
    if vwgt.ndim == 1:
        vwgt = vwgt.reshape(-1, 1)
    first = vwgt[:, 0] if vwgt.ndim == 2 and vwgt.shape[1] else np.ones(n_local)
    vsize = np.asarray(first if vsize is None else vsize)
    problem = (parts_problem(n, k, imbalance, name)
               or _repartition_problem(f"{name}: rank {rank}", n_local, old, k, vwgt, vsize, itr))
    if problem is not None:
        return None, None, None, problem
    return old.astype(np.int64), vwgt.astype(np.int64), vsize.astype(np.int64), None


def _repartition_problem(where, n_local, old, k, vwgt, vsize, itr):
    """The first problem with this rank's repartitioning inputs, or None."""
    if not (np.isfinite(itr) and itr >= 0):
        return f"itr must be a non-negative number, got {itr}"
    if old.shape != (n_local,):
        return f"{where}: the old partition has {old.size} entries for {n_local} local vertices"
    if old.size and (old.dtype.kind not in "iu" or old.min() < 0 or old.max() >= k):
        return f"{where}: old part ids must be integers in 0..{k - 1}"
    if vwgt.ndim != 2 or vwgt.shape[0] != n_local or vwgt.shape[1] < 1:
        return f"{where}: vwgt must have shape ({n_local},) or ({n_local}, ncon)"
    if vwgt.size and (vwgt.dtype.kind not in "iu" or vwgt.min() < 0):
        return f"{where}: vertex weights must be non-negative integers"
    if vsize.shape != (n_local,):
        return f"{where}: vsize has {vsize.size} entries for {n_local} local vertices"
    if vsize.size and (vsize.dtype.kind not in "iu" or vsize.min() < 0):
        return f"{where}: vsize must be non-negative integers"
    return None


def _serial(blocks, vtxdist, k, itr, imbalance, seed, name):
    """Rank 0: the serial multilevel repartitioning of the gathered blocks."""
    from partkit.balance.repartition import repartition as serial_repartition
    from partkit.graph import Graph

    degrees, adjncy, adjwgt, vwgt, vsize, old = (np.concatenate([b[i] for b in blocks]) for i in range(6))
    graph = Graph(np.concatenate([[0], np.cumsum(degrees)]), adjncy, vwgt, adjwgt, name=name, validate=False)
    return serial_repartition(graph, old, None, int(k), imbalance=imbalance, itr=itr, vsize=vsize,
                              strategy="multilevel", seed=seed)
