"""``mpiexec -n P partkit calibrate -o machine.json``: measure alpha and beta and write a machine file.

``partkit calibrate --combine A.json B.json C.json -o machine.json`` (no
mpiexec) refits the per-configuration medians of several calibrations.
"""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import integer, print_json


def register(subparsers):
    """Add the ``calibrate`` subcommand."""
    parser = subparsers.add_parser(
        "calibrate", help="measure alpha, beta and collectives under mpiexec; write a machine file",
        description="Under mpiexec -n P (P >= 2): ping-pong between rank pairs over message sizes from "
                    "--min-size to --max-size (one pair per level of the hierarchy the ranks span: same "
                    "package, other package, other node), a least-squares fit of alpha (s) and beta "
                    "(bytes/s) with its residuals, the halo exchange's start and per-message terms (fitted "
                    "to exchanges of 1, 2 and 4 messages each way, timed as partkit measure runs them), "
                    "CG's AllReduce phases, and Allreduce, Bcast and Alltoallv against the model. Writes a "
                    "machine file for "
                    "partkit estimate/compare/measure --machine. With --combine (no mpiexec): the machine "
                    "file of the median timings of several calibrations (on a virtual machine one mpiexec "
                    "launch can find messages faster or slower than the next). See docs/cost_model.md.")
    parser.add_argument("-o", "--output", default="machine.json", metavar="FILE",
                        help="machine file to write (default machine.json)")
    parser.add_argument("--plot", metavar="FILE.png", help="also draw measured against fitted times")
    parser.add_argument("--min-size", type=integer(1, 2**30), default=8, metavar="BYTES",
                        help="smallest message (default 8)")
    parser.add_argument("--max-size", type=integer(1, 2**30), default=16 * 2**20, metavar="BYTES",
                        help="largest message (default 16777216 = 16 MB)")
    parser.add_argument("--repetitions", type=integer(3, 10**6), default=50,
                        help="timed repetitions per size up to 64 KB, fewer above (default 50); the median counts")
    parser.add_argument("--no-collectives", dest="collectives", action="store_false",
                        help="skip the Allreduce/Bcast/Alltoallv measurements")
    parser.add_argument("--combine", nargs="+", metavar="MACHINE.json",
                        help="instead of measuring: refit the per-configuration medians of these calibrations "
                             "(machine files of partkit calibrate with the same options)")
    parser.add_argument("--json", action="store_true", help="print the machine file's object instead of text")
    parser.set_defaults(func=run)


def run(args):
    """Calibrate on every rank of COMM_WORLD, rank 0 writing and printing; or combine calibrations."""
    if args.combine:
        return _combine(args)
    from partkit.cli._mpi import run_collective

    return run_collective(_run, args)


def _combine(args):
    from partkit.io import check_output
    from partkit.machine import load_machine
    from partkit.machine.fitted import combine

    check_output(args.output)
    machine = combine([load_machine(path) for path in args.combine], names=args.combine)
    _write(machine, args)
    return EXIT_OK


def _write(machine, args):
    """Write the machine file (and plot), print it."""
    from partkit.machine.fitted import plot_calibration
    from partkit.machine.machinefile import write_machine

    write_machine(args.output, machine)
    if args.plot is not None:
        plot_calibration(machine, args.plot)
    if args.json:
        print_json(machine)
        return
    print(format_calibration(machine))
    print(f"wrote {args.output}" + (f" and {args.plot}" if args.plot else ""))


def _check(comm, args):
    from partkit.errors import InputError
    from partkit.io import check_output

    if comm.size < 2:
        raise InputError("calibrate measures messages between ranks: run it under mpiexec with at least "
                         "2 ranks (mpiexec -n 2 partkit calibrate -o machine.json)")
    if args.min_size > args.max_size:
        raise InputError(f"--min-size {args.min_size} is above --max-size {args.max_size}")
    if comm.rank == 0:
        check_output(args.output)
        if args.plot is not None:
            check_output(args.plot)


