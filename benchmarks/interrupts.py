"""Ctrl-C at random moments of a long ``partkit partition``: every try must exit 130 cleanly.

One calibration run measures how long the command runs once its signal
handlers are installed; then each try starts the command again, waits for
the handlers (SigCgt in /proc), sleeps a uniform random fraction (0 to 0.9)
of that duration, sends SIGINT (a run that ends first is not counted and
is repeated) and checks: status 130, the single line
``partkit: interrupted`` on stderr, no temporary file left, and no output
file or a complete one. Prints a JSON summary; exits 1 if any try failed.
Issue 17's target: 100 of 100 on a 10^6-vertex graph.

Examples::

    python benchmarks/interrupts.py --graph /tmp/partkit-readers/d1m.graph --tries 100 -k 64
    python benchmarks/interrupts.py --grid 200 --tries 5       # the quick version the tests run
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def wait_for_handlers(process, timeout=300.0):
    """Wait until ``process`` catches SIGTERM (the CLI installs its SIGINT and SIGTERM handlers together)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        with open(f"/proc/{process.pid}/status") as status:
            caught = int(next(line for line in status if line.startswith("SigCgt:")).split()[1], 16)
        if caught >> (signal.SIGTERM - 1) & 1:
            return True
        time.sleep(0.01)
    return False


def command(graph, k, output):
    return [sys.executable, "-m", "partkit", "partition", str(graph), "-k", str(k), "-o", str(output), "--quiet"]


def one_try(graph, k, folder, delay, n):
    """Run, interrupt after ``delay`` seconds of running, return ``(ok, description)``.

    ``ok`` is None when the run ended before the signal (run times vary on a busy machine).
    """
    output = folder / "out.part"
    if output.exists():
        output.unlink()
    process = subprocess.Popen(command(graph, k, output), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                               text=True)
    if not wait_for_handlers(process):
        process.kill()
        return False, "never installed its handlers"
    time.sleep(delay)
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=600)
    leftovers = [p.name for p in folder.iterdir() if p.name.startswith(".partkit-")]
    complete = not output.exists() or len(output.read_text().splitlines()) == n
    if process.returncode == 0:
        return None, "finished before the signal"
    ok = process.returncode == 130 and err == "partkit: interrupted\n" and not leftovers and complete
    return ok, f"status {process.returncode}, stderr {err.strip()[-200:]!r}, leftovers {leftovers}, complete {complete}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", help="graph file (default: a generated grid, --grid)")
    parser.add_argument("--grid", type=int, default=200, help="side of the generated grid (default 200)")
    parser.add_argument("-k", type=int, default=16)
    parser.add_argument("--tries", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    from partkit.generators import grid2d
    from partkit.io import read_graph, write_metis_graph

    rng = random.Random(args.seed)
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        graph = Path(args.graph) if args.graph else folder / "grid.graph"
        if not args.graph:
            write_metis_graph(graph, grid2d(args.grid, args.grid))
        n = read_graph(graph).n
        work = folder / "work"
        work.mkdir()
        calibration = subprocess.Popen(command(graph, args.k, work / "out.part"), stdout=subprocess.DEVNULL)
        wait_for_handlers(calibration)
        start = time.monotonic()
        calibration.wait()
        duration = time.monotonic() - start
        results, early = [], 0
        while len(results) < args.tries and early < 3 * args.tries:
            delay = rng.uniform(0.0, 0.9 * duration)
            ok, description = one_try(graph, args.k, work, delay, n)
            if ok is None:
                early += 1
                continue
            results.append({"delay_s": round(delay, 3), "ok": ok, "detail": description})
            if not ok:
                print(f"FAILED after {delay:.2f} s: {description}", file=sys.stderr)
    passed = sum(r["ok"] for r in results)
    summary = {"graph": str(args.graph or f"grid {args.grid}x{args.grid}"), "n": n, "k": args.k,
               "run_seconds": round(duration, 2), "tries": len(results), "exit_130_clean": passed,
               "runs_that_ended_before_the_signal": early,
               "failures": [r for r in results if not r["ok"]]}
    print(f"{passed} of {len(results)} interrupts exited 130 cleanly (run of {duration:.1f} s, n={n})")
    print(json.dumps(summary))
    return 0 if passed == len(results) == args.tries else 1


if __name__ == "__main__":
    sys.exit(main())
