"""The distributed multilevel partitioner and its ParMETIS-style entry point."""

from __future__ import annotations

import numpy as np

from partkit._random import derive
from partkit.distributed.coarsening import cluster, contract, contract_within_blocks
from partkit.distributed.comm import Channel
from partkit.distributed.graph import LocalGraph, agree, check_block, parts_problem
from partkit.distributed.halo import fetch
from partkit.distributed.initial import initial_partition
from partkit.distributed.refinement import balance, local_fm, part_weights, refine
from partkit.graph import entry_rows
from partkit.metrics import weight_bounds
from partkit.multilevel.context import PRESETS

#: Coarsening stops at ``COARSEST_PER_PART * k`` vertices (KaMinPar's contraction limit C).
COARSEST_PER_PART = 2000
#: ... or when a level keeps more than this fraction of the vertices.
MIN_SHRINK = 0.9
MAX_LEVELS = 40
#: Rounds of (local FM, label propagation) per level.
REFINEMENT_ROUNDS = 2
#: A level is coarsened within the ranks' blocks when they hold this share of the edge weight and
#: the step keeps at most ``BLOCK_STALL`` of the vertices; otherwise it clusters across ranks.
BLOCK_SHARE = 0.75
BLOCK_STALL = 0.75
#: A cluster weighs at most this many times the level's average vertex weight (compact clusters).
CLUSTER_GROWTH = 8


def partition(comm, vtxdist, xadj, adjncy, k, *, vwgt=None, adjwgt=None, imbalance=0.03, seed=0, preset="default"):
    """Partition a graph distributed by rows over the ranks of ``comm`` into ``k`` parts.

    Call it on every rank of ``comm`` with that rank's rows, in ParMETIS's
    convention (``ParMETIS_V3_PartKway``), 0-based.

    Parameters
    ----------
    comm : mpi4py.MPI.Comm
    vtxdist : array_like of int, shape (size + 1,)
        Rank ``r`` owns the global vertices ``vtxdist[r] .. vtxdist[r+1] - 1``;
        the same on every rank.
    xadj : array_like of int, shape (n_local + 1,)
    adjncy : array_like of int
        Neighbours of the owned vertices as global ids; the adjacency must be
        symmetric over the whole graph (each edge listed from both ends, with
        the same weight), which is checked.
    k : int
    vwgt : array_like of int, shape (n_local,), optional
        Vertex weights (one constraint); default 1.
    adjwgt : array_like of int, optional
        Edge weights aligned with ``adjncy``; default 1.
    imbalance : float, default 0.03
        Every part weighs at most ``max(floor((1 + imbalance) W / k), ceil(W / k))``.
    seed : int, default 0
        The same seed and number of ranks give the same partition.
    preset : {"fast", "default", "strong"}
        The serial engine's preset for the initial partition of the
        coarsest graph (every rank computes one, the best is kept); the
        coarsening and the refinement across ranks are the same for all
        three.

    Returns
    -------
    numpy.ndarray of int64, shape (n_local,)
        Part ids of the owned vertices.

    Raises
    ------
    InputError
        On every rank, when any rank's input is invalid.

    Examples
    --------
    A path of 8 vertices on however many ranks run this (``mpiexec -n 2``):

    >>> from mpi4py import MPI
    >>> import numpy as np
    >>> from partkit.distributed import partition
    >>> comm = MPI.COMM_WORLD
    >>> vtxdist = np.linspace(0, 8, comm.size + 1).astype(int)
    >>> mine = np.arange(vtxdist[comm.rank], vtxdist[comm.rank + 1])
    >>> lists = [[u for u in (v - 1, v + 1) if 0 <= u < 8] for v in mine]
    >>> xadj = np.concatenate([[0], np.cumsum([len(l) for l in lists])])
    >>> adjncy = np.array([u for l in lists for u in l], dtype=int)
    >>> part = partition(comm, vtxdist, xadj, adjncy, 2)
    >>> sorted(np.bincount(np.concatenate(comm.allgather(part))).tolist())
    [4, 4]
    """
    return partition_block(Channel(comm), vtxdist, xadj, adjncy, k, vwgt=vwgt, adjwgt=adjwgt,
                           imbalance=imbalance, seed=seed, preset=preset)


