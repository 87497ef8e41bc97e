"""``partkit generate``: write a generated test graph (grid or Delaunay) with coordinates."""

from __future__ import annotations

from pathlib import Path

from partkit.cli import EXIT_OK
from partkit.cli._common import integer
from partkit.errors import InputError

#: Largest graph ``generate`` writes (vertices).
MAX_VERTICES = 10**8


def register(subparsers):
    """Add the ``generate`` subcommand."""
    parser = subparsers.add_parser(
        "generate", help="write a generated graph (2D grid or Delaunay) and its coordinates",
        description="Write a generated graph in METIS format and its coordinates next to it "
                    "(OUT.xyz), for trying partkit without data of your own.")
    parser.add_argument("kind", choices=["grid", "delaunay"])
    parser.add_argument("-n", type=integer(1), required=True,
                        help="grid: side length (n x n vertices); delaunay: number of points")
    parser.add_argument("--seed", type=integer(0), default=0, help="random seed for delaunay (default 0)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="output .graph file")
    parser.set_defaults(func=run)


def run(args):
    """Generate and write the graph and its coordinates."""
    from partkit.generators import delaunay, grid2d
    from partkit.io import write_coordinates, write_metis_graph

    from partkit.io import check_output

    if args.n < (2 if args.kind == "grid" else 3):
        raise InputError(f"-n {args.n} is too small for a {args.kind} graph")
    vertices = args.n * args.n if args.kind == "grid" else args.n
    if vertices > MAX_VERTICES:
        raise InputError(f"-n {args.n}: {vertices} vertices is more than partkit generates "
                         f"(at most {MAX_VERTICES})")
    output = Path(args.output)
    check_output(output)
    check_output(output.with_suffix(".xyz"), option="coordinates file")
    graph = grid2d(args.n, args.n) if args.kind == "grid" else delaunay(args.n, seed=args.seed)
    write_metis_graph(output, graph)
    write_coordinates(output.with_suffix(".xyz"), graph.coords)
    print(f"wrote {output} (n={graph.n}, m={graph.m}) and {output.with_suffix('.xyz')}")
    return EXIT_OK
