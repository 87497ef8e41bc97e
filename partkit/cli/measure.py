"""``mpiexec -n k partkit measure FILE PARTFILE...``: measured against predicted communication of CG iterations."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import integer, print_json


def register(subparsers):
    """Add the ``measure`` subcommand."""
    from partkit.cli.estimate import add_model_arguments

    parser = subparsers.add_parser(
        "measure", help="run a partition's CG communication under mpiexec and compare with the estimate",
        description="Under mpiexec -n k (k = the partition's number of parts): every rank sends exactly "
                    "the halo values its rows need (the partition's send lists), then the two AllReduces "
                    "of CG, for N iterations; prints the measured time of each phase (median over "
                    "iterations of the slowest rank) next to the prediction of partkit estimate with "
                    "the same machine parameters, and predicted/measured. Several partitions of one "
                    "matrix are timed in one launch, in blocks of iterations that take turns, so that "
                    "they meet the same machine. See docs/cost_model.md.")
    parser.add_argument("file", help="Matrix Market matrix (square) or METIS graph (adjacency + I)")
    parser.add_argument("partfiles", nargs="+", metavar="partfile",
                        help="partition file: one part id per line (part of row i); several are compared")
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, 2**20),
                        help="number of parts (default: largest id + 1 of the first partition); every "
                             "partition's must equal the number of ranks")
    parser.add_argument("--iterations", type=integer(1, 10**7), default=50,
                        help="timed CG iterations (default 50, after 3 untimed)")
    parser.add_argument("--spmv", action="store_true",
                        help="also compute the local SpMV with scipy each iteration (timed, not modelled)")
    add_model_arguments(parser)
    parser.add_argument("--json", action="store_true",
                        help="print one JSON object (a list of them for several partitions) instead of text")
    parser.set_defaults(func=run, ncommon=None)


def run(args):
    """Measure on every rank of COMM_WORLD; rank 0 prints."""
    from partkit.cli._mpi import run_collective

    return run_collective(_run, args)


def _setup(comm, args):
    from pathlib import Path

    import scipy.sparse as sp

    from partkit.cli.estimate import estimate_from_args, load_model, machine_parameters
    from partkit.errors import InputError
    from partkit.io import read_partition

    machine = machine_parameters(args)  # a bad machine file is refused before any work
    model, description = load_model(args.file)
    n = model.shape[0] if hasattr(model, "shape") else model.n
    parts = [read_partition(path, n=n, k=args.k) for path in args.partfiles]
    for path, part in zip(args.partfiles, parts):
        k = args.k if args.k is not None else int(part.max(initial=0)) + 1
        if k != comm.size:
            raise InputError(f"{path}: the partition has k={k} parts but mpiexec started {comm.size} "
                             f"ranks; run mpiexec -n {k} partkit measure ...")
    name = Path(args.file).name
    predictions = [estimate_from_args(model, part, k, args, name) for part in parts]
    matrix = model if hasattr(model, "shape") else model.to_scipy() + sp.identity(n, format="csr")
    return name, description, machine, matrix, parts, k, predictions


def _run(comm, args):
    from partkit.cli._mpi import agree
    from partkit.cli.estimate import format_machine
    from partkit.cost.measure import measure

    name, description, machine, matrix, parts, k, predictions = agree(comm, lambda: _setup(comm, args))
    results = measure(comm, matrix, parts, k, predictions, iterations=args.iterations, spmv=args.spmv,
                      allreduces=args.allreduces)
    if comm.rank != 0:
        return EXIT_OK
    for path, prediction, result in zip(args.partfiles, predictions, results):
        result.update({"file": args.file, "partition": path, "k": k, "machine": machine["source"],
                       "estimate": prediction.to_dict()})
    if args.json:
        print_json(results[0] if len(results) == 1 else results)
        return EXIT_OK
    print(f"{name}: {description}, k={k}, {args.iterations} iterations on {comm.size} ranks"
          + (f", {len(parts)} partitions taking turns" if len(parts) > 1 else ""))
    print(format_machine(predictions[0]) + (f" (from {machine['source']})" if machine["source"] else ""))
    for path, prediction, result in zip(args.partfiles, predictions, results):
        d = prediction.to_dict()
        print(f"{path + ': ' if len(parts) > 1 else ''}SpMV halo exchange: words total {d['total_words']}, "
              f"max send {d['max_send_words']}; messages total {d['total_messages']}, "
              f"max send {d['max_send_messages']}")
        print(format_measured(result, prediction.allreduces))
    return EXIT_OK


def _us(seconds):
    return f"{seconds * 1e6:12.3f} us" if seconds is not None else f"{'-':>15}"


def format_measured(result, allreduces):
    """The measured-versus-predicted table of ``partkit measure``."""
    lines = [f"  {'':<22}{'measured':>15}{'predicted':>15}{'pred/meas':>10}"]
    rows = [("halo exchange", "halo"), (f"allreduce x{allreduces}", "allreduce")]
    for label, phase in rows:
        ratio = result.get(f"{phase}_ratio")
        shown = f"{'-':>10}" if ratio is None else f"{ratio:10.2f}"
        lines.append(f"  {label:<22}{_us(result[f'measured_{phase}_s'])}{_us(result[f'predicted_{phase}_s'])}{shown}")
    measured = result["measured_halo_s"] + result["measured_allreduce_s"]
    predicted = result["predicted_halo_s"] + result["predicted_allreduce_s"]
    from partkit.cost.measure import ratio as _ratio

    total = _ratio(predicted, measured)
    lines.append(f"  {'CG communication':<22}{_us(measured)}{_us(predicted)}"
                 f"{'' if total is None else f'{total:10.2f}'}")
    if "measured_spmv_s" in result:
        lines.append(f"  {'SpMV (not modelled)':<22}{_us(result['measured_spmv_s'])}")
    lines.append("measured = median over iterations of the slowest rank; pred/meas = predicted / measured")
    return "\n".join(lines)
