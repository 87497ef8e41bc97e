"""partkit's multilevel partitioner against METIS and KaMinPar (KaHIP on request), by input class.

The default set has seven classes of inputs:

==========  ==============================================================
delaunay2d  2D Delaunay triangulations of 2^15, 2^17 and 2^20 random points
tet3d       dual graph of a random 3D tetrahedral mesh, about 2^17 tetrahedra
grid3d      64 x 64 x 64 grid, 7-point stencil
powerlaw    Barabasi-Albert (60 000 vertices, m = 3), R-MAT (scale 16, edge factor 8)
components  50 000 vertices: 1 699 small trees, paths and cliques (2-50 vertices),
            10 % isolated
shared      the inputs in data (4elt, rgg_n_2_15_s0, power,
            bcsstk13, jagmesh7)
==========  ==============================================================

(all from :mod:`partkit.generators`, seed 0). Every graph is partitioned for
every k in {2, 8, 64, 256} with k <= n/2 and every imbalance ε in {0, 0.001,
0.03}, by every tool and seed. METIS gets ``ufactor = max(1, round(1000 ε))``,
KaMinPar its epsilon (for ε = 0 the absolute bound, as it refuses ε = 0). An
instance's partition is *within ε* when every part weighs at most
``max(floor((1 + ε) W / k), ceil(W / k))`` (:func:`partkit.metrics.max_part_weights`).

Per instance the script prints the cut, the imbalance (``*`` when not within
ε) and the warm wall seconds of each tool (the Numba cache filled and the
kernels loaded; a call shorter than 0.1 s is repeated up to 5 times and the
fastest counts). Then, per class and overall, the geometric means of the cut
ratio and the time ratio of partkit to every other tool. A cut ratio
(``max(cut, 1)`` over ``max(reference cut, 1)``) counts only where the
reference's partition is within the ε the reference was given: ε itself,
except for METIS at ε = 0, which gets ufactor 1 (its tightest, 0.001).
Last come the targets, as PASS/FAIL lines with their figures, including a
cold run (``--cold``: a fresh process with an empty Numba cache, whose first
call compiles every kernel) and the end-to-end time of the ``partkit
partition`` command with a warm cache (``--cli``). Everything is written to
JSON.

Examples::

    python benchmarks/compare.py                            # the default set, seeds 0 1 2 (about 12 minutes)
    python benchmarks/compare.py --quick                    # 4elt and delaunay_n15, k=8, seed 0: 1 minute
    python benchmarks/compare.py --classes powerlaw components --seeds 0 --cold none --cli none  # 1.5 min
    python benchmarks/compare.py --classes delaunay2d tet3d grid3d -k 64 256 --eps 0.03
    python benchmarks/compare.py --classes shared --graphs data/4elt.graph --cold none --cli none
    python benchmarks/compare.py --classes delaunay2d tet3d_1m --delaunay 20 -k 64 --eps 0.03 --seeds 0 \
        --threads 1,2 --cold none --cli none                # the threads targets: 1 and 2 threads, Amdahl

With ``--threads 1,2`` partkit runs at every count (``partkit`` is the
first, ``partkit-2t`` the others) and KaMinPar also at 2 threads
(``kaminpar-2t``); a threads table gives the speedups, the cut changes and
the time ratios to METIS, and the share of partkit's time at 1 thread spent
in kernels with parallel loops on ``--amdahl GRAPH:K`` gives an Amdahl
estimate of the speedup on more cores. Like ``partkit partition``, the
script asks glibc's malloc to keep freed memory in the process
(:func:`partkit._threads.keep_freed_memory`), for every tool it runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT / "data"
DEFAULT_FILES = ["4elt.graph", "rgg_n_2_15_s0.graph", "power.graph", "bcsstk13.mtx", "jagmesh7.mtx"]
DEFAULT_DELAUNAY = [15, 17, 20]
CLASSES = ["delaunay2d", "tet3d", "grid3d", "powerlaw", "components", "shared"]
EXTRA_CLASSES = ["tet3d_1m"]  # on request only: a 10^6-vertex tetrahedral mesh (the threads targets)
KAHIP_MODES = {"fast": 0, "eco": 1, "strong": 2}
MIN_TIMED, MAX_REPEATS = 0.1, 5  # short calls are repeated until they add up to 0.1 s (at most 5 calls)


def generated(delaunay_exponents):
    """The generated classes: class -> [(graph name, (generator in partkit.generators, arguments))]."""
    return {
        "delaunay2d": [(f"delaunay_n{e}", ("delaunay", [2**e])) for e in delaunay_exponents],
        "tet3d": [("tet3d_n17", ("tet_mesh3d", [2**17]))],
        "tet3d_1m": [("tet3d_1m", ("tet_mesh3d", [10**6]))],
        "grid3d": [("grid3d_64", ("grid3d", [64, 64, 64]))],
        "powerlaw": [("ba_60k_m3", ("barabasi_albert", [60000, 3])), ("rmat_s16_ef8", ("rmat", [16, 8]))],
        "components": [("components_50k", ("components", [50000]))],
    }


def instances(args):
    """``(class, graph name, source)`` of the selected classes; a source is a path or a generator call."""
    gen = generated(args.delaunay)
    out = []
    for cls in args.classes:
        if cls == "shared":
            out += [(cls, Path(f).name, str(f)) for f in args.graphs]
        else:
            out += [(cls, name, source) for name, source in gen[cls]]
    return out


_BUILT = {}


def build(source):
    """Read a file, or call a generator of :mod:`partkit.generators` (seed 0, its default); kept for reuse."""
    from partkit import generators
    from partkit.io import read_graph

    key = json.dumps(source)
    if key not in _BUILT:
        if isinstance(source, str):
            _BUILT[key] = read_graph(source)
        else:
            function, arguments = source
            _BUILT[key] = getattr(generators, function)(*arguments)
    return _BUILT[key]


# ------------------------------------------------------------------ tools
def run_partkit(graph, k, eps, seed, preset, threads=1):
    from partkit.methods.multilevel import partition

    return partition(graph, k, imbalance=eps, seed=seed, preset=preset, threads=threads)


def make_partkit(threads):
    def run(graph, k, eps, seed, preset):
        return run_partkit(graph, k, eps, seed, preset, threads)

    return run


def tool_name(tool, threads, first):
    """``partkit`` / ``kaminpar`` at the first thread count, ``partkit-2t`` etc. at the others."""
    return tool if threads == first else f"{tool}-{threads}t"


def run_metis(graph, k, eps, seed, preset):
    from partkit.methods.metis import partition  # ufactor = max(1, round(1000 eps))

    return partition(graph, k, imbalance=eps, seed=seed)


def make_kahip(mode):
    import kahip

    def run(graph, k, eps, seed, preset):
        _, part = kahip.kaffpa(graph.vwgt[:, 0].tolist(), graph.xadj.tolist(), graph.adjwgt.tolist(),
                               graph.adjncy.tolist(), int(k), float(eps), True, int(seed), KAHIP_MODES[mode])
        return np.asarray(part, dtype=np.int64)

    return run


class KaMinParRunner:
    """KaMinPar (default context, 1 thread unless told); it reads graphs from METIS files only."""

    def __init__(self, threads=1):
        import kaminpar

        self.kaminpar = kaminpar
        self.solver = kaminpar.KaMinPar(int(threads), kaminpar.default_context())
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

    def __call__(self, graph, k, eps, seed, preset):
        from partkit.metrics import max_part_weights

        self.kaminpar.reseed(int(seed))
        if eps > 0:
            part = self.solver.compute_partition(self.load(graph), int(k), float(eps))
        else:  # KaMinPar takes eps = 0 as "no bound given": pass the absolute bound ceil(W / k)
            bound = int(max_part_weights(graph, k, 0.0)[0, 0])
            part = self.solver.compute_partition(self.load(graph), [bound] * int(k))
        return np.asarray(part, dtype=np.int64)


def available_tools(names, kahip_mode, threads=(1,)):
    """The tools by name; partkit at every count of ``threads``, KaMinPar at 1 thread and every count above 1."""
    tools = {}
    for name in names:
        try:
            if name == "partkit":
                for t in threads:
                    tools[tool_name(name, t, threads[0])] = make_partkit(t)
            elif name == "metis":
                import pymetis  # noqa: F401

                tools[name] = run_metis
            elif name == "kahip":
                tools[f"kahip-{kahip_mode}"] = make_kahip(kahip_mode)
            elif name == "kaminpar":
                tools[name] = KaMinParRunner()
                for t in threads:
                    if t > 1:
                        tools[f"kaminpar-{t}t"] = KaMinParRunner(t)
            else:
                raise SystemExit(f"unknown tool {name!r}")
        except ImportError:
            print(f"# {name} is not installed: skipped", file=sys.stderr)
    return tools


# ---------------------------------------------------------------- measuring
def granted(name, eps):
    """The imbalance a tool is actually given for ε: METIS's ufactor cannot go below 1 (ε = 0.001)."""
    return max(eps, 0.001) if name == "metis" else eps


