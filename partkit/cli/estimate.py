"""``partkit estimate``: predicted communication time of a partition in the alpha-beta model."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import MAX_COUNT, integer, print_json, real

MODEL_HELP = ("Model: a message of w words takes alpha + w * word_size / beta seconds (beta is a "
              "bandwidth in bytes/s), times D / d_min for the bytes on a machine whose PEs are D apart "
              "(hops on a torus). Halo exchange: each part's messages share min(ports, topology "
              "degree) ports; the step lasts as long as the slowest part. AllReduce: the fastest "
              "algorithm that runs on the topology. Bounds: the halo traffic spread evenly over the "
              "parts, and the latency/bandwidth/bisection lower bound of the AllReduce. With a machine "
              "(--topology, --hierarchy, --distance-file), also the mapping cost J and the time of the "
              "parts placed on it (partkit map). See docs/cost_model.md and docs/mapping.md.")


def add_model_arguments(parser):
    """The alpha-beta parameters and the machine description shared by ``estimate``, ``compare`` and ``measure``."""
    from partkit.cli._machine import add_machine_arguments

    parser.add_argument("--machine", metavar="FILE",
                        help="machine file written by partkit calibrate (alpha, beta and, when it holds "
                             "them, topology, ports and per-message overhead); not with --alpha/--beta")
    parser.add_argument("--alpha", type=real(0),
                        help="message latency in seconds (default 2e-6)")
    parser.add_argument("--beta", type=real(0),
                        help="link bandwidth in bytes per second (default 1e10 = 10 GB/s)")
    parser.add_argument("--word-size", type=real(0), default=8.0, metavar="BYTES",
                        help="bytes per vector entry (default 8, float64)")
    parser.add_argument("--ports", type=integer(1, 1024),
                        help="ports per node in the k-port model (default 1, or the machine file's; capped "
                             "by the topology degree)")
    parser.add_argument("--allreduces", type=integer(0, 10**6), default=2,
                        help="AllReduces of one word per CG iteration (default 2: the dot products)")
    parser.add_argument("--ncommon", type=integer(1), metavar="N",
                        help="mesh only: nodes two elements share to be adjacent (default by element type)")
    add_machine_arguments(parser, "the machine the k parts run on (default: the machine file's topology, else "
                                  "a ring for the AllReduce and distances not charged)")


def load_model(path, ncommon=None, model="graph"):
    """The object whose SpMV is modelled: the matrix of a Matrix Market file, else the graph.

    A graph (METIS ``.graph``, or a mesh's dual graph) stands for its
    adjacency matrix plus the identity. With ``model="hypergraph-rows"`` the
    partition is one of the columns (row-net model): the partial sums of
    ``y`` folded to their owners are the expand of ``A^T``, which is returned;
    for a rectangular matrix ``y_i`` is owned by the part holding most of
    row ``i`` (:func:`partkit.hypergraph.spmv_communication`'s default), so
    the words are the row-net λ-1.

    Returns
    -------
    model : scipy.sparse.csr_matrix or partkit.Graph
    description : str
    """
    from partkit.errors import InputError
    from partkit.io import file_kind, read_graph, read_matrix

    if file_kind(path) == "matrixmarket":
        matrix = read_matrix(path)
        if model == "hypergraph-rows":
            owners = "" if matrix.shape[0] == matrix.shape[1] else "; y_i with the part of most of row i"
            return matrix.T.tocsr(), (f"{matrix.shape[0]}x{matrix.shape[1]} nnz={matrix.nnz} (row-net model: "
                                      f"column partition, fold of y = A x{owners})")
        if matrix.shape[0] != matrix.shape[1]:
            raise InputError(f"{path}: matrix is {matrix.shape[0]}x{matrix.shape[1]}; "
                             "a row partition with x conformal to it needs a square matrix")
        return matrix, f"n={matrix.shape[0]} nnz={matrix.nnz} (column-net model of the matrix)"
    graph = read_graph(path, ncommon=ncommon)
    return graph, f"n={graph.n} m={graph.m} (column-net model of adjacency + I)"


#: Machine parameters when neither --machine nor the option is given (topology None: a ring network, no distances).
DEFAULTS = {"alpha": 2e-6, "beta": 1e10, "topology": None, "ports": 1, "overhead": 0.0, "allreduce_overhead": 0.0,
            "halo_start": 0.0, "allreduce_start": 0.0, "pingpong_segments": None, "halo_segments": None}


def machine_parameters(args) -> dict:
    """alpha, beta, topology, ports and overhead from ``--machine`` or the options (else the defaults).

    ``--machine`` with ``--alpha`` or ``--beta`` is refused (which one would
    count is not clear); ``--ports`` and a machine description
    (``--topology``, ``--hierarchy``, ``--distance-file``) given on the
    command line override the machine file's. ``topology`` is the file's
    topology name (or None); :func:`machine_from_args` builds the machine.
    """
    from partkit.errors import InputError

    values = dict(DEFAULTS, source=None)
    if getattr(args, "machine", None) is not None:
        both = [flag for flag in ("alpha", "beta") if getattr(args, flag) is not None]
        if both:
            raise InputError(f"give --machine or --{both[0]}, not both (the machine file holds alpha and beta)")
        from partkit.machine import load_machine

        from partkit.machine.fit import Segments

        machine = load_machine(args.machine)
        values.update({key: machine[key] for key in DEFAULTS if key in machine}, source=args.machine)
        for key in ("pingpong_segments", "halo_segments"):
            if values[key] is not None:
                values[key] = Segments.from_list(values[key], f"{args.machine}: {key}")
    for key in ("alpha", "beta", "ports"):
        if getattr(args, key, None) is not None:
            values[key] = getattr(args, key)
    return values


def machine_from_args(args, k, parameters=None):
    """The :class:`partkit.machine.Machine` of the options, else of the machine file's topology, else None."""
    from partkit.cli._machine import has_machine, machine_of

    topology = (parameters or machine_parameters(args))["topology"]
    if not has_machine(args) and topology is None:
        return None
    return machine_of(args, k=k, topology=topology)


def estimate_from_args(model, part, k, args, name, placement=None):
    """Run :func:`partkit.estimate.estimate` with the machine parameters of ``args`` (parts on ``placement``)."""
    from partkit.estimate import estimate

    m = machine_parameters(args)
    k = k if k is not None else int(part.max(initial=0)) + 1
    return estimate(model, part, k, alpha=m["alpha"], beta=m["beta"], topology=machine_from_args(args, k, m),
                    placement=placement,
                    ports=m["ports"], word_size=args.word_size, allreduces=args.allreduces,
                    overhead=m["overhead"], allreduce_overhead=m["allreduce_overhead"],
                    halo_start=m["halo_start"], allreduce_start=m["allreduce_start"],
                    segments=m["pingpong_segments"],
                    halo_segments=m["halo_segments"], name=name)


def placed_estimates(model, part, k, args, name, first=None, graph=None):
    """On a machine, the partition in order (part i on PE i) and placed by :func:`partkit.mapping.place`.

    ``first`` is the in-order estimate when already made. Returns None
    without a machine, else ``{"in_order": {...}, "placed": {...}}``, each
    with ``J`` (:func:`partkit.mapping.mapping_cost` on the graph of the
    model) and ``estimate``; ``placed`` also has ``placement``.
    """
    from partkit.errors import InputError
    from partkit.graph import Graph
    from partkit.mapping import mapping_cost, place

    first = first if first is not None else estimate_from_args(model, part, k, args, name)
    machine = first.machine
    if machine is None:
        return None
    if graph is None:
        if not isinstance(model, Graph) and model.shape[0] != model.shape[1]:
            raise InputError(f"{name}: the mapping cost J needs a graph; a {model.shape[0]}x{model.shape[1]} "
                             "matrix has none (estimate it without a machine)")
        graph = model if isinstance(model, Graph) else Graph.from_scipy(model, name=name)
    pe = place(graph, part, machine)
    return {"in_order": {"J": mapping_cost(graph, part, machine), "estimate": first},
            "placed": {"J": mapping_cost(graph, part, machine, pe), "placement": pe,
                       "estimate": estimate_from_args(model, part, k, args, name, placement=pe)}}


def _placed_dict(sides):
    return {side: {"J": sides[side]["J"], "halo_time": sides[side]["estimate"].halo_time,
                   "iteration_time": sides[side]["estimate"].iteration_time,
                   "placement": [int(p) for p in sides[side]["estimate"].placement]}
            for side in ("in_order", "placed")}


def format_placed(sides):
    """J and predicted times of the partition in order and placed, side by side."""
    machine = sides["in_order"]["estimate"].machine
    lines = [f"on machine {machine.name} ({machine.k} PEs): J = sum over cut edges of weight x distance "
             "between their parts' PEs",
             f"  {'':<24}{'in order':>15}{'placed':>15}{'ratio':>8}"]
    a, b = sides["in_order"], sides["placed"]
    lines.append(f"  {'J':<24}{a['J']:>15.0f}{b['J']:>15.0f}{_ratio(b['J'], a['J'])}")
    for label, key in (("halo exchange", "halo_time"), ("CG iteration", "iteration_time")):
        x, y = getattr(a["estimate"], key), getattr(b["estimate"], key)
        lines.append(f"  {label:<24}{_us(x)}{_us(y)}{_ratio(y, x)}")
    lines.append("placed = the parts moved to PEs by partkit map (greedy + swaps; J never rises); "
                 "ratio = placed / in order")
    return "\n".join(lines)


def register(subparsers):
    """Add the ``estimate`` subcommand."""
    parser = subparsers.add_parser(
        "estimate", help="predicted SpMV + CG communication time of a partition",
        description="Predict the communication time of one conjugate-gradient iteration (the SpMV "
                    "halo exchange and the dot-product AllReduces) under a row partition, next to "
                    "the ideal bound. " + MODEL_HELP)
    parser.add_argument("file", help="Matrix Market matrix (exact, also unsymmetric), METIS graph or mesh")
    parser.add_argument("partfile", help="partition file: one part id per line (part of row i; of "
                                         "column j with --model hypergraph-rows)")
    parser.add_argument("--model", choices=["graph", "hypergraph", "hypergraph-rows"], default="graph",
                        help="how the partition was made: graph or hypergraph (column-net) partitions "
                             "are row partitions, estimated exactly alike; hypergraph-rows (row-net) "
                             "partitions are column partitions, whose fold phase is estimated")
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, MAX_COUNT),
                        help="number of parts = processes (default: largest id + 1)")
    add_model_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args):
    """Load, estimate, print."""
    from pathlib import Path

    from partkit.io import read_partition

    model, description = load_model(args.file, args.ncommon, args.model)
    n = model.shape[0] if hasattr(model, "shape") else model.n
    part = read_partition(args.partfile, n=n, k=args.k)
    name = Path(args.file).name
    result = estimate_from_args(model, part, args.k, args, name)
    sides = placed_estimates(model, part, args.k, args, name, first=result)
    if args.json:
        extra = {} if sides is None else {"J": sides["in_order"]["J"], "mapping": _placed_dict(sides)}
        print_json({"file": args.file, "partition": args.partfile, **result.to_dict(), **extra})
        return EXIT_OK
    print(f"{name}: {description}, k={result.k}")
    print(format_machine(result))
    d = result.to_dict()
    print(f"SpMV halo exchange: words total {d['total_words']}, max send {d['max_send_words']}, "
          f"max recv {d['max_recv_words']}; messages total {d['total_messages']}, "
          f"max send {d['max_send_messages']}, max recv {d['max_recv_messages']}")
    print(format_times(result))
    if sides is not None:
        print(format_placed(sides))
    return EXIT_OK


