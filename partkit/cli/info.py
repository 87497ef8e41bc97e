"""``partkit info``: the version, Numba's threading layer and the thread counts."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import print_json


def register(subparsers):
    """Add the ``info`` subcommand."""
    parser = subparsers.add_parser(
        "info", help="show the version, the threading layer and the default thread count",
        description="Show partkit's version, Numba's threading layer (chosen by partkit: omp, else "
                    "workqueue; PARTKIT_THREADING_LAYER overrides), the cores this process may use "
                    "(the default of --threads) and the size of Numba's thread pool (NUMBA_NUM_THREADS).")
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
        print(f"  threading layer   {result['threading_layer']}")
        print(f"  default threads   {result['default_threads']} "
              f"(cores available {result['available_cores']}, Numba pool {result['numba_pool_threads']})")
    return EXIT_OK