def measure(tool, graph, k, eps, seed, preset, given):
    """Cut, imbalance, validity and the warm seconds of one call (the fastest of short repeats).

    ``valid``: every part within ε; ``valid_given``: within ``given``, the imbalance the tool was given.
    """
    from partkit.errors import InfeasibleBalanceWarning
    from partkit.metrics import edge_cut, max_part_weights, part_weights
    from partkit.metrics import imbalance as imbalance_of

    if isinstance(tool, KaMinParRunner):
        tool.load(graph)
    times = []
    # validity is checked (and reported) here; the filter is set up outside the timed calls (about 10 us)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfeasibleBalanceWarning)
        while not times or (sum(times) < MIN_TIMED and len(times) < MAX_REPEATS):
            start = time.perf_counter()
            part = tool(graph, k, eps, seed, preset)
            times.append(time.perf_counter() - start)
    heaviest = part_weights(graph, part, k).max(axis=0)
    return {"cut": int(edge_cut(graph, part)), "imbalance": float(imbalance_of(graph, part, k).max()),
            "valid": bool(np.all(heaviest <= max_part_weights(graph, k, eps))),
            "valid_given": bool(np.all(heaviest <= max_part_weights(graph, k, given))),
            "seconds": min(times), "calls": len(times)}


COLD_SCRIPT = """
import json, resource, sys, time
from partkit import generators
from partkit.io import read_graph
from partkit.methods.multilevel import partition
source, k, preset = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
g = read_graph(source) if isinstance(source, str) else getattr(generators, source[0])(*source[1])
t = time.perf_counter(); partition(g, k, preset=preset); cold = time.perf_counter() - t
t = time.perf_counter(); partition(g, k, preset=preset); warm = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cold": cold, "warm": warm, "peak_mb": peak}))
"""


