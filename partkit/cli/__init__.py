"""The ``partkit`` command line.

Each subcommand lives in its own module of this package with a
``register(subparsers)`` function that adds its parser and sets
``func`` (called with the parsed arguments, returning an exit status).
Under ``mpiexec`` with more than one rank, a command with a distributed
form runs that instead (:mod:`partkit.cli.distributed`).

Exit statuses: 0 success, 1 internal error, 2 bad input or arguments,
3 balance constraint not met (the partition is still written).
"""

from __future__ import annotations

import argparse
import importlib
import os
import re
import signal
import sys

from partkit.distributed.launch import world_size
from partkit.errors import InputError

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_INPUT = 2
EXIT_INFEASIBLE = 3
EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143

#: Subcommand modules, in the order ``partkit --help`` lists them.
COMMANDS = [
    "partkit.cli.partition",
    "partkit.cli.evaluate",
    "partkit.cli.estimate",
    "partkit.cli.map",
    "partkit.cli.compare",
    "partkit.cli.calibrate",
    "partkit.cli.measure",
    "partkit.cli.generate",
    "partkit.cli.plot",
    "partkit.cli.balance",
    "partkit.cli.repartition",
    "partkit.cli.order",
    "partkit.cli.info",
]


class _Parser(argparse.ArgumentParser):
    """No abbreviated long options; errors on one line (exit 2), pointing at ``--help``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


#: ``-name=value`` and ``-name`` (METIS style) would otherwise be read as a short option with a glued
#: value (``-objtype=vol`` as ``-o bjtype=vol``, ``-ocontig`` as ``-o contig``): refused, so a glued
#: short option takes digits only (``-k8``).
_GLUED = re.compile(r"-[A-Za-z][A-Za-z_]+(=|$)")


def build_parser():
    """The argument parser with every subcommand registered."""
    from partkit import __version__

    parser = _Parser(
        prog="partkit",
        description="Graph partitioning and load balancing, with a communication-cost model.",
        epilog="Exit status: 0 success, 1 internal error, 2 bad input or arguments, "
               "3 balance constraint not met (partition still written).")
    parser.add_argument("--version", action="version", version=f"partkit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True, parser_class=_Parser)
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    parser.commands = subparsers.choices  # the subcommands' parsers by name
    return parser


def main(argv=None):
    """Run the command line; returns the exit status (also used by the console script).

    SIGINT (Ctrl-C) and SIGTERM end the process at once with one line on
    stderr and status 130 or 143, after removing the temporary file of a
    write in progress: no exception is raised into running code (raising
    ``KeyboardInterrupt`` where a compiled kernel returns gave SystemErrors
    and crashes). Python runs the handler between bytecodes, so a kernel
    finishes its current call first. A closed stdout (``| head``) ends with
    status 2.
    """
    previous = {signum: signal.signal(signum, _exit_on_signal) for signum in _SIGNAL_STATUS}
    try:
        return _run(argv)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def _run(argv):
    try:
        parser, args = _parse(argv)
        if world_size() > 1:  # under mpiexec: the command's distributed form, if it has one
            from partkit.cli import distributed

            if args.command in distributed.COMMANDS:
                return distributed.run(args, parser.commands[args.command])
        return args.func(args)
    except SystemExit as exc:  # --help, --version and argument errors (status 2)
        return exc.code
    except InputError as exc:
        return _fail(f"partkit: error: {exc}", EXIT_INPUT)
    except BrokenPipeError:
        # Later flushes of stdout would fail again: send them to /dev/null.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return _fail("partkit: error: output closed early (broken pipe)", EXIT_INPUT)
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        return _fail(f"partkit: internal error: {type(exc).__name__}: {exc} "
                     "(please report it with the input that caused it)", EXIT_INTERNAL)


def _parse(argv):
    parser = build_parser()
    argv = sys.argv[1:] if argv is None else list(argv)
    glued = next((arg for arg in argv if _GLUED.match(arg)), None)
    if glued is not None:
        parser.error(f"unknown option {glued!r}: long options take two dashes (--name value), "
                     "short ones a space (-o FILE)")
    return parser, parser.parse_args(argv)


_SIGNAL_STATUS = {signal.SIGINT: (EXIT_INTERRUPTED, "interrupted"), signal.SIGTERM: (EXIT_TERMINATED, "terminated")}


def _exit_on_signal(signum, frame):
    status, word = _SIGNAL_STATUS[signum]
    output = sys.modules.get("partkit.io._output")
    if output is not None:
        output.remove_pending()
    try:
        sys.stdout.flush()
    except (OSError, ValueError):
        pass
    os.write(2, f"partkit: {word}\n".encode())
    os._exit(status)


def _fail(message, status):
    print(message.splitlines()[0], file=sys.stderr)
    return status


def console_main():
    """Entry point of the ``partkit`` console script.

    The signal handlers stay until the process ends, and the process ends
    with ``os._exit`` once the output is flushed: the interpreter's own
    teardown (about 0.6 s with Numba and LLVM loaded) would restore the
    default handlers and let a late Ctrl-C kill the process by signal.
    """
    for signum in _SIGNAL_STATUS:
        signal.signal(signum, _exit_on_signal)
    status = main()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            status = status or EXIT_INPUT
    os._exit(status if isinstance(status, int) else EXIT_INPUT)
