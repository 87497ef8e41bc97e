"""``partkit map``: place the parts of an existing partition on the machine."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import add_graph_arguments, load_graph, output_path, print_json
from partkit.cli._machine import add_machine_arguments, machine_of


def register(subparsers):
    """Add the ``map`` subcommand."""
    parser = subparsers.add_parser(
        "map", help="place a partition's parts on the machine (lower the mapping cost J)",
        description="Place the parts of PARTFILE on the processing elements (PEs) of a machine so that heavy "
                    "communication travels short distances: J = sum over cut edges of weight x distance "
                    "between the PEs of their parts. Greedy construction and pairwise swaps on the quotient "
                    "graph; J never rises. Writes the partition with PE ids (part i becomes its PE).")
    add_graph_arguments(parser)
    parser.add_argument("partfile", help="partition file: one part id per line, ids below the number of PEs")
    add_machine_arguments(parser, "the machine")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="the placed partition, one PE id per line (default PARTFILE.mapped)")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args):
    """Read the graph, the partition and the machine; place; write and print J before and after."""
    import time

    from partkit.io import read_partition, write_partition
    from partkit.mapping import mapping_cost, place

    graph = load_graph(args)
    machine = machine_of(args)
    part = read_partition(args.partfile, n=graph.n, k=machine.k)
    output = output_path(args, f"{args.partfile}.mapped", [args.file, args.partfile])
    start = time.perf_counter()
    pe = place(graph, part, machine, seed=args.seed)
    seconds = time.perf_counter() - start
    write_partition(output, pe[part])
    before, after = mapping_cost(graph, part, machine), mapping_cost(graph, part, machine, pe)
    result = {"file": args.file, "partition": args.partfile, "machine": machine.name, "k": machine.k,
              "J_in_order": before, "J_placed": after, "ratio": after / before if before else 1.0,
              "placement": pe.tolist(), "output": output, "seconds": seconds}
    if args.json:
        print_json(result)
        return EXIT_OK
    print(f"{graph.name}: n={graph.n} m={graph.m} on {machine.name} (k={machine.k})")
    print(f"  J in order  {before:.0f}")
    print(f"  J placed    {after:.0f}  ({result['ratio']:.3f} x)")
    print(f"  time {seconds:.3f} s")
    print(f"wrote {output}")
    return EXIT_OK
