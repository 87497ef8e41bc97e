"""partkit's readers against scipy.io.mmread, and the METIS reader's peak memory.

On a 10^6-vertex Delaunay graph (generated once into the work folder, or
given with ``--graph``): the time of ``partkit.io.read_matrix`` and of
``partkit.io.read_graph`` on its Matrix Market file (symmetric pattern,
lower triangle) against ``scipy.io.mmread`` on the same file (best of
``--repeat``), and, in a fresh process, the peak resident memory that
``read_metis_graph`` adds, against the bytes of the graph's arrays
(xadj, adjncy, adjwgt, vwgt). Targets (issue 17): Matrix Market read
<= 1.5 x mmread, METIS peak <= 3 x the graph's arrays.

Examples::

    python benchmarks/readers.py                    # generates /tmp/partkit-readers/d1m.graph once
    python benchmarks/readers.py --graph g.graph --repeat 5
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

MEMORY_PROBE = """
import json, sys
from partkit.io import read_metis_graph
small = sys.argv[2]
read_metis_graph(small)  # compile and load the kernels first
def status(key):
    with open("/proc/self/status") as f:
        return next(int(line.split()[1]) * 1024 for line in f if line.startswith(key))
with open("/proc/self/clear_refs", "w") as f:
    f.write("5")  # reset the peak (VmHWM) to the current resident size
before = status("VmRSS:")
graph = read_metis_graph(sys.argv[1])
peak = status("VmHWM:")
arrays = sum(a.nbytes for a in (graph.xadj, graph.adjncy, graph.adjwgt, graph.vwgt))
print(json.dumps({"before": before, "peak": peak, "arrays": arrays, "n": graph.n, "m": graph.m}))
"""


def prepare(folder, graph_file):
    """The METIS and Matrix Market files of the benchmark graph (generated when absent)."""
    import numpy as np
    import scipy.io
    import scipy.sparse as sp

    from partkit.generators import delaunay
    from partkit.io import read_metis_graph, write_metis_graph

    folder.mkdir(parents=True, exist_ok=True)
    metis = Path(graph_file) if graph_file else folder / "d1m.graph"
    if not metis.exists():
        write_metis_graph(metis, delaunay(10**6, seed=0))
    mtx = folder / (metis.stem + ".mtx")
    if not mtx.exists():
        g = read_metis_graph(metis)
        lower = sp.tril(sp.csr_matrix((np.ones(g.adjncy.size), g.adjncy, g.xadj), shape=(g.n, g.n)), -1)
        scipy.io.mmwrite(mtx, lower.tocoo(), field="pattern", symmetry="symmetric")
    small = folder / "small.graph"
    if not small.exists():
        write_metis_graph(small, delaunay(1000, seed=0))
    return metis, mtx, small


def best_time(function, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return min(times)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graph", help="METIS graph file (default: a generated 10^6-vertex Delaunay graph)")
    parser.add_argument("--folder", default="/tmp/partkit-readers", help="where generated files go")
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args(argv)
    import scipy.io

    from partkit.io import read_graph, read_matrix

    metis, mtx, small = prepare(Path(args.folder), args.graph)
    read_graph(small)  # compile the kernels
    scipy_s = best_time(lambda: scipy.io.mmread(mtx), args.repeat)
    scipy_csr_s = best_time(lambda: scipy.io.mmread(mtx).tocsr(), args.repeat)
    matrix_s = best_time(lambda: read_matrix(mtx), args.repeat)
    graph_s = best_time(lambda: read_graph(mtx), args.repeat)
    metis_s = best_time(lambda: read_graph(metis), args.repeat)
    probe = subprocess.run([sys.executable, "-c", MEMORY_PROBE, str(metis), str(small)],
                           capture_output=True, text=True, check=True)
    memory = json.loads(probe.stdout)
    added = memory["peak"] - memory["before"]
    result = {"file": str(mtx), "n": memory["n"], "m": memory["m"],
              "scipy_mmread_s": scipy_s, "scipy_mmread_tocsr_s": scipy_csr_s, "read_matrix_s": matrix_s, "read_graph_mtx_s": graph_s,
              "read_matrix_ratio": matrix_s / scipy_s, "read_matrix_ratio_to_tocsr": matrix_s / scipy_csr_s, "read_graph_mtx_ratio": graph_s / scipy_s,
              "read_metis_s": metis_s, "metis_peak_added_bytes": added,
              "graph_array_bytes": memory["arrays"], "metis_peak_ratio": added / memory["arrays"]}
    print(f"{mtx.name}: n={memory['n']} m={memory['m']}")
    print(f"  scipy.io.mmread          {scipy_s:7.3f} s")
    print(f"  scipy mmread().tocsr()   {scipy_csr_s:7.3f} s")
    print(f"  partkit read_matrix      {matrix_s:7.3f} s   ratio {matrix_s / scipy_s:.2f} (target <= 1.5), "
          f"{matrix_s / scipy_csr_s:.2f} to mmread().tocsr() (the same CSR result, without duplicate checks)")
    print(f"  partkit read_graph (mtx) {graph_s:7.3f} s   ratio {graph_s / scipy_s:.2f}")
    print(f"  partkit read_graph (METIS) {metis_s:5.3f} s")
    print(f"  METIS read peak added {added / 2**20:.0f} MiB, graph arrays {memory['arrays'] / 2**20:.0f} MiB: "
          f"ratio {added / memory['arrays']:.2f} (target <= 3)")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
