"""Makespan of the scheduling policies as the variance of the task costs grows.

Simulates ``p`` workers running ``n`` independent tasks with lognormal costs
(mean 1, coefficient of variation ``cv``) under self scheduling, fixed chunks
(Kruskal-Weiss size), guided self scheduling and randomized work stealing,
without noise, with worker noise, and with a contended central queue,
averaged over several seeds. Prints Markdown
tables (or JSON) and draws ``docs/img/balance_makespan.png``.

Run from the project root::

    python benchmarks/balance_policies.py [--tasks 20000] [--workers 32] [--seeds 5]
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

import numpy as np

from partkit.balance.dag import simulate_dag, tiled_cholesky
from partkit.balance.schedule import POLICIES, sample_costs, simulate

CVS = (0.0, 0.5, 1.0, 2.0, 4.0, 8.0)
SCENARIOS = {
    "quiet": {},
    "noisy": {"slow_workers": 1, "slowdown": 4.0, "freeze_period": 50.0, "freeze_length": 5.0},
    "contended": {"serialize": True, "overhead": 0.05},
}
TITLES = {"quiet": "", "noisy": "1 worker 4x slower, 10% freezes",
          "contended": "central queue is a lock, access 0.05"}
LABELS = {"self": "self scheduling", "chunk": "fixed chunks (Kruskal-Weiss)",
          "gss": "guided self scheduling", "ws": "work stealing"}


def run(tasks, workers, seeds, overhead, latency):
    """Mean makespan and mean ratio to the lower bound per scenario, policy and cv."""
    rows = []
    for scenario, noise in SCENARIOS.items():
        for cv in CVS:
            for policy in POLICIES:
                makespans, ratios, steals = [], [], []
                for seed in range(seeds):
                    costs = sample_costs(tasks, "lognormal", cv=cv, seed=seed)
                    options = {"overhead": overhead, **noise}
                    r = simulate(costs, workers, policy, steal_latency=latency, seed=seed,
                                 **options)
                    makespans.append(r.makespan)
                    ratios.append(r.ratio)
                    steals.append(r.steals)
                rows.append({"scenario": scenario, "cv": cv, "policy": policy,
                             "makespan": float(np.mean(makespans)),
                             "ratio": float(np.mean(ratios)),
                             "steals": float(np.mean(steals))})
    return rows


def dag_rows(tiles, worker_counts, latency):
    """Work stealing and greedy scheduling of a tiled Cholesky (flop-weighted tasks)."""
    dag = tiled_cholesky(tiles, costs={"POTRF": 1.0, "TRSM": 3.0, "SYRK": 3.0, "GEMM": 6.0})
    rows = []
    for p in worker_counts:
        ws = simulate_dag(dag, p, "ws", steal_latency=latency)
        greedy = simulate_dag(dag, p, "greedy")
        rows.append({"p": p, "work/p": dag.work / p, "span": dag.span,
                     "greedy_bound": ws.greedy_bound, "greedy": greedy.makespan,
                     "ws": ws.makespan, "steals": ws.steals})
    return dag, rows


def repartition_rows(n, k, method, seed=0):
    """Repartitioning vs partitioning from scratch after refining a disc of a Delaunay mesh.

    ``method`` makes the initial partition and the from-scratch ones.
    """
    from partkit.api import partition
    from partkit.balance.repartition import partition_from_scratch, repartition, with_weights
    from partkit.generators import delaunay
    from partkit.metrics import edge_cut, max_part_weights, part_weights

    g = delaunay(n, seed=seed)
    old = partition(g, k, method, seed=seed)
    rows = []
    for radius, factor in ((0.1, 3), (0.15, 2), (0.25, 4)):
        inside = np.hypot(g.coords[:, 0] - 0.2, g.coords[:, 1] - 0.3) < radius
        w = np.where(inside, factor, 1).astype(np.int64)
        gw = with_weights(g, w)
        excess = np.maximum(part_weights(gw, old, k)[:, 0] - max_part_weights(gw, k)[:, 0], 0)
        case = {"refined": f"r={radius}, x{factor}", "old_cut": edge_cut(g, old),
                "total": int(w.sum()), "min_migration": int(excess.sum())}
        for label, result in (
                ("diffusion l1 itr=1000", repartition(g, old, w, k, itr=1000.0, strategy="diffusion",
                                                      seed=seed)),
                ("diffusion l2 itr=1000", repartition(g, old, w, k, itr=1000.0, flow="l2",
                                                      strategy="diffusion", seed=seed)),
                ("diffusion l1 itr=0.1", repartition(g, old, w, k, itr=0.1, strategy="diffusion",
                                                     seed=seed)),
                ("multilevel itr=1000", repartition(g, old, w, k, itr=1000.0, method=method, seed=seed)),
                ("auto itr=1000", repartition(g, old, w, k, strategy="auto", method=method,
                                              seed=seed)),
                ("scratch, relabelled", partition_from_scratch(g, old, k, vwgt=w, method=method,
                                                               seed=seed)),
                ("scratch, raw ids", partition_from_scratch(g, old, k, vwgt=w, method=method,
                                                            seed=seed, relabel=False))):
            rows.append({**case, "method": label, **result.to_dict()})
    return g.name, rows


def markdown(rows, scenario):
    """One table: rows cv, columns policy, cells makespan (ratio)."""
    lines = ["| cv | " + " | ".join(POLICIES) + " |", "|---|" + "---|" * len(POLICIES)]
    for cv in CVS:
        cells = []
        for policy in POLICIES:
            row = next(r for r in rows if r["scenario"] == scenario and r["cv"] == cv
                       and r["policy"] == policy)
            cells.append(f"{row['makespan']:.1f} ({row['ratio']:.3f})")
        lines.append(f"| {cv:g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def plot(rows, path, tasks, workers):
    """Ratio to the lower bound against cv, one panel per scenario."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(SCENARIOS), figsize=(13, 4.2), sharey=True)
    for ax, scenario in zip(axes, SCENARIOS):
        for policy in POLICIES:
            ys = [next(r["ratio"] for r in rows if r["scenario"] == scenario and r["cv"] == cv
                       and r["policy"] == policy) for cv in CVS]
            ax.plot(CVS, ys, marker="o", label=LABELS[policy])
        ax.set_title(f"{scenario}: n={tasks}, p={workers}\n{TITLES[scenario]}", fontsize=10)
        ax.set_xlabel("cv of task costs (lognormal, mean 1)")
        ax.set_xscale("symlog", linthresh=0.5)
        ax.set_xticks(CVS, [f"{cv:g}" for cv in CVS])
        ax.set_yscale("log")
        ax.set_yticks([1, 1.2, 1.5, 2, 3, 4], ["1", "1.2", "1.5", "2", "3", "4"])
        ax.minorticks_off()
        ax.grid(True, which="both", alpha=0.3)
    axes[0].set_ylabel("makespan / max(total/p, largest task)")
    axes[0].legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tasks", type=int, default=20000)
    parser.add_argument("--workers", type=int, default=32)
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--overhead", type=float, default=0.01)
    parser.add_argument("--steal-latency", type=float, default=0.05)
    parser.add_argument("--tiles", type=int, default=16, help="tiled Cholesky size for the DAG table")
    parser.add_argument("--mesh", type=int, default=20000,
                        help="Delaunay mesh size for the repartitioning table")
    parser.add_argument("--parts", type=int, default=16, help="k for the repartitioning table")
    parser.add_argument("--method", default="metis",
                        help="partitioner for the initial and from-scratch partitions (default metis)")
    parser.add_argument("--plot", default="docs/img/balance_makespan.png",
                        help="PNG to write ('' for none)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    rows = run(args.tasks, args.workers, args.seeds, args.overhead, args.steal_latency)
    dag, drows = dag_rows(args.tiles, (4, 16, 64, 256), args.steal_latency)
    mesh, rrows = repartition_rows(args.mesh, args.parts, args.method)
    seconds = time.perf_counter() - start
    if args.plot:
        plot(rows, Path(args.plot), args.tasks, args.workers)
    if args.json:
        print(json.dumps({"policies": rows, "dag": drows, "repartition": rrows,
                          "seconds": seconds}))
        return
    for scenario in SCENARIOS:
        print(f"\n{scenario}: mean makespan (mean ratio to the lower bound), {args.seeds} seeds\n")
        print(markdown(rows, scenario))
    print(f"\n{dag.name} (flop-weighted: POTRF 1, TRSM 3, SYRK 3, GEMM 6), work {dag.work:g}, "
          f"span {dag.span:g}\n")
    print("| p | work/p | span | work/p + span | greedy | work stealing | steals |")
    print("|---|---|---|---|---|---|---|")
    for r in drows:
        print(f"| {r['p']} | {r['work/p']:.1f} | {r['span']:g} | {r['greedy_bound']:.1f} | "
              f"{r['greedy']:.1f} | {r['ws']:.1f} | {r['steals']} |")
    print(f"\n{mesh}, k={args.parts}, initial and from-scratch partitions by {args.method}: "
          "vertices in a disc get weight xF (refinement)\n")
    print("| refined disc | lower bound on migration | method | cut (old) | migration | moved "
          "| imbalance |")
    print("|---|---|---|---|---|---|---|")
    for r in rrows:
        print(f"| {r['refined']} | {r['min_migration']} | {r['method']} | {r['cut']} "
              f"({r['old_cut']}) | {r['migration']} | {r['moved']} | {r['imbalance']:.3f} |")
    print(f"\n({seconds:.1f} s)")


if __name__ == "__main__":
    main()
