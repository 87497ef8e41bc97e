"""partkit's multilevel partitioner against METIS (and KaHIP, KaMinPar when installed).

Runs every tool on every graph for every k and seed, prints a table (mean cut,
worst imbalance, mean wall seconds per tool) and writes everything to JSON.
The summary gives the geometric mean over (graph, k) of the cut ratio
partkit/METIS and of the warm wall-time ratio (Numba cache filled, kernels
already loaded), per k as well. One instance (``--cold``, default
delaunay_n20 with k=64) is also run in a fresh process with an empty Numba
cache: its first call (cold, compiling every kernel) and second call (warm)
give the compile overhead, the cold and warm time ratios to METIS on that
instance, and the peak resident memory of that process.

Graphs: Matrix Market or METIS files given on the command line (default: the
inputs in ../shared/data) and generated Delaunay graphs ``delaunay_nXX``
(scipy.spatial.Delaunay of 2**XX uniform random points, the DIMACS10 family).

Examples::

    python benchmarks/compare.py                       # default run (a few minutes)
    python benchmarks/compare.py --quick               # 4elt + delaunay_n15, k=8, one seed
    python benchmarks/compare.py --preset strong --kahip-mode strong --graphs ../shared/data/4elt.graph \\
        --delaunay --seeds 0
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data"
DEFAULT_FILES = ["4elt.graph", "rgg_n_2_15_s0.graph", "power.graph", "bcsstk13.mtx", "jagmesh7.mtx"]
DEFAULT_DELAUNAY = [15, 17, 20]
KAHIP_MODES = {"fast": 0, "eco": 1, "strong": 2}


def load_graphs(files, delaunay_exponents):
    """``(name, loader)`` pairs; loaders build the graph on demand."""
    from partkit.generators import delaunay
    from partkit.io import read_graph

    out = [(Path(f).name, lambda f=f: read_graph(f)) for f in files]
    out += [(f"delaunay_n{e}", lambda e=e: delaunay(2**e, seed=0)) for e in delaunay_exponents]
    return out


# ------------------------------------------------------------------ tools
def run_partkit(graph, k, imbalance, seed, preset):
    from partkit.methods.multilevel import partition

    return partition(graph, k, imbalance=imbalance, seed=seed, preset=preset)


def run_metis(graph, k, imbalance, seed, preset):
    from partkit.methods.metis import partition

    return partition(graph, k, imbalance=imbalance, seed=seed)


def make_kahip(mode):
    import kahip

    def run(graph, k, imbalance, seed, preset):
        _, part = kahip.kaffpa(graph.vwgt[:, 0].tolist(), graph.xadj.tolist(), graph.adjwgt.tolist(),
                               graph.adjncy.tolist(), int(k), float(imbalance), True, int(seed),
                               KAHIP_MODES[mode])
        return np.asarray(part, dtype=np.int64)

    return run


class KaMinParRunner:
    """KaMinPar (default context, 1 thread); it reads graphs from METIS files only."""

    def __init__(self):
        import kaminpar

        self.kaminpar = kaminpar
        self.solver = kaminpar.KaMinPar(1, kaminpar.default_context())
        self.cache = {}
        self.tmp = tempfile.TemporaryDirectory(prefix="partkit-bench-")

    def load(self, graph):
        """Write the graph once (outside the timed region) and load it."""
        from partkit.io import write_metis_graph

        if graph.name not in self.cache:
            path = os.path.join(self.tmp.name, "g.graph")
            write_metis_graph(path, graph)
            self.cache = {graph.name: self.kaminpar.load_graph(path, self.kaminpar.GraphFileFormat.METIS)}
        return self.cache[graph.name]

    def __call__(self, graph, k, imbalance, seed, preset):
        self.kaminpar.reseed(int(seed))
        return np.asarray(self.solver.compute_partition(self.load(graph), int(k), float(imbalance)),
                          dtype=np.int64)


def available_tools(names, kahip_mode):
    tools = {}
    for name in names:
        try:
            if name == "partkit":
                tools[name] = run_partkit
            elif name == "metis":
                import pymetis  # noqa: F401

                tools[name] = run_metis
            elif name == "kahip":
                tools[f"kahip-{kahip_mode}"] = make_kahip(kahip_mode)
            elif name == "kaminpar":
                tools[name] = KaMinParRunner()
            else:
                raise SystemExit(f"unknown tool {name!r}")
        except ImportError:
            print(f"# {name} is not installed: skipped", file=sys.stderr)
    return tools


# ---------------------------------------------------------------- measuring
def measure(tool, graph, k, imbalance, seed, preset):
    from partkit.metrics import edge_cut
    from partkit.metrics import imbalance as imbalance_of

    if isinstance(tool, KaMinParRunner):
        tool.load(graph)
    start = time.perf_counter()
    part = tool(graph, k, imbalance, seed, preset)
    seconds = time.perf_counter() - start
    return {"cut": edge_cut(graph, part), "imbalance": float(imbalance_of(graph, part, k).max()),
            "seconds": seconds}


COLD_SCRIPT = """
import json, resource, sys, time
from partkit.generators import delaunay
from partkit.io import read_graph
from partkit.methods.multilevel import partition
source, k, preset = sys.argv[1], int(sys.argv[2]), sys.argv[3]
g = delaunay(2 ** int(source[len("delaunay_n"):]), seed=0) if source.startswith("delaunay_n") else read_graph(source)
t = time.perf_counter(); partition(g, k, preset=preset); cold = time.perf_counter() - t
t = time.perf_counter(); partition(g, k, preset=preset); warm = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cold": cold, "warm": warm, "peak_mb": peak}))
"""


def cold_run(source, k, preset):
    """First and second call of partkit in a fresh process with an empty Numba cache."""
    with tempfile.TemporaryDirectory(prefix="partkit-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", COLD_SCRIPT, str(source), str(k), preset], env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


# --------------------------------------------------------------------- main
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--graphs", nargs="*", default=None,
                   help="Matrix Market / METIS files (default: inputs in ../shared/data)")
    p.add_argument("--delaunay", nargs="*", type=int, default=None, metavar="XX",
                   help=f"generated delaunay_nXX graphs (default: {DEFAULT_DELAUNAY}; none with an empty list)")
    p.add_argument("-k", nargs="+", type=int, default=[2, 8, 64])
    p.add_argument("--imbalance", type=float, default=0.03)
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--preset", default="default", choices=["fast", "default", "strong"])
    p.add_argument("--tools", default="partkit,metis,kahip,kaminpar")
    p.add_argument("--kahip-mode", default="eco", choices=sorted(KAHIP_MODES))
    p.add_argument("--cold", default="delaunay_n20:64",
                   help="GRAPH:K measured cold (fresh process, empty Numba cache) and for peak memory; "
                        "'none' to skip")
    p.add_argument("--quick", action="store_true", help="4elt and delaunay_n15, k=8, seed 0")
    p.add_argument("--json", default="benchmarks/results.json", help="output JSON path")
    p.add_argument("--plot", metavar="PNG", help="bar chart of the cut and time ratios per tool and k")
    p.add_argument("--quiet", action="store_true", help="no progress line on a terminal")
    args = p.parse_args(argv)
    if args.quick:
        args.graphs = [str(SHARED / "4elt.graph")] if args.graphs is None else args.graphs
        args.delaunay = [15] if args.delaunay is None else args.delaunay
        args.k, args.seeds, args.cold = [8], [0], "4elt.graph:8"
    if args.graphs is None:
        args.graphs = [str(SHARED / f) for f in DEFAULT_FILES if (SHARED / f).exists()]
    if args.delaunay is None:
        args.delaunay = DEFAULT_DELAUNAY
    return args


def progress_line(quiet):
    """A function showing one progress line on a terminal's stderr; silent when piped or quiet."""
    if quiet or not sys.stderr.isatty():
        return lambda message: None

    def say(message):
        sys.stderr.write(f"\r\033[K{message}")
        sys.stderr.flush()

    return say


