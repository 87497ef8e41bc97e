"""``partkit plot``: draw a partition to a PNG file."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import MAX_COUNT, add_graph_arguments, coordinates_file, integer, load_graph


def register(subparsers):
    """Add the ``plot`` subcommand."""
    parser = subparsers.add_parser(
        "plot", help="draw a partition (PNG)",
        description="Draw the graph with vertices (mesh elements) coloured by part and cut edges in "
                    "black when coordinates are known (--coords, a mesh with node coordinates, or "
                    "--layout spectral); otherwise a spy plot of the matrix permuted by part.")
    add_graph_arguments(parser)
    parser.add_argument("partfile", help="partition file: one part id per line")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="output image (.png)")
    parser.add_argument("--layout", choices=["spectral"],
                        help="compute 2D coordinates from the graph (for graphs without coordinates)")
    parser.add_argument("--spy", action="store_true", help="draw the permuted spy plot even with coordinates")
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, MAX_COUNT), help="number of parts (default: largest id + 1)")
    parser.set_defaults(func=run)


def run(args):
    """Read the graph and the partition and draw them."""
    from partkit.io import check_output, read_partition
    from partkit.layout import spectral_layout
    from partkit.plot import plot_partition, spy_partition

    check_output(args.output, inputs=[args.file, args.partfile, coordinates_file(args)])
    graph = load_graph(args, coordinates=True)
    part = read_partition(args.partfile, n=graph.n, k=args.k)
    if args.layout == "spectral":
        graph.coords = spectral_layout(graph)
    if graph.coords is None or args.spy:
        spy_partition(graph, part, args.output, k=args.k)
        kind = "spy plot"
    else:
        plot_partition(graph, part, args.output, k=args.k)
        kind = "partition drawing"
    print(f"wrote {args.output} ({kind})")
    return EXIT_OK
