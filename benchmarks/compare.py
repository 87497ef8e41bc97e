"""partkit's multilevel partitioner against METIS, KaMinPar and KaHIP, on the tuning or the evaluation set.

The inputs are data in ``benchmarks/instances.py``: the TUNING set (13
graphs in six classes, the ones the defaults of
``partkit/multilevel/context.py`` were chosen on) and the EVALUATION set
(35 graphs in nine classes the tuning never saw: 2D and 3D FEM meshes,
Delaunay, grids, road-like, power-law, random geometric, many components,
weighted and 2-constraint graphs). Published figures come from the
evaluation set only (``benchmarks/report.py`` writes them into the README
and docs/benchmarks.md from the JSON this script writes).

Every graph is partitioned for every k in {2, 8, 64} with k <= n/2, at
ε = 0.03 and, for the graphs the set marks ``tight``, also at ε = 0, by
every tool and seed: partkit through the public ``partkit.partition`` at 1
and 2 threads, METIS 5 (pymetis, ``ufactor = max(1, round(1000 ε))``),
KaMinPar at 1 and 2 threads (for ε = 0, which it reads as "no bound", the
absolute bound ⌈W/k⌉) and KaHIP eco (1 thread). KaMinPar and KaHIP take one
vertex weight only: they skip the 2-constraint graphs; KaHIP eco also skips
the power-law class, where it takes minutes a call. A partition is
*within ε* when every part weighs at most ``max(floor((1 + ε) W / k),
ceil(W / k))`` (:func:`partkit.metrics.max_part_weights`).

Every tool is timed the same way: its input (pymetis's CSR arrays, KaHIP's
lists, KaMinPar's graph loaded from a METIS file) is made once per graph
outside the timer, and the timer holds one call of the tool on it, warm
(Numba cache filled and kernels loaded); a call shorter than 0.1 s is
repeated up to 5 times and the fastest counts, for every tool.

Per instance the script prints the cut, the imbalance (``*`` when not within
ε) and the seconds of each tool; then per class and overall the geometric
means of partkit's cut and time ratios to every other tool, the performance
profiles (share of instances within a factor τ of the best cut and the best
time), and the targets as PASS/FAIL lines with their figures, including a
cold run (``--cold``: a fresh process with an empty Numba cache, whose
compile-ahead helper, :mod:`partkit.multilevel.compile_ahead`, compiles
the refinement on the other core) and the
``partkit partition`` command with a warm cache (``--cli``). Everything
goes to one JSON (default ``benchmarks/results/<set>.json``).

Examples::

    python benchmarks/compare.py                       # the evaluation set: the published figures (about 25-30 minutes)
    python benchmarks/compare.py --quick               # 6 small evaluation graphs, k = 8, seed 0: about a minute
    python benchmarks/compare.py --set tuning          # the tuning set (benchmarks/results/tuning.json)
    python benchmarks/compare.py --classes road powerlaw --seeds 0 --cold none --cli none
    python benchmarks/compare.py --graphs delaunay_n16_s2 data/4elt.graph -k 64 --tools partkit,metis

With ``--threads 1,2`` (the default) partkit runs at every count
(``partkit`` is the first, ``partkit-2t`` the others) and KaMinPar also at 2
threads (``kaminpar-2t``); a threads table gives the speedups, the cut
changes and the time ratios to METIS, and the share of partkit's time at 1
thread spent in kernels with parallel loops (``--amdahl GRAPH:K``) gives an
Amdahl estimate of the speedup on more cores. Like ``partkit partition``,
the script asks glibc's malloc to keep freed memory in the process
(:func:`partkit._threads.keep_freed_memory`), for every tool it runs.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shlex
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
sys.path.insert(0, str(Path(__file__).resolve().parent))
import instances as bench  # noqa: E402  (benchmarks/instances.py: the two sets, as data)

KAHIP_MODES = {"fast": 0, "eco": 1, "strong": 2}
MIN_TIMED, MAX_REPEATS = 0.1, 5  # short calls are repeated until they add up to 0.1 s (at most 5 calls)
TAUS = (1.00, 1.01, 1.02, 1.05, 1.10, 1.25, 1.5, 2.0)  # performance profiles: within a factor tau of the best


def selected(args):
    """The :class:`instances.Instance` of this run: the set, filtered by ``--classes`` and ``--graphs``
    (a ``--graphs`` entry that names no graph of the sets is a file, of class ``file``)."""
    chosen = bench.SETS[args.set]
    if args.classes:
        unknown = set(args.classes) - {i.cls for i in chosen}
        if unknown:
            raise SystemExit(f"no class {', '.join(sorted(unknown))} in the {args.set} set "
                             f"(it has {', '.join(dict.fromkeys(i.cls for i in chosen))})")
        chosen = [i for i in chosen if i.cls in args.classes]
    if args.graphs:
        out = []
        for name in args.graphs:
            try:
                out.append(bench.by_name(name))
            except KeyError:
                if not Path(name).exists():
                    raise SystemExit(f"--graphs: {name!r} is neither a graph of benchmarks/instances.py nor a file")
                out.append(bench.Instance("file", Path(name).name, str(Path(name).resolve()), False))
        chosen = [i for i in out if not args.classes or i.cls in args.classes]
    return chosen


build = bench.build


# ------------------------------------------------------------------ tools
# Every tool is ``prepare(graph, k, eps, seed) -> call``: the conversion of the input is done in ``prepare``
# (cached per graph) outside the timer; ``call()`` is what is timed and returns the part array.
class PartkitTool:
    """partkit through its public API, ``partkit.partition(graph, k, "multilevel", ...)``."""

    ncon = True  # takes several constraints

    def __init__(self, threads=1, preset="default"):
        self.threads, self.preset = threads, preset

    def prepare(self, graph, k, eps, seed):
        import partkit

        return lambda: partkit.partition(graph, k, "multilevel", imbalance=eps, seed=seed, preset=self.preset,
                                         threads=self.threads)


class MetisTool:
    """METIS 5 k-way through pymetis: ``ufactor = max(1, round(1000 eps))``, as :mod:`partkit.methods.metis`."""

    ncon = False  # pymetis always hands METIS one constraint (issue 28, item 11)

    def __init__(self):
        import pymetis

        self.pymetis, self.cache = pymetis, {}

    def prepare(self, graph, k, eps, seed):
        if self.cache.get("graph") is not graph:
            self.cache = {"graph": graph, "adjacency": self.pymetis.CSRAdjacency(graph.xadj, graph.adjncy),
                          "vweights": np.ascontiguousarray(graph.vwgt[:, 0]),
                          "eweights": np.ascontiguousarray(graph.adjwgt)}
        c = self.cache
        options = self.pymetis.Options(ufactor=max(1, int(round(1000 * eps))), seed=int(seed))
        return lambda: np.asarray(self.pymetis.part_graph(int(k), c["adjacency"], vweights=c["vweights"],
                                                          eweights=c["eweights"], options=options)[1],
                                  dtype=np.int64)


class KahipTool:
    """KaHIP's ``kaffpa`` in a mode (fast, eco, strong), 1 thread; it takes Python lists."""

    ncon = False

    def __init__(self, mode):
        import kahip

        self.kahip, self.mode, self.cache = kahip, KAHIP_MODES[mode], {}

    def prepare(self, graph, k, eps, seed):
        if self.cache.get("graph") is not graph:
            self.cache = {"graph": graph, "lists": (graph.vwgt[:, 0].tolist(), graph.xadj.tolist(),
                                                    graph.adjwgt.tolist(), graph.adjncy.tolist())}
        vwgt, xadj, adjwgt, adjncy = self.cache["lists"]
        return lambda: np.asarray(self.kahip.kaffpa(vwgt, xadj, adjwgt, adjncy, int(k), float(eps), True, int(seed),
                                                    self.mode)[1], dtype=np.int64)


