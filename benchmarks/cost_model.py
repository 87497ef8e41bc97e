"""The cost model against the machine: calibrate, then predicted against measured halo and AllReduce times.

1. ``mpiexec -n 2 partkit calibrate`` (8 B .. 16 MB), ``--launches`` times
   (5), each followed by the ``measure`` launches of step 2 (so that both
   sample the same spells of the machine: on a virtual machine a
   shared-memory exchange's speed changes from one ``mpiexec`` launch to
   the next and over minutes, see :mod:`partkit.machine.fitted`), combined
   by ``partkit calibrate --combine`` (the fits of the per-configuration
   medians). That machine file and its plot; the fitted ping-pong model
   (``pingpong_segments``, what the estimate uses) must predict every
   ping-pong from 1 KB to 16 MB within a factor 1.5.
2. For each matrix (data/bcsstk13.mtx, and a 2D 5-point Laplacian on a
   ``--grid`` x ``--grid`` mesh, 512 by default, whose halo messages run from a
   few KB (a geometric cut) to about 1 MB (a random partition)), the five
   partitions at k = 2: block, random (each row to a uniformly random part,
   seeded), spectral, multilevel (graph model) and hypergraph (column-net
   model); ``mpiexec -n 2 partkit measure --machine ... --iterations 50`` of
   the five in one launch (their blocks of iterations take turns, so they
   meet the same machine), once per calibration: a partition's measured
   halo time is the median over the launches (all of them are kept in the
   JSON), its prediction that of ``partkit estimate`` on the combined
   machine file.
   Targets: every partition's predicted/measured halo time within a factor
   1.5, and the predicted ranking of the partitions (by halo time) the
   measured ranking, two partitions whose measured times are within the
   noise (``--tie``, 15 % by default, or overlapping interquartile ranges)
   counting as tied.
3. The same at k = 4 on 4 ranks, reported only: on a machine with fewer than
   4 free cores the ranks are oversubscribed (and launched with
   ``MPIR_CVAR_ENABLE_HEAVY_YIELD``), which the 2-rank calibration does not
   describe.

Everything goes to one JSON (``--json``), a plot of predicted against
measured halo time (``--plot``), and with ``--docs docs/cost_model.md`` the
run's figures replace the block between the page's two ``cost_model.py``
markers (date, load average, fitted terms, the table, the PASS/FAIL lines).
``--quick`` runs k = 2 only. Run it on a quiet machine; regenerating the
page's figures and plots is this one command::

    python benchmarks/cost_model.py --json cost_model.json --plot docs/img/cost_model_measured.png \\
        --calibration-plot docs/img/calibration.png --docs docs/cost_model.md
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from partkit.distributed.launch import OVERSUBSCRIBED_ENVIRONMENT, mpiexec  # noqa: E402

METHODS = ("block", "random", "spectral", "multilevel", "hypergraph")
TARGET = 1.5


def environment(ranks, yield_mode):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}
    heavy = yield_mode == "on" or (yield_mode == "auto" and ranks > (os.cpu_count() or 1))
    if heavy:
        env.update(OVERSUBSCRIBED_ENVIRONMENT)
    return env, heavy


def partkit(args, ranks=None, yield_mode="auto"):
    """Run the CLI (under mpiexec with ``ranks``); stdout. Fails loudly."""
    command = [sys.executable, "-m", "partkit", *map(str, args)]
    env, _ = environment(ranks or 1, yield_mode)
    if ranks:
        command = [mpiexec(), "-n", str(ranks), *command]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"failed ({result.returncode}): {' '.join(command)}\n{result.stderr[-2000:]}")
    return result.stdout


def grid_matrix(path, side):
    """The 5-point Laplacian of a side x side mesh, as Matrix Market."""
    import scipy.io
    import scipy.sparse as sp

    if not path.exists():
        eye = sp.identity(side)
        line = sp.diags([-1.0, 2.0, -1.0], [-1, 0, 1], shape=(side, side))
        scipy.io.mmwrite(str(path), (sp.kron(eye, line) + sp.kron(line, eye)).tocsr(), symmetry="symmetric")
    return path


def make_partition(matrix, method, k, out, seed):
    """Write the partition of ``method`` to ``out``."""
    if method == "random":
        from partkit.io import read_matrix, write_partition

        n = read_matrix(matrix).shape[0]
        write_partition(out, np.random.default_rng(seed).integers(0, k, n))
    elif method == "hypergraph":
        partkit(["partition", matrix, "-k", k, "--model", "hypergraph", "--seed", seed, "-o", out, "--quiet"])
    else:
        partkit(["partition", matrix, "-k", k, "--method", method, "--seed", seed, "-o", out, "--quiet"])


def ranking_agreement(rows, tie):
    """Pairs ordered one way by the prediction and the other by the measurement, beyond the noise."""
    discordant = []
    for i, a in enumerate(rows):
        for b in rows[i + 1:]:
            ma, mb = a["measured_halo_s"], b["measured_halo_s"]
            qa, qb = a["measured_halo_quartiles_s"], b["measured_halo_quartiles_s"]
            tied = abs(ma - mb) <= tie * max(ma, mb) or (qa[0] <= qb[1] and qb[0] <= qa[1])
            pa, pb = a["predicted_halo_s"], b["predicted_halo_s"]
            if not tied and (pa - pb) * (ma - mb) < 0:
                discordant.append([a["method"], b["method"]])
    return discordant


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 6), dpi=100)
    markers = dict(zip(METHODS, "osD^v"))
    matrices = sorted({r["matrix"] for r in rows})
    for r in rows:
        colour = f"C{matrices.index(r['matrix'])}"
        face = colour if r["k"] == 2 else "none"
        ax.loglog(r["measured_halo_s"], r["predicted_halo_s"], markers[r["method"]], color=colour, mfc=face, ms=8)
    span = [min(min(r["measured_halo_s"], r["predicted_halo_s"]) for r in rows) / 2,
            max(max(r["measured_halo_s"], r["predicted_halo_s"]) for r in rows) * 2]
    ax.loglog(span, span, "k-", lw=0.8, label="predicted = measured")
    ax.loglog(span, [s * TARGET for s in span], "k:", lw=0.8, label=f"factor {TARGET}")
    ax.loglog(span, [s / TARGET for s in span], "k:", lw=0.8)
    for method, marker in markers.items():
        ax.plot([], [], marker, color="grey", label=method)
    for i, name in enumerate(matrices):
        ax.plot([], [], "s", color=f"C{i}", label=name)
    ax.plot([], [], "o", color="grey", mfc="none", label="k = 4 (oversubscribed, not judged)")
    ax.set_xlabel("measured halo exchange per CG iteration (s)")
    ax.set_ylabel("predicted (partkit estimate --machine) (s)")
    ax.set_title("SpMV halo exchange: predicted against measured")
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matrices", nargs="*", help="Matrix Market files (default data/bcsstk13.mtx and the grid)")
    parser.add_argument("--grid", type=int, default=512, help="side of the generated 2D mesh (default 512)")
    parser.add_argument("--iterations", type=int, default=50)
    parser.add_argument("--repetitions", type=int, default=50, help="calibrate's repetitions per size")
    parser.add_argument("--max-size", type=int, default=16 * 2**20, help="calibrate's largest message")
    parser.add_argument("--ks", default="2,4", help="part counts (default 2,4; k > 2 is reported, not judged)")
    parser.add_argument("--launches", type=int, default=5,
                        help="mpiexec launches of calibrate (combined) each followed by the measure launches (the "
                             "median halo time per partition counts); default 5")
    parser.add_argument("--quick", action="store_true", help="k = 2 only (the judged runs)")
    parser.add_argument("--docs", metavar="PAGE.md",
                        help="write this run's figures between the page's cost_model.py markers")
    parser.add_argument("--tie", type=float, default=0.15, help="relative difference counted as a tie")
    parser.add_argument("--yield", dest="yield_mode", choices=["auto", "on", "off"], default="auto",
                        help="MPIR_CVAR_ENABLE_HEAVY_YIELD: on when ranks exceed the cores (auto), or always/never")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default="/tmp/partkit-bench-data", help="where generated files go")
    parser.add_argument("--json", help="write all results to this file")
    parser.add_argument("--plot", help="predicted against measured halo time (PNG)")
    parser.add_argument("--calibration-plot", help="calibrate's measured against fitted plot (PNG)")
    args = parser.parse_args(argv)
    if args.quick:
        args.ks = "2"
    load_before = os.getloadavg()[0]
    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    machine_path = data / "machine.json"

    matrices = [Path(m) for m in args.matrices] if args.matrices else \
        [ROOT / "data" / "bcsstk13.mtx", grid_matrix(data / f"grid2d_{args.grid}.mtx", args.grid)]
    cases = [(matrix, int(k)) for matrix in matrices for k in args.ks.split(",")]
    files = {}
    for matrix, k in cases:
        files[matrix, k] = [data / f"{matrix.stem}.{method}.{k}" for method in METHODS]
        for method, out in zip(METHODS, files[matrix, k]):
            make_partition(matrix, method, k, out, args.seed)
    # launches of calibrate and measure in turn, so that both sample the same spells of the machine (on a
    # virtual machine a shared-memory exchange's speed changes from one launch to the next and over minutes)
    print(f"{args.launches} launches of calibrate on 2 ranks "
          f"({'heavy yield' if environment(2, args.yield_mode)[1] else 'spinning'}) and measure ...", flush=True)
    launches, measured = [], {case: [] for case in cases}
    for launch in range(args.launches):
        path = data / f"machine.{launch}.json"
        partkit(["calibrate", "-o", path, "--repetitions", args.repetitions, "--max-size", args.max_size],
                ranks=2, yield_mode=args.yield_mode)
        launches.append(path)
        for matrix, k in cases:  # the partitions of a case take turns in one launch
            measured[matrix, k].append(json.loads(partkit(["measure", matrix, *files[matrix, k], "--machine", path,
                                                           "--iterations", args.iterations, "--json"],
                                                          ranks=k, yield_mode=args.yield_mode)))
    print("  exchange level of each calibration (geometric mean of its exchange timings): "
          + ", ".join(f"{exchange_level(json.loads(path.read_text())) * 1e6:.1f} us" for path in launches))
    combine = ["calibrate", "--combine", *launches, "-o", machine_path]
    partkit(combine + (["--plot", args.calibration_plot] if args.calibration_plot else []))
    machine = json.loads(machine_path.read_text())
    pp = machine["pingpong"]
    ratios = {s: p / t for s, p, t in zip(pp["sizes"], pp["predicted"], pp["seconds"]) if s >= 1024}
    worst = max((max(r, 1 / r) for r in ratios.values()), default=1.0)
    print(f"machine: alpha={machine['alpha']:.3g} s, beta={machine['beta']:.3g} B/s (straight fit), "
          f"{len(machine['pingpong_segments'])} ping-pong segments; halo exchange: start "
          f"{machine['halo_start']:.3g} s + per message {describe_segments(machine['halo_segments'])} "
          f"(rms relative residual {machine['exchange']['rms_relative_residual']:.2f}); AllReduce phase: start "
          f"{machine['allreduce_start']:.3g} s + {machine['allreduce']['per_call_8B']:.3g} s per 8-byte call")
    print("ping-pong predicted/measured: " + ", ".join(f"{s}B {r:.2f}" for s, r in ratios.items()
                                                       if s in (1024, 8192, 65536, 2**20, 16 * 2**20)))
    checks = [("ping-pong 1 KB..16 MB within 1.5", worst <= TARGET, f"worst factor {worst:.2f}")]

    rows = []
    for matrix, k in cases:
        judged = k == 2
        _, heavy = environment(k, args.yield_mode)
        print(f"\n{matrix.name} k={k} on {k} ranks{'' if judged else ' (oversubscribed: reported, not judged)'}"
              f"{' heavy yield' if heavy else ''}")
        print(f"  {'method':<12}{'words':>9}{'max msg B':>11}{'measured':>13}{'predicted':>13}{'ratio':>7}"
              f"{'allreduce meas':>16}{'pred':>11}")
        results = [predicted_by(median_launch(result), matrix, part, machine_path)
                   for result, part in zip(zip(*measured[matrix, k]), files[matrix, k])]
        group = []
        for method, result in zip(METHODS, results):
            est = result["estimate"]
            row = {"matrix": matrix.name, "k": k, "method": method, "judged": judged,
                   "heavy_yield": heavy, "words": est["total_words"],
                   "max_message_bytes": int(est["max_send_words"] * est["word_size"]),
                   **{key: result[key] for key in result if key.startswith(("measured", "predicted"))},
                   "halo_ratio": result["halo_ratio"], "allreduce_ratio": result["allreduce_ratio"]}
            group.append(row)
            print(f"  {method:<12}{row['words']:>9}{row['max_message_bytes']:>11}"
                  f"{row['measured_halo_s'] * 1e6:>10.1f} us{row['predicted_halo_s'] * 1e6:>10.1f} us"
                  f"{row['halo_ratio']:>7.2f}{row['measured_allreduce_s'] * 1e6:>13.1f} us"
                  f"{row['predicted_allreduce_s'] * 1e6:>8.1f} us", flush=True)
        predicted_order = [r["method"] for r in sorted(group, key=lambda r: r["predicted_halo_s"])]
        measured_order = [r["method"] for r in sorted(group, key=lambda r: r["measured_halo_s"])]
        discordant = ranking_agreement(group, args.tie)
        print(f"  ranking predicted: {' < '.join(predicted_order)}")
        print(f"  ranking measured:  {' < '.join(measured_order)}"
              f"  (discordant beyond noise: {discordant or 'none'})")
        by_method = {r["method"]: r for r in group}
        for x, y in discordant:  # how far apart the model put them, and the measurement
            px, py = by_method[x]["predicted_halo_s"], by_method[y]["predicted_halo_s"]
            mx, my = by_method[x]["measured_halo_s"], by_method[y]["measured_halo_s"]
            print(f"    {x} / {y}: predicted {px / py:.3f}, measured {mx / my:.3f}")
        if judged:
            bad = [r["method"] for r in group if max(r["halo_ratio"], 1 / r["halo_ratio"]) > TARGET]
            checks.append((f"{matrix.name} k={k} halo within 1.5", not bad,
                           f"outside: {bad or 'none'}"))
            checks.append((f"{matrix.name} k={k} ranking", not discordant, f"discordant: {discordant or 'none'}"))
        rows += group
    print()
    for name, ok, detail in checks:
        print(f"{'PASS' if ok else 'FAIL'}  {name}: {detail}")
    if args.plot:
        plot(rows, args.plot)
    load_after = os.getloadavg()[0]
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine, "rows": rows, "load_average": [load_before,
                                                                                                  load_after],
                                               "checks": [{"name": n, "pass": ok, "detail": d}
                                                          for n, ok, d in checks]}, indent=1))
    if args.docs:
        write_docs(Path(args.docs), machine, rows, checks, (load_before, load_after), args)
    return 0


def exchange_level(machine):
    """One figure for how fast a calibration launch found the exchanges: the geometric mean of its timings."""
    return float(np.exp(np.mean(np.log(machine["exchange"]["seconds"]))))


def median_launch(results):
    """Of one partition's ``measure`` results over the launches, the one with the median measured halo time
    (its other figures from the same launch); all launches' halo times as ``measured_halo_launches_s``."""
    ordered = sorted(results, key=lambda r: r["measured_halo_s"])
    chosen = dict(ordered[(len(ordered) - 1) // 2])
    chosen["measured_halo_launches_s"] = [r["measured_halo_s"] for r in results]
    return chosen


def predicted_by(result, matrix, part, machine_path):
    """``result`` with the predictions of ``partkit estimate`` on the (combined) machine file, and the ratios."""
    est = json.loads(partkit(["estimate", matrix, part, "--machine", machine_path, "--json"]))
    result = {**result, "estimate": est, "predicted_halo_s": est["halo_time"],
              "predicted_allreduce_s": est["allreduce_phase_time"]}
    for phase in ("halo", "allreduce"):
        result[f"{phase}_ratio"] = result[f"predicted_{phase}_s"] / result[f"measured_{phase}_s"]
    return result


def describe_segments(segments):
    """``alpha + M/beta`` of each segment, in microseconds and GB/s (no ``M`` term where the fit found none)."""
    return "; ".join(f"from {s['from']} B {s['alpha'] * 1e6:.2f} µs"
                     + (f" + M / {s['beta'] / 1e9:.2f} GB/s" if s["beta"] < 1e18 else "") for s in segments)


MARKERS = ("<!-- benchmarks/cost_model.py writes from here -->", "<!-- benchmarks/cost_model.py writes up to here -->")


def write_docs(page, machine, rows, checks, load, args):
    """Replace the text between the page's markers with this run's figures."""
    import datetime

    text = page.read_text()
    start, end = (text.index(m) for m in MARKERS)
    judged = [r for r in rows if r["judged"]]
    matrices = list(dict.fromkeys(r["matrix"] for r in judged))
    pp = machine["pingpong"]
    worst = max(max(p / t, t / p) for s, p, t in zip(pp["sizes"], pp["predicted"], pp["seconds"]) if s >= 1024)
    lines = [
        f"The run of {datetime.date.today().isoformat()} (`python benchmarks/cost_model.py"
        f"{' --quick' if args.quick else ''}`, load average {load[0]:.1f} at the start and {load[1]:.1f} at the "
        f"end on {os.cpu_count()} cores (the end figure counts the run's own ranks)"
        f"{': other jobs were running, the timings are noisy' if load[0] > 0.5 else ''}"
        f"). Calibration: ping-pong alpha = {machine['alpha'] * 1e6:.2f} µs, beta = {machine['beta'] / 1e9:.2f} GB/s "
        f"(straight fit; the piecewise fit predicts every ping-pong from 1 KB within {worst:.2f}); halo exchange "
        f"`halo_start` = {machine['halo_start'] * 1e6:.2f} µs and per message "
        f"{describe_segments(machine['halo_segments'])} (rms relative residual "
        f"{machine['exchange']['rms_relative_residual']:.2f}, worst factor {machine['exchange']['worst_ratio']:.2f} "
        f"over {len(machine['exchange']['seconds'])} timings); AllReduce phase `allreduce_start` = "
        f"{machine['allreduce_start'] * 1e6:.2f} µs + {machine['allreduce']['per_call_8B'] * 1e6:.2f} µs per "
        f"8-byte call. k = 2, halo exchange per iteration, measured (median of {args.iterations}) against predicted:",
        "",
        "| partition | " + " | ".join(f"{m} measured | predicted | pred/meas" for m in matrices) + " |",
        "|---|" + "---|---|---|" * len(matrices),
    ]
    for method in METHODS:
        cells = []
        for m in matrices:
            r = next(r for r in judged if r["matrix"] == m and r["method"] == method)
            cells.append(f"{r['measured_halo_s'] * 1e6:.1f} µs | {r['predicted_halo_s'] * 1e6:.1f} µs | "
                         f"{r['halo_ratio']:.2f}")
        lines.append(f"| {method} | " + " | ".join(cells) + " |")
    allreduce = [r["allreduce_ratio"] for r in judged]
    lines += ["", f"The two AllReduces of an iteration: predicted/measured {min(allreduce):.2f} to "
                  f"{max(allreduce):.2f} over these runs. The targets, as the benchmark printed them:", "", "```"]
    lines += [f"{'PASS' if ok else 'FAIL'}  {name}: {detail}" for name, ok, detail in checks]
    lines += ["```"]
    page.write_text(text[:start + len(MARKERS[0])] + "\n" + "\n".join(lines) + "\n" + text[end:])


if __name__ == "__main__":
    sys.exit(main())