def cold_run(source, k, preset):
    """First and second call of partkit in a fresh process with an empty Numba cache."""
    with tempfile.TemporaryDirectory(prefix="partkit-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", COLD_SCRIPT, json.dumps(source), str(k), preset], env=env,
                             capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


#: A process that only starts Numba: its import and the first use of its CPU target (the lowering registries,
#: which import ``scipy.linalg`` for Numba's BLAS check), as every process that loads a cached kernel does.
NUMBA_START = "import numba\nfrom numba.core.registry import cpu_target\ncpu_target.target_context.refresh()"


def cli_run(path, k, repeats=3):
    """Wall seconds of the ``partkit partition`` command (median of ``repeats``, after one warm-up call),
    and of :data:`NUMBA_START` run in alternation with it (``numba_start``), the part no partkit code can
    shorten.

    The command is the console script that ``pip install`` put beside this
    interpreter (a venv's ``bin``), not a wrapper found first on the PATH
    (pyenv's shim is a bash script that costs 0.05 s more). The calls run
    with Python's bytecode cache allowed, so the warm-up call writes the
    ``.pyc`` files that a wheel install compiles anyway
    (``PYTHONDONTWRITEBYTECODE`` would make every call compile partkit's
    sources again).
    """
    beside = Path(sys.executable).with_name("partkit")
    script = str(beside) if beside.exists() else shutil.which("partkit")
    command = [script] if script else [sys.executable, "-m", "partkit"]
    env = {name: value for name, value in os.environ.items() if name != "PYTHONDONTWRITEBYTECODE"}
    times, numba_start = [], []
    with tempfile.TemporaryDirectory(prefix="partkit-cli-") as tmp:
        command += ["partition", str(path), "-k", str(k), "--quiet", "-o", os.path.join(tmp, "part")]
        for _ in range(repeats + 1):
            start = time.perf_counter()
            subprocess.run(command, capture_output=True, text=True, check=True, env=env)
            times.append(time.perf_counter() - start)
            start = time.perf_counter()
            subprocess.run([sys.executable, "-c", NUMBA_START], capture_output=True, check=True, env=env)
            numba_start.append(time.perf_counter() - start)
    return {"command": " ".join(command[:-2]), "seconds": statistics.median(times[1:]), "runs": times[1:],
            "numba_start": statistics.median(numba_start[1:])}


