"""The distributed graph: ParMETIS's row-block CSR, and its local view with ghosts."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from partkit.distributed.halo import Halo, owner_of
from partkit.distributed.kernels import blocks
from partkit.distributed.kernels.symmetry import entry_fingerprints
from partkit.errors import InputError
from partkit.graph import entry_rows

#: Vertex weight that pins a ghost in the serial engine's kernels: no part has room for it.
PINNED = 2**40


@dataclass
class DistributedGraph:
    """This rank's block of a graph distributed by rows, in ParMETIS's convention.

    Attributes
    ----------
    vtxdist : int64 array, shape (size + 1,)
        Rank ``r`` owns the global vertices ``vtxdist[r] .. vtxdist[r+1] - 1``
        (the same array on every rank).
    xadj : int64 array, shape (n_local + 1,)
        Offsets of the owned vertices' neighbour lists.
    adjncy : int64 array
        Neighbours as global ids (0-based); every edge appears from both ends.
    vwgt : int64 array, shape (n_local,), or None for unit weights
    adjwgt : int64 array, or None for unit weights
    name : str
    """

    vtxdist: np.ndarray
    xadj: np.ndarray
    adjncy: np.ndarray
    vwgt: np.ndarray | None = None
    adjwgt: np.ndarray | None = None
    name: str = "graph"

    @property
    def n(self) -> int:
        """Number of vertices of the whole graph."""
        return int(self.vtxdist[-1])

    @property
    def n_local(self) -> int:
        return self.xadj.size - 1


class LocalGraph:
    """One level's block in local indices, with its ghosts and halo plan.

    Attributes
    ----------
    vtxdist : int64 array
    first, n_local : int
        Global id of the first owned vertex; number of owned vertices.
    xadj, adjacency, adjwgt : int64 arrays
        CSR of the owned vertices; ``adjacency`` in local indices.
    vwgt : int64 array, shape (n_local,)
    halo : partkit.distributed.halo.Halo
    """

    def __init__(self, channel, vtxdist, xadj, adjncy, vwgt, adjwgt):
        self.channel = channel
        self.vtxdist = vtxdist
        self.first = int(vtxdist[channel.rank])
        self.n_local = xadj.size - 1
        self.xadj = xadj
        self.vwgt = vwgt
        self.adjwgt = adjwgt
        self.halo = Halo(channel, vtxdist, adjncy)
        self.adjacency = self.halo.adjacency

    @property
    def n(self) -> int:
        return int(self.vtxdist[-1])

    @cached_property
    def ghost_neighbours(self):
        """CSR of the owned neighbours of every ghost, ``(ghost_xadj, ghost_rows)``, made once per level."""
        return blocks.ghost_neighbours(self.xadj, self.adjacency, self.n_local, self.halo.n_ghost)

    @cached_property
    def pinned_ghosts(self):
        """``(xadj, vwgt)`` over owned vertices and ghosts, the ghosts without rows and weighing ``PINNED``
        (no part has room for them): the block as the serial engine's kernels refine it, made once per level."""
        n_all = self.n_local + self.halo.n_ghost
        xadj = np.concatenate([self.xadj, np.full(self.halo.n_ghost, self.xadj[-1])])
        vwgt = np.concatenate([self.vwgt, np.full(self.halo.n_ghost, PINNED)]).reshape(n_all, 1)
        return xadj, vwgt

    def global_ids(self):
        """Global ids of the owned vertices followed by the ghosts."""
        return np.concatenate([np.arange(self.first, self.first + self.n_local), self.halo.ghosts])


