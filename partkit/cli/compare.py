"""``partkit compare``: partition with several methods and rank them by predicted time."""

from __future__ import annotations

import time
import warnings

from partkit.cli import EXIT_INTERNAL, EXIT_OK
from partkit.cli._common import MAX_COUNT, integer, print_json, real
from partkit.cli.estimate import (MODEL_HELP, add_model_arguments, estimate_from_args, format_machine,
                                  load_model, machine_from_args, placed_estimates)


def register(subparsers):
    """Add the ``compare`` subcommand."""
    parser = subparsers.add_parser(
        "compare", help="compare partitioning methods by cut, words sent, messages and predicted time",
        description="Partition FILE into k parts with each method and print, best first (by "
                    "predicted CG-iteration communication time; on a machine, of the parts placed on "
                    "it, next to the mapping cost J in order and placed): edge cut, connectivity-1 words "
                    "(exact SpMV words), max words a part sends, messages, predicted time and its "
                    "ratio to the bound. Unknown or unavailable methods are skipped with a note. "
                    + MODEL_HELP)
    parser.add_argument("file", help="Matrix Market matrix, METIS graph or mesh")
    parser.add_argument("-k", "--parts", dest="k", type=integer(1, MAX_COUNT), required=True, help="number of parts")
    parser.add_argument("--methods", default="multilevel,spectral,metis",
                        help="comma-separated method names (default multilevel,spectral,metis)")
    parser.add_argument("--imbalance", type=real(0), default=0.03,
                        help="allowed imbalance (default 0.03)")
    parser.add_argument("--seed", type=integer(0), default=0, help="random seed (default 0)")
    add_model_arguments(parser)
    parser.add_argument("--json", action="store_true", help="print one JSON object instead of text")
    parser.set_defaults(func=run)


def run(args):
    """Partition with every method, estimate, print the ranking."""
    from pathlib import Path

    from partkit.api import partition
    from partkit.errors import InfeasibleBalanceWarning, InputError
    from partkit.graph import Graph
    from partkit.metrics import edge_cut, imbalance

    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    if not methods:
        raise InputError("--methods: give at least one method name")
    name = Path(args.file).name
    machine_from_args(args, args.k)  # a bad machine description is refused before any partitioning
    model, description = load_model(args.file, args.ncommon)
    graph = model if isinstance(model, Graph) else Graph.from_scipy(model, name=name)
    rows, skipped, failed = [], [], []
    for method in methods:
        start = time.perf_counter()
        try:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", InfeasibleBalanceWarning)
                part = partition(graph, args.k, method, imbalance=args.imbalance, seed=args.seed)
        except (InputError, ImportError) as exc:
            skipped.append({"method": method, "reason": str(exc)})
            continue
        except Exception as exc:  # noqa: BLE001 - one broken method must not hide the others
            failed.append({"method": method, "reason": f"{type(exc).__name__}: {exc}"})
            continue
        seconds = time.perf_counter() - start
        result = estimate_from_args(model, part, args.k, args, name)
        machine = format_machine(result)
        d = result.to_dict()
        rows.append({"method": method, "cut": edge_cut(graph, part),
                     "words": d["total_words"], "max_words": d["max_send_words"],
                     "messages": d["total_messages"],
                     "max_messages": max(d["max_send_messages"], d["max_recv_messages"]),
                     "halo_time": d["halo_time"], "allreduce_time": d["allreduce_time"],
                     "predicted_time": d["iteration_time"], "bound": d["iteration_bound"],
                     "ratio": d["ratio"], "imbalance": float(imbalance(graph, part, args.k).max()),
                     "balanced": not any(issubclass(w.category, InfeasibleBalanceWarning) for w in caught),
                     "seconds": seconds, "estimate": d})
        sides = placed_estimates(model, part, args.k, args, name, first=result, graph=graph)
        if sides is not None:
            placed = sides["placed"]["estimate"]
            rows[-1].update(J=sides["in_order"]["J"], J_placed=sides["placed"]["J"],
                            halo_time_placed=placed.halo_time, predicted_time_placed=placed.iteration_time,
                            placement=[int(p) for p in sides["placed"]["placement"]])
    if not rows:
        reasons = "; ".join(f"{s['method']}: {s['reason']}" for s in skipped + failed)
        raise InputError(f"no method could partition {name}: {reasons}")
    on_machine = "J" in rows[0]
    rows.sort(key=lambda r: (r["predicted_time_placed"] if on_machine else r["predicted_time"], r["words"]))
    status = EXIT_INTERNAL if failed else EXIT_OK
    if args.json:
        print_json({"file": args.file, "k": args.k, "methods": rows, "skipped": skipped, "failed": failed})
        return status
    print(f"{name}: {description}, k={args.k}")
    print(machine)
    header = (f"{'method':<14}{'cut':>9}{'words':>9}{'max wds':>9}{'msgs':>7}{'max msg':>8}"
              f"{'halo':>13}{'predicted':>13}{'ratio':>7}"
              + (f"{'J':>11}{'J placed':>11}{'placed':>13}" if on_machine else "")
              + f"{'imbal':>8}{'runtime':>9}")
    print(header)
    for r in rows:
        flag = "" if r["balanced"] else "  (unbalanced)"
        print(f"{r['method']:<14}{r['cut']:>9}{r['words']:>9}{r['max_words']:>9}{r['messages']:>7}"
              f"{r['max_messages']:>8}{r['halo_time'] * 1e6:>10.3f} us{r['predicted_time'] * 1e6:>10.3f} us"
              f"{r['ratio']:>7.2f}"
              + (f"{r['J']:>11.0f}{r['J_placed']:>11.0f}{r['predicted_time_placed'] * 1e6:>10.3f} us"
                 if on_machine else "")
              + f"{r['imbalance']:>8.3f}{r['seconds']:>8.2f}s{flag}")
    print("words = connectivity-1 words of one SpMV (the communication volume of the graph model "
          "when the pattern is symmetric), max wds = most words one part sends, "
          "halo = SpMV halo exchange, predicted = halo + AllReduces of one CG iteration, "
          "ratio = predicted / bound, runtime = partitioning seconds"
          + ("; J = mapping cost with part i on PE i, J placed and placed = J and predicted time with the "
             "parts placed by partkit map (the ranking's key)" if on_machine else ""))
    for s in skipped:
        print(f"skipped {s['method']}: {s['reason']}")
    for s in failed:
        print(f"failed {s['method']}: {s['reason']}")
    return status