def resolve(name, run):
    """The source of the graph NAME: one of this run's graphs, a generated one (any ``delaunay_nXX``), a file."""
    known = {gname: source for _, gname, source in run}
    known.update((gname, source) for entries in generated([]).values() for gname, source in entries)
    if name.startswith("delaunay_n") and name[10:].isdigit():
        known[name] = ("delaunay", [2 ** int(name[10:])])
    if name in known:
        return known[name]
    path = Path(name) if Path(name).exists() else SHARED / name
    if not path.exists():
        raise SystemExit(f"no graph named {name!r}: not generated, not a file, not in {SHARED}")
    return str(path)


# ------------------------------------------------------------------ summary
def geomean(values):
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def cut_ratio(row, other):
    """partkit's cut over the other tool's (each at least 1); None where the other is not within the ε it got."""
    tools = row["tools"]
    return max(tools["partkit"]["cut"], 1) / max(tools[other]["cut"], 1) if tools[other]["valid_given"] else None


def time_ratio(row, other):
    tools = row["tools"]
    return tools["partkit"]["seconds"] / max(tools[other]["seconds"], 1e-9)


def label(row):
    return f"{row['graph']} k={row['k']} eps={row['epsilon']:g}"


def class_table(rows, other, classes, epsilons):
    """Per class and overall: cut-ratio geometric mean per ε (reference within ε only), time ratios."""
    table = {}
    for cls in [*classes, "all"]:
        sub = [r for r in rows if cls in ("all", r["class"])]
        if not sub:
            continue
        entry = {"instances": len(sub)}
        for eps in epsilons:
            at = [r for r in sub if r["epsilon"] == eps]
            ratios = [x for x in (cut_ratio(r, other) for r in at) if x is not None]
            entry[f"cut_eps{eps:g}"] = {"geomean": geomean(ratios), "counted": len(ratios), "instances": len(at)}
        times = [time_ratio(r, other) for r in sub]
        worst = int(np.argmax(times))
        entry.update(time=geomean(times), worst_time=times[worst], worst_time_instance=label(sub[worst]))
        table[cls] = entry
    return table