class KaMinParTool:
    """KaMinPar (default context, 1 thread unless told); it reads graphs from METIS files only."""

    ncon = False

    def __init__(self, threads=1):
        import kaminpar

        self.kaminpar = kaminpar
        self.solver = kaminpar.KaMinPar(int(threads), kaminpar.default_context())
        self.cache = {}
        self.tmp = tempfile.TemporaryDirectory(prefix="partkit-bench-")

    def load(self, graph):
        """Write the graph once and load it (outside the timer)."""
        from partkit.io import write_metis_graph

        if self.cache.get("graph") is not graph:
            path = os.path.join(self.tmp.name, "g.graph")
            write_metis_graph(path, graph)
            self.cache = {"graph": graph, "loaded": self.kaminpar.load_graph(path, self.kaminpar.GraphFileFormat.METIS)}
        return self.cache["loaded"]

    def prepare(self, graph, k, eps, seed):
        from partkit.metrics import max_part_weights

        loaded = self.load(graph)
        if eps > 0:
            def call():
                self.kaminpar.reseed(int(seed))
                return np.asarray(self.solver.compute_partition(loaded, int(k), float(eps)), dtype=np.int64)
        else:  # KaMinPar takes eps = 0 as "no bound given": pass the absolute bound ceil(W / k)
            bounds = [int(max_part_weights(graph, k, 0.0)[0, 0])] * int(k)

            def call():
                self.kaminpar.reseed(int(seed))
                return np.asarray(self.solver.compute_partition(loaded, bounds), dtype=np.int64)
        return call


