"""``partkit order``: a fill-reducing ordering (nested dissection) of a sparse matrix's graph."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._compile import compiling, report_compilation
from partkit.cli._common import add_graph_arguments, load_graph, print_json


def register(subparsers):
    """Add the ``order`` subcommand."""
    parser = subparsers.add_parser(
        "order", help="fill-reducing ordering for sparse Cholesky/LU (nested dissection)",
        description="Order the vertices of a graph (or the rows of a symmetric-pattern matrix) by "
                    "nested dissection finished by approximate minimum degree, and write the "
                    "permutation, one 0-based index per line, in METIS's perm convention: line k "
                    "holds the original index of the k-th pivot. Prints nnz(L) and the factor "
                    "flops of the ordering and of the original order.")
    add_graph_arguments(parser)
    parser.add_argument("-o", "--output", metavar="OUT", help="perm file (default FILE.perm)")
    parser.add_argument("--iperm", metavar="FILE",
                        help="also write the inverse permutation (line v: new position of vertex v)")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args):
    """Order, write the permutation(s), print the fill."""
    from partkit.io import write_partition
    from partkit.ordering import order, symbolic_cholesky

    with compiling("order", file=args.file) as compiled:
        graph = load_graph(args)
        start = compiled.clock()
        perm, iperm = order(graph, seed=args.seed)
        seconds = compiled.work(start)
        fill, natural = symbolic_cholesky(graph, perm), symbolic_cholesky(graph)
    report_compilation(compiled)
    output = args.output or f"{args.file}.perm"
    write_partition(output, perm)
    if args.iperm:
        write_partition(args.iperm, iperm)
    result = {"file": args.file, "n": graph.n, "m": graph.m, "nnz_L": fill.nnz, "flops": fill.flops,
              "natural_nnz_L": natural.nnz, "natural_flops": natural.flops, "seconds": seconds,
              "compile_seconds": compiled.seconds, "output": output, "iperm": args.iperm}
    if args.json:
        print_json(result)
    else:
        print(f"{graph.name}: n={graph.n} m={graph.m}")
        print(f"  nnz(L) {fill.nnz} (original order {natural.nnz})  flops {fill.flops:.3e} "
              f"(original order {natural.flops:.3e})  time {seconds:.3f} s")
        print(f"  wrote {output}" + (f" and {args.iperm}" if args.iperm else ""))
    return EXIT_OK