def targets(rows, summary):
    """The issue's targets, each PASS, FAIL or SKIP (no data for it in this run), with its figures."""
    out = []

    def add(name, value, limit, detail, at_least=False):
        value = value if value not in ([], None) else None
        status = "SKIP" if value is None else "PASS" if (value >= limit if at_least else value <= limit) else "FAIL"
        out.append({"target": name, "status": status, "value": value, "limit": limit, "detail": detail})

    def worst(pairs):
        return max(pairs, key=lambda p: p[0]) if pairs else (None, None)

    rows = rows if rows and {"partkit", "metis"} <= set(rows[0]["tools"]) else []
    for name, group, limit in [("eps=0.03", [r for r in rows if r["epsilon"] == 0.03], 0.96),
                               ("eps in {0, 0.001}", [r for r in rows if r["epsilon"] <= 0.001], 1.00)]:
        ratios = [(x, r) for x, r in ((cut_ratio(r, "metis"), r) for r in group) if x is not None]
        strict = sum(r["tools"]["metis"]["valid"] for r in group)
        add(f"{name}: cut geometric mean partkit / METIS", geomean([x for x, _ in ratios]) if ratios else None,
            limit, f"over the {len(ratios)} of {len(group)} instances where METIS is within the eps it was given; "
                   f"{strict} within eps itself")
        if name != "eps=0.03":
            continue
        x, r = worst(ratios)
        add("eps=0.03: worst cut partkit / METIS", x, 1.10, r and label(r))
        excess = []
        for r in group:
            valid = [r["tools"][t]["cut"] for t in ("metis", "kaminpar") if t in r["tools"] and r["tools"][t]["valid"]]
            if valid:
                bound = 1.10 * min(valid) + 2
                excess.append((r["tools"]["partkit"]["cut"] / bound,
                               f"{label(r)}: cut {r['tools']['partkit']['cut']}, bound {bound:.1f}"))
        x, where = worst(excess)
        add("eps=0.03: worst cut / (1.10 x best valid cut of METIS and KaMinPar + 2)", x, 1.0, where)
    invalid = [label(r) for r in rows if not r["tools"]["partkit"]["valid"]]
    add("partkit partitions not within eps", len(invalid) if rows else None, 0, ", ".join(invalid[:4]))
    times = [(time_ratio(r, "metis"), label(r)) for r in rows]
    add("warm time geometric mean partkit / METIS", geomean([x for x, _ in times]) if rows else None, 1.5,
        f"{len(times)} instances")
    x, where = worst(times)
    add("warm time worst partkit / METIS", x, 3.0, where)
    big = [r for r in rows if r["graph"] == "delaunay_n20" and r["k"] == 64 and r["epsilon"] == 0.03]
    add("warm time partkit / METIS on delaunay_n20 k=64 eps=0.03", time_ratio(big[0], "metis") if big else None,
        1.3, big and f"{big[0]['tools']['partkit']['seconds']:.2f} s / {big[0]['tools']['metis']['seconds']:.2f} s")
    threads = summary.get("threads")
    if threads and len(threads["counts"]) > 1:
        t1, t2 = threads["counts"][0], threads["counts"][1]
        for graph in ("delaunay_n20", "tet3d_1m"):
            at = [e for e in threads["table"] if e["graph"] == graph and e["k"] == 64 and e["epsilon"] == 0.03]
            add(f"threads: speedup {t2} threads over {t1} on {graph} k=64 eps=0.03 (at least)",
                at[0][f"speedup_{t2}t"] if at else None, 1.6,
                at and f"{at[0][f'seconds_{t1}t']:.2f} s / {at[0][f'seconds_{t2}t']:.2f} s", at_least=True)
            add(f"threads: cut change {t2} threads vs {t1} on {graph} k=64 eps=0.03",
                at[0][f"cut_change_{t2}t"] if at else None, 0.01, "")
        big = [e for e in threads["table"] if e["graph"] == "delaunay_n20" and e["k"] == 64 and e["epsilon"] == 0.03]
        add(f"threads: warm time at {t2} threads / METIS on delaunay_n20 k=64 eps=0.03",
            big[0].get(f"vs_metis_{t2}t") if big else None, 1.0,
            big and f"{big[0][f'seconds_{t2}t']:.2f} s; KaMinPar at {t2} threads "
                    f"{big[0].get(f'kaminpar_seconds_{t2}t', float('nan')):.2f} s")
    cold = summary.get("cold")
    add(f"first-run compile seconds ({cold['graph']} k={cold['k']})" if cold else "first-run compile seconds",
        cold and cold["compile_seconds"], 15.0,
        cold and f"cold first call {cold['cold']:.2f} s, warm second call {cold['warm']:.2f} s")
    cli = summary.get("cli")
    add(f"`partkit partition` end to end, warm cache ({cli['graph']} k={cli['k']})" if cli
        else "`partkit partition` end to end, warm cache", cli and cli["seconds"], 0.5,
        cli and f"median of {len(cli['runs'])} runs of: {cli['command']}; a process that only starts Numba "
                f"{cli['numba_start']:.3f} s")
    return out


def threads_table(rows, threads):
    """Per instance: partkit's seconds at every thread count, the speedup over the first count, the cut
    change, the time ratio to METIS, and KaMinPar's seconds at every count."""
    out = []
    names = {t: tool_name("partkit", t, threads[0]) for t in threads}
    for r in rows:
        tools = r["tools"]
        if not all(n in tools for n in names.values()):
            continue
        base = tools[names[threads[0]]]
        entry = {"instance": label(r), "graph": r["graph"], "k": r["k"], "epsilon": r["epsilon"]}
        for t, name in names.items():
            entry[f"seconds_{t}t"] = tools[name]["seconds"]
            entry[f"speedup_{t}t"] = base["seconds"] / max(tools[name]["seconds"], 1e-9)
            entry[f"cut_change_{t}t"] = tools[name]["cut"] / max(base["cut"], 1) - 1
            if "metis" in tools:
                entry[f"vs_metis_{t}t"] = tools[name]["seconds"] / max(tools["metis"]["seconds"], 1e-9)
        for t in threads:
            name = tool_name("kaminpar", t, 1)
            if name in tools:
                entry[f"kaminpar_seconds_{t}t"] = tools[name]["seconds"]
        out.append(entry)
    return out


#: The kernels that run on several threads, by (file name, function name): each kernel module lists them.
def parallel_kernels():
    import importlib
    import pkgutil

    import partkit.multilevel.kernels as package

    found = set()
    for info in pkgutil.iter_modules(package.__path__):
        module = importlib.import_module(f"{package.__name__}.{info.name}")
        for value in getattr(module, "PARALLEL_KERNELS", ()):
            code = value.py_func.__code__
            found.add((os.path.basename(code.co_filename), code.co_name))
    return found


