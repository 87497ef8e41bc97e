"""Repartitioning over AMR-like time steps: multilevel against diffusion and scratch-remap, in one run.

Four scenarios of 10 steps each, with fixed seeds (no input files):

* ``disc2d``: a Delaunay mesh of the unit square; a disc holding a quarter
  of the vertices weighs 4 and moves across the mesh;
* ``band3d``: the dual graph of a random tetrahedral mesh of the unit
  cube; a band (slab) holding a fifth of the elements weighs 4 and moves
  along x;
* ``spikes``: a Barabasi-Albert power-law graph; every step 1 % of the
  vertices, drawn anew, spike to weight 10 and their neighbours to 3;
* ``particles``: a Delaunay mesh whose vertex weight is 1 plus the
  particles in its cell (nearest vertex); a Gaussian cloud of particles
  drifts and spreads.

For every scenario, ``k`` and ``itr`` in {1, 1000} the run starts from
:func:`partkit.partition` of step 0's weights; at every step the three
strategies of :func:`partkit.balance.repartition.repartition`
(``diffusion``, ``remap``, ``multilevel``) start from the same old
partition (the multilevel result of the step before, as an application
would). Each is timed the same way (wall time of the public call, inputs
built before the timer, after a warm-up that compiles the kernels). Per
step: cut, migration, imbalance, time, ``itr * cut + migration``, the cut
of a fresh METIS partition with the new weights (pymetis, same ε) and the
lower bound on migration (what the parts over the bound must shed). A
distributed run (``mpiexec -n 4``, :func:`partkit.distributed.repartition`)
of the first step of ``disc2d`` is compared with the serial objective.

Examples::

    python benchmarks/repartition.py --quick     # small graphs, k = 16, about 2 minutes
    python benchmarks/repartition.py             # the full run (graphs of 50 000-131 072 vertices, k = 16, 64, 256)
    python benchmarks/repartition.py --docs      # rewrite the section of docs/balance.md and the plot from the JSON
    python benchmarks/repartition.py --quick --docs   # ... from the quick run's JSON
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results"
DOCS = ROOT / "docs" / "balance.md"
PLOT = ROOT / "docs" / "img" / "repartition_steps.png"
END = "<!-- repartition:end -->"
MARKED = re.compile(r"<!-- repartition:start[^>]*-->\n.*?<!-- repartition:end -->", re.S)
EPS = 0.03
ITRS = (1.0, 1000.0)
STEPS = 10
STRATEGIES = ("diffusion", "remap", "multilevel")
TARGETS = {"objective_vs_best": 1.0, "cut_vs_fresh": 1.05, "migration_vs_remap": 0.75, "distributed": 1.10}
FULL = {"sizes": {"disc2d": 131_072, "band3d": 100_000, "spikes": 50_000, "particles": 60_000}, "ks": (16, 64, 256)}
QUICK = {"sizes": {"disc2d": 16_384, "band3d": 12_000, "spikes": 8_000, "particles": 8_000}, "ks": (16,)}


# ---------------------------------------------------------------- scenarios
def disc2d(n):
    from partkit.generators import delaunay

    g = delaunay(n, seed=31)
    radius = np.sqrt(0.25 / np.pi)  # a quarter of the square

    def weights(step):
        centre = np.array([0.25 + 0.5 * step / STEPS, 0.5])
        return np.where(np.linalg.norm(g.coords - centre, axis=1) < radius, 4, 1).astype(np.int64)
    return g, weights


def band3d(n):
    from partkit.generators import tet_mesh3d

    g = tet_mesh3d(n, seed=32)

    def weights(step):
        centre = 0.1 + 0.8 * step / STEPS
        return np.where(np.abs(g.coords[:, 0] - centre) < 0.1, 4, 1).astype(np.int64)
    return g, weights


def spikes(n):
    from partkit.generators import barabasi_albert

    g = barabasi_albert(n, m=4, seed=33)

    def weights(step):
        rng = np.random.default_rng([33, step])
        w = np.ones(g.n, dtype=np.int64)
        hot = rng.choice(g.n, size=max(1, g.n // 100), replace=False)
        near = np.concatenate([g.adjncy[g.xadj[v]:g.xadj[v + 1]] for v in hot])
        w[near] = 3
        w[hot] = 10
        return w
    return g, weights


def particles(n):
    from scipy.spatial import cKDTree

    from partkit.generators import delaunay

    g = delaunay(n, seed=34)
    cells = cKDTree(g.coords)
    start = np.random.default_rng(34).normal(size=(4 * n, 2))

    def weights(step):
        spread = 0.08 + 0.01 * step
        centre = np.array([0.3 + 0.04 * step, 0.35 + 0.03 * step])
        _, owner = cells.query(np.clip(centre + spread * start, 0, 1))
        return 1 + np.bincount(owner, minlength=g.n).astype(np.int64)
    return g, weights


SCENARIOS = {"disc2d": disc2d, "band3d": band3d, "spikes": spikes, "particles": particles}


# ---------------------------------------------------------------- measuring
def fresh_metis_cut(g, w, k):
    """Cut of pymetis on the new weights (same ε through ufactor), recomputed by partkit."""
    import pymetis

    from partkit.metrics import edge_cut

    opts = pymetis.Options(ufactor=int(round(1000 * EPS)), seed=0)
    part = np.asarray(pymetis.part_graph(k, pymetis.CSRAdjacency(g.xadj, g.adjncy), vweights=w, options=opts)[1])
    return edge_cut(g, part)


def lower_bound(g, old, w, k):
    """Weight the parts over the bound must shed at least (first constraint)."""
    from partkit.balance.repartition import with_weights
    from partkit.metrics import max_part_weights, part_weights

    gw = with_weights(g, w)
    return int(np.maximum(part_weights(gw, old, k)[:, 0] - max_part_weights(gw, k, EPS)[:, 0], 0).sum())


def run_step(g, old, w, k, itr, seed=0):
    from partkit.balance.repartition import repartition

    row = {}
    for strategy in STRATEGIES:
        start = time.perf_counter()
        r = repartition(g, old, w, k, imbalance=EPS, itr=itr, strategy=strategy, seed=seed)
        seconds = time.perf_counter() - start
        row[strategy] = {"cut": r.cut, "migration": r.migration, "moved": r.moved, "imbalance": r.imbalance,
                         "balanced": bool(r.balanced), "seconds": seconds, "objective": r.objective(itr)}
        row[strategy]["part"] = r.part
    return row


def run_scenario(name, n, k, itr, say):
    import partkit
    from partkit.balance.repartition import with_weights

    g, weights = SCENARIOS[name](n)
    part = partkit.partition(with_weights(g, weights(0)), k, imbalance=EPS, seed=0)
    steps = []
    for step in range(1, STEPS + 1):
        w = weights(step)
        row = run_step(g, part, w, k, itr)
        row["fresh_metis_cut"] = fresh_metis_cut(g, w, k)
        row["lower_bound"] = lower_bound(g, part, w, k)
        part = row["multilevel"].pop("part")
        for s in STRATEGIES:
            row[s].pop("part", None)
        best = min(row["diffusion"]["objective"], row["remap"]["objective"])
        row["ml_vs_best"] = row["multilevel"]["objective"] / best if best else 1.0
        steps.append(row)
        say(f"{name} n={g.n} k={k} itr={itr:g} step {step}: multilevel/best {row['ml_vs_best']:.3f}  "
            f"cut {row['multilevel']['cut']} (fresh METIS {row['fresh_metis_cut']}, remap {row['remap']['cut']}, "
            f"diffusion {row['diffusion']['cut']})  migration {row['multilevel']['migration']} "
            f"(remap {row['remap']['migration']}, diffusion {row['diffusion']['migration']}, "
            f"bound {row['lower_bound']})  s {row['multilevel']['seconds']:.2f}/{row['remap']['seconds']:.2f}/"
            f"{row['diffusion']['seconds']:.2f}")
    return {"scenario": name, "n": g.n, "m": g.m, "k": k, "itr": itr, "steps": steps}


DISTRIBUTED = """
import json, sys
import numpy as np
from mpi4py import MPI
from partkit.distributed import repartition
comm = MPI.COMM_WORLD
d = np.load(sys.argv[1])
xadj, adjncy, old, w, k = d["xadj"], d["adjncy"], d["old"], d["w"], int(d["k"])
n = xadj.size - 1
vtxdist = np.linspace(0, n, comm.size + 1).astype(np.int64)
lo, hi = vtxdist[comm.rank], vtxdist[comm.rank + 1]
rows = xadj[lo:hi + 1] - xadj[lo]
part = repartition(comm, vtxdist, rows, adjncy[xadj[lo]:xadj[hi]], old[lo:hi], k, vwgt=w[lo:hi],
                   itr=float(d["itr"]), imbalance=float(d["eps"]))