def tool_name(tool, threads, first):
    """``partkit`` / ``kaminpar`` at the first thread count, ``partkit-2t`` etc. at the others."""
    return tool if threads == first else f"{tool}-{threads}t"


def available_tools(names, kahip_mode, threads=(1,), preset="default"):
    """The tools by name; partkit at every count of ``threads``, KaMinPar at 1 thread and every count above 1."""
    tools = {}
    for name in names:
        try:
            if name == "partkit":
                for t in threads:
                    tools[tool_name(name, t, threads[0])] = PartkitTool(t, preset)
            elif name == "metis":
                tools[name] = MetisTool()
            elif name == "kahip":
                tools[f"kahip-{kahip_mode}"] = KahipTool(kahip_mode)
            elif name == "kaminpar":
                tools[name] = KaMinParTool()
                for t in threads:
                    if t > 1:
                        tools[f"kaminpar-{t}t"] = KaMinParTool(t)
            else:
                raise SystemExit(f"unknown tool {name!r}")
        except ImportError:
            print(f"# {name} is not installed: skipped", file=sys.stderr)
    return tools


# ---------------------------------------------------------------- measuring
def granted(name, eps):
    """The imbalance a tool is actually given for ε: METIS's ufactor cannot go below 1 (ε = 0.001)."""
    return max(eps, 0.001) if name == "metis" else eps


def warm_up(partkit_tools):
    """Call every partkit tool on small graphs that take the engine's paths (matching and clustering
    coarsening, skewed degrees, components, two constraints, levels large enough for parallel kernels and
    grouped FM; k = 2, 8, 64; eps 0 and 0.03), untimed, so that no timed call loads a compiled kernel from
    the Numba cache (tens of milliseconds for some: the first instance of a path would pay them, and a
    call longer than 0.1 s is timed once). Compilation and loading are measured apart (``--cold``)."""
    from partkit.generators import barabasi_albert, components, delaunay, grid2d, random_geometric

    two_constraints = bench.weighted(bench.G("grid2d", 60, 60), "two", "uniform", 0)  # and edge weights
    graphs = [grid2d(40, 25), delaunay(20000, seed=1), barabasi_albert(20000, 3, seed=2),
              random_geometric(20000, seed=4), components(20000, seed=5), two_constraints]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for tool in partkit_tools:
            for graph in graphs:
                for k in (2, 8, 64):
                    for eps in (0.0, 0.03):
                        tool.prepare(graph, k, eps, 0)()