def parallel_fraction(graph, k, seed, preset):
    """Amdahl: the share of partkit's time at 1 thread spent in kernels with parallel loops (cProfile).

    An upper bound on the parallel fraction f: those kernels also hold
    sequential steps (prefix sums, the in-order apply of a batch).
    Returns f, the total seconds and the seconds per parallel kernel.
    """
    import cProfile
    import pstats

    run_partkit(graph, k, 0.03, seed, preset, 1)
    profiler = cProfile.Profile()
    profiler.enable()
    run_partkit(graph, k, 0.03, seed, preset, 1)
    profiler.disable()
    stats = pstats.Stats(profiler).stats
    kernels = parallel_kernels()
    total = sum(tt for (_, _, _), (_, _, tt, _, _) in stats.items())
    per = {}
    for (filename, _, name), (_, _, tt, _, _) in stats.items():
        if (os.path.basename(filename), name) in kernels:
            per[name] = per.get(name, 0.0) + tt
    fraction = sum(per.values()) / total
    return {"fraction": fraction, "seconds": total, "kernels": per,
            "amdahl_speedup": {p: 1 / ((1 - fraction) + fraction / p) for p in (2, 4, 8, 16, 64)}}


def summarize(rows, args):
    summary = {"preset": args.preset, "epsilons": args.eps, "seeds": args.seeds, "instances": len(rows)}
    if not rows or "partkit" not in rows[0]["tools"]:
        return summary
    summary["partkit_all_within_eps"] = all(r["tools"]["partkit"]["valid"] for r in rows)
    summary["classes"] = {}
    for other in rows[0]["tools"]:
        if other == "partkit":
            continue
        ratios = [x for x in (cut_ratio(r, other) for r in rows) if x is not None]
        summary[f"geomean_cut_ratio_vs_{other}"] = geomean(ratios)
        summary[f"geomean_time_ratio_warm_vs_{other}"] = geomean([time_ratio(r, other) for r in rows])
        summary["classes"][other] = class_table(rows, other, args.classes, args.eps)
    return summary


def print_summary(summary):
    print("# summary (cut ratios: partkit / tool, only where the tool's partition is within eps)")
    for key, value in summary.items():
        if isinstance(value, float):
            print(f"{key:<44} {value:.3f}")
        elif key == "cold" or key == "cli":
            print(f"{key:<44} " + ", ".join(f"{a}={b:.2f}" if isinstance(b, float) else f"{a}={b}"
                                             for a, b in value.items() if a != "runs"))
        elif key not in ("classes", "targets", "threads", "amdahl"):
            print(f"{key:<44} {value}")
    threads = summary.get("threads")
    if threads:
        counts = threads["counts"]
        print(f"# threads: partkit at {', '.join(map(str, counts))} threads (speedup over {counts[0]}, cut change, "
              "time / METIS); KaMinPar seconds")
        for e in threads["table"]:
            cells = "".join(f"  {t}t {e[f'seconds_{t}t']:.3f} s x{e[f'speedup_{t}t']:.2f} "
                            f"cut {100 * e[f'cut_change_{t}t']:+.2f}% /METIS {e.get(f'vs_metis_{t}t', float('nan')):.2f}"
                            for t in counts)
            kmp = "".join(f"  kaminpar {t}t {e[f'kaminpar_seconds_{t}t']:.3f} s" for t in counts
                          if f"kaminpar_seconds_{t}t" in e)
            print(f"{e['instance']:<34}{cells}{kmp}")
    amdahl = summary.get("amdahl")
    if amdahl:
        print(f"# Amdahl ({amdahl['graph']} k={amdahl['k']}, 1 thread): {100 * amdahl['fraction']:.1f}% of "
              f"{amdahl['seconds']:.2f} s in kernels with parallel loops; predicted speedup "
              + ", ".join(f"{p} threads x{v:.2f}" for p, v in amdahl["amdahl_speedup"].items()))
        print("#   " + ", ".join(f"{name} {sec:.3f} s" for name, sec in sorted(amdahl["kernels"].items(),
                                                                          key=lambda item: -item[1])))
    for other, table in summary.get("classes", {}).items():
        epsilons = [key for key in next(iter(table.values())) if key.startswith("cut_eps")]
        print(f"# per class, partkit / {other}: geometric means [counted / instances]")
        print(f"{'class':<12}{'inst':>5}" + "".join(f"{'cut ' + e[4:]:>18}" for e in epsilons)
              + f"{'time':>8}{'worst time':>12}  worst instance")
        for cls, entry in table.items():
            cuts = "".join(f"{entry[e]['geomean']:>9.3f} [{entry[e]['counted']:>2}/{entry[e]['instances']:>2}]"
                           for e in epsilons)
            print(f"{cls:<12}{entry['instances']:>5}{cuts}{entry['time']:>8.2f}{entry['worst_time']:>12.2f}"
                  f"  {entry['worst_time_instance']}")
    print("# targets")
    for t in summary.get("targets", []):
        value = "no data in this run" if t["value"] is None else f"{t['value']:.3f}"
        detail = f"  ({t['detail']})" if t["detail"] else ""
        print(f"{t['status']:<5} {t['target']}: {value}, limit {t['limit']:g}{detail}")