part = np.concatenate(comm.allgather(part))
if comm.rank == 0:
    print(json.dumps(part.tolist()))
"""


def distributed_check(n, k, itr, ranks=4):
    """The multilevel objective of ``disc2d``'s first step on ``ranks`` MPI ranks and serially."""
    import partkit
    from partkit.balance.repartition import migration_volume, repartition, with_weights
    from partkit.distributed.launch import mpiexec_command
    from partkit.metrics import edge_cut

    g, weights = disc2d(n)
    old = partkit.partition(with_weights(g, weights(0)), k, imbalance=EPS, seed=0)
    w = weights(1)
    serial = repartition(g, old, w, k, imbalance=EPS, itr=itr)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "instance.npz"
        np.savez(path, xadj=g.xadj, adjncy=g.adjncy, old=old, w=w, k=k, itr=itr, eps=EPS)
        command, environ = mpiexec_command(ranks, [sys.executable, "-c", DISTRIBUTED, str(path)])
        environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), environ.get("PYTHONPATH")]))
        start = time.perf_counter()
        out = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=1800)
        seconds = time.perf_counter() - start
    if out.returncode:
        raise RuntimeError(out.stderr[-2000:])
    part = np.array(json.loads(out.stdout.strip().splitlines()[-1]))
    objective = itr * edge_cut(g, part) + migration_volume(old, part, w)[0]
    return {"scenario": "disc2d", "step": 1, "n": g.n, "k": k, "itr": itr, "ranks": ranks,
            "objective": objective, "serial_objective": serial.objective(itr),
            "ratio": objective / serial.objective(itr), "seconds_with_launch": seconds}