def measure(tool, graph, k, eps, seed, given):
    """Cut, imbalance, validity and the warm seconds of one call (the fastest of short repeats).

    ``valid``: every part within ε; ``valid_given``: within ``given``, the imbalance the tool was given.
    """
    from partkit.errors import InfeasibleBalanceWarning
    from partkit.metrics import edge_cut, max_part_weights, part_weights
    from partkit.metrics import imbalance as imbalance_of

    call = tool.prepare(graph, k, eps, seed)  # the tool's input conversion: outside the timer
    times = []
    # validity is checked (and reported) here; the filter is set up outside the timed calls (about 10 us)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InfeasibleBalanceWarning)
        while not times or (sum(times) < MIN_TIMED and len(times) < MAX_REPEATS):
            start = time.perf_counter()
            part = call()
            times.append(time.perf_counter() - start)
    heaviest = part_weights(graph, part, k).max(axis=0)
    return {"cut": int(edge_cut(graph, part)), "imbalance": float(imbalance_of(graph, part, k).max()),
            "valid": bool(np.all(heaviest <= max_part_weights(graph, k, eps))),
            "valid_given": bool(np.all(heaviest <= max_part_weights(graph, k, given))),
            "seconds": min(times), "calls": len(times)}


COLD_SCRIPT = """
import json, resource, sys, time
sys.path.insert(0, sys.argv[4])
import instances
import partkit
source, k, preset = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
g = instances.build(source)
t = time.perf_counter(); partkit.partition(g, k, "multilevel", preset=preset, threads=1); cold = time.perf_counter() - t
t = time.perf_counter(); partkit.partition(g, k, "multilevel", preset=preset, threads=1); warm = time.perf_counter() - t
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"cold": cold, "warm": warm, "peak_mb": peak}))
"""


def cold_run(source, k, preset):
    """First and second call of partkit (1 thread) in a fresh process with an empty Numba cache."""
    with tempfile.TemporaryDirectory(prefix="partkit-numba-") as cache:
        env = dict(os.environ, NUMBA_CACHE_DIR=cache)
        out = subprocess.run([sys.executable, "-c", COLD_SCRIPT, json.dumps(source), str(k), preset,
                              str(Path(__file__).resolve().parent)], env=env, capture_output=True, text=True,
                             check=True)
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
    """The source of the graph NAME: one of this run's graphs, one of the sets, or a file."""
    for instance in run:
        if instance.name == name:
            return instance.source
    try:
        return bench.by_name(name).source
    except KeyError:
        if Path(name).exists():
            return str(Path(name).resolve())
    raise SystemExit(f"unknown graph {name!r}: not in benchmarks/instances.py and not a file")


def as_file(name, source, folder):
    """A file holding the graph (a METIS file written into ``folder`` for a generated one)."""
    if isinstance(source, str):
        path = Path(source)
        return str(path if path.is_absolute() else ROOT / path)
    from partkit.io import write_metis_graph

    path = os.path.join(folder, f"{name}.graph")
    write_metis_graph(path, build(source))
    return path


# ------------------------------------------------------------------ summary
def geomean(values):
    values = [v for v in values if v is not None and v > 0 and math.isfinite(v)]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def cut_ratio(row, other, tool="partkit"):
    """``tool``'s cut over the other's (each at least 1); None where the other did not run or is not within
    the ε it was given."""
    tools = row["tools"]
    if other not in tools or tool not in tools or not tools[other]["valid_given"]:
        return None
    return max(tools[tool]["cut"], 1) / max(tools[other]["cut"], 1)


def time_ratio(row, other, tool="partkit"):
    """``tool``'s seconds over the other's; None where one of them did not run."""
    tools = row["tools"]
    if other not in tools or tool not in tools:
        return None
    return tools[tool]["seconds"] / max(tools[other]["seconds"], 1e-9)


def label(row):
    return f"{row['graph']} k={row['k']} eps={row['epsilon']:g}"


def class_table(rows, other, classes, epsilons, tool="partkit"):
    """Per class and overall: cut-ratio geometric mean per ε (reference within ε only), time ratios."""
    table = {}
    for cls in [*classes, "all"]:
        sub = [r for r in rows if cls in ("all", r["class"]) and other in r["tools"] and tool in r["tools"]]
        if not sub:
            continue
        entry = {"instances": len(sub)}
        for eps in epsilons:
            at = [r for r in sub if r["epsilon"] == eps]
            ratios = [x for x in (cut_ratio(r, other, tool) for r in at) if x is not None]
            entry[f"cut_eps{eps:g}"] = {"geomean": geomean(ratios), "counted": len(ratios), "instances": len(at)}
        times = [time_ratio(r, other, tool) for r in sub]
        worst = int(np.argmax(times))
        entry.update(time=geomean(times), worst_time=times[worst], worst_time_instance=label(sub[worst]))
        table[cls] = entry
    return table


