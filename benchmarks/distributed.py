"""Distributed partitioning on P MPI ranks against the serial default preset, in one run.

For every graph and k:

* serial: a fresh process reads the file, runs ``partkit.partition`` on one thread
  (default method and preset) and writes the partition file, as the command
  does; cut, balance, wall seconds (read + partition + write), peak resident
  memory (``ru_maxrss``);
* distributed: ``mpiexec -n P`` processes read their blocks
  (``partkit.distributed.read_graph``), partition
  (``partkit.distributed.partition``), write the partition file; cut as the
  ranks computed it, wall seconds (read + partition + write), every rank's
  peak memory, and the communication log. It runs twice with the same
  seed: the two files must be identical;
* the written file is read back and its cut and balance recomputed
  serially (``partkit.metrics``): the cut must equal the distributed one;
* the commands themselves, as a user runs them (``partkit partition FILE -k K
  --threads 1 -o OUT`` and ``mpiexec -n P partkit partition FILE -k K -o
  OUT``), alternately, ``--command-runs`` times each: the best wall seconds
  of each, start-up and imports included.

Then it prints the ratios (cut, time, peak memory per rank vs serial), the
communication per phase (max over ranks of words and messages sent), and
the alpha-beta prediction of the run's communication on 64, 256 and 1024
ranks (``partkit.distributed.cost``).

Graphs (cached in ``--data``): delaunay_n20, written by ``partkit generate
delaunay -n 1048576`` (random points, random vertex order: every rank's
block is scattered over the square); delaunay_n20_strips, the same graph
with its vertices numbered in 1024 horizontal strips, left to right in
each (the locality a mesh generator's or a space-filling curve's order
gives: every rank's block is a band); and grid100x100x100, the 3D grid of
``partkit.generators.grid3d`` (10^6 vertices, 7-point stencil, numbered
plane by plane; partkit has no 3D tetrahedral mesh generator).

Examples::

    python benchmarks/distributed.py                         # both graphs, k=64, 4 ranks
    python benchmarks/distributed.py --graphs data/4elt.graph -k 8 --ranks 2
"""

from __future__ import annotations

import argparse
import filecmp
import json
import math
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PREDICT_RANKS = (64, 256, 1024)
ALPHA, BETA = 2e-6, 1e10  # partkit.estimate's defaults: 2 us latency, 10 GB/s