# ---------------------------------------------------------------- targets, report
def targets(results):
    """Every target of issue 31 with its worst figure and pass/fail."""
    runs = results["runs"]
    steps = [(r, s) for r in runs for s in r["steps"]]
    worst_best = max(s["ml_vs_best"] for _, s in steps)
    heavy = [(r, s) for r, s in steps if r["itr"] == 1000.0]
    worst_cut = max(s["multilevel"]["cut"] / s["fresh_metis_cut"] for _, s in heavy)
    worst_mig = max(s["multilevel"]["migration"] / max(s["remap"]["migration"], 1) for _, s in heavy)
    balanced = all(s[x]["balanced"] for _, s in steps for x in STRATEGIES)
    out = {"objective_vs_best": {"worst": worst_best, "target": TARGETS["objective_vs_best"],
                                 "steps_over": sum(s["ml_vs_best"] > 1.0 for _, s in steps), "steps": len(steps)},
           "cut_vs_fresh": {"worst": worst_cut, "target": TARGETS["cut_vs_fresh"],
                            "steps_over": sum(s["multilevel"]["cut"] > 1.05 * s["fresh_metis_cut"] for _, s in heavy),
                            "steps": len(heavy)},
           "migration_vs_remap": {"worst": worst_mig, "target": TARGETS["migration_vs_remap"],
                                  "steps_over": sum(s["multilevel"]["migration"] > 0.75 * s["remap"]["migration"]
                                                    for _, s in heavy), "steps": len(heavy)},
           "balanced": {"all": balanced}}
    for name, t in out.items():
        t["pass"] = t["all"] if name == "balanced" else t["worst"] <= t["target"]
    if results.get("distributed"):
        d = results["distributed"]
        out["distributed"] = {"worst": d["ratio"], "target": TARGETS["distributed"],
                              "pass": d["ratio"] <= TARGETS["distributed"]}
    return out