def profile_tools(rows):
    """The tools of the performance profiles: one column per tool at its first thread count."""
    names = list(dict.fromkeys(t for r in rows for t in r["tools"]))
    return [t for t in names if not t.endswith("t") or not t.rsplit("-", 1)[-1][:-1].isdigit()]


def profiles(rows, taus=TAUS):
    """Performance profiles over the instances every profiled tool ran: per tool and τ, the share of
    instances where its cut (its seconds) is within a factor τ of the best tool's. Cuts are compared as the
    ratios are (each at least 1); a partition not within the ε the tool was given is never within τ."""
    tools = profile_tools(rows)
    common = [r for r in rows if all(t in r["tools"] for t in tools)]
    out = {"tools": tools, "taus": list(taus), "instances": len(common), "skipped": len(rows) - len(common)}
    for measure_name, key in (("cut", "cut"), ("time", "seconds")):
        shares = {t: [] for t in tools}
        for r in common:
            values = {t: (r["tools"][t][key] if r["tools"][t]["valid_given"] or key == "seconds" else math.inf)
                      for t in tools}
            best = min(values.values())
            for t in tools:  # cuts as the ratios: each at least 1
                v = values[t]
                shares[t].append(math.inf if not math.isfinite(v) else
                                 max(v, 1) / max(best, 1) if key == "cut" else v / max(best, 1e-9))
        out[measure_name] = {t: [sum(x <= tau + 1e-12 for x in shares[t]) / max(len(common), 1) for tau in taus]
                             for t in tools}
    return out


