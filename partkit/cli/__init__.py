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
import sys

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_INPUT = 2
EXIT_INFEASIBLE = 3

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
    "partkit.cli.order",
]


def build_parser():
    """The argument parser with every subcommand registered."""
    from partkit import __version__

    parser = argparse.ArgumentParser(
        prog="partkit",
        description="Graph partitioning and load balancing, with a communication-cost model.",
        epilog="Exit status: 0 success, 1 internal error, 2 bad input or arguments, "
               "3 balance constraint not met (partition still written).")
    parser.add_argument("--version", action="version", version=f"partkit {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for name in COMMANDS:
        importlib.import_module(name).register(subparsers)
    return parser


def main(argv=None):
    """Run the command line; returns the exit status (also used by the console script)."""
    from partkit.errors import InputError

    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except InputError as exc:
        print(f"partkit: error: {exc}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print("partkit: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # noqa: BLE001 - the last line of defence for users
        print(f"partkit: internal error: {type(exc).__name__}: {exc} "
              "(please report it with the input that caused it)", file=sys.stderr)
        return EXIT_INTERNAL



def console_main():
    """Entry point of the ``partkit`` console script."""
    sys.exit(main())
