"""``partkit evaluate``: the metrics of a given partition."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import MAX_COUNT, add_graph_arguments, integer, load_graph, print_json
from partkit.cli._hypergraph import add_model_arguments, load_hypergraph, print_summary


def register(subparsers):
    """Add the ``evaluate`` subcommand."""
    parser = subparsers.add_parser(
        "evaluate", help="metrics of a partition file",
        description="Print edge cut, imbalance per constraint, communication volume (total and max), "
                    "boundary vertices and disconnected parts of a partition.")
    add_graph_arguments(parser)
    parser.add_argument("partfile", help="partition file: one part id per line")
    add_model_arguments(parser, "the hypergraph models report λ-1, cut nets and the largest volume a part sends")
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, MAX_COUNT),
                        help="number of parts (default: largest id + 1)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args):
    """Read the graph and the partition, print the metrics."""
    from partkit.io import read_partition
    from partkit.metrics import part_count, summary

    if args.model != "graph":
        return run_hypergraph(args)
    graph = load_graph(args)
    part = read_partition(args.partfile, n=graph.n, k=args.k)
    k = part_count(part, args.k)
    result = {"file": args.file, "partition": args.partfile, **summary(graph, part, k)}
    if args.json:
        print_json(result)
        return EXIT_OK
    print(f"{graph.name}: n={graph.n} m={graph.m} k={k}")
    for key in ("cut", "imbalance", "volume", "max_volume", "boundary_vertices", "disconnected_parts",
                "empty_parts"):
        value = result[key]
        print(f"  {key.replace('_', ' '):<20} {value:.4f}" if isinstance(value, float)
              else f"  {key.replace('_', ' '):<20} {value}")
    if graph.ncon > 1:
        print("  imbalance per constraint " + " ".join(f"{x:.4f}" for x in result["imbalance_per_constraint"]))
    return EXIT_OK


def run_hypergraph(args):
    """The hypergraph metrics of a partition (:func:`partkit.hypergraph.metrics.summary`)."""
    from partkit.hypergraph.metrics import summary
    from partkit.io import read_partition
    from partkit.metrics import part_count

    h = load_hypergraph(args)
    part = read_partition(args.partfile, n=h.n, k=args.k)
    k = part_count(part, args.k)
    result = {"file": args.file, "partition": args.partfile, "model": args.model, **summary(h, part, k)}
    if args.json:
        print_json(result)
    else:
        print_summary(h, result, f" model={args.model}")
    return EXIT_OK
