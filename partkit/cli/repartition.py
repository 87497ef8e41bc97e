"""``partkit repartition``: rebalance a partition after the vertex weights changed.

Under MPI (``mpiexec -n P partkit repartition FILE PARTFILE --weights W``)
every rank reads its block of the graph (:func:`partkit.distributed.read_graph`)
and its rows of the partition and weight files (each rank parses those
whole files, which hold one short line per vertex), the ranks call
:func:`partkit.distributed.repartition` (which gathers on rank 0 for the
serial multilevel repartitioner), write the one partition file together and
rank 0 prints the summary.
"""

from __future__ import annotations

import sys

from partkit.cli import EXIT_INFEASIBLE, EXIT_OK
from partkit.cli._common import (MAX_COUNT, add_graph_arguments, coordinates_file, integer, load_graph, output_path,
                                 print_json, real)


def register(subparsers):
    """Add the ``repartition`` subcommand."""
    parser = subparsers.add_parser(
        "repartition", help="rebalance a partition for new vertex weights, moving little data",
        description="Restore the balance of an existing partition after the vertex weights "
                    "changed (as after mesh refinement), keeping the edge cut and the migration "
                    "volume (weight of the vertices that change part) low. The objective is "
                    "ITR * cut + migration, as in ParMETIS AdaptiveRepart.")
    add_graph_arguments(parser)
    parser.add_argument("partfile", metavar="PARTFILE", help="current partition, one part id per line")
    parser.add_argument("--weights", "-w", metavar="W", required=True,
                        help="new vertex weights: one line per vertex with 1 or more integers "
                             "(optional 'n [ncon]' header line, %% or # comments)")
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, MAX_COUNT),
                        help="number of parts (default: largest part id + 1)")
    parser.add_argument("--imbalance", type=real(0), default=0.03,
                        help="allowed imbalance (default 0.03)")
    parser.add_argument("--itr", type=real(0), default=1000.0,
                        help="weight of the cut against the migration volume (default 1000)")
    parser.add_argument("--strategy", choices=["multilevel", "diffusion", "remap", "auto"], default="multilevel",
                        help="multilevel (default: ParMETIS AdaptiveRepart on the multilevel engine), "
                             "diffusion, scratch-remap, or the best of the three")
    parser.add_argument("--flow", choices=["l1", "l2"], default="l1",
                        help="diffusion (also on multilevel's coarsest graph): balancing flow of least volume (l1, default: moves "
                             "the least weight) or least 2-norm (l2: what diffusion converges to)")
    parser.add_argument("--compare", action="store_true",
                        help="also partition from scratch (relabelled to maximise overlap) and "
                             "report its cut and migration")
    parser.add_argument("--seed", type=integer(0), default=0, help="random seed (default 0)")
    parser.add_argument("-o", "--output", metavar="OUT",
                        help="new partition file (default PARTFILE.repart)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=run)


def run(args):
    """Read the inputs, repartition, write the partition, print the metrics (on all ranks under MPI)."""
    from partkit.balance.repartition import (partition_from_scratch, repartition,
                                             scratch_method, with_weights)
    from partkit.errors import InputError
    from partkit.io import read_partition, read_vertex_weights, write_partition
    from partkit.metrics import edge_cut, is_balanced, part_count

    output = output_path(args, f"{args.partfile}.repart",
                         [args.partfile, args.file, args.weights, coordinates_file(args)])
    graph = load_graph(args)
    weights = read_vertex_weights(args.weights, graph.n)
    old = read_partition(args.partfile, graph.n, args.k)
    k = part_count(old, args.k)
    if not 1 <= k <= graph.n:
        raise InputError(f"k must be between 1 and n={graph.n}, got {k}")
    result = repartition(graph, old, weights, k, imbalance=args.imbalance, itr=args.itr,
                         strategy=args.strategy, flow=args.flow, seed=args.seed)
    weighted = with_weights(graph, weights)
    balanced = is_balanced(weighted, result.part, k, args.imbalance)
    write_partition(output, result.part)
    payload = {"file": args.file, "n": graph.n, "k": k, "old_cut": edge_cut(graph, old),
               **result.to_dict(), "objective": result.objective(args.itr), "itr": args.itr,
               "balanced": balanced, "output": output}
    if args.compare:
        scratch = partition_from_scratch(graph, old, k, vwgt=weights, imbalance=args.imbalance,
                                         seed=args.seed)
        payload["scratch"] = {**scratch.to_dict(), "method": scratch_method(),
                              "objective": scratch.objective(args.itr)}
    if args.json:
        print_json(payload)
    else:
        print(f"{graph.name}: n={graph.n} k={k} strategy={result.strategy} itr={args.itr:g}")
        print(f"  cut {result.cut} (was {payload['old_cut']})  migration {result.migration} "
              f"({result.moved} vertices moved)  imbalance {result.imbalance:.4f}")
        if args.compare:
            s = payload["scratch"]
            print(f"  from scratch ({s['method']}, parts relabelled to maximise overlap): "
                  f"cut {s['cut']}  migration {s['migration']} ({s['moved']} moved)  "
                  f"imbalance {s['imbalance']:.4f}")
        print(f"  wrote {output}")
    return _status(result, balanced, args.imbalance)


def _status(result, balanced, bound):
    """The exit status, with a warning when the new partition exceeds the balance bound."""
    if balanced:
        return EXIT_OK
    print(f"partkit: warning: the new partition exceeds the balance bound (imbalance "
          f"{result.imbalance:.4f} > {bound})", file=sys.stderr)
    return EXIT_INFEASIBLE


def run_distributed(comm, args):
    """The command on all ranks of ``comm`` (:mod:`partkit.cli.distributed`); the exit status of this rank."""
    from partkit.distributed.adaptive import repartition_block
    from partkit.distributed.comm import Channel
    from partkit.distributed.io import read_graph, write_partition
    from partkit.errors import InputError
    from partkit.io import read_partition, read_vertex_weights

    if args.strategy != "multilevel":
        raise InputError("--strategy is not available under MPI (the ranks run the multilevel strategy)")
    output = output_path(args, f"{args.partfile}.repart", [args.partfile, args.file, args.weights])
    graph = read_graph(comm, args.file)
    lo, hi = int(graph.vtxdist[comm.rank]), int(graph.vtxdist[comm.rank + 1])
    weights = read_vertex_weights(args.weights, graph.n)[lo:hi]
    old = read_partition(args.partfile, graph.n, args.k)
    k = args.k if args.k is not None else int(old.max(initial=0)) + 1
    old = old[lo:hi]
    channel = Channel(comm)
    part, result = repartition_block(channel, graph.vtxdist, graph.xadj, graph.adjncy, old, k, vwgt=weights,
                                     adjwgt=graph.adjwgt, itr=args.itr, imbalance=args.imbalance, seed=args.seed,
                                     name=graph.name)
    write_partition(comm, output, part)
    balanced = comm.bcast(result.balanced if comm.rank == 0 else None, root=0)
    if comm.rank != 0:
        return EXIT_OK if balanced else EXIT_INFEASIBLE
    payload = {"file": args.file, "n": graph.n, "k": k, "ranks": comm.size, **result.to_dict(),
               "objective": result.objective(args.itr), "itr": args.itr, "balanced": balanced, "output": output}
    if args.json:
        print_json(payload)
    else:
        print(f"{graph.name}: n={graph.n} k={k} strategy={result.strategy} itr={args.itr:g} ranks={comm.size}")
        print(f"  cut {result.cut}  migration {result.migration} ({result.moved} vertices moved)  "
              f"imbalance {result.imbalance:.4f}")
        print(f"  wrote {output}")
    return _status(result, balanced, args.imbalance)
