"""The alpha-beta cost model of collective communication.

A message of ``M`` bytes between two nodes takes ``alpha + M / beta``
seconds: ``alpha`` is the latency (s), ``beta`` the link bandwidth (bytes/s).
In the *k-port* model a node sends (and receives) on up to ``k`` links at
once; a topology with node degree ``d`` allows at most ``p = min(k, d)``.

Lower bounds for a collective on ``N`` nodes with message size ``M``:

* latency: information must reach every node, and each step at most
  multiplies the informed nodes by ``p + 1``: ``ceil(log_{p+1} N)`` steps;
  on a topology of diameter ``D`` also ``D`` steps. Bound: ``alpha`` times
  the larger.
* bandwidth (per node): Broadcast and Reduce ``M / beta``; Scatter, Gather,
  ReduceScatter, AllGather and uniform AllToAll ``(N - 1) M / (N beta)``;
  AllReduce ``2 (N - 1) M / (N beta)`` (a ReduceScatter then an
  AllGather); non-uniform dispatch ``max_j R_j / beta``. With ``p`` ports
  each divides by ``p``.
* bisection: the bytes that must cross a minimum bisection, divided by its
  bandwidth (links crossing it times ``beta``); for AllReduce ``(M/2) /
  B_bisection``.

Any algorithm takes at least ``max(latency, bandwidth, bisection)``. The
AllReduce algorithms modelled (``latency_steps * alpha + bandwidth_factor *
M / beta``): ring ``2 (N-1)`` steps and factor ``2 (N-1) / N``; double
binary tree ``2 ceil(log2 N)`` and ``ceil(log2 N)``; recursive doubling
``log2 N`` and ``log2 N``; recursive halving-doubling (Rabenseifner)
``2 log2 N`` and ``2 (N-1) / N``, both for a power of two; bidirectional
ring (2 ports) ``N`` and ``1`` for even ``N``.

Step counts are computed with integer arithmetic, never with floating-point
logarithms, so they are exact at powers of the base.
"""

from __future__ import annotations

from dataclasses import dataclass

from partkit.errors import InputError

#: Collectives with a bandwidth bound (see :func:`bandwidth_bound`).
COLLECTIVES = ("broadcast", "scatter", "gather", "reduce", "reducescatter", "allgather",
               "allreduce", "alltoall")

#: Topology names accepted by :func:`make_topology`.
TOPOLOGIES = ("ring", "torus2d", "torus3d", "fattree", "full")


def _check_nodes(N):
    if isinstance(N, bool) or int(N) != N or N < 1:
        raise InputError(f"number of nodes must be a positive integer, got {N!r}")
    return int(N)


def _check_ports(ports):
    if isinstance(ports, bool) or int(ports) != ports or ports < 1:
        raise InputError(f"ports must be a positive integer, got {ports!r}")
    return int(ports)


def ceil_log(N, base) -> int:
    """``ceil(log_base N)`` for integers ``N >= 1``, ``base >= 2``, by repeated multiplication."""
    N = _check_nodes(N)
    if base < 2:
        raise InputError(f"logarithm base must be at least 2, got {base}")
    steps, reach = 0, 1
    while reach < N:
        reach *= base
        steps += 1
    return steps


def latency_steps(N, ports=1) -> int:
    """Minimum number of communication steps for a collective on ``N`` nodes.

    ``ceil(log2 N)`` with one port, ``ceil(log_{ports+1} N)`` with ``ports``.
    """
    return ceil_log(N, _check_ports(ports) + 1)


# ------------------------------------------------------------- topologies
@dataclass(frozen=True)
class Topology:
    """An interconnect of ``nodes`` compute nodes.

    Attributes
    ----------
    name : str
    nodes : int
    diameter : int
        Largest number of node-to-node message hops between two nodes. A
        switched network (fat tree) and a fully connected one have diameter
        1: every node reaches every other in one message.
    degree : int
        Links a node can drive at once (caps the number of ports used).
    bisection_links : int
        Links crossing a minimum bisection in each direction; the bisection
        bandwidth is ``bisection_links * beta``.
    dims : tuple of int
        Torus extents (empty for other topologies).
    any_to_any : bool
        Whether every pair of nodes is one contention-free hop apart, which
        tree and recursive halving-doubling algorithms assume.
    """

    name: str
    nodes: int
    diameter: int
    degree: int
    bisection_links: int
    dims: tuple = ()
    any_to_any: bool = False

    def bisection_bandwidth(self, beta) -> float:
        """Bytes per second across a minimum bisection, in each direction."""
        return self.bisection_links * beta


