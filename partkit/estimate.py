"""Predicted communication time of one conjugate-gradient iteration under a partition.

One CG iteration on ``k`` processes does one SpMV, whose expand (halo)
exchange sends exactly what :func:`partkit.hypergraph.spmv_communication`
counts, and (by default) two AllReduces of one word (the dot products).
In the alpha-beta model (:mod:`partkit.collectives`) a message of ``w``
words takes ``alpha + w * word_size / beta`` seconds, ``beta`` being a
bandwidth in bytes per second. A halo message also costs ``overhead``
seconds (default 0): what a rank spends on each message of a halo exchange
beyond a ping-pong's ``alpha`` (posting a non-blocking send or receive,
packing, completing it), which ``partkit calibrate`` measures.

Halo exchange: every part sends its messages and receives its messages;
with ``p`` usable ports (``min(ports, topology degree)``) a side takes the
longest of its messages or the sum of its message times divided by ``p``,
whichever is larger (the makespan lower bound; exact with one port), a part
takes the slower of its two sides (links are full duplex), and the step
takes as long as the slowest part. Messages are routed end to end (the
topology's diameter is not charged to point-to-point messages).

Next to every prediction comes a bound: for the halo, the time if the same
total words and messages were spread evenly over the parts (what a
partition with this total volume could reach at best); for the AllReduce,
:func:`partkit.collectives.lower_bound` on the topology.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.collectives import (AlgorithmCost, Bound, Topology, best_allreduce, effective_ports,
                                 lower_bound, make_topology)
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
    ports : int
        Ports actually usable (``min(requested, topology degree)``).
    topology : Topology
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

    @property
    def iteration_time(self) -> float:
        """Halo exchange plus the AllReduces."""
        return self.halo_time + self.allreduces * self.allreduce_time

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
            "ports": self.ports,
            "topology": {"name": self.topology.name, "nodes": self.topology.nodes,
                         "dims": list(self.topology.dims), "diameter": self.topology.diameter,
                         "degree": self.topology.degree,
                         "bisection_links": self.topology.bisection_links},
            **self.communication.to_dict(),
            "halo_time": self.halo_time, "halo_bound": self.halo_bound, "slowest_part": slowest,
            "allreduce_algorithm": self.allreduce.name, "allreduce_bytes": self.allreduce_bytes,
            "allreduce_time": self.allreduce_time,
            "allreduce_bound": self.allreduce_bound.total,
            "allreduce_bound_terms": {"latency": self.allreduce_bound.latency,
                                      "bandwidth": self.allreduce_bound.bandwidth,
                                      "bisection": self.allreduce_bound.bisection},
            "allreduces": self.allreduces,
            "iteration_time": self.iteration_time, "iteration_bound": self.iteration_bound,
            "ratio": self.ratio,
        }


def message_seconds(comm: SpMVCommunication, alpha, beta, word_size=8, overhead=0.0, segments=None):
    """Seconds of every halo message: ``alpha + overhead + bytes / beta``, or by the piecewise ``segments``.

    ``segments`` (:class:`partkit.machine.fit.Segments`, from a machine
    file's ``halo_segments``) replaces all three: it was fitted to the
    measured halo exchange, overhead included.
    """
    nbytes = comm.words * word_size
    if segments is not None:
        return segments.seconds(nbytes)
    return alpha + overhead + nbytes / beta


def halo_times(comm: SpMVCommunication, alpha, beta, word_size=8, ports=1, overhead=0.0,
               segments=None) -> np.ndarray:
    """Halo-exchange time of every part (see the module notes), shape ``(k,)``."""
    seconds = message_seconds(comm, alpha, beta, word_size, overhead, segments)
    result = np.zeros(comm.k)
    for ends in (comm.src, comm.dst):
        total = np.bincount(ends, weights=seconds, minlength=comm.k)
        longest = np.zeros(comm.k)
        np.maximum.at(longest, ends, seconds)
        result = np.maximum(result, np.maximum(longest, total / ports))
    return result


def halo_bound(comm: SpMVCommunication, alpha, beta, word_size=8, ports=1, overhead=0.0, segments=None) -> float:
    """Halo time if the total message time (``messages * alpha + bytes / beta``) were spread evenly over the parts."""
    total = float(np.sum(message_seconds(comm, alpha, beta, word_size, overhead, segments)))
    return total / (comm.k * ports)


def estimate(matrix, part, k=None, *, alpha=2e-6, beta=1e10, topology="ring", ports=1, word_size=8,
             allreduces=2, allreduce_words=1, overhead=0.0, segments=None, halo_segments=None,
             allreduce_overhead=0.0, name=None) -> Estimate:
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
    topology : str or Topology, default "ring"
        A name from :data:`partkit.collectives.TOPOLOGIES` (built for ``k``
        nodes) or a :class:`~partkit.collectives.Topology` with ``k`` nodes.
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
    if not (word_size > 0 and np.isfinite(word_size)):
        raise InputError(f"word size must be a positive number of bytes, got {word_size}")
    if allreduces < 0 or allreduce_words < 0:
        raise InputError("the number and size of AllReduces must be non-negative")
    comm = spmv_communication(matrix, part, k, name=name)
    k = comm.k
    topo = make_topology(topology, k) if isinstance(topology, str) else topology
    if topo.nodes != k:
        raise InputError(f"topology {topo.name} has {topo.nodes} nodes for k={k} parts")
    p = effective_ports(ports, topo)
    if halo_segments is None and segments is not None:
        starts, alphas, betas = segments.starts, segments.alphas, segments.betas
        halo_segments = type(segments)(starts, tuple(a + overhead for a in alphas), betas)
    per_part = halo_times(comm, alpha, beta, word_size, p, overhead, halo_segments)
    nbytes = int(np.ceil(allreduce_words * word_size))
    ar_alpha, ar_beta = alpha, beta
    if segments is not None:  # the AllReduce's own message size picks its segment
        ar_alpha, ar_beta = (float(v) for v in segments.params(nbytes))
    algorithm, seconds = best_allreduce(k, nbytes, ar_alpha, ar_beta, p, topo)
    return Estimate(k=k, alpha=float(alpha), beta=float(beta), word_size=float(word_size), ports=p,
                    topology=topo, communication=comm, halo_per_part=per_part,
                    halo_time=float(per_part.max(initial=0.0)),
                    halo_bound=halo_bound(comm, alpha, beta, word_size, p, overhead, halo_segments),
                    allreduce=algorithm, allreduce_bytes=nbytes,
                    allreduce_time=seconds + (float(allreduce_overhead) if k > 1 else 0.0),
                    allreduce_bound=lower_bound("allreduce", k, nbytes, ar_alpha, ar_beta, p, topo),
                    allreduces=int(allreduces), overhead=float(overhead), halo_segments=halo_segments,
                    allreduce_overhead=float(allreduce_overhead))
