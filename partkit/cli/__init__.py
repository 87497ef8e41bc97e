"""The ``partkit`` command line.

Each subcommand lives in its own module of this package with a
``register(subparsers)`` function that adds its parser and sets
``func`` (called with the parsed arguments, returning an exit status).

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

from partkit.errors import InputError, Terminated

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
    "partkit.cli.compare",
    "partkit.cli.generate",
    "partkit.cli.plot",
    "partkit.cli.balance",
    "partkit.cli.repartition",
]


class _Parser(argparse.ArgumentParser):
    """No abbreviated long options; errors on one line (exit 2), pointing at ``--help``."""

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("allow_abbrev", False)
        super().__init__(*args, **kwargs)

    def error(self, message):
        self.exit(EXIT_INPUT, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


#: ``-name=value`` (METIS style) would otherwise be read as a short option with a glued value.
_GLUED = re.compile(r"-[A-Za-z][A-Za-z_]+=")


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
    return parser


def main(argv=None):
    """Run the command line; returns the exit status (also used by the console script).

    SIGTERM raises :class:`partkit.errors.Terminated` (SIGINT already
    raises ``KeyboardInterrupt``), so that a write in progress removes its
    temporary file; both end with one line on stderr and the shell's status
    (130, 143). A closed stdout (``| head``) ends with status 2.
    """
    previous = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        return _run(argv)
    finally:
        signal.signal(signal.SIGTERM, previous)


def _run(argv):
    try:
        args = _parse(argv)
        return args.func(args)
    except SystemExit as exc:  # --help, --version and argument errors (status 2)
        return exc.code
    except InputError as exc:
        return _fail(f"partkit: error: {exc}", EXIT_INPUT)
    except KeyboardInterrupt:
        return _fail("partkit: interrupted", EXIT_INTERRUPTED)
    except Terminated:
        return _fail("partkit: terminated", EXIT_TERMINATED)
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
    return parser.parse_args(argv)


def _raise_terminated(signum, frame):
    raise Terminated


def _fail(message, status):
    print(message.splitlines()[0], file=sys.stderr)
    return status


def console_main():
    """Entry point of the ``partkit`` console script."""
    sys.exit(main())
