"""``partkit info``: the version and the thread counts."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import print_json


def register(subparsers):
    """Add the ``info`` subcommand."""
    parser = subparsers.add_parser(
        "info", help="show the version and the default thread count",
        description="Show partkit's version, the cores this process may use (the default of --threads) "
                    "and the most threads a call may use (NUMBA_NUM_THREADS).")
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args):
    from partkit import __version__
    from partkit._threads import info

    result = {"partkit": __version__, **info()}
    if args.json:
        print_json(result)
    else:
        print(f"partkit {result['partkit']} (numba {result['numba']})")
        print(f"  default threads   {result['default_threads']} "
              f"(cores available {result['available_cores']}, at most {result['max_threads']})")
    return EXIT_OK