def _run(comm, args):
    from partkit.cli._mpi import agree
    from partkit.machine.calibrate import calibrate

    agree(comm, lambda: _check(comm, args))
    machine = calibrate(comm, min_size=args.min_size, max_size=args.max_size, repetitions=args.repetitions,
                        collectives=args.collectives)
    if comm.rank == 0:
        _write(machine, args)
    return EXIT_OK


def format_calibration(machine):
    """Fits, residuals and the collectives' predicted/measured, as text."""
    lines = [f"{machine['ranks']} ranks on {machine['nodes']} node(s); {machine['mpi']}"]
    for level in machine["levels"]:
        a, b = level["ranks"]
        lines.append(f"ping-pong {level['level']} (ranks {a}, {b}): alpha={level['alpha']:.3g} s, "
                     f"beta={level['beta']:.3g} B/s; rms relative residual "
                     f"{level['rms_relative_residual']:.2f}, worst predicted/measured factor from 1 KB "
                     f"{level['worst_ratio_1KB_up']:.2f}")
        lines.append(f"  {'bytes':>10}{'measured':>14}{'fitted':>14}{'residual':>10}")
        for size, t, p, r in zip(level["sizes"], level["seconds"], level["predicted"], level["residuals"]):
            lines.append(f"  {size:>10}{t * 1e6:>11.3f} us{p * 1e6:>11.3f} us{r:>10.2f}")
    for key, what in (("pingpong_segments", "ping-pong"), ("halo_segments", "halo message")):
        parts = "; ".join(f"from {s['from']} B: alpha={s['alpha']:.3g} s, beta={s['beta']:.3g} B/s"
                          for s in machine[key])
        data = machine["pingpong" if key == "pingpong_segments" else "exchange"]
        worst = max(max(p / t, t / p) for size, p, t in zip(data["sizes"], data["predicted"], data["seconds"])
                    if size >= 1024) if max(data["sizes"]) >= 1024 else 1.0
        lines.append(f"{what}, piecewise: {parts} (worst predicted/measured factor from 1 KB {worst:.2f})")
    ex = machine["exchange"]
    lines.append(f"halo exchange of 1, 2, 4 messages each way: start {machine['halo_start']:.3g} s per exchange; "
                 f"rms relative residual {ex['rms_relative_residual']:.2f}, worst predicted/measured factor "
                 f"{ex['worst_ratio']:.2f}")
    lines.append(f"  {'msgs':>5}{'bytes':>10}{'measured':>14}{'fitted':>14}{'residual':>10}")
    for count, size, t, p, r in zip(ex["counts"], ex["sizes"], ex["seconds"], ex["predicted"], ex["residuals"]):
        if size in (8, 1024, 4096, 8192, 65536, 2**20, 16 * 2**20):
            lines.append(f"  {count:>5}{size:>10}{t * 1e6:>11.3f} us{p * 1e6:>11.3f} us{r:>10.2f}")
    lines.append(f"halo message overhead beyond the ping-pong (first segments' alphas): {machine['overhead']:.3g} s")
    ar = machine["allreduce"]
    lines.append(f"allreduce phases (1, 2, 4 calls of 8 and 16 B): start {machine['allreduce_start']:.3g} s, "
                 f"{ar['per_call_8B']:.3g} s per 8-byte call against {ar['model_8B']:.3g} s from the ping-pong; "
                 f"rms relative residual {ar['rms_relative_residual']:.2f}")
    for kind, data in machine.get("collectives", {}).items():
        ratios = ", ".join(f"{s}B {r:.2f}" for s, r in zip(data["sizes"], data["ratios"])
                           if s in (8, 1024, 65536, 2**20, 16 * 2**20))
        lines.append(f"{kind}: predicted/measured {ratios}")
    lines.append(f"machine: alpha={machine['alpha']:.3g} s, beta={machine['beta']:.3g} B/s, "
                 f"overhead={machine['overhead']:.3g} s, halo start={machine['halo_start']:.3g} s, "
                 f"allreduce start={machine['allreduce_start']:.3g} s, allreduce overhead="
                 f"{machine.get('allreduce_overhead', 0.0):.3g} s, topology {machine['topology']}, "
                 f"ports {machine['ports']}")
    return "\n".join(lines)
