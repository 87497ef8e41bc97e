"""``partkit generate``: write a generated test graph (and its coordinates when it has some)."""

from __future__ import annotations

from pathlib import Path

from partkit.cli import EXIT_OK
from partkit.cli._common import integer
from partkit.errors import InputError

#: kind -> (what -n means, how to build the graph from n and seed)
KINDS = {
    "grid": ("side length (n x n vertices)", lambda g, n, seed: g.grid2d(n, n)),
    "grid3d": ("side length (n x n x n vertices)", lambda g, n, seed: g.grid3d(n, n, n)),
    "delaunay": ("number of points", lambda g, n, seed: g.delaunay(n, seed=seed)),
    "tet_mesh3d": ("about n tetrahedra (dual graph)", lambda g, n, seed: g.tet_mesh3d(n, seed=seed)),
    "rmat": ("number of vertices, a power of two", lambda g, n, seed: g.rmat(_log2(n), seed=seed)),
    "barabasi_albert": ("number of vertices (m = 3)", lambda g, n, seed: g.barabasi_albert(n, seed=seed)),
    "components": ("number of vertices (10% isolated)", lambda g, n, seed: g.components(n, seed=seed)),
}


def _log2(n):
    if n < 2 or n & (n - 1):
        raise InputError(f"-n {n}: rmat needs a power of two of at least 2")
    return n.bit_length() - 1


#: Largest graph ``generate`` writes (vertices).
MAX_VERTICES = 10**8


def register(subparsers):
    """Add the ``generate`` subcommand."""
    parser = subparsers.add_parser(
        "generate", help="write a generated graph (grids, meshes, power-law graphs, many components)",
        description="Write a generated graph in METIS format, and its coordinates next to it (OUT.xyz) "
                    "for the geometric kinds, for trying partkit without data of your own. -n means: "
                    + "; ".join(f"{kind}: {meaning}" for kind, (meaning, _) in KINDS.items()) + ".")
    parser.add_argument("kind", choices=list(KINDS))
    parser.add_argument("-n", type=integer(1), required=True, help="size (see above)")
    parser.add_argument("--seed", type=integer(0), default=0, help="random seed for the random kinds (default 0)")
    parser.add_argument("-o", "--output", required=True, metavar="OUT", help="output .graph file")
    parser.set_defaults(func=run)


def run(args):
    """Generate and write the graph and its coordinates."""
    from partkit import generators
    from partkit.io import write_coordinates, write_metis_graph

    from partkit.io import check_output

    if args.n < (2 if args.kind.startswith("grid") else 3):
        raise InputError(f"-n {args.n} is too small for a {args.kind} graph")
    vertices = {"grid": args.n ** 2, "grid3d": args.n ** 3}.get(args.kind, args.n)
    if vertices > MAX_VERTICES:
        raise InputError(f"-n {args.n}: {vertices} vertices is more than partkit generates "
                         f"(at most {MAX_VERTICES})")
    output = Path(args.output)
    check_output(output)
    check_output(output.with_suffix(".xyz"), option="coordinates file")
    graph = KINDS[args.kind][1](generators, args.n, args.seed)
    write_metis_graph(output, graph)
    wrote = f"wrote {output} (n={graph.n}, m={graph.m})"
    if graph.coords is not None:
        write_coordinates(output.with_suffix(".xyz"), graph.coords)
        wrote += f" and {output.with_suffix('.xyz')}"
    print(wrote)
    return EXIT_OK