def main(argv=None):
    args = parse_args(argv)
    say = progress_line(args.quiet)
    tools = available_tools(args.tools.split(","), args.kahip_mode)
    if "partkit" in tools:  # warm-up: load the compiled kernels before timing
        from partkit.generators import grid2d

        run_partkit(grid2d(30, 30), 4, args.imbalance, 0, args.preset)
    rows = []
    names = list(tools)
    width = {n: max(16, len(n) + 6) for n in names}
    print(f"{'graph':<22}{'k':>4} " + "".join(f"{n + ' cut':>{width[n]}}{'imb':>7}{'sec':>8}" for n in names),
          flush=True)
    for gname, load in load_graphs(args.graphs, args.delaunay):
        graph = load()
        for k in args.k:
            if k > graph.n:
                continue
            row = {"graph": gname, "n": graph.n, "m": graph.m, "k": k, "tools": {}}
            for name, tool in tools.items():
                runs = []
                for s in args.seeds:
                    say(f"{gname} k={k} {name} seed={s}")
                    runs.append(measure(tool, graph, k, args.imbalance, s, args.preset))
                row["tools"][name] = {
                    "runs": runs,
                    "cut": float(np.mean([r["cut"] for r in runs])),
                    "imbalance": max(r["imbalance"] for r in runs),
                    "seconds": float(np.mean([r["seconds"] for r in runs])),
                }
            rows.append(row)
            say("")
            print(f"{gname:<22}{k:>4} " + "".join(
                f"{row['tools'][n]['cut']:>{width[n]}.1f}{row['tools'][n]['imbalance']:>7.3f}"
                f"{row['tools'][n]['seconds']:>8.2f}" for n in names), flush=True)
    summary = summarize(rows, args)
    if "partkit" in tools and args.cold != "none":
        source, k = args.cold.rsplit(":", 1)
        path = source if source.startswith("delaunay_n") else str(SHARED / source)
        summary["cold"] = {"graph": source, "k": int(k), **cold_run(path, int(k), args.preset)}
        summary["cold"]["compile_seconds"] = summary["cold"]["cold"] - summary["cold"]["warm"]
        metis_rows = [r for r in rows if r["graph"] == source and r["k"] == int(k) and "metis" in r["tools"]]
        if metis_rows:
            metis_seconds = metis_rows[0]["tools"]["metis"]["seconds"]
            summary["time_ratio_cold_vs_metis"] = summary["cold"]["cold"] / metis_seconds
            summary["time_ratio_warm_vs_metis"] = metis_rows[0]["tools"]["partkit"]["seconds"] / metis_seconds
    print_summary(summary)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w") as fh:
        json.dump({"args": vars(args), "rows": rows, "summary": summary}, fh, indent=1)
    print(f"# results written to {args.json}")
    if args.plot:
        plot_ratios(rows, args.k, args.plot)
        print(f"# plot written to {args.plot}")


