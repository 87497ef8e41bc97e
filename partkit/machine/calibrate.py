"""Measuring the machine under ``mpiexec`` (mpi4py): ping-pong, halo exchange and collectives, fitted.

* **Placement.** Ranks on one node share memory
  (``Split_type(COMM_TYPE_SHARED)``); on one node, ranks on different
  packages (sockets) are told apart with ``COMM_TYPE_HW_GUIDED`` where the
  MPI library supports it. Each level of that hierarchy present among the
  ranks (``core``: same package, ``socket``: same node, other package,
  ``node``: other node) gets its own ping-pong between the lowest pair of
  ranks that meet there, and its own fit.
* **Ping-pong** over sizes from ``min_size`` to ``max_size`` (powers of
  two): half the median round trip, fitted to ``alpha + M / beta``
  (:func:`partkit.machine.fit.fit_alpha_beta`: the machine's ``alpha`` and
  ``beta``) and piecewise (:func:`partkit.machine.fit.fit_segments`:
  ``pingpong_segments``, the protocol switch and cache cliffs included).
* **Halo exchange** between the same pair, both ways at once, inside the
  CG step ``partkit measure`` times (:func:`partkit.cost.measure.cg_step`:
  a barrier, the exchange of :func:`partkit.cost.exchange.exchange`, which
  posts the receives, packs, sends and waits, then the untimed barrier and
  two AllReduces that separate one exchange from the next in CG), with 1,
  2 and 4 messages each way
  (:data:`COUNTS`) of every size up to 64 KB and one message of the bigger
  sizes (:func:`exchange_configs`), fitted by :func:`partkit.machine.fit.fit_exchange`
  to ``halo_start + messages * (alpha_i + M / beta_i)``: ``halo_start`` is
  paid once per exchange (the call, the ``Waitall``, the ranks leaving the
  barrier that starts the step at slightly different times) and
  ``halo_segments`` per message (posting, packing, the shared-memory copies
  of both directions, which a ping-pong does not show). ``overhead`` is
  the first segment's ``alpha`` beyond the ping-pong's.
* **AllReduce phases** as ``measure`` times them: a barrier, then 1, 2 or 4
  Allreduces of 8 or 16 bytes (the dot products of CG), fitted to
  ``allreduce_start + calls * per_call``. ``allreduce_overhead`` is what a
  call takes beyond the model's algorithm (``log2 P`` steps of the
  ping-pong's ``alpha`` on ``P`` ranks), ``allreduce_start`` what the phase
  pays once.
* **Collectives** on all ranks, reported: Allreduce, Bcast and Alltoallv
  (the same bytes to every other rank) from ``min_size`` to ``max_size``,
  median over repetitions of the slowest rank, next to what the model
  predicts with the fitted alpha and beta.

Every timing runs in blocks of :data:`BLOCK` back-to-back repetitions of one
configuration (:func:`interleaved`): warm caches, as in an iterative
solver's loop and in ``measure``. A calibration that alternated sizes at
every repetition measured small exchanges 1.4 times and 1 MB exchanges 2.8
times slower than ``measure`` then saw them (cold caches after the 16 MB
messages).

The machine's ``alpha`` and ``beta`` are those of the outermost level (the
slowest pair), a conservative value for partitions whose ranks span it.
"""

from __future__ import annotations

import numpy as np
from mpi4py import MPI


#: Levels of the hierarchy, innermost first.
LEVELS = ("core", "socket", "node")
TAG = 34


def sizes_between(low, high):
    """Powers of two from ``low`` to ``high`` bytes (both rounded to powers of two)."""
    first, last = int(np.ceil(np.log2(max(low, 1)))), int(np.floor(np.log2(max(high, 1))))
    return [2 ** e for e in range(first, last + 1)]


