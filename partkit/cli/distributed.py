"""The commands under ``mpiexec -n P`` (P > 1): ``partkit partition FILE -k K`` on P ranks.

:func:`partkit.cli.main` hands a command over here when
:func:`partkit.distributed.launch.world_size` is above one and the command
has a distributed form in :data:`COMMANDS` (the one place that lists
them; a command without one, as ``calibrate`` or ``measure``, runs as it
is on every rank). A distributed form takes a subset of its serial
command's arguments (:attr:`Distributed.takes`); every other argument of
the serial parser, given with a value other than its default, is refused
with exit status 2 (:func:`serial_only`), so an option added to a serial
command is refused under MPI until its distributed form takes it.

For ``partition``: every rank reads its block, the ranks partition
together, write the one partition file, and rank 0 prints the summary
(text or ``--json``); errors are printed once, by rank 0, before any rank
ends. ``repartition``'s form is
:func:`partkit.cli.repartition.run_distributed`.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass
from typing import Callable

from partkit.cli import EXIT_INFEASIBLE, EXIT_INPUT, EXIT_OK
from partkit.cli._common import end_progress, print_json, progress_printer
from partkit.cli import repartition
from partkit.cli._compile import compiling, report_compilation
from partkit.errors import InputError


@dataclass(frozen=True)
class Distributed:
    """The distributed form of a command: ``run(comm, args)`` and the destinations of the serial parser's
    arguments it takes (the others must keep their defaults); ``why`` ends the refusal of another one."""

    run: Callable
    takes: frozenset
    why: str


def run(args, parser):
    """Run ``args.command`` (parsed by its serial ``parser``) on all ranks of COMM_WORLD; this rank's status."""
    from mpi4py import MPI

    command = COMMANDS[args.command]
    comm = MPI.COMM_WORLD
    try:
        given = serial_only(parser, args, command.takes)
        if given is not None:
            raise InputError(f"{given} is not available under MPI ({command.why})")
        return command.run(comm, args)
    except InputError as exc:  # raised on every rank alike
        if comm.rank == 0:
            print(f"partkit: error: {exc}", file=sys.stderr, flush=True)
        comm.Barrier()  # no rank ends before rank 0 has printed: mpiexec stops the others when one fails
        return EXIT_INPUT


def serial_only(parser, args, takes):
    """The first option of ``parser`` outside ``takes`` that ``args`` gives a value other than its default
    (as written on the command line, e.g. ``--edge-weights``), or None.

    Examples
    --------
    >>> import argparse
    >>> parser = argparse.ArgumentParser()
    >>> _ = parser.add_argument("-k", type=int)
    >>> _ = parser.add_argument("--edge-weights", default="unit")
    >>> serial_only(parser, parser.parse_args(["-k", "2"]), {"k"}) is None
    True
    >>> serial_only(parser, parser.parse_args(["--edge-weights", "abs"]), {"k"})
    '--edge-weights'
    """
    for action in parser._actions:  # argparse's list of the parser's arguments (no public accessor)
        if action.dest in takes or action.default == argparse.SUPPRESS:
            continue
        if getattr(args, action.dest, action.default) != action.default:
            return max(action.option_strings, key=len) if action.option_strings else action.dest
    return None


def partition(comm, args):
    """``partkit partition`` on all ranks: read, partition, write, summarise; this rank's exit status."""
    from partkit.distributed.comm import Channel
    from partkit.distributed.io import read_graph, write_partition
    from partkit.distributed.metrics import summary
    from partkit.distributed.multilevel import partition_block
    from partkit.methods import DEFAULT_METHOD
    from partkit.methods.options import check_imbalance

    if args.method not in (None, DEFAULT_METHOD):
        raise InputError(f"--method is not available under MPI ({COMMANDS['partition'].why})")
    imbalance = 0.03 if args.imbalance is None else check_imbalance(args.imbalance)
    printer = progress_printer(args.quiet or args.json) if comm.rank == 0 else None
    progress = None
    if comm.bcast(printer is not None, root=0):  # every rank computes the per-level cut, rank 0 shows it
        progress = printer if printer is not None else (lambda message: None)
    with compiling("distributed", comm.rank == 0 and not args.quiet, file=args.file) as compiled:
        start = compiled.clock()
        graph = read_graph(comm, args.file)
        channel = Channel(comm)
        part = partition_block(channel, graph.vtxdist, graph.xadj, graph.adjncy, args.k, vwgt=graph.vwgt,
                               adjwgt=graph.adjwgt, imbalance=imbalance, seed=args.seed,
                               preset=args.preset or "default", name=graph.name, progress=progress)
        seconds = compiled.work(start)
    output = args.output or f"{args.file}.part.{args.k}"
    write_partition(comm, output, part)
    channel.phase = "summary"
    result = summary(channel, graph, part, args.k, imbalance)
    end_progress(printer)
    report_compilation(compiled, comm.rank != 0 or args.quiet)
    if comm.rank == 0:
        result.update({"file": args.file, "method": "distributed", "ranks": comm.size,
                       "imbalance_bound": imbalance, "seconds": seconds, "compile_seconds": compiled.seconds,
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


#: The commands with a distributed form, by name.
COMMANDS = {
    "partition": Distributed(partition, frozenset({"file", "k", "method", "imbalance", "seed", "preset", "output",
                                                   "json", "quiet"}),
                             "the distributed partitioner is multilevel label propagation with the serial "
                             "engine (--preset) on the coarsest graph, on one row block of the file per rank"),
    "repartition": Distributed(repartition.run_distributed, frozenset({"file", "partfile", "weights", "k", "imbalance", "itr",
                                                       "strategy", "seed", "output", "json"}),
                               "the ranks run the multilevel strategy on the graph gathered on rank 0"),
}