def check_block(channel, vtxdist, xadj, adjncy, vwgt, adjwgt, name="graph"):
    """Validate a row block on every rank at once; all ranks raise the same InputError.

    Returns the arrays as int64 (unit weights filled in).
    """
    vtxdist = np.asarray(vtxdist, dtype=np.int64)
    problem = None
    if vtxdist.shape != (channel.size + 1,) or vtxdist[0] != 0 or np.any(np.diff(vtxdist) < 0):
        problem = f"{name}: vtxdist must have size+1 = {channel.size + 1} non-decreasing entries from 0"
    else:
        xadj = np.asarray(xadj, dtype=np.int64)
        adjncy = np.asarray(adjncy, dtype=np.int64)
        first, last = vtxdist[channel.rank], vtxdist[channel.rank + 1]
        n_local = int(last - first)
        vwgt = np.ones(n_local, dtype=np.int64) if vwgt is None else np.asarray(vwgt, dtype=np.int64)
        adjwgt = np.ones(adjncy.size, dtype=np.int64) if adjwgt is None else np.asarray(adjwgt, dtype=np.int64)
        sources = entry_rows(xadj, first) if xadj.size == n_local + 1 else None
        if xadj.size != n_local + 1 or xadj[0] != 0 or xadj[-1] != adjncy.size or np.any(np.diff(xadj) < 0):
            problem = f"{name}: rank {channel.rank}: xadj must have {n_local + 1} non-decreasing entries from 0 to len(adjncy)"
        elif adjncy.size and (adjncy.min() < 0 or adjncy.max() >= vtxdist[-1]):
            problem = f"{name}: rank {channel.rank}: a neighbour id is outside 0..{vtxdist[-1] - 1}"
        elif np.any(adjncy == sources):
            problem = f"{name}: vertex {int(sources[np.argmax(adjncy == sources)])} lists itself (self loop)"
        elif vwgt.shape != (n_local,):
            problem = f"{name}: rank {channel.rank}: vwgt must have one weight per local vertex (one constraint)"
        elif adjwgt.shape != adjncy.shape:
            problem = f"{name}: rank {channel.rank}: adjwgt must have one weight per adjncy entry"
        elif np.any(vwgt < 0) or np.any(adjwgt < 0):
            problem = f"{name}: negative vertex or edge weight on rank {channel.rank}"
    agree(channel, problem)
    agree(channel, _asymmetry(channel, vtxdist, xadj, adjncy, adjwgt, name))
    return vtxdist, xadj, adjncy, vwgt, adjwgt


def _asymmetry(channel, vtxdist, xadj, adjncy, adjwgt, name):
    """A problem message if some edge is not listed from both ends with the same weight, else None.

    First one Allreduce of the entries' fingerprints
    (:func:`~partkit.distributed.kernels.symmetry.entry_fingerprints`):
    equal forward and mirror sums mean the graph is symmetric. Otherwise,
    to name an offending entry, every entry ``(v, u, w)`` travels to the
    owner of ``u`` as ``(u, v, w)`` (one Alltoallv); a symmetric graph would
    give every rank back exactly its own entries.
    """
    n = int(vtxdist[-1])
    first = int(vtxdist[channel.rank])
    sums = channel.allreduce(entry_fingerprints(np.int64(first), xadj, adjncy, adjwgt))
    if sums[0] == sums[2] and sums[1] == sums[3]:
        return None
    sources = entry_rows(xadj, first)
    mirrored, _, _, _ = channel.route(owner_of(vtxdist, adjncy), np.stack([adjncy * n + sources, adjwgt], axis=1))
    own = np.stack([sources * n + adjncy, adjwgt], axis=1)
    del sources
    own = own[np.lexsort((own[:, 1], own[:, 0]))]
    mirrored = mirrored[np.lexsort((mirrored[:, 1], mirrored[:, 0]))]
    if own.shape == mirrored.shape and np.array_equal(own, mirrored):
        return None
    if own.shape != mirrored.shape:
        return (f"{name}: the adjacency is not symmetric (rank {channel.rank} lists {own.shape[0]} entries, "
                f"its vertices appear in {mirrored.shape[0]} lists)")
    key, w = own[np.argmax(np.any(own != mirrored, axis=1))]
    return (f"{name}: the adjacency is not symmetric: vertex {key // n} lists {key % n} (weight {w}) "
            "but not the reverse with that weight")


def parts_problem(n, k, imbalance, name="graph"):
    """The problem with ``k`` parts of a graph of ``n`` vertices at ``imbalance``, or None (checked alike on
    every rank, so the ranks agree without talking)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= max(n, 1):
        return f"{name}: k must be an integer in 1..n={n}, got {k!r}"
    if not (0 <= imbalance < 10):
        return f"imbalance must be in [0, 10), got {imbalance}"
    return None


def agree(channel, problem):
    """Raise the first rank's problem as InputError on every rank, or return when none has one."""
    problems = [p for p in channel.comm.allgather(problem) if p]
    if problems:
        raise InputError(problems[0])