def repetitions_for(size, repetitions):
    """Fewer repetitions for big messages: ``repetitions`` up to 64 KB, then fewer, at least 20."""
    return max(min(20, repetitions), min(repetitions, repetitions * 65536 // max(size, 1)))


def placement(comm):
    """Processor name, node and package of every rank, and which rank pairs meet at which level.

    Returns
    -------
    dict
        ``names`` (list of str), ``node`` and ``package`` (list of int: an
        index per rank), ``pairs`` (``{level: [a, b]}`` for the levels
        present).
    """
    names = comm.allgather(MPI.Get_processor_name())
    shared = comm.Split_type(MPI.COMM_TYPE_SHARED, key=comm.rank)
    node_leader = shared.bcast(comm.rank, root=0)
    package_leader = node_leader
    try:
        info = MPI.Info.Create()
        info.Set("mpi_hw_resource_type", "Package")
        packages = shared.Split_type(MPI.COMM_TYPE_HW_GUIDED, key=comm.rank, info=info)
        info.Free()
        if packages != MPI.COMM_NULL:
            package_leader = packages.bcast(comm.rank, root=0)
            packages.Free()
    except (MPI.Exception, NotImplementedError, AttributeError):
        pass
    shared.Free()
    leaders = comm.allgather((node_leader, package_leader))
    node = [a for a, _ in leaders]
    package = [b for _, b in leaders]
    pairs = {}
    for a in range(comm.size):
        for b in range(a + 1, comm.size):
            level = ("node" if node[a] != node[b] else "socket" if package[a] != package[b] else "core")
            pairs.setdefault(level, [a, b])
    return {"names": names, "node": node, "package": package, "pairs": pairs}


#: Back-to-back repetitions of one configuration in a block (after one untimed).
BLOCK = 10
#: Blocks a configuration is spread over at least (when it has that many repetitions).
MIN_BLOCKS = 5


def interleaved(comm, keys, counts, once, block=BLOCK):
    """Time ``once(key)`` ``counts[i]`` times for every key, in blocks taken in turn; seconds per key.

    A block runs one configuration ``block`` times back to back after one
    untimed run, each run after a barrier: the same buffers every time, warm
    in the caches, as the exchange of an iterative solver is (and as
    ``partkit measure`` times it). The blocks of all configurations are
    spread evenly over the rounds, so a burst of load on a shared machine
    spreads over the configurations instead of bending the curve at some of
    them; a configuration with few repetitions (the big messages) runs in
    shorter blocks, at least :data:`MIN_BLOCKS` of them, so that one burst
    does not cover all its timings. ``once`` returns this rank's seconds.
    """
    lengths = [max(1, min(block, c // MIN_BLOCKS)) for c in counts]
    blocks = [-(-c // b) for c, b in zip(counts, lengths)]
    rounds = max(blocks)
    times = [[] for _ in keys]
    for r in range(rounds):
        for i, key in enumerate(keys):
            if (r + 1) * blocks[i] // rounds > r * blocks[i] // rounds:  # due in this round
                for j in range(1 + min(lengths[i], counts[i] - len(times[i]))):
                    comm.Barrier()
                    seconds = once(key)
                    if j:
                        times[i].append(seconds)
    return [np.array(t) for t in times]


def pingpong(comm, a, b, sizes, repetitions):
    """Half the median round trip between ranks ``a`` and ``b`` for each size (returned on every rank)."""
    buffer = np.zeros(max(sizes), dtype=np.uint8)

    def once(size):
        message = buffer[:size]
        if comm.rank == a:
            start = MPI.Wtime()
            comm.Send(message, dest=b, tag=TAG)
            comm.Recv(message, source=b, tag=TAG)
            return (MPI.Wtime() - start) / 2
        if comm.rank == b:
            comm.Recv(message, source=a, tag=TAG)
            comm.Send(message, dest=a, tag=TAG)
        return 0.0

    for _ in range(20):  # warm up the pair's connection
        once(sizes[0])
    times = interleaved(comm, sizes, [repetitions_for(s, repetitions) for s in sizes], once)
    return comm.bcast([float(np.median(t)) for t in times], root=a)


def _pair_plan(comm, a, b, words, count):
    """The halo plan of ``count`` messages of ``words`` float64 each way between ranks ``a`` and ``b``.

    Each rank owns a vector of ``2 * words`` entries and sends half of them
    in order (a gather like a halo's send list); the other ranks' plans are
    empty.
    """
    from partkit.cost.halo import HaloPlan

    if comm.rank not in (a, b):
        count = 0
    other = b if comm.rank == a else a
    index = [np.sort(np.random.default_rng([words, i]).permutation(2 * words)[:words]).astype(np.int64)
             for i in range(count)]
    return HaloPlan(rank=comm.rank, k=comm.size, rows=np.arange(2 * words if count else 0, dtype=np.int64),
                    send_to=np.full(count, other, dtype=np.int64), send_index=index,
                    recv_from=np.full(count, other, dtype=np.int64),
                    recv_offsets=np.arange(count + 1, dtype=np.int64) * words)


#: Messages each way per exchange that calibrate times (a rank of a k-way partition has up to k - 1).
COUNTS = (1, 2, 4)
#: Largest message timed with several per exchange (above it, one).
SEVERAL_UP_TO = 65536


def exchange_configs(sizes, counts=COUNTS, up_to=SEVERAL_UP_TO):
    """``(messages, bytes per message)`` pairs: every count for the sizes up to ``up_to``, one message above.

    The counts separate ``halo_start`` from the per-message ``alpha``,
    which only small messages show; a bigger message is bandwidth-bound,
    and several of them at once outgrow the caches, a cost that depends on
    the exchange's total bytes and that the per-message model does not
    describe (in six loaded runs on the development machine 4 x 512 KB took
    4.5 to 15 times one 512 KB message, 4 x 64 KB 3.0 to 3.6 times one 64 KB
    message and 4 x 1 KB 2.0 to 2.6 times one 1 KB message).
    """
    return [(c, s) for s in sizes for c in counts if c == 1 or s <= up_to]


def exchange_timer(comm, a, b, configs):
    """``once((count, size))``: one CG step (:func:`partkit.cost.measure.cg_step`, as ``partkit measure`` runs
    it) whose halo exchange is ``count`` messages of ``size`` bytes each way between ranks ``a`` and ``b``;
    this rank's seconds of the exchange (0 on the other ranks)."""
    from partkit.cost.measure import Step, cg_step

    steps = {(count, size): Step(_pair_plan(comm, a, b, max(1, size // 8), count)) for count, size in configs}

    def once(config):
        halo, _, _ = cg_step(comm, steps[config])
        return halo if comm.rank in (a, b) else 0.0

    return once


def _slowest(comm, times):
    """Per configuration, the largest time over the ranks of each repetition."""
    flat = np.concatenate(times)
    result = np.empty_like(flat)
    comm.Allreduce(flat, result, op=MPI.MAX)
    return np.split(result, np.cumsum([t.size for t in times])[:-1])


#: Allreduce calls per timed phase and bytes per call (the dot products of CG: one or two float64).
ALLREDUCE_CALLS = (1, 2, 4)
ALLREDUCE_SIZES = (8, 16)


def allreduce_timer(comm, sizes=ALLREDUCE_SIZES):
    """``once((calls, size))``: a phase of ``calls`` back-to-back Allreduces of ``size`` bytes; this rank's seconds."""
    buffers = {s: (np.ones(s // 8), np.empty(s // 8)) for s in sizes}

    def once(config):
        count, size = config
        send, recv = buffers[size]
        start = MPI.Wtime()
        for _ in range(count):
            comm.Allreduce(send, recv, op=MPI.SUM)
        return MPI.Wtime() - start

    return once


def exchanges_and_allreduces(comm, a, b, exchanges, allreduces, repetitions):
    """Medians (slowest rank) of the pair's exchanges and of the AllReduce phases, timed in one schedule.

    Both take turns in the rounds of :func:`interleaved`, so the AllReduce
    phases (a few milliseconds in all) spread over the seconds the
    exchanges take instead of falling into one burst of load.
    """
    exchange_once, allreduce_once = exchange_timer(comm, a, b, exchanges), allreduce_timer(comm)
    keys = [(exchange_once, c) for c in exchanges] + [(allreduce_once, c) for c in allreduces]
    counts = [repetitions_for(c * s, repetitions) for c, s in exchanges] + [repetitions] * len(allreduces)
    times = interleaved(comm, keys, counts, lambda key: key[0](key[1]))
    medians = [float(np.median(t)) for t in _slowest(comm, times)]
    return medians[:len(exchanges)], medians[len(exchanges):]


def collective_times(comm, kind, sizes, repetitions):
    """Median over repetitions of the slowest rank's time of one collective of each size (bytes)."""
    n = comm.size
    calls = {}
    for size in sizes:
        if kind == "allreduce":
            send, recv = np.ones(max(1, size // 8)), np.empty(max(1, size // 8))
            calls[size] = (lambda s=send, r=recv: comm.Allreduce(s, r, op=MPI.SUM))
        elif kind == "bcast":
            data = np.zeros(size, dtype=np.uint8)
            calls[size] = (lambda d=data: comm.Bcast(d, root=0))
        else:  # alltoallv: size bytes to every other rank, nothing to itself
            counts = np.full(n, size, dtype=np.int64)
            counts[comm.rank] = 0
            displs = np.concatenate([[0], np.cumsum(counts)[:-1]])
            send, recv = np.zeros(int(counts.sum()), dtype=np.uint8), np.empty(int(counts.sum()), dtype=np.uint8)
            calls[size] = (lambda s=send, r=recv, c=counts, d=displs:
                           comm.Alltoallv([s, (c, d), MPI.BYTE], [r, (c, d), MPI.BYTE]))

    def once(size):
        start = MPI.Wtime()
        calls[size]()
        return MPI.Wtime() - start

    times = interleaved(comm, sizes, [repetitions_for(s, repetitions) for s in sizes], once)
    return [float(np.median(slowest)) for slowest in _slowest(comm, times)]


def calibrate(comm, *, min_size=8, max_size=16 * 2**20, repetitions=50, collectives=True):
    """Measure and fit the machine (collective: every rank calls it). Returns the machine dict on every rank.

    Returns
    -------
    dict
        ``alpha``, ``beta``, ``overhead``, ``halo_start``,
        ``halo_segments``, ``pingpong_segments``, ``allreduce_start``,
        ``allreduce_overhead``, ``topology``, ``ports``, ``levels`` (one fit
        per level with its timings and residuals), ``exchange`` and
        ``allreduce`` (the timings of the exchanges and AllReduce phases,
        fitted and residuals), ``collectives`` (measured and predicted per
        size), ``ranks``, ``placement``.
    """
    from partkit.machine.fitted import machine_from_timings

    sizes = sizes_between(min_size, max_size)
    where = placement(comm)
    levels = []
    for level in LEVELS:
        if level in where["pairs"]:
            a, b = where["pairs"][level]
            levels.append((level, [a, b], pingpong(comm, a, b, sizes, repetitions)))
    a, b = levels[-1][1]  # the outermost level's pair
    configs = exchange_configs(sizes)
    phases = [(c, s) for s in ALLREDUCE_SIZES for c in ALLREDUCE_CALLS]
    exchanged, reduced = exchanges_and_allreduces(comm, a, b, configs, phases, repetitions)
    collected = {kind: collective_times(comm, kind, sizes, repetitions)
                 for kind in ("allreduce", "bcast", "alltoallv")} if collectives else {}
    return machine_from_timings({
        "sizes": sizes, "levels": levels, "exchange": ([c for c, _ in configs], [s for _, s in configs], exchanged),
        "allreduce": ([c for c, _ in phases], [s for _, s in phases], reduced), "collectives": collected,
        "ranks": comm.size, "placement": where, "mpi": MPI.Get_library_version().splitlines()[0].strip()})
