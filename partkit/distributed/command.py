"""``mpiexec -n P partkit partition FILE -k K``: the partition command on P ranks.

:mod:`partkit.cli.partition` hands over here when
:func:`partkit.distributed.launch.world_size` is above one. Every rank reads
its block, the ranks partition together, write the one partition file, and
rank 0 prints the summary (text or ``--json``); errors are printed once.
"""

from __future__ import annotations

import sys
import numpy as np
from mpi4py import MPI

from partkit.cli import EXIT_INFEASIBLE, EXIT_INPUT, EXIT_OK
from partkit.cli._common import end_progress, print_json, progress_printer
from partkit.cli._compile import compiling, report_compilation
from partkit.distributed.comm import Channel
from partkit.distributed.halo import fetch
from partkit.distributed.io import read_graph, write_partition
from partkit.distributed.multilevel import max_part_weight, partition_block
from partkit.errors import InputError
from partkit.methods import DEFAULT_METHOD

#: Options of the serial command that the distributed path does not take, with their defaults.
SERIAL_ONLY = {"coords": None, "edge_weights": "unit", "ncommon": None, "preset": None, "refine": None,
               "option": [], "model": "graph", "vertex_weights": None, "mesh_graph": "dual", "tpwgts": None,
               "ubvec": None, "fixed": None, "contiguous": False, "objective": "cut", "hierarchy": None,
               "distance": None, "topology": None, "distance_file": None}


def run(args):
    """Partition ``args.file`` on all ranks of COMM_WORLD; the exit status of this rank."""
    comm = MPI.COMM_WORLD
    try:
        return _run(comm, args)
    except InputError:
        if comm.rank == 0:
            raise  # the CLI prints it once
        return EXIT_INPUT


def _run(comm, args):
    given = [name for name, default in SERIAL_ONLY.items() if getattr(args, name, default) != default]
    if given or args.method not in (None, DEFAULT_METHOD):
        flag = "--" + (given[0].replace("_", "-") if given else "method")
        raise InputError(f"{flag} is not available under MPI (the distributed partitioner is multilevel "
                         "label propagation with the serial engine on the coarsest graph)")
    printer = progress_printer(args.quiet or args.json) if comm.rank == 0 else None
    progress = None
    if comm.bcast(printer is not None, root=0):  # every rank computes the per-level cut, rank 0 shows it
        progress = printer if printer is not None else (lambda message: None)
    with compiling("distributed", comm.rank == 0 and not args.quiet) as compiled:
        start = compiled.clock()
        graph = read_graph(comm, args.file)
        channel = Channel(comm)
        part = partition_block(channel, graph.vtxdist, graph.xadj, graph.adjncy, args.k, vwgt=graph.vwgt,
                               adjwgt=graph.adjwgt, imbalance=args.imbalance, seed=args.seed, name=graph.name,
                               progress=progress)
        seconds = compiled.work(start)
    output = args.output or f"{args.file}.part.{args.k}"
    write_partition(comm, output, part)
    channel.phase = "summary"
    result = summary(channel, graph, part, args.k, args.imbalance)
    end_progress(printer)
    report_compilation(compiled, comm.rank != 0 or args.quiet)
    if comm.rank == 0:
        result.update({"file": args.file, "method": "distributed", "ranks": comm.size,
                       "imbalance_bound": args.imbalance, "seconds": seconds, "compile_seconds": compiled.seconds,
                       "output": output})
        if args.json:
            print_json(result)
        else:
            print(f"{graph.name}: n={result['n']} m={result['m']} k={args.k} method=distributed ranks={comm.size}")
            print(f"  cut {result['cut']}  imbalance {result['imbalance']:.4f}  volume {result['volume']}  "
                  f"time {seconds:.3f} s")
            print(f"  wrote {output}")
        if not result["balanced"]:
            print(f"partkit: warning: {graph.name}: distributed partition exceeds the balance bound "
                  f"(max part weight {result['max_part_weight']} > {result['bound']})", file=sys.stderr)
    return EXIT_OK if result["balanced"] else EXIT_INFEASIBLE


def summary(channel, graph, part, k, imbalance):
    """Cut, imbalance, communication volume and balance of a distributed partition (collective).

    Parameters
    ----------
    channel : partkit.distributed.comm.Channel
    graph : partkit.distributed.DistributedGraph
    part : int64 array, shape (graph.n_local,)
    """
    vwgt = np.ones(graph.n_local, dtype=np.int64) if graph.vwgt is None else graph.vwgt
    adjwgt = np.ones(graph.adjncy.size, dtype=np.int64) if graph.adjwgt is None else graph.adjwgt
    neighbour_part = fetch(channel, graph.vtxdist, graph.adjncy, part)
    sources = np.repeat(np.arange(graph.n_local), np.diff(graph.xadj))
    crossing = neighbour_part != part[sources]
    volume = np.unique(sources[crossing] * k + neighbour_part[crossing]).size
    weights = np.bincount(part, weights=vwgt, minlength=k).astype(np.int64)
    totals = channel.allreduce(np.concatenate([weights, [adjwgt[crossing].sum(), volume, adjwgt.size]]))
    weights, cut, volume, entries = totals[:k], int(totals[k]) // 2, int(totals[k + 1]), int(totals[k + 2])
    total = int(weights.sum())
    bound = max_part_weight(total, k, imbalance)
    return {"n": graph.n, "m": entries // 2, "k": k, "cut": cut,
            "imbalance": float(weights.max() / (total / k) - 1.0) if total else 0.0,
            "volume": volume, "balanced": bool(weights.max() <= bound),
            "max_part_weight": int(weights.max()), "bound": bound}