def geomean(values):
    values = np.asarray(list(values), dtype=float)
    return float(np.exp(np.log(np.maximum(values, 1e-300)).mean())) if values.size else float("nan")


def markdown(results, source):
    """The docs section from the results of ``source``: per (scenario, k, itr) the means over the steps, then
    the targets."""
    quick = " --quick" if results["quick"] else ""
    lines = [f"<!-- repartition:start: generated by python benchmarks/repartition.py{quick} --docs from {source} -->",
             "",
             f"`python benchmarks/repartition.py{' --quick' if results['quick'] else ''}` "
             f"({results['date']}, {results['machine']}; times noisy: other jobs shared the machine). "
             "Per scenario, `k` and `itr`, over its 10 steps: the geometric mean of multilevel's "
             "`itr * cut + migration` over the best of diffusion and remap (and the worst step), of "
             "multilevel's cut over a fresh METIS partition's, of its migration over remap's and over the "
             "lower bound, and the mean seconds per step.", "",
             "| scenario | n | k | itr | ML / best (worst) | cut: ML / METIS | cut: diffusion / METIS | "
             "migration: ML / remap | migration: ML / bound | s: ML / remap / diffusion |",
             "|---|---|---|---|---|---|---|---|---|---|"]
    for r in results["runs"]:
        st = r["steps"]
        ml = [s["multilevel"] for s in st]
        lines.append(
            f"| {r['scenario']} | {r['n']:,} | {r['k']} | {r['itr']:g} | "
            f"{geomean(s['ml_vs_best'] for s in st):.3f} ({max(s['ml_vs_best'] for s in st):.3f}) | "
            f"{geomean(m['cut'] / s['fresh_metis_cut'] for m, s in zip(ml, st)):.3f} | "
            f"{geomean(s['diffusion']['cut'] / s['fresh_metis_cut'] for s in st):.3f} | "
            f"{geomean(m['migration'] / max(s['remap']['migration'], 1) for m, s in zip(ml, st)):.3f} | "
            f"{geomean(m['migration'] / max(s['lower_bound'], 1) for m, s in zip(ml, st)):.2f} | "
            f"{np.mean([m['seconds'] for m in ml]):.2f} / {np.mean([s['remap']['seconds'] for s in st]):.2f} / "
            f"{np.mean([s['diffusion']['seconds'] for s in st]):.2f} |")
    t = results["targets"]
    verdict = {True: "pass", False: "**fail**"}
    lines += ["", "Targets of issue 31 (worst step):", "",
              "| target | figure | result |", "|---|---|---|",
              f"| multilevel objective <= 1.0 x best of diffusion and remap, every step, itr 1 and 1000 | "
              f"{t['objective_vs_best']['worst']:.3f} ({t['objective_vs_best']['steps_over']} of "
              f"{t['objective_vs_best']['steps']} steps over) | {verdict[t['objective_vs_best']['pass']]} |",
              f"| itr 1000: cut <= 1.05 x fresh METIS | {t['cut_vs_fresh']['worst']:.3f} "
              f"({t['cut_vs_fresh']['steps_over']} of {t['cut_vs_fresh']['steps']} over) | "
              f"{verdict[t['cut_vs_fresh']['pass']]} |",
              f"| itr 1000: migration <= 0.75 x remap | {t['migration_vs_remap']['worst']:.3f} "
              f"({t['migration_vs_remap']['steps_over']} of {t['migration_vs_remap']['steps']} over) | "
              f"{verdict[t['migration_vs_remap']['pass']]} |",
              f"| every result within the balance bound | {'all' if t['balanced']['all'] else 'not all'} | "
              f"{verdict[t['balanced']['all']]} |"]
    if "distributed" in t:
        d = results["distributed"]
        lines.append(f"| distributed (4 ranks) within 1.10 x serial objective | {d['ratio']:.3f} "
                     f"({d['scenario']} step {d['step']}, k = {d['k']}) | {verdict[t['distributed']['pass']]} |")
    lines += ["", f"![multilevel against diffusion and remap per step]({PLOT.relative_to(DOCS.parent).as_posix()})",
              "", END]
    return "\n".join(lines)