def ratios_by_k(rows, ks):
    """Geometric-mean cut and warm-time ratios partkit / tool, per tool and k."""
    tools = [t for t in (rows[0]["tools"] if rows else {}) if t != "partkit"]
    table = {}
    for tool in tools:
        for k in ks:
            sub = [r for r in rows if r["k"] == k]
            cuts = [x for x in (cut_ratio(r, tool) for r in sub) if x is not None]
            if cuts:
                table[tool, k] = (geomean(cuts), geomean([time_ratio(r, tool) for r in sub]))
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


# --------------------------------------------------------------------- main
def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--classes", nargs="+", default=CLASSES, choices=CLASSES + EXTRA_CLASSES, metavar="CLASS",
                   help=f"input classes to run (default all: {' '.join(CLASSES)}; on request: "
                        f"{' '.join(EXTRA_CLASSES)})")
    p.add_argument("--graphs", nargs="*", default=None,
                   help="the files of class 'shared' (Matrix Market / METIS; default: inputs in data)")
    p.add_argument("--delaunay", nargs="*", type=int, default=None, metavar="XX",
                   help=f"class delaunay2d: the delaunay_nXX graphs (default: {DEFAULT_DELAUNAY})")
    p.add_argument("-k", nargs="+", type=int, default=[2, 8, 64, 256], help="part counts (k <= n/2 only)")
    p.add_argument("--eps", nargs="+", type=float, default=[0.0, 0.001, 0.03], help="imbalances")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--preset", default="default", choices=["fast", "default", "strong"])
    p.add_argument("--tools", default="partkit,metis,kaminpar", help="comma-separated: partkit, metis, "
                   "kaminpar, kahip (default partkit,metis,kaminpar)")
    p.add_argument("--threads", default="1", help="comma-separated thread counts of partkit, e.g. 1,2 (default 1); "
                   "counts above 1 add the columns partkit-Nt and kaminpar-Nt, a threads table and an Amdahl estimate")
    p.add_argument("--amdahl", default="delaunay_n20:64",
                   help="GRAPH:K whose share of time in parallel kernels at 1 thread is measured (with --threads "
                        "above 1; 'none' to skip)")
    p.add_argument("--kahip-mode", default="eco", choices=sorted(KAHIP_MODES))
    p.add_argument("--cold", default=None,
                   help="GRAPH:K measured cold (fresh process, empty Numba cache) and for peak memory "
                        "(default delaunay_n20:64, with --quick 4elt.graph:8); 'none' to skip")
    p.add_argument("--cli", default="4elt.graph:8",
                   help="GRAPH:K for timing the `partkit partition` command with a warm cache; 'none' to skip")
    p.add_argument("--quick", action="store_true", help="4elt and delaunay_n15, k=8, eps 0 and 0.03, seed 0")
    p.add_argument("--json", default="benchmarks/results.json", help="output JSON path")
    p.add_argument("--plot", metavar="PNG", help="bar chart of the cut and time ratios per tool and k")
    p.add_argument("--quiet", action="store_true", help="no progress line on a terminal")
    args = p.parse_args(argv)
    try:
        args.threads = [int(t) for t in str(args.threads).split(",") if t.strip()]
    except ValueError:
        p.error(f"--threads takes comma-separated integers, got {args.threads!r}")
    if not args.threads or min(args.threads) < 1:
        p.error("--threads needs thread counts of at least 1")
    if args.quick:
        args.classes = ["shared", "delaunay2d"]
        args.graphs = [str(SHARED / "4elt.graph")] if args.graphs is None else args.graphs
        args.delaunay = [15] if args.delaunay is None else args.delaunay
        args.k, args.eps, args.seeds = [8], [0.0, 0.03], [0]
        args.cold = args.cold or "4elt.graph:8"
    args.cold = args.cold or "delaunay_n20:64"
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