def ratios_by_k(rows, ks):
    """Geometric-mean cut and warm-time ratios partkit / tool, per tool and k."""
    tools = [t for t in (rows[0]["tools"] if rows else {}) if t != "partkit"]
    table = {}
    for tool in tools:
        for k in ks:
            sub = [r["tools"] for r in rows if r["k"] == k and r["tools"][tool]["cut"] > 0]
            if sub:
                table[tool, k] = (geomean([t["partkit"]["cut"] / t[tool]["cut"] for t in sub]),
                                  geomean([t["partkit"]["seconds"] / t[tool]["seconds"] for t in sub]))
    return tools, table


def plot_ratios(rows, ks, path):
    """Bar chart: partkit's cut ratio and time ratio against every other tool, per k."""
    import matplotlib
    import matplotlib.ticker

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tools, table = ratios_by_k(rows, ks)
    fig, axes = plt.subplots(1, 2, figsize=(10, 4), dpi=100)
    width = 0.8 / max(len(tools), 1)
    for panel, (ax, label) in enumerate(zip(axes, ["cut ratio partkit / tool", "warm time ratio partkit / tool"])):
        for i, tool in enumerate(tools):
            xs = [j + i * width for j, k in enumerate(ks) if (tool, k) in table]
            ys = [table[tool, k][panel] for k in ks if (tool, k) in table]
            ax.bar(xs, ys, width, label=tool)
        ax.axhline(1.0, color="black", linewidth=0.8)
        ax.set_xticks([j + width * (len(tools) - 1) / 2 for j in range(len(ks))], [f"k={k}" for k in ks])
        ax.set_ylabel(label)
        if panel == 1:
            ax.set_yscale("log")
            ax.yaxis.set_major_locator(matplotlib.ticker.FixedLocator([0.25, 0.5, 1, 2, 4, 8, 16, 32]))
            ax.yaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
            ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    axes[0].legend()
    fig.suptitle("partkit against the reference tools: geometric means over the graphs (below 1: partkit better)",
                 fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def summarize(rows, args):
    summary = {"preset": args.preset, "imbalance": args.imbalance, "seeds": args.seeds}
    have = rows and "partkit" in rows[0]["tools"]
    if have:
        summary["partkit_all_balanced"] = all(
            r["tools"]["partkit"]["imbalance"] <= args.imbalance + 1e-9 for r in rows)
    for other in (rows[0]["tools"] if rows else {}):
        if other == "partkit" or not have:
            continue
        cut = [r["tools"]["partkit"]["cut"] / r["tools"][other]["cut"] for r in rows if r["tools"][other]["cut"] > 0]
        summary[f"geomean_cut_ratio_vs_{other}"] = geomean(cut)
        summary[f"geomean_time_ratio_warm_vs_{other}"] = geomean(
            [r["tools"]["partkit"]["seconds"] / r["tools"][other]["seconds"] for r in rows])
        for k in args.k:
            sub = [r["tools"]["partkit"]["cut"] / r["tools"][other]["cut"] for r in rows
                   if r["k"] == k and r["tools"][other]["cut"] > 0]
            if sub:
                summary[f"geomean_cut_ratio_vs_{other}_k{k}"] = geomean(sub)
    return summary


def print_summary(summary):
    print("# summary")
    for key, value in summary.items():
        if isinstance(value, float):
            print(f"{key:<44} {value:.3f}")
        elif isinstance(value, dict):
            print(f"{key:<44} " + ", ".join(f"{a}={b:.2f}" if isinstance(b, float) else f"{a}={b}"
                                             for a, b in value.items()))
        else:
            print(f"{key:<44} {value}")


if __name__ == "__main__":
    main()