def ring(N, bidirectional=True) -> Topology:
    """A ring: diameter ``floor(N/2)`` with links used both ways, ``N - 1`` one way only."""
    N = _check_nodes(N)
    if bidirectional:
        return Topology("ring", N, N // 2, min(2, N - 1), 2 if N > 2 else N - 1)
    return Topology("unidirectional ring", N, N - 1, min(1, N - 1), min(1, N - 1))


def torus(dims) -> Topology:
    """A torus (wrap-around mesh) with the given extents.

    Diameter is the sum of ``floor(d_i / 2)``; a node has two links per
    extent of at least 3 (one for an extent of 2); a minimum bisection cuts
    across the longest extent ``L``: ``2 N / L`` links (``N / L`` if ``L = 2``).
    """
    dims = tuple(int(d) for d in dims)
    if not dims or min(dims) < 1:
        raise InputError(f"torus extents must be positive integers, got {dims}")
    N = 1
    for d in dims:
        N *= d
    longest = max(dims)
    degree = sum(2 if d >= 3 else (1 if d == 2 else 0) for d in dims)
    links = 0 if longest == 1 else (N // longest) * (2 if longest >= 3 else 1)
    name = f"torus{len(dims)}d" if len(dims) > 1 else "ring"
    return Topology(name, N, sum(d // 2 for d in dims), degree, links, dims)


def torus_dims(N, ndims) -> tuple:
    """The most nearly cubic factorisation of ``N`` into ``ndims`` extents, largest first.

    Minimises the largest extent (then the next ones); a prime ``N``
    becomes ``(N, 1, ...)``, i.e. a ring.
    """
    N = _check_nodes(N)
    if ndims == 1:
        return (N,)
    best = None
    d = 1
    while d ** ndims <= N:
        if N % d == 0:
            rest = torus_dims(N // d, ndims - 1)
            candidate = tuple(sorted((d,) + rest, reverse=True))
            if best is None or candidate < best:
                best = candidate
        d += 1
    return best


def fattree(N, oversubscription=1.0) -> Topology:
    """A fat tree (switched, one link per node): diameter 1, bisection ``N / (2 * oversubscription)``."""
    N = _check_nodes(N)
    if not oversubscription >= 1:
        raise InputError(f"oversubscription must be at least 1, got {oversubscription}")
    links = max(1, int((N // 2) / oversubscription)) if N > 1 else 0
    return Topology("fattree", N, 1 if N > 1 else 0, min(1, N - 1), links, any_to_any=True)


def fully_connected(N) -> Topology:
    """Every pair linked: diameter 1, degree ``N - 1``, bisection ``floor(N/2) * ceil(N/2)`` links."""
    N = _check_nodes(N)
    return Topology("full", N, 1 if N > 1 else 0, N - 1, (N // 2) * (N - N // 2), any_to_any=True)


def make_topology(name, N) -> Topology:
    """A topology by name (:data:`TOPOLOGIES`) for ``N`` nodes; tori use :func:`torus_dims`."""
    if name == "ring":
        return ring(N)
    if name == "torus2d":
        return torus(torus_dims(N, 2))
    if name == "torus3d":
        return torus(torus_dims(N, 3))
    if name == "fattree":
        return fattree(N)
    if name == "full":
        return fully_connected(N)
    raise InputError(f"unknown topology {name!r}; choose one of {', '.join(TOPOLOGIES)}")


def effective_ports(ports=1, topology=None) -> int:
    """``p = min(ports, degree)``: the ports a node can really use (at least 1)."""
    ports = _check_ports(ports)
    if topology is not None:
        ports = max(1, min(ports, topology.degree))
    return ports


# ------------------------------------------------------------ lower bounds
def latency_bound(N, alpha, ports=1, topology=None) -> float:
    """``alpha * max(ceil(log_{p+1} N), D)`` with ``p`` effective ports and diameter ``D``."""
    N = _check_nodes(N)
    steps = latency_steps(N, effective_ports(ports, topology))
    if topology is not None:
        steps = max(steps, topology.diameter)
    return steps * alpha


def bandwidth_bound(collective, N, M, beta, ports=1, topology=None) -> float:
    """Per-node bandwidth lower bound (seconds) of a collective moving ``M`` bytes.

    ``M`` is the message size: the broadcast/reduced vector, the full
    buffer of the root (Scatter, Gather), the full vector (ReduceScatter,
    AllGather, AllReduce) or each node's whole send buffer (AllToAll).
    Scatter and Gather move ``(N - 1) M / N`` through the root, which keeps
    its own share (the reference notes round this to ``M``).
    """
    N = _check_nodes(N)
    share = (N - 1) / N
    factors = {"broadcast": 1.0 if N > 1 else 0.0, "reduce": 1.0 if N > 1 else 0.0,
               "scatter": share, "gather": share, "reducescatter": share, "allgather": share,
               "alltoall": share, "allreduce": 2 * share}
    if collective not in factors:
        raise InputError(f"unknown collective {collective!r}; choose one of {', '.join(COLLECTIVES)}")
    return factors[collective] * M / (beta * effective_ports(ports, topology))


def dispatch_bound(recv_bytes, beta, ports=1, send_bytes=None, topology=None) -> float:
    """Non-uniform dispatch/combine: ``max_j max(R_j, S_j) / (p beta)``.

    Parameters
    ----------
    recv_bytes : sequence of float
        Bytes node ``j`` must receive.
    send_bytes : sequence of float, optional
        Bytes node ``j`` must send.
    """
    heaviest = max(list(recv_bytes) + list(send_bytes if send_bytes is not None else []), default=0)
    return heaviest / (beta * effective_ports(ports, topology))


def bisection_bound(collective, N, M, beta, topology) -> float:
    """Bytes that must cross a minimum bisection, over the bisection bandwidth.

    With halves of ``h = floor(N/2)`` and ``N - h`` nodes: Broadcast and
    Reduce ``M``; Scatter, Gather, ReduceScatter, AllGather and AllReduce
    ``h M / N`` (``M / 2`` for even ``N``); AllToAll ``h (N - h) M / N``.
    """
    N = _check_nodes(N)
    if N == 1 or topology.bisection_links == 0:
        return 0.0
    h = N // 2
    crossing = {"broadcast": M, "reduce": M, "scatter": h * M / N, "gather": h * M / N,
                "reducescatter": h * M / N, "allgather": h * M / N, "allreduce": h * M / N,
                "alltoall": h * (N - h) * M / N}
    if collective not in crossing:
        raise InputError(f"unknown collective {collective!r}; choose one of {', '.join(COLLECTIVES)}")
    return crossing[collective] / topology.bisection_bandwidth(beta)


@dataclass(frozen=True)
class Bound:
    """The parts of a collective's lower bound (seconds); ``total`` is their maximum."""

    latency: float
    bandwidth: float
    bisection: float

    @property
    def total(self) -> float:
        return max(self.latency, self.bandwidth, self.bisection)


def lower_bound(collective, N, M, alpha, beta, ports=1, topology=None) -> Bound:
    """Combined lower bound ``max(latency, bandwidth, bisection)`` of a collective.

    Without a topology the bisection term is 0 (a non-blocking network).
    """
    return Bound(latency=latency_bound(N, alpha, ports, topology),
                 bandwidth=bandwidth_bound(collective, N, M, beta, ports, topology),
                 bisection=0.0 if topology is None else bisection_bound(collective, N, M, beta, topology))


# ------------------------------------------------------ AllReduce algorithms
@dataclass(frozen=True)
class AlgorithmCost:
    """Cost ``latency_steps * alpha + bandwidth_factor * M / beta`` of an algorithm."""

    name: str
    latency_steps: float
    bandwidth_factor: float
    ports: int = 1

    def time(self, M, alpha, beta) -> float:
        """Predicted seconds for a message of ``M`` bytes."""
        return self.latency_steps * alpha + self.bandwidth_factor * M / beta


def ring_allreduce(N) -> AlgorithmCost:
    """Ring: ReduceScatter then AllGather, ``N - 1`` steps each of ``M / N`` bytes."""
    N = _check_nodes(N)
    return AlgorithmCost("ring", 2 * (N - 1), 2 * (N - 1) / N)


def double_binary_tree_allreduce(N) -> AlgorithmCost:
    """Double binary tree: reduce then broadcast along two trees, each with half the data.

    ``2 ceil(log2 N)`` steps of ``M / 2`` bytes: factor ``ceil(log2 N)``.
    """
    depth = ceil_log(N, 2)
    return AlgorithmCost("double binary tree", 2 * depth, depth)


def recursive_doubling_allreduce(N) -> AlgorithmCost:
    """Recursive doubling (butterfly): ``log2 N`` exchanges of the whole vector.

    The latency-optimal algorithm for short messages. For ``N = 2^s``: ``s``
    steps, factor ``s``. Otherwise the ``N - 2^s`` extra nodes hand their
    vector to a partner first and get the result back at the end: two more
    steps of ``M`` bytes each.
    """
    N = _check_nodes(N)
    s = ceil_log(N, 2)
    if 2 ** s == N:
        return AlgorithmCost("recursive doubling", s, s)
    return AlgorithmCost("recursive doubling", (s - 1) + 2, (s - 1) + 2)


def recursive_halving_doubling_allreduce(N) -> AlgorithmCost:
    """Recursive halving (ReduceScatter) then doubling (AllGather), Rabenseifner's algorithm.

    For ``N = 2^s``: ``2 s`` steps, factor ``2 (N - 1) / N``. Otherwise the
    ``N - 2^s`` extra nodes first hand their vector to a partner and get
    the result back at the end: two more steps and ``2 M`` more bytes.
    """
    N = _check_nodes(N)
    s = ceil_log(N, 2)
    if 2 ** s == N:
        return AlgorithmCost("recursive halving-doubling", 2 * s, 2 * (N - 1) / N)
    core = 2 ** (s - 1)
    return AlgorithmCost("recursive halving-doubling", 2 * (s - 1) + 2, 2 * (core - 1) / core + 2)


def bidirectional_ring_allreduce(N) -> AlgorithmCost:
    """Bidirectional ring (2 ports): each chunk is reduced from both sides.

    ``2 ceil((N-1)/2)`` steps each moving ``M / N`` bytes on both links:
    ``N alpha + M / beta`` for even ``N``.
    """
    N = _check_nodes(N)
    steps = 2 * (N // 2)  # 2 ceil((N - 1) / 2)
    return AlgorithmCost("bidirectional ring", steps, steps / N, ports=2)


def allreduce_algorithms(N, ports=1, topology=None) -> list:
    """The AllReduce algorithms that run contention-free with these ports on this topology.

    Ring algorithms embed in every topology here (a torus has a Hamiltonian
    cycle); the bidirectional ring needs 2 usable ports; tree, recursive
    doubling and recursive halving-doubling need ``any_to_any`` (no
    topology given counts as such).
    """
    p = effective_ports(ports, topology)
    algorithms = [ring_allreduce(N)]
    if p >= 2 and N > 2:
        algorithms.append(bidirectional_ring_allreduce(N))
    if topology is None or topology.any_to_any:
        algorithms += [double_binary_tree_allreduce(N), recursive_doubling_allreduce(N),
                       recursive_halving_doubling_allreduce(N)]
    return algorithms


def best_allreduce(N, M, alpha, beta, ports=1, topology=None):
    """The fastest applicable AllReduce algorithm for ``M`` bytes.

    Returns
    -------
    algorithm : AlgorithmCost
    seconds : float
    """
    algorithms = allreduce_algorithms(N, ports, topology)
    times = [a.time(M, alpha, beta) for a in algorithms]
    best = min(range(len(algorithms)), key=times.__getitem__)
    return algorithms[best], times[best]


def crossover(a: AlgorithmCost, b: AlgorithmCost, alpha, beta):
    """Message size (bytes) at which ``a`` and ``b`` take equal time, or None.

    Below it the algorithm with fewer latency steps wins, above it the one
    with the smaller bandwidth factor: ``M* = (L_a - L_b) alpha beta /
    (B_b - B_a)``. None when the costs never cross at a positive size
    (one dominates, or they are parallel).
    """
    if a.bandwidth_factor == b.bandwidth_factor:
        return None
    size = (a.latency_steps - b.latency_steps) * alpha * beta / (b.bandwidth_factor - a.bandwidth_factor)
    return size if size > 0 else None