def peak_mb():
    """Peak resident memory of this process in MiB (Linux reports KiB)."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


# ----------------------------------------------------------------- inputs
def ensure_inputs(data, names):
    """Paths of the default graphs, generated into ``data`` when missing."""
    data.mkdir(parents=True, exist_ok=True)
    paths = []
    for name in names:
        path = data / f"{name}.graph"
        if not path.exists():
            print(f"generating {path} ...", file=sys.stderr, flush=True)
            if name == "delaunay_n20":
                subprocess.run([sys.executable, "-m", "partkit", "generate", "delaunay", "-n", "1048576",
                                "-o", str(path)], check=True, env=_environment())
            elif name == "delaunay_n20_strips":
                write_in_strips(ensure_inputs(data, ["delaunay_n20"])[0], path)
            else:
                from partkit.generators import grid3d
                from partkit.io import write_metis_graph

                write_metis_graph(path, grid3d(100, 100, 100))
        paths.append(path)
    return paths


def write_in_strips(source, path, strips=1024):
    """Write the graph ``source`` (with its ``.xyz`` beside it) with vertices numbered strip by strip."""
    import numpy as np
    import scipy.sparse as sp

    from partkit.graph import Graph
    from partkit.io import read_graph, write_metis_graph

    graph = read_graph(source)
    xy = np.loadtxt(source.with_suffix(".xyz"))[:, :2]  # partkit generate writes the coordinates there
    order = np.lexsort((xy[:, 0], np.floor(xy[:, 1] * strips)))
    matrix = sp.csr_matrix((graph.adjwgt, graph.adjncy, graph.xadj), shape=(graph.n, graph.n))[order][:, order]
    matrix.sort_indices()
    write_metis_graph(path, Graph(matrix.indptr, matrix.indices, adjwgt=matrix.data, name=path.stem))


def _environment():
    return {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")]))}


# ---------------------------------------------------------------- workers
def serial_worker(path, k, seed, output):
    import partkit
    from partkit.io import read_graph, write_partition
    from partkit.metrics import edge_cut, is_balanced

    start = time.perf_counter()
    graph = read_graph(path)
    part = partkit.partition(graph, k, seed=seed, threads=1)  # the single-thread run (issue 32)
    write_partition(output, part)
    seconds = time.perf_counter() - start
    print(json.dumps({"cut": edge_cut(graph, part), "balanced": is_balanced(graph, part, k),
                      "seconds": seconds, "peak_mb": peak_mb(), "n": graph.n}))


def mpi_worker(path, k, seed, output):
    from mpi4py import MPI

    from partkit.distributed.metrics import summary
    from partkit.distributed.comm import Channel
    from partkit.distributed.cost import phase_totals
    from partkit.distributed.io import read_graph, write_partition
    from partkit.distributed.multilevel import partition_block

    comm = MPI.COMM_WORLD
    comm.Barrier()
    start = time.perf_counter()
    graph = read_graph(comm, path)
    channel = Channel(comm)
    levels = []
    part = partition_block(channel, graph.vtxdist, graph.xadj, graph.adjncy, k, vwgt=graph.vwgt,
                           adjwgt=graph.adjwgt, seed=seed, name=graph.name, progress=levels.append)
    write_partition(comm, output, part)
    seconds = comm.allreduce(time.perf_counter() - start, op=MPI.MAX)
    cut = summary(Channel(comm), graph, part, k, 0.03)["cut"]
    gathered = comm.gather({"peak_mb": peak_mb(), "phases": phase_totals(channel.log),
                            "n_local": graph.n_local}, root=0)
    if comm.rank == 0:
        print(json.dumps({"cut": cut, "seconds": seconds, "levels": levels, "ranks": gathered}))


# ----------------------------------------------------------------- driver
def run_serial(path, k, seed, output):
    out = subprocess.run([sys.executable, __file__, "--serial-worker", str(path), str(k), str(seed), str(output)],
                         capture_output=True, text=True, check=True, env=_environment())
    return json.loads(out.stdout)


def time_commands(path, k, seed, ranks, output, runs):
    """Best wall seconds of ``runs`` runs of the serial command (one thread) and of the same command under
    ``mpiexec -n ranks``, run alternately: ``{"serial": s, "distributed": d}``."""
    from partkit.distributed.launch import mpiexec_command

    command = [sys.executable, "-m", "partkit", "partition", str(path), "-k", str(k), "--seed", str(seed),
               "-o", str(output), "--quiet"]
    parallel, environ = mpiexec_command(ranks, command)
    environ.update(_environment())
    best = {"serial": math.inf, "distributed": math.inf}
    for _ in range(runs):
        for name, argv, env in (("serial", command + ["--threads", "1"], _environment()),
                                ("distributed", parallel, environ)):
            start = time.perf_counter()
            subprocess.run(argv, check=True, env=env, stdout=subprocess.DEVNULL)
            best[name] = min(best[name], time.perf_counter() - start)
    return best


def run_distributed(path, k, seed, ranks, output):
    from partkit.distributed.launch import mpiexec_command

    command, environ = mpiexec_command(ranks, [sys.executable, __file__, "--mpi-worker", str(path), str(k),
                                               str(seed), str(output)])
    environ.update(_environment())
    out = subprocess.run(command, capture_output=True, text=True, env=environ)
    if out.returncode:
        raise SystemExit(f"distributed run failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout)


def check_file(path, output, k, imbalance=0.03):
    """Cut and balance recomputed serially from the written partition file."""
    from partkit.io import read_graph, read_partition
    from partkit.metrics import edge_cut, imbalance as imbalance_of, is_balanced

    graph = read_graph(path)
    part = read_partition(output, n=graph.n, k=k)
    return {"cut": edge_cut(graph, part), "balanced": is_balanced(graph, part, k, imbalance),
            "imbalance": float(imbalance_of(graph, part, k).max())}


def communication_table(ranks):
    """Rows (phase, sparse exchanges, max words and messages they send per rank,
    collective calls, max words per rank they carry)."""
    rows = []
    for phase in ranks[0]["phases"]:
        per_rank = [r["phases"].get(phase, {}) for r in ranks]
        sparse = [p.get("alltoallv", [0, 0, 0]) for p in per_rank]
        dense = [[sum(v[i] for kind, v in p.items() if kind != "alltoallv") for i in (0, 1)] for p in per_rank]
        rows.append((phase, sparse[0][0], max(s[1] for s in sparse), max(s[2] for s in sparse),
                     dense[0][0], max(d[1] for d in dense)))
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--graphs", nargs="*", help="METIS graph files (default: delaunay_n20, delaunay_n20_strips and grid100x100x100)")
    parser.add_argument("-k", type=int, default=64)
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--data", default="/tmp/partkit-bench-data", help="where generated graphs are cached")
    parser.add_argument("--command-runs", type=int, default=2,
                        help="runs of each whole command, alternately (0: not timed)")
    parser.add_argument("--json", help="write all results to this file")
    args = parser.parse_args(argv)
    from partkit.distributed.cost import predict

    paths = [Path(g) for g in args.graphs] if args.graphs else ensure_inputs(
        Path(args.data), ["delaunay_n20", "delaunay_n20_strips", "grid100x100x100"])
    results = []
    for path in paths:
        Path(args.data).mkdir(parents=True, exist_ok=True)
        serial = run_serial(path, args.k, args.seed, Path(args.data) / f"{path.stem}.serial.part")
        outputs = [Path(args.data) / f"{path.stem}.dist{i}.part" for i in (1, 2)]
        dist = run_distributed(path, args.k, args.seed, args.ranks, outputs[0])
        run_distributed(path, args.k, args.seed, args.ranks, outputs[1])  # the same seed again: compared by file
        checked = check_file(path, outputs[0], args.k)
        ordering = "random" if "delaunay" in path.stem else "geometric"
        predictions = {n: predict([r["phases"] for r in dist["ranks"]], n, alpha=ALPHA, beta=BETA,
                                  ordering=ordering) for n in PREDICT_RANKS}
        row = {"graph": path.stem, "n": serial["n"], "k": args.k, "ranks": args.ranks,
               "serial": serial, "distributed": {key: dist[key] for key in ("cut", "seconds", "levels")},
               "peak_mb_per_rank": [r["peak_mb"] for r in dist["ranks"]],
               "recomputed": checked, "same_partition_twice": filecmp.cmp(*outputs, shallow=False),
               "cut_ratio": dist["cut"] / serial["cut"],
               "memory_ratio": max(r["peak_mb"] for r in dist["ranks"]) / serial["peak_mb"],
               "time_ratio": dist["seconds"] / serial["seconds"],
               "commands": time_commands(path, args.k, args.seed, args.ranks,
                                         Path(args.data) / f"{path.stem}.command.part", args.command_runs)
               if args.command_runs else None,
               "communication": communication_table(dist["ranks"]),
               "prediction_ordering": ordering,
               "predicted_seconds": {str(n): p for n, p in predictions.items()}}
        results.append(row)
        _print_row(row)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


def _print_row(row):
    s, d = row["serial"], row["distributed"]
    print(f"\n## {row['graph']}: n={row['n']}, k={row['k']}, {row['ranks']} ranks vs serial default")
    print(f"cut: distributed {d['cut']} / serial {s['cut']} = {row['cut_ratio']:.3f}; "
          f"recomputed from the file {row['recomputed']['cut']} (equal: {row['recomputed']['cut'] == d['cut']})")
    print(f"balance: distributed {'within' if row['recomputed']['balanced'] else 'OUTSIDE'} eps "
          f"(imbalance {row['recomputed']['imbalance']:.4f}), serial {'within' if s['balanced'] else 'OUTSIDE'}")
    print(f"peak memory: per rank {', '.join(f'{m:.0f}' for m in row['peak_mb_per_rank'])} MiB, serial "
          f"{s['peak_mb']:.0f} MiB, max rank / serial = {row['memory_ratio']:.2f}")
    print(f"time: distributed {d['seconds']:.2f} s, serial {s['seconds']:.2f} s (read+partition+write), "
          f"ratio {row['time_ratio']:.2f}")
    if row["commands"]:
        c = row["commands"]
        print(f"commands (whole processes, best of runs): mpiexec -n {row['ranks']} {c['distributed']:.2f} s, "
              f"serial at one thread {c['serial']:.2f} s, ratio {c['distributed'] / c['serial']:.2f}")
    print(f"same seed twice gives the same file: {row['same_partition_twice']}")
    print("levels: " + " | ".join(d["levels"]))
    print("\n| phase | Alltoallv calls | words sent / rank (max) | messages sent / rank (max) "
          "| collective calls | collective words / rank (max) |")
    print("|---|---:|---:|---:|---:|---:|")
    for phase, calls, words, messages, collectives, collective_words in row["communication"]:
        print(f"| {phase} | {calls} | {words} | {messages} | {collectives} | {collective_words} |")
    predicted = row["predicted_seconds"]
    phases = list(next(iter(predicted.values())))
    print(f"\npredicted communication seconds ({row['prediction_ordering']} order, alpha={ALPHA:g} s, "
          f"beta={BETA:g} B/s)")
    print("| phase | " + " | ".join(f"{n} ranks" for n in predicted) + " |")
    print("|---|" + "---:|" * len(predicted))
    for phase in phases:
        print(f"| {phase} | " + " | ".join(f"{predicted[n][phase]:.4f}" for n in predicted) + " |")
    sys.stdout.flush()


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--serial-worker":
        serial_worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    elif len(sys.argv) > 1 and sys.argv[1] == "--mpi-worker":
        mpi_worker(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        main()