def partition_block(channel, vtxdist, xadj, adjncy, k, *, vwgt=None, adjwgt=None, imbalance=0.03,
                    seed=0, preset="default", name="graph", progress=None):
    """:func:`partition` over a :class:`~partkit.distributed.comm.Channel`, whose log then holds
    the run's communication phase by phase (``"coarsen L"``, ``"initial"``, ``"refine L"``).

    ``progress``, if given, is called on every rank with a line per level
    (vertices, cut, heaviest part) on the way up; computing the cut costs an
    Allreduce per level.
    """
    channel.phase = "setup"
    vtxdist, xadj, adjncy, vwgt, adjwgt = check_block(channel, vtxdist, xadj, adjncy, vwgt, adjwgt, name)
    agree(channel, parts_problem(int(vtxdist[-1]), k, imbalance, name))
    if preset not in PRESETS:
        agree(channel, f"{name}: preset must be one of {', '.join(PRESETS)}, got {preset!r}")
    if k == 1:
        return np.zeros(xadj.size - 1, dtype=np.int64)
    total = int(channel.allreduce(np.array([vwgt.sum()]))[0])
    levels, maps = _coarsen(LocalGraph(channel, vtxdist, xadj, adjncy, vwgt, adjwgt), k, total, imbalance, seed)
    bound = max_part_weight(total, k, imbalance)
    channel.phase = "initial"
    part = initial_partition(levels[-1], k, imbalance, seed, preset)
    for depth in range(len(levels) - 1, -1, -1):
        graph = levels[depth]
        channel.phase = f"refine {depth}"
        if depth < len(levels) - 1:
            part = fetch(channel, levels[depth + 1].vtxdist, maps[depth], part)
        full = graph.halo.extend(part)
        weights = balance(graph, full, k, bound, part_weights(graph, full, k))
        for sweep in range(REFINEMENT_ROUNDS):
            key = derive(seed, "refinement", depth, sweep)  # local_fm adds the rank to its own stream
            weights = local_fm(graph, full, k, bound, weights, key)
            weights = refine(graph, full, k, bound, key)
        balance(graph, full, k, bound, weights)
        part = full[:graph.n_local]
        if progress is not None:
            cut = local_cut(graph, full)
            progress(f"level {depth}: {graph.n} vertices, cut {cut}, heaviest part {weights.max()} "
                     f"(bound {bound})")
    return part


def max_part_weight(total, k, imbalance):
    """The balance bound of :func:`partkit.metrics.weight_bounds` for ``k`` equal parts of one constraint of
    weight ``total``."""
    return int(weight_bounds([total], np.full(k, 1.0 / k), imbalance)[0, 0])


def local_cut(graph: LocalGraph, full_part):
    """The edge cut of the whole graph: every rank sums its rows' cut entries (each edge is listed
    from both ends, so the Allreduce counts it twice)."""
    sources = entry_rows(graph.xadj)
    crossing = full_part[sources] != full_part[graph.adjacency]
    return int(graph.channel.allreduce(np.array([graph.adjwgt[crossing].sum()]))[0]) // 2


def _coarsen(fine, k, total, imbalance, seed):
    """The hierarchy of graphs (finest first) and the fine-to-coarse maps between them."""
    channel = fine.channel
    levels, maps = [fine], []
    while levels[-1].n > COARSEST_PER_PART * k and len(levels) < MAX_LEVELS:
        graph = levels[-1]
        channel.phase = f"coarsen {len(levels) - 1}"
        key = derive(seed, "coarsening", len(levels))
        step = contract_within_blocks(graph, max(1, int(1.5 * total / (COARSEST_PER_PART * k))), key,
                                      BLOCK_SHARE, BLOCK_STALL)
        if step is None:
            k_prime = min(k, max(2, graph.n // COARSEST_PER_PART))
            max_weight = max(1, min(int(imbalance * total / k_prime), CLUSTER_GROWTH * total // graph.n))
            step = contract(graph, cluster(graph, max_weight, key))
        coarse, cmap = step
        if coarse.n < k:
            break
        levels.append(coarse)
        maps.append(cmap)
        if coarse.n > MIN_SHRINK * graph.n:
            break
    return levels, maps