def targets(rows, summary, names):
    """The project's targets, each PASS, FAIL or SKIP (no data for it in this run), with its figures.

    ``names``: the graphs the single-instance targets are measured on (``instances.TARGET_GRAPHS``).
    """
    out = []

    def add(name, value, limit, detail, at_least=False):
        value = value if value not in ([], None) else None
        status = "SKIP" if value is None else "PASS" if (value >= limit if at_least else value <= limit) else "FAIL"
        out.append({"target": name, "status": status, "value": value, "limit": limit, "detail": detail})

    def worst(pairs):
        return max(pairs, key=lambda p: p[0]) if pairs else (None, None)

    rows = [r for r in rows if {"partkit", "metis"} <= set(r["tools"])]
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
    big_graph = names["big"]
    big = [r for r in rows if r["graph"] == big_graph and r["k"] == 64 and r["epsilon"] == 0.03]
    add(f"warm time partkit / METIS on {big_graph} k=64 eps=0.03", time_ratio(big[0], "metis") if big else None,
        1.3, big and f"{big[0]['tools']['partkit']['seconds']:.2f} s / {big[0]['tools']['metis']['seconds']:.2f} s")
    threads = summary.get("threads")
    if threads and len(threads["counts"]) > 1:
        t1, t2 = threads["counts"][0], threads["counts"][1]
        for graph in names["threads"]:
            at = [e for e in threads["table"] if e["graph"] == graph and e["k"] == 64 and e["epsilon"] == 0.03]
            add(f"threads: speedup {t2} threads over {t1} on {graph} k=64 eps=0.03 (at least)",
                at[0][f"speedup_{t2}t"] if at else None, 1.6,
                at and f"{at[0][f'seconds_{t1}t']:.2f} s / {at[0][f'seconds_{t2}t']:.2f} s", at_least=True)
            add(f"threads: cut change {t2} threads vs {t1} on {graph} k=64 eps=0.03",
                at[0][f"cut_change_{t2}t"] if at else None, 0.01, "")
        big = [e for e in threads["table"] if e["graph"] == big_graph and e["k"] == 64 and e["epsilon"] == 0.03]
        add(f"threads: warm time at {t2} threads / METIS on {big_graph} k=64 eps=0.03",
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

    call = PartkitTool(1, preset).prepare(graph, k, 0.03, seed)
    call()
    profiler = cProfile.Profile()
    profiler.enable()
    call()
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


def summarize(rows, args, names):
    summary = {"set": args.set, "preset": args.preset, "epsilons": epsilons_of(rows), "seeds": args.seeds,
               "instances": len(rows), "graphs": len({r["graph"] for r in rows}),
               "classes_run": list(dict.fromkeys(r["class"] for r in rows)), "target_graphs": names}
    if not rows or "partkit" not in rows[0]["tools"]:
        return summary
    summary["partkit_all_within_eps"] = all(r["tools"]["partkit"]["valid"] for r in rows)
    summary["classes"] = {}
    for other in dict.fromkeys(t for r in rows for t in r["tools"]):
        if other == "partkit":
            continue
        ratios = [x for x in (cut_ratio(r, other) for r in rows) if x is not None]
        summary[f"geomean_cut_ratio_vs_{other}"] = geomean(ratios)
        summary[f"geomean_time_ratio_warm_vs_{other}"] = geomean([x for x in (time_ratio(r, other) for r in rows)
                                                                  if x is not None])
        summary["classes"][other] = class_table(rows, other, summary["classes_run"], summary["epsilons"])
    for t in args.threads[1:]:  # partkit at more threads against METIS and KaMinPar at as many threads
        name = tool_name("partkit", t, args.threads[0])
        for ref in ("metis", f"kaminpar-{t}t"):
            ratios = [x for x in (time_ratio(r, ref, name) for r in rows) if x is not None]
            if ratios:
                summary[f"geomean_time_ratio_warm_{name}_vs_{ref}"] = geomean(ratios)
    summary["profiles"] = profiles(rows)
    return summary


def epsilons_of(rows):
    return sorted({r["epsilon"] for r in rows}, reverse=True)


def print_summary(summary):
    print("# summary (cut ratios: partkit / tool, only where the tool's partition is within eps)")
    for key, value in summary.items():
        if isinstance(value, float):
            print(f"{key:<44} {value:.3f}")
        elif key == "cold" or key == "cli":
            print(f"{key:<44} " + ", ".join(f"{a}={b:.2f}" if isinstance(b, float) else f"{a}={b}"
                                             for a, b in value.items() if a != "runs"))
        elif key not in ("classes", "targets", "threads", "amdahl", "profiles", "target_graphs"):
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
    prof = summary.get("profiles")
    if prof and prof["instances"]:
        for what in ("cut", "time"):
            print(f"# performance profile, {what}: share of the {prof['instances']} instances all of "
                  f"{', '.join(prof['tools'])} ran within a factor tau of the best {what}")
            print(f"{'tau':<14}" + "".join(f"{tau:>7.2f}" for tau in prof["taus"]))
            for tool in prof["tools"]:
                print(f"{tool:<14}" + "".join(f"{x:>7.2f}" for x in prof[what][tool]))
    print("# targets")
    for t in summary.get("targets", []):
        value = "no data in this run" if t["value"] is None else f"{t['value']:.3f}"
        detail = f"  ({t['detail']})" if t["detail"] else ""
        print(f"{t['status']:<5} {t['target']}: {value}, limit {t['limit']:g}{detail}")


def ratios_by_k(rows, ks):
    """Geometric-mean cut and warm-time ratios partkit / tool, per tool and k."""
    tools = [t for t in dict.fromkeys(t for r in rows for t in r["tools"]) if t != "partkit"]
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
    p.add_argument("--set", default="evaluation", choices=sorted(bench.SETS),
                   help="the inputs: the evaluation set (default; the published figures) or the tuning set "
                        "(what defaults may be chosen on)")
    p.add_argument("--classes", nargs="+", default=None, metavar="CLASS", help="only these classes of the set")
    p.add_argument("--graphs", nargs="+", default=None, metavar="GRAPH",
                   help="only these graphs: names in benchmarks/instances.py or graph files (class 'file')")
    p.add_argument("-k", nargs="+", type=int, default=[2, 8, 64], help="part counts (k <= n/2 only)")
    p.add_argument("--eps", nargs="+", type=float, default=[0.03], help="imbalances of every graph (default 0.03)")
    p.add_argument("--tight-eps", default="0",
                   help="imbalance also run on the graphs the set marks tight (default 0; 'none' to skip)")
    p.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    p.add_argument("--preset", default="default", choices=["fast", "default", "strong"])
    p.add_argument("--tools", default="partkit,metis,kaminpar,kahip", help="comma-separated: partkit, metis, "
                   "kaminpar, kahip (default all four)")
    p.add_argument("--threads", default="1,2", help="comma-separated thread counts of partkit, e.g. 1,2 (default); "
                   "counts above 1 add the columns partkit-Nt and kaminpar-Nt, a threads table and an Amdahl estimate")
    p.add_argument("--amdahl", default=None,
                   help="GRAPH:K whose share of time in parallel kernels at 1 thread is measured (with --threads "
                        "above 1; default the set's largest graph at k = 64; 'none' to skip)")
    p.add_argument("--kahip-mode", default="eco", choices=sorted(KAHIP_MODES))
    p.add_argument("--cold", default=None,
                   help="GRAPH:K measured cold (fresh process, empty Numba cache) and for peak memory "
                        "(default: the set's, instances.TARGET_GRAPHS); 'none' to skip")
    p.add_argument("--cli", default=None,
                   help="GRAPH:K for timing the `partkit partition` command with a warm cache (a generated graph is "
                        "written to a METIS file first; default: the set's); 'none' to skip")
    p.add_argument("--quick", action="store_true",
                   help=f"the small evaluation graphs {', '.join(bench.QUICK)}; k = 8, seed 0")
    p.add_argument("--json", default=None, help="output JSON path (default benchmarks/results/<set>.json, "
                                                "with --quick benchmarks/results/quick.json)")
    p.add_argument("--plot", metavar="PNG", help="bar chart of the cut and time ratios per tool and k")
    p.add_argument("--quiet", action="store_true", help="no progress line on a terminal")
    p.add_argument("--note", default="", help="a remark on the run for the report (e.g. the machine's load)")
    args = p.parse_args(argv)
    try:
        args.threads = [int(t) for t in str(args.threads).split(",") if t.strip()]
    except ValueError:
        p.error(f"--threads takes comma-separated integers, got {args.threads!r}")
    if not args.threads or min(args.threads) < 1:
        p.error("--threads needs thread counts of at least 1")
    args.tight_eps = None if args.tight_eps == "none" else float(args.tight_eps)
    names = dict(bench.TARGET_GRAPHS[args.set])
    if args.quick:
        args.set = "evaluation"
        args.graphs = args.graphs or list(bench.QUICK)
        args.k, args.seeds = [8], [0]
        names = dict(bench.QUICK_TARGETS)
    args.target_graphs = names
    args.cold = args.cold or names["cold"]
    args.cli = args.cli or names["cli"]
    args.amdahl = args.amdahl or f"{names['big']}:64"
    args.json = args.json or str(ROOT / "benchmarks" / "results" / f"{'quick' if args.quick else args.set}.json")
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
    print(f"{'class':<11}{'graph':<24}{'k':>4}{'eps':>6} "
          + "".join(f"{n + ' cut':>{width[n]}}{'imb':>7}{'sec':>8}" for n in names), flush=True)
    for instance in run:
        say(f"{instance.name}: building")
        graph = build(instance.source)
        epsilons = list(args.eps)
        if instance.tight and args.tight_eps is not None and args.tight_eps not in epsilons:
            epsilons.append(args.tight_eps)
        for k in [k for k in args.k if k <= graph.n // 2]:
            for eps in epsilons:
                row = {"class": instance.cls, "graph": instance.name, "n": graph.n, "m": graph.m,
                       "ncon": graph.ncon, "k": k, "epsilon": eps, "tools": {}}
                for name, tool in tools.items():
                    if graph.ncon > 1 and not tool.ncon:
                        continue  # KaMinPar and KaHIP take one vertex weight
                    if name.split("-")[0] in instance.skip:
                        continue  # the set says why (instances.SLOW_KAHIP)
                    runs = []
                    for s in args.seeds:
                        say(f"{instance.name} k={k} eps={eps:g} {name} seed={s}")
                        runs.append(measure(tool, graph, k, eps, s, granted(name, eps)))
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
                print(f"{instance.cls:<11}{instance.name:<24}{k:>4}{eps:>6g} " + "".join(
                    f"{row['tools'][n]['cut']:>{width[n]}.1f}{row['tools'][n]['imbalance']:>6.3f}"
                    f"{' ' if row['tools'][n]['valid'] else '*'}{row['tools'][n]['seconds']:>8.3f}"
                    if n in row["tools"] else f"{'-':>{width[n]}}{'':>15}" for n in names), flush=True)
    return rows


def main(argv=None):
    args = parse_args(argv)
    from partkit._threads import keep_freed_memory

    started = time.time()
    keep_freed_memory()  # as the CLI does, for every tool in this process (see partkit._threads)
    say = progress_line(args.quiet)
    tools = available_tools(args.tools.split(","), args.kahip_mode, args.threads, args.preset)
    if "partkit" in tools:
        say("partkit: loading the compiled kernels of every path (untimed)")
        warm_up([tool for tool in tools.values() if isinstance(tool, PartkitTool)])
    run = selected(args)
    rows = run_instances(run, tools, args, say)
    names = args.target_graphs
    summary = summarize(rows, args, names)
    if len(args.threads) > 1 and "partkit" in tools:
        summary["threads"] = {"counts": args.threads, "table": threads_table(rows, args.threads)}
        if args.amdahl != "none" and any(r["graph"] == args.amdahl.rsplit(":", 1)[0] for r in rows):
            name, k = args.amdahl.rsplit(":", 1)
            say(f"{name} k={k}: profiling at 1 thread")
            graph = build(resolve(name, run))
            summary["amdahl"] = {"graph": name, "k": int(k), **parallel_fraction(graph, int(k), args.seeds[0],
                                                                                 args.preset)}
            say("")
    if "partkit" in tools and args.cold != "none":
        name, k = args.cold.rsplit(":", 1)
        say(f"{name} k={k}: cold run")
        summary["cold"] = {"graph": name, "k": int(k), **cold_run(resolve(name, run), int(k), args.preset)}
        summary["cold"]["compile_seconds"] = summary["cold"]["cold"] - summary["cold"]["warm"]
        same = [r for r in rows if r["graph"] == name and r["k"] == int(k) and r["epsilon"] == 0.03
                and "metis" in r["tools"]]
        if same:
            summary["time_ratio_cold_vs_metis"] = summary["cold"]["cold"] / same[0]["tools"]["metis"]["seconds"]
        say("")
    if "partkit" in tools and args.cli != "none":
        name, k = args.cli.rsplit(":", 1)
        say(f"{name} k={k}: the command")
        with tempfile.TemporaryDirectory(prefix="partkit-cli-graph-") as folder:
            summary["cli"] = {"graph": name, "k": int(k), **cli_run(as_file(name, resolve(name, run), folder), int(k))}
        summary["cli"]["command"] = summary["cli"]["command"].replace(folder, "$TMP")
        say("")
    summary["targets"] = targets(rows, summary, names)
    print_summary(summary)
    complete = not (args.quick or args.classes or args.graphs)
    meta = {"set": args.set, "complete": complete,
            "label": (f"the full {args.set} set" if complete else
                      f"a subset of the {args.set} set ({summary['graphs']} graphs, {len(rows)} instances"
                      f"{', --quick' if args.quick else ''}): not the full {args.set} run"),
            "command": shlex.join(["python", "benchmarks/compare.py", *(sys.argv[1:] if argv is None else argv)]),
            "date": time.strftime("%Y-%m-%d %H:%M"), "wall_seconds": time.time() - started,
            "machine": {"cpus": os.cpu_count(), "python": sys.version.split()[0]}, "note": args.note}
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    with open(args.json, "w") as fh:
        json.dump({"meta": meta, "args": vars(args), "rows": rows, "summary": summary}, fh, indent=1)
    print(f"# {meta['label']}; {meta['wall_seconds']:.0f} s; results written to {args.json}")
    if args.plot:
        plot_ratios(rows, args.k, args.plot)
        print(f"# plot written to {args.plot}")


if __name__ == "__main__":
    main()
