"""Predicted communication time of one conjugate-gradient iteration under a partition.

One CG iteration on ``k`` processes does one SpMV, whose expand (halo)
exchange sends exactly what :func:`partkit.hypergraph.spmv_communication`
counts, and (by default) two AllReduces of one word (the dot products).
In the alpha-beta model (:mod:`partkit.collectives`) a message of ``w``
words takes ``alpha + w * word_size / beta`` seconds, ``beta`` being a
bandwidth in bytes per second. A halo message also costs ``overhead``
seconds (default 0): what a rank spends on each message of a halo exchange
beyond a ping-pong's ``alpha`` (posting a non-blocking send or receive,
packing, completing it), and each phase a ``start`` paid once (the halo
exchange's ``halo_start``, the AllReduces' ``allreduce_start``: the call,
the wait, the ranks starting the step at slightly different times), which
``partkit calibrate`` measures.

Halo exchange: every part sends its messages and receives its messages;
with ``p`` usable ports (``min(ports, topology degree)``) a side takes the
longest of its messages or the sum of its message times divided by ``p``,
whichever is larger (the makespan lower bound; exact with one port), a part
takes ``halo_start`` plus the slower of its two sides (links are full
duplex), and the step takes as long as the slowest part.

Distance. Without a machine, every message is charged as above, wherever
its two parts run. With a :class:`partkit.machine.Machine` (``topology=``)
part ``i`` runs on PE ``placement[i]`` (default ``i``) and a message between
PEs ``D`` apart costs ``alpha + (D / d_min) * bytes / beta``, ``d_min`` the
machine's smallest distance between two PEs (1 hop on a torus or mesh):
its bytes cross ``D / d_min`` links (on a hierarchy: cost ``D / d_min``
times a message between nearest PEs). This is the hop-bytes model behind
the mapping cost ``J``: the bandwidth terms of an exchange add up to the
distance-weighted volume. It is pessimistic for a lightly loaded network
with cut-through routing, where a message takes about ``alpha + bytes /
beta`` however far it goes, and right in kind when the links are shared by
the whole exchange.

Next to every prediction comes a bound: for the halo, the time if the same
total words and messages were spread evenly over the parts (what a
partition with this total volume could reach at best); for the AllReduce,
:func:`partkit.collectives.lower_bound` on the topology.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.collectives import AlgorithmCost, Bound, Topology, best_allreduce, effective_ports, lower_bound, ring
from partkit.errors import InputError
from partkit.hypergraph import SpMVCommunication, spmv_communication


@dataclass(frozen=True)
class Estimate:
    """Predicted and ideal times (seconds) of the communication of one CG iteration.

    Attributes
    ----------
    k : int
    alpha, beta, word_size : float
    overhead : float
        Seconds per halo message on top of ``alpha``.
    halo_segments : partkit.machine.fit.Segments or None
        The piecewise model that timed the halo messages, when one did.
    allreduce_overhead : float
        Seconds per AllReduce call on top of its algorithm (in ``allreduce_time``).
    halo_start, allreduce_start : float
        Seconds the halo exchange and the phase of AllReduces pay once (in
        ``halo_time`` and ``allreduce_phase_time``).
    machine : partkit.machine.Machine or None
        The machine whose distances the messages were charged, if any.
    placement : ndarray or None
        PE of every part on it.
    distances : ndarray or None
        Per message (as ``communication``), the distance between its parts' PEs.
    ports : int
        Ports actually usable (``min(requested, topology degree)``).
    topology : Topology
        The interconnect (the machine's network with a machine).
    communication : SpMVCommunication
    halo_per_part : ndarray, shape (k,)
        Halo-exchange time of every part.
    halo_time : float
        Slowest part.
    halo_bound : float
        Same total traffic spread evenly over the parts.
    allreduce : AlgorithmCost
        Fastest applicable AllReduce algorithm for ``allreduce_bytes``.
    allreduce_bytes : int
    allreduce_time : float
        One AllReduce with that algorithm.
    allreduce_bound : Bound
        Lower bound of one AllReduce on the topology.
    allreduces : int
        AllReduces per iteration.
    """

    k: int
    alpha: float
    beta: float
    word_size: float
    ports: int
    topology: Topology
    communication: SpMVCommunication
    halo_per_part: np.ndarray
    halo_time: float
    halo_bound: float
    allreduce: AlgorithmCost
    allreduce_bytes: int
    allreduce_time: float
    allreduce_bound: Bound
    allreduces: int
    overhead: float = 0.0
    halo_segments: object = None
    allreduce_overhead: float = 0.0
    halo_start: float = 0.0
    allreduce_start: float = 0.0
    machine: object = None
    placement: np.ndarray = None
    distances: np.ndarray = None

    @property
    def allreduce_phase_time(self) -> float:
        """The AllReduces of one iteration: ``allreduce_start + allreduces * allreduce_time`` (0 without any)."""
        if self.allreduces == 0 or self.k < 2:
            return 0.0
        return self.allreduce_start + self.allreduces * self.allreduce_time

    @property
    def iteration_time(self) -> float:
        """Halo exchange plus the AllReduces."""
        return self.halo_time + self.allreduce_phase_time

    @property
    def iteration_bound(self) -> float:
        """Halo bound plus the AllReduce lower bounds."""
        return self.halo_bound + self.allreduces * self.allreduce_bound.total

    @property
    def ratio(self) -> float:
        """``iteration_time / iteration_bound`` (1 is ideal; 1 when both are 0)."""
        return self.iteration_time / self.iteration_bound if self.iteration_bound > 0 else 1.0

    def to_dict(self) -> dict:
        """Every number of the estimate (JSON-serialisable)."""
        slowest = int(np.argmax(self.halo_per_part)) if self.k else 0
        return {
            "k": self.k, "alpha": self.alpha, "beta": self.beta, "overhead": self.overhead,
            "word_size": self.word_size,
            "halo_segments": None if self.halo_segments is None else self.halo_segments.to_list(),
            "allreduce_overhead": self.allreduce_overhead,
            "halo_start": self.halo_start, "allreduce_start": self.allreduce_start,
            "ports": self.ports,
            "topology": {"name": self.topology.name, "nodes": self.topology.nodes,
                         "dims": list(self.topology.dims), "diameter": self.topology.diameter,
                         "degree": self.topology.degree,
                         "bisection_links": self.topology.bisection_links},
            **self.communication.to_dict(),
            "machine": None if self.machine is None else self.machine.name,
            "placement": None if self.placement is None else [int(p) for p in self.placement],
            "distance_words": None if self.distances is None
            else float(np.dot(self.distances, self.communication.words)),
            "halo_time": self.halo_time, "halo_bound": self.halo_bound, "slowest_part": slowest,
            "allreduce_algorithm": self.allreduce.name, "allreduce_bytes": self.allreduce_bytes,
            "allreduce_time": self.allreduce_time, "allreduce_phase_time": self.allreduce_phase_time,
            "allreduce_bound": self.allreduce_bound.total,
            "allreduce_bound_terms": {"latency": self.allreduce_bound.latency,
                                      "bandwidth": self.allreduce_bound.bandwidth,
                                      "bisection": self.allreduce_bound.bisection},
            "allreduces": self.allreduces,
            "iteration_time": self.iteration_time, "iteration_bound": self.iteration_bound,
            "ratio": self.ratio,
        }


def message_seconds(comm: SpMVCommunication, alpha, beta, word_size=8, overhead=0.0, segments=None, links=None):
    """Seconds of every halo message: ``alpha + overhead + links * bytes / beta``, or by the piecewise ``segments``.

    ``segments`` (:class:`partkit.machine.fit.Segments`, from a machine
    file's ``halo_segments``) replaces ``alpha + overhead`` and ``beta``:
    it was fitted to the measured halo exchange, overhead included.
    ``links`` (per message, default 1) is the relative distance the bytes
    travel (see the module notes).
    """
    nbytes = comm.words * word_size
    if segments is not None:
        alpha, beta = segments.params(nbytes)
    else:
        alpha = alpha + overhead
    return alpha + (1.0 if links is None else links) * nbytes / beta


def halo_times(comm: SpMVCommunication, alpha, beta, word_size=8, ports=1, overhead=0.0,
               segments=None, start=0.0, links=None) -> np.ndarray:
    """Halo-exchange time of every part (see the module notes), shape ``(k,)``; ``start`` for parts with messages."""
    seconds = message_seconds(comm, alpha, beta, word_size, overhead, segments, links)
    result = np.zeros(comm.k)
    for ends in (comm.src, comm.dst):
        total = np.bincount(ends, weights=seconds, minlength=comm.k)
        longest = np.zeros(comm.k)
        np.maximum.at(longest, ends, seconds)
        result = np.maximum(result, np.maximum(longest, total / ports))
    busy = (np.bincount(comm.src, minlength=comm.k) + np.bincount(comm.dst, minlength=comm.k)) > 0
    return result + start * busy


def halo_bound(comm: SpMVCommunication, alpha, beta, word_size=8, ports=1, overhead=0.0, segments=None,
               start=0.0, links=None) -> float:
    """Halo time if the total message time (``messages * alpha + bytes / beta``) were spread evenly over the parts.

    Plus ``start`` when anything is sent (every exchange pays it once).
    """
    seconds = message_seconds(comm, alpha, beta, word_size, overhead, segments, links)
    return float(np.sum(seconds)) / (comm.k * ports) + (start if seconds.size else 0.0)


def estimate(matrix, part, k=None, *, alpha=2e-6, beta=1e10, topology=None, ports=1, word_size=8,
             allreduces=2, allreduce_words=1, overhead=0.0, segments=None, halo_segments=None,
             allreduce_overhead=0.0, halo_start=0.0, allreduce_start=0.0, placement=None, name=None) -> Estimate:
    """Predict the communication time of one CG iteration under a row partition.

    Parameters
    ----------
    matrix : scipy.sparse matrix or partkit.Graph
        The matrix (its exact column-net model is used) or a graph (read as
        ``adjacency + I``).
    part : array_like of int
        Part of every row; ``x_j`` lives with row ``j`` (square matrix) or with the part holding
        most of column ``j`` (rectangular; see :func:`partkit.hypergraph.spmv_communication`).
    k : int, optional
        Number of parts = processes (default: largest id + 1).
    alpha : float, default 2e-6
        Message latency in seconds.
    beta : float, default 1e10
        Link bandwidth in bytes per second.
    topology : str, partkit.machine.Machine or Topology, optional
        The machine: a description :func:`partkit.machine.parse_machine`
        reads (``"torus3d:4x4x4"``, ``"torus2d"`` with extents chosen for
        ``k``, ``"ring"``, ``"full"``, ``"fattree:8x4"``, ...) or a machine
        with ``k`` PEs: its network for the AllReduce and its distances for
        the halo messages (see the module notes). A
        :class:`~partkit.collectives.Topology` with ``k`` nodes sets the
        network only. Default: a ring network for the AllReduce, distances
        not charged.
    ports : int, default 1
        Ports per node (k-port model), capped by the topology degree.
    word_size : float, default 8
        Bytes per vector entry (8 for float64).
    allreduces : int, default 2
        AllReduces per iteration (the two dot products of CG).
    allreduce_words : int, default 1
        Words per AllReduce.
    overhead : float, default 0
        Seconds per halo message beyond ``alpha`` (a machine file's
        ``overhead``, measured by ``partkit calibrate``).
    segments : partkit.machine.fit.Segments, optional
        Piecewise alpha-beta of a message by its size (a machine file's
        ``pingpong_segments``): the AllReduce takes the ``alpha`` and
        ``beta`` of its message size from it, and halo messages too unless
        ``halo_segments`` is given.
    halo_segments : partkit.machine.fit.Segments, optional
        Piecewise time of one halo message by its size, fitted to a
        measured halo exchange (a machine file's ``halo_segments``);
        replaces ``alpha + overhead + bytes / beta`` for halo messages.
    allreduce_overhead : float, default 0
        Seconds each AllReduce call takes beyond its algorithm's cost (a
        machine file's ``allreduce_overhead``: the call and the reduction,
        which a ping-pong does not show); added to the predicted time, not
        to the network's lower bound.
    halo_start : float, default 0
        Seconds a halo exchange costs once on a part that sends or receives
        anything (a machine file's ``halo_start``: the call, the wait, the
        ranks leaving the barrier that starts the step at different times).
    allreduce_start : float, default 0
        Seconds the phase of ``allreduces`` AllReduces costs once (a machine
        file's ``allreduce_start``), in ``allreduce_phase_time``.
    placement : array_like of int, shape (k,), optional
        With a machine: the PE of every part (default part ``i`` on PE ``i``),
        e.g. from :func:`partkit.mapping.place`.
    name : str, optional
        Used in error messages.

    Returns
    -------
    Estimate
    """
    if not (alpha >= 0 and np.isfinite(alpha)):
        raise InputError(f"alpha must be a non-negative latency in seconds, got {alpha}")
    if not (beta > 0 and np.isfinite(beta)):
        raise InputError(f"beta must be a positive bandwidth in bytes/s, got {beta}")
    if not (overhead >= 0 and np.isfinite(overhead)):
        raise InputError(f"overhead must be a non-negative number of seconds, got {overhead}")
    if not (allreduce_overhead >= 0 and np.isfinite(allreduce_overhead)):
        raise InputError(f"allreduce overhead must be a non-negative number of seconds, got {allreduce_overhead}")
    for label, value in (("halo start", halo_start), ("allreduce start", allreduce_start)):
        if not (value >= 0 and np.isfinite(value)):
            raise InputError(f"{label} must be a non-negative number of seconds, got {value}")
    if not (word_size > 0 and np.isfinite(word_size)):
        raise InputError(f"word size must be a positive number of bytes, got {word_size}")
    if allreduces < 0 or allreduce_words < 0:
        raise InputError("the number and size of AllReduces must be non-negative")
    comm = spmv_communication(matrix, part, k, name=name)
    k = comm.k
    if isinstance(topology, str):
        from partkit.machine import parse_machine

        topology = parse_machine(topology=topology, k=k)
    machine, pe, distances, links = _machine_links(topology, placement, comm)
    topo = machine.network if machine is not None else ring(k) if topology is None else topology
    if topo.nodes != k:
        raise InputError(f"topology {topo.name} has {topo.nodes} nodes for k={k} parts")
    p = effective_ports(ports, topo)
    if halo_segments is None and segments is not None:
        starts, alphas, betas = segments.starts, segments.alphas, segments.betas
        halo_segments = type(segments)(starts, tuple(a + overhead for a in alphas), betas)
    per_part = halo_times(comm, alpha, beta, word_size, p, overhead, halo_segments, halo_start, links)
    nbytes = int(np.ceil(allreduce_words * word_size))
    ar_alpha, ar_beta = alpha, beta
    if segments is not None:  # the AllReduce's own message size picks its segment
        ar_alpha, ar_beta = (float(v) for v in segments.params(nbytes))
    algorithm, seconds = best_allreduce(k, nbytes, ar_alpha, ar_beta, p, topo)
    return Estimate(k=k, alpha=float(alpha), beta=float(beta), word_size=float(word_size), ports=p,
                    topology=topo, communication=comm, halo_per_part=per_part,
                    halo_time=float(per_part.max(initial=0.0)),
                    halo_bound=halo_bound(comm, alpha, beta, word_size, p, overhead, halo_segments, halo_start, links),
                    allreduce=algorithm, allreduce_bytes=nbytes,
                    allreduce_time=seconds + (float(allreduce_overhead) if k > 1 else 0.0),
                    allreduce_bound=lower_bound("allreduce", k, nbytes, ar_alpha, ar_beta, p, topo),
                    allreduces=int(allreduces), overhead=float(overhead), halo_segments=halo_segments,
                    allreduce_overhead=float(allreduce_overhead), halo_start=float(halo_start),
                    allreduce_start=float(allreduce_start), machine=machine,
                    placement=None if machine is None else pe,
                    distances=None if machine is None else distances)


def _machine_links(topology, placement, comm):
    """``(machine, pe, distances, links)`` of the messages on a machine; all None without one.

    ``distances`` is the distance between the PEs of every message's two
    parts, ``links`` the same over the machine's smallest distance between
    two PEs.
    """
    from partkit.machine import Machine

    if not isinstance(topology, Machine):
        if placement is not None:
            raise InputError("a placement needs a machine (topology=partkit.machine.Machine)")
        return None, None, None, None
    if topology.k != comm.k:
        raise InputError(f"machine {topology.name} has {topology.k} processing elements, but k = {comm.k}: "
                         "k must be the number of processing elements it describes")
    k = comm.k
    pe = np.arange(k, dtype=np.int64) if placement is None else np.asarray(placement, dtype=np.int64)
    if pe.shape != (k,) or not np.array_equal(np.sort(pe), np.arange(k)):
        raise InputError(f"placement must give each of the {k} parts its own PE (a permutation of 0..{k - 1})")
    distance = np.asarray(topology.distance, dtype=np.float64)
    positive = distance[distance > 0]
    nearest = float(positive.min()) if positive.size else 1.0
    distances = distance[pe[comm.src], pe[comm.dst]]
    return topology, pe, distances, distances / nearest