def plot(results):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker

    names = list(dict.fromkeys(r["scenario"] for r in results["runs"]))
    fig, axes = plt.subplots(2, len(names), figsize=(4 * len(names), 6.5), squeeze=False)
    for col, name in enumerate(names):
        for r in (r for r in results["runs"] if r["scenario"] == name):
            steps = np.arange(1, len(r["steps"]) + 1)
            row = 0 if r["itr"] == 1.0 else 1
            for strategy, style in (("diffusion", ":"), ("remap", "--")):
                ratio = [s[strategy]["objective"] / s["multilevel"]["objective"] for s in r["steps"]]
                axes[row, col].plot(steps, ratio, style, marker=".", label=f"{strategy} k={r['k']}")
        for row, itr in enumerate(ITRS):
            ax = axes[row, col]
            ax.axhline(1.0, color="black", lw=0.8)
            ax.set_yscale("log")
            ax.yaxis.set_major_formatter(matplotlib.ticker.FormatStrFormatter("%.2f"))
            ax.yaxis.set_minor_formatter(matplotlib.ticker.FormatStrFormatter("%.2f"))
            ax.set_title(f"{name}, itr = {itr:g}", fontsize=9)
            ax.set_xlabel("step")
            if col == 0:
                ax.set_ylabel("objective / multilevel's")
            ax.legend(fontsize=6)
    fig.suptitle("itr * cut + migration of diffusion and remap over multilevel's (above 1: multilevel is better)",
                 fontsize=10)
    fig.tight_layout()
    PLOT.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(PLOT, dpi=110)


def write_docs(results, path):
    text = DOCS.read_text()
    section = markdown(results, path.resolve().relative_to(ROOT).as_posix())
    text = MARKED.sub(lambda _: section, text) if MARKED.search(text) else text.rstrip() + "\n\n" + section + "\n"
    DOCS.write_text(text)
    plot(results)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="small graphs, k = 16 (about 2 minutes)")
    parser.add_argument("--json", metavar="PATH", help="results file (default benchmarks/results/repartition.json, "
                                                     "or repartition_quick.json with --quick)")
    parser.add_argument("--docs", action="store_true",
                        help="only rewrite the docs section and the plot from the results JSON")
    parser.add_argument("--no-mpi", action="store_true", help="skip the distributed run")
    args = parser.parse_args(argv)
    path = Path(args.json) if args.json else RESULTS / ("repartition_quick.json" if args.quick else "repartition.json")
    if args.docs:
        write_docs(json.loads(path.read_text()), path)
        print(f"wrote the section of {DOCS} and {PLOT} from {path}")
        return 0
    import platform

    config = QUICK if args.quick else FULL
    say = lambda message: print(message, flush=True)  # noqa: E731
    # warm-up: compile every kernel outside the timers
    import partkit
    from partkit.generators import delaunay

    g = delaunay(3000, seed=1)
    run_step(g, partkit.partition(g, 8, seed=0), np.where(g.coords[:, 0] < 0.3, 3, 1), 8, 1000.0)
    results = {"quick": args.quick, "date": time.strftime("%Y-%m-%d"), "machine": platform.machine() + " " +
               f"{os.cpu_count()} cores", "eps": EPS, "runs": []}
    for name, n in config["sizes"].items():
        for k in config["ks"]:
            for itr in ITRS:
                results["runs"].append(run_scenario(name, n, k, itr, say))
    if not args.no_mpi:
        k = config["ks"][len(config["ks"]) // 2]
        results["distributed"] = distributed_check(config["sizes"]["disc2d"], k, 1000.0)
        say(f"distributed, 4 ranks: objective {results['distributed']['objective']} vs serial "
            f"{results['distributed']['serial_objective']} ({results['distributed']['ratio']:.3f})")
    results["targets"] = targets(results)
    for name, t in results["targets"].items():
        say(f"target {name}: " + ("pass" if t["pass"] else "FAIL") + (f" (worst {t['worst']:.3f} vs {t['target']})"
                                                                      if "worst" in t else ""))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=1))
    say(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