def run_instances(run, tools, args, say):
    """Partition every selected graph for every k and ε with every tool; one row per instance."""
    rows = []
    names = list(tools)
    width = {n: max(12, len(n) + 6) for n in names}
    print(f"{'class':<11}{'graph':<22}{'k':>4}{'eps':>6} "
          + "".join(f"{n + ' cut':>{width[n]}}{'imb':>7}{'sec':>8}" for n in names), flush=True)
    for cls, gname, source in run:
        say(f"{gname}: building")
        graph = build(source)
        for k in [k for k in args.k if k <= graph.n // 2]:
            for eps in args.eps:
                row = {"class": cls, "graph": gname, "n": graph.n, "m": graph.m, "k": k, "epsilon": eps,
                       "tools": {}}
                for name, tool in tools.items():
                    runs = []
                    for s in args.seeds:
                        say(f"{gname} k={k} eps={eps:g} {name} seed={s}")
                        runs.append(measure(tool, graph, k, eps, s, args.preset, granted(name, eps)))
                    row["tools"][name] = {
                        "runs": runs,
                        "cut": float(np.mean([r["cut"] for r in runs])),
                        "imbalance": max(r["imbalance"] for r in runs),
                        "valid": all(r["valid"] for r in runs),
                        "valid_given": all(r["valid_given"] for r in runs),
                        "seconds": float(np.mean([r["seconds"] for r in runs])),
                    }
                rows.append(row)
                say("")
                print(f"{cls:<11}{gname:<22}{k:>4}{eps:>6g} " + "".join(
                    f"{row['tools'][n]['cut']:>{width[n]}.1f}{row['tools'][n]['imbalance']:>6.3f}"
                    f"{' ' if row['tools'][n]['valid'] else '*'}{row['tools'][n]['seconds']:>8.3f}" for n in names),
                    flush=True)
    return rows


def main(argv=None):
    args = parse_args(argv)
    from partkit._threads import keep_freed_memory

    keep_freed_memory()  # as the CLI does, for every tool in this process (see partkit._threads)
    say = progress_line(args.quiet)
    tools = available_tools(args.tools.split(","), args.kahip_mode, args.threads)
    if "partkit" in tools:  # warm-up: load the compiled kernels before timing
        from partkit.generators import grid2d

        for t in args.threads:
            run_partkit(grid2d(30, 30), 4, 0.03, 0, args.preset, t)
    run = instances(args)
    rows = run_instances(run, tools, args, say)
    summary = summarize(rows, args)
    if len(args.threads) > 1 and "partkit" in tools:
        summary["threads"] = {"counts": args.threads, "table": threads_table(rows, args.threads)}
        if args.amdahl != "none":
            name, k = args.amdahl.rsplit(":", 1)
            say(f"{name} k={k}: profiling at 1 thread")
            graph = build(resolve(name, run))
            summary["amdahl"] = {"graph": name, "k": int(k), **parallel_fraction(graph, int(k), args.seeds[0],
                                                                                 args.preset)}
            say("")
    if "partkit" in tools and args.cold != "none":
        name, k = args.cold.rsplit(":", 1)
        summary["cold"] = {"graph": name, "k": int(k), **cold_run(resolve(name, run), int(k), args.preset)}
        summary["cold"]["compile_seconds"] = summary["cold"]["cold"] - summary["cold"]["warm"]
        same = [r for r in rows if r["graph"] == name and r["k"] == int(k) and r["epsilon"] == 0.03
                and "metis" in r["tools"]]
        if same:
            summary["time_ratio_cold_vs_metis"] = summary["cold"]["cold"] / same[0]["tools"]["metis"]["seconds"]
    if "partkit" in tools and args.cli != "none":
        name, k = args.cli.rsplit(":", 1)
        source = resolve(name, run)
        if not isinstance(source, str):
            raise SystemExit(f"--cli needs a graph file, not the generated {name!r}")
        summary["cli"] = {"graph": name, "k": int(k), **cli_run(source, int(k))}
    summary["targets"] = targets(rows, summary)
    print_summary(summary)
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w") as fh:
        json.dump({"args": vars(args), "rows": rows, "summary": summary}, fh, indent=1)
    print(f"# results written to {args.json}")
    if args.plot:
        plot_ratios(rows, args.k, args.plot)
        print(f"# plot written to {args.plot}")


if __name__ == "__main__":
    main()