def format_machine(result):
    """One line with the machine parameters of an estimate."""
    topo = result.topology
    dims = "x".join(map(str, topo.dims)) + " " if topo.dims else ""
    overhead = f", overhead={result.overhead:g} s/message" if result.overhead else ""
    if result.halo_segments is not None:
        count = len(result.halo_segments.starts)
        overhead = f", halo messages by the machine's {count}-segment fit"
    if result.halo_start:
        overhead += f", halo start={result.halo_start:g} s/exchange"
    if result.allreduce_overhead:
        overhead += f", allreduce overhead={result.allreduce_overhead:g} s/call"
    if result.allreduce_start:
        overhead += f", allreduce start={result.allreduce_start:g} s/phase"
    return (f"model: alpha={result.alpha:g} s, beta={result.beta:g} B/s{overhead}, word={result.word_size:g} B, "
            f"topology {topo.name} {dims}(diameter {topo.diameter}, degree {topo.degree}, "
            f"bisection {topo.bisection_links} links), ports used {result.ports}")


def _us(seconds):
    return f"{seconds * 1e6:12.3f} us"


def _ratio(time, bound):
    return f"{time / bound:8.2f}" if bound > 0 else f"{'-':>8}"


def format_times(result):
    """The predicted-versus-bound table of an estimate."""
    allreduce = f"allreduce x{result.allreduces} ({result.allreduce_bytes} B)"
    rows = [("halo exchange", result.halo_time, result.halo_bound, "slowest part vs even spread"),
            (allreduce, result.allreduce_phase_time,
             result.allreduces * result.allreduce_bound.total, result.allreduce.name),
            ("CG iteration", result.iteration_time, result.iteration_bound, "")]
    lines = [f"  {'':<24}{'predicted':>15}{'bound':>15}{'ratio':>8}"]
    for label, time, bound, note in rows:
        lines.append(f"  {label:<24}{_us(time)}{_us(bound)}{_ratio(time, bound)}  {note}".rstrip())
    return "\n".join(lines)
