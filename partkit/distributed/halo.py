"""Ghost vertices, the halo exchange, and fetching values owned by other ranks.

Vertices are distributed in row blocks: rank ``r`` owns the global ids
``vtxdist[r] <= g < vtxdist[r + 1]``. A rank stores its owned vertices at
local indices ``0 .. n_local - 1`` and the *ghosts* (non-owned neighbours)
after them, sorted by global id, hence grouped by owner rank. The
:class:`Halo` plan is built once per graph (one Alltoallv of requested ids)
and then refreshes ghost values with one Alltoallv of known sizes.
"""

from __future__ import annotations

import numpy as np

from partkit.distributed.kernels.routing import split_lookups, unique_inverse


def owner_of(vtxdist, ids):
    """The rank owning each global id."""
    return np.searchsorted(vtxdist, ids, side="right") - 1


class Halo:
    """The ghosts of a distributed CSR block and the plan that refreshes them.

    Parameters
    ----------
    channel : partkit.distributed.comm.Channel
    vtxdist : int64 array, shape (size + 1,)
    adjncy : int64 array
        Neighbours of the owned vertices, as global ids.

    Attributes
    ----------
    adjacency : int64 array
        ``adjncy`` in local indices (ghost ``j`` is ``n_local + j``).
    ghosts : int64 array
        Global ids of the ghosts, ascending.
    """

    def __init__(self, channel, vtxdist, adjncy):
        self.channel = channel
        first, last = int(vtxdist[channel.rank]), int(vtxdist[channel.rank + 1])
        self.n_local = last - first
        remote = (adjncy < first) | (adjncy >= last)
        seen, inverse = unique_inverse(adjncy[remote])
        order = np.argsort(seen)
        self.ghosts = seen[order]
        index = np.empty_like(order)
        index[order] = np.arange(order.size)
        self.adjacency = adjncy - first
        self.adjacency[remote] = self.n_local + index[inverse]
        self.recv_counts = np.bincount(owner_of(vtxdist, self.ghosts),
                                       minlength=channel.size).astype(np.int64)
        requested, self.send_counts = channel.exchange(self.ghosts, self.recv_counts)
        self.send_index = requested - first

    @property
    def n_ghost(self) -> int:
        return self.ghosts.size

    def exchange(self, values):
        """Values of the ghosts, given the values (rows) of the owned vertices."""
        received, _ = self.channel.exchange(np.asarray(values)[self.send_index], self.send_counts,
                                            recv_counts=self.recv_counts)
        return received

    def extend(self, values):
        """Owned values followed by the ghosts' values: an array over all local indices."""
        return np.concatenate([values, self.exchange(values)])


def fetch(channel, vtxdist, ids, table):
    """``table`` entries of arbitrary global ids, each looked up on its owner rank.

    Parameters
    ----------
    ids : int64 array
        Global ids (in the distribution ``vtxdist``); this rank's own are looked up here,
        the others' sent once each.
    table : int64 array, shape (n_local,)
        This rank's values, indexed by ``global id - vtxdist[rank]``.
    """
    first = vtxdist[channel.rank]
    values, remote_at, unique, inverse = split_lookups(np.asarray(ids, dtype=np.int64), first,
                                                       vtxdist[channel.rank + 1], table)
    received, order, counts, recv_counts = channel.route(owner_of(vtxdist, unique), unique)
    answers, _ = channel.exchange(table[received - first], recv_counts, recv_counts=counts)
    remote = np.empty_like(answers)
    remote[order] = answers
    values[remote_at] = remote[inverse]
    return values
