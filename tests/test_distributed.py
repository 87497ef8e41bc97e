"""Distributed partitioning under MPI: each test launches ``mpiexec -n 2`` or ``-n 4`` in a subprocess."""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from partkit.distributed.launch import mpiexec_command, world_size

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
HAVE_MPI = importlib.util.find_spec("mpi4py") is not None
needs_mpi = pytest.mark.skipif(not HAVE_MPI, reason="mpi4py is not installed (pip install 'partkit[mpi]')")


def run_mpi(nprocs, argv, timeout=120):
    """Run ``argv`` on ``nprocs`` ranks; return stdout (fails the test on a non-zero exit)."""
    command, environ = mpiexec_command(nprocs, argv)
    environ["PYTHONPATH"] = os.pathsep.join(filter(None, [ROOT,
                                                          environ.get("PYTHONPATH")]))
    result = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=timeout)
    assert result.returncode == 0, result.stderr[-3000:]
    return result.stdout


def run_script(nprocs, source, *args):
    return run_mpi(nprocs, [sys.executable, "-c", textwrap.dedent(source), *map(str, args)])


def test_serial_package_does_not_import_mpi4py():
    code = ("import sys, partkit, partkit.cli, partkit.distributed.launch; from partkit.generators import grid2d; "
            "partkit.partition(grid2d(6, 6), 2); "
            "from partkit.cli import build_parser; build_parser(); print('mpi4py' in sys.modules)")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            env={**os.environ, "PYTHONPATH": ROOT})
    assert result.stdout.strip() == "False", result.stderr


def test_world_size_reads_the_launchers_variables():
    assert world_size({}) == 1
    assert world_size({"PMI_SIZE": "4"}) == 4
    assert world_size({"OMPI_COMM_WORLD_SIZE": "3"}) == 3
    assert world_size({"PMI_SIZE": ""}) == 1


READ_AND_COMPARE = """
import json, sys
import numpy as np
from mpi4py import MPI
from partkit.distributed import read_graph
from partkit.io import read_graph as read_serial
comm = MPI.COMM_WORLD
results = {}
for path in sys.argv[1:]:
    g = read_graph(comm, path)
    blocks = comm.gather((g.vtxdist.tolist(), np.diff(g.xadj), g.adjncy), root=0)
    if comm.rank == 0:
        s = read_serial(path)
        degrees = np.concatenate([b[1] for b in blocks])
        adjncy = np.concatenate([b[2] for b in blocks])
        ends = np.cumsum(degrees)
        rows = [np.sort(adjncy[a:b]) for a, b in zip(ends - degrees, ends)]
        serial = [np.sort(s.adjncy[s.xadj[v]:s.xadj[v + 1]]) for v in range(s.n)]
        same = len(rows) == s.n and all(np.array_equal(a, b) for a, b in zip(rows, serial))
        results[path] = {"vtxdist": blocks[0][0], "same": same}
if comm.rank == 0:
    print(json.dumps(results))
"""


@needs_mpi
def test_read_graph_blocks_equal_the_serial_reader(data_dir):
    paths = [str(data_dir / name) for name in ("4elt.graph", "bcsstk13.mtx", "west0067.mtx")]
    results = json.loads(run_script(3, READ_AND_COMPARE, *paths))
    for path in paths:
        assert results[path]["same"], path
        sizes = np.diff(results[path]["vtxdist"])
        assert len(sizes) == 3 and sizes.min() > 0


READ_ERRORS = """
import json, sys
from mpi4py import MPI
from partkit.distributed import read_graph
from partkit.errors import InputError
messages = []
for path in sys.argv[1:]:
    try:
        read_graph(MPI.COMM_WORLD, path)
        messages.append(None)
    except InputError as exc:
        messages.append(str(exc))
gathered = MPI.COMM_WORLD.gather(messages, root=0)
if MPI.COMM_WORLD.rank == 0:
    print(json.dumps(gathered))
"""

BAD_GRAPHS = [
    ("3 2\n2\n1 3\n2 9\n", "line 4: neighbour 9 is outside 1..3"),
    ("3 2\n2\n1 3\n2\n\n1\n", "found more vertex lines"),
    ("3 3\n2\n1 3\n2\n", "the header declares 3 edges"),
    ("3 2\n% comment\n2\n1 x\n2\n", "line 4: entry 'x' is not an integer"),
    ("3 2 1\n2 1\n1 1 3 -1\n2 -1\n", "line 3: negative edge weight"),
]
BAD_MATRICES = [
    ("%%MatrixMarket matrix coordinate pattern general\n3 3 3\n1 2\n2 3\n3 4\n",
     "line 5: index (3, 4) is outside the 3x3 matrix"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 2 0.5\n2 x 1.0\n", "line 4: index 'x' is not an integer"),
    ("%%MatrixMarket matrix coordinate real general\n3 3 3\n1 2 0.5\n2 3 1.0\n", "declares 3 entries, found 2"),
]


@needs_mpi
def test_read_graph_errors_reach_every_rank(tmp_path):
    cases = [(f"bad{number}.graph", text, message) for number, (text, message) in enumerate(BAD_GRAPHS)]
    cases += [(f"bad{number}.mtx", text, message) for number, (text, message) in enumerate(BAD_MATRICES)]
    paths = []
    for name, text, _ in cases:
        paths.append(tmp_path / name)
        paths[-1].write_text(text)
    per_rank = json.loads(run_script(2, READ_ERRORS, *paths))
    for number, (name, _, message) in enumerate(cases):
        for messages in per_rank:
            assert message in messages[number] and name in messages[number], messages[number]


PARTITION_TWICE = """
import json, sys
import numpy as np
from mpi4py import MPI
import partkit
from partkit.distributed import partition
from partkit.errors import InputError
from partkit.generators import delaunay
from partkit.metrics import edge_cut, max_part_weights, part_weights
comm = MPI.COMM_WORLD
graph, k = delaunay(int(sys.argv[1]), seed=1), int(sys.argv[2])
vtxdist = np.linspace(0, graph.n, comm.size + 1).astype(np.int64)
a, b = vtxdist[comm.rank], vtxdist[comm.rank + 1]
rows = dict(vtxdist=vtxdist, xadj=graph.xadj[a:b + 1] - graph.xadj[a], adjncy=graph.adjncy[graph.xadj[a]:graph.xadj[b]])
first = partition(comm, rows["vtxdist"], rows["xadj"], rows["adjncy"], k, seed=5)
second = partition(comm, rows["vtxdist"], rows["xadj"], rows["adjncy"], k, seed=5)
other = partition(comm, rows["vtxdist"], rows["xadj"], rows["adjncy"], k, seed=6)
strong = partition(comm, rows["vtxdist"], rows["xadj"], rows["adjncy"], k, seed=5, preset="strong")
try:
    partition(comm, rows["vtxdist"], rows["xadj"], rows["adjncy"], k, preset="best")
    refused = None
except InputError as exc:
    refused = str(exc)
refusals = comm.gather(refused, root=0)
parts = [np.concatenate(comm.gather(p, root=0) or [[]]) for p in (first, second, other, strong)]
if comm.rank == 0:
    part = parts[0].astype(np.int64)
    print(json.dumps({"same": bool(np.array_equal(parts[0], parts[1])),
                      "seed_matters": not np.array_equal(parts[0], parts[2]),
                      "preset_matters": not np.array_equal(parts[0], parts[3]),
                      "strong_balanced": bool(np.all(part_weights(graph, parts[3].astype(np.int64), k)
                                                     <= max_part_weights(graph, k, 0.03))),
                      "refusals": refusals,
                      "balanced": bool(np.all(part_weights(graph, part, k) <= max_part_weights(graph, k, 0.03))),
                      "parts": int(np.unique(part).size), "cut": edge_cut(graph, part),
                      "serial": edge_cut(graph, partkit.partition(graph, k))}))
"""


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 4])
def test_partition_is_balanced_deterministic_and_close_to_serial(nprocs):
    # 12000 vertices and k = 4 coarsen once (the coarsest graph holds 2000 k = 8000 vertices at most)
    result = json.loads(run_script(nprocs, PARTITION_TWICE, 12000, 4))
    assert result["same"] and result["seed_matters"]
    # the preset reaches the initial partition; an unknown one is refused on every rank
    assert result["preset_matters"] and result["strong_balanced"], result
    assert all(message and "preset must be one of fast, default, strong" in message
               for message in result["refusals"]), result
    assert result["balanced"] and result["parts"] == 4
    assert result["cut"] <= 1.2 * result["serial"], result


DEEP = """
import json, sys
import numpy as np
from mpi4py import MPI
import partkit
import partkit.distributed.multilevel as engine
from partkit.distributed.comm import Channel
from partkit.generators import grid2d
from partkit.graph import Graph
from partkit.metrics import edge_cut, max_part_weights, part_weights
comm = MPI.COMM_WORLD
k, scattered = int(sys.argv[1]), sys.argv[2] == "scattered"
engine.COARSEST_PER_PART = 20  # coarsen 40 000 vertices through several levels at test sizes
graph = grid2d(200, 200)  # numbered row by row: every rank's block is a strip
if scattered:  # vertices renumbered at random: every rank's block is spread over the whole grid
    new = np.random.default_rng(3).permutation(graph.n)
    rows = np.repeat(new, np.diff(graph.xadj))
    order = np.lexsort((new[graph.adjncy], rows))
    graph = Graph(np.concatenate([[0], np.cumsum(np.bincount(rows, minlength=graph.n))]), new[graph.adjncy][order])
vtxdist = np.linspace(0, graph.n, comm.size + 1).astype(np.int64)
a, b = vtxdist[comm.rank], vtxdist[comm.rank + 1]
levels, shares = [], []
coarsen = engine._coarsen
def watched(*args):  # the largest share of a coarse level's vertices that one rank owns
    graphs, maps = coarsen(*args)
    shares.extend(float(np.diff(g.vtxdist).max() / g.n) for g in graphs[1:])
    return graphs, maps
engine._coarsen = watched
part = engine.partition_block(Channel(comm), vtxdist, graph.xadj[a:b + 1] - graph.xadj[a],
                              graph.adjncy[graph.xadj[a]:graph.xadj[b]], k, seed=2, progress=levels.append)
part = np.concatenate(comm.gather(part, root=0) or [[]]).astype(np.int64)
if comm.rank == 0:
    print(json.dumps({"levels": len(levels), "valid": bool(part.min() >= 0 and part.max() < k),
                      "parts": int(np.unique(part).size),
                      "balanced": bool(np.all(part_weights(graph, part, k) <= max_part_weights(graph, k, 0.03))),
                      "cut": edge_cut(graph, part), "serial": edge_cut(graph, partkit.partition(graph, k)),
                      "rank_share": max(shares)}))
"""


@needs_mpi
@pytest.mark.parametrize("nprocs, k, layout", [(8, 256, "strips"), (4, 16, "scattered")])
def test_partition_through_several_levels(nprocs, k, layout):
    # strips coarsen within the ranks' blocks, scattered vertices by clustering across ranks
    result = json.loads(run_script(nprocs, DEEP, k, layout))
    assert result["levels"] >= 4, result  # the finest graph and at least three coarser ones
    assert result["valid"] and result["balanced"] and result["parts"] == k, result
    assert result["cut"] <= 1.25 * result["serial"], result
    # the coarse vertices stay spread over the ranks (clusters are not led by the low ids of rank 0)
    assert result["rank_share"] <= 1.5 / nprocs, result


CHECKERBOARD = """
import json
import numpy as np
from mpi4py import MPI
from partkit.distributed.coarsening import contract_within_blocks
from partkit.distributed.comm import Channel
from partkit.distributed.graph import LocalGraph
from partkit.generators import grid2d
comm = MPI.COMM_WORLD
grid = grid2d(40, 40)
row, column = np.divmod(np.arange(grid.n), 40)
new = np.argsort(np.argsort((row + column) % 2, kind="stable"))  # white squares on rank 0, black on rank 1
order = np.argsort(new)  # the old id of every new id
xadj = np.concatenate([[0], np.cumsum(np.diff(grid.xadj)[order])])
adjncy = np.concatenate([new[grid.adjncy[grid.xadj[v]:grid.xadj[v + 1]]] for v in order])
vtxdist = np.array([0, grid.n // 2, grid.n])
a, b = vtxdist[comm.rank], vtxdist[comm.rank + 1]
block = LocalGraph(Channel(comm), vtxdist, xadj[a:b + 1] - xadj[a], adjncy[xadj[a]:xadj[b]],
                   np.ones(b - a, dtype=np.int64), np.ones(xadj[b] - xadj[a], dtype=np.int64))
coarse, cmap = contract_within_blocks(block, 4, 1, 0.0, 1.0)  # the step taken whatever the blocks hold
if comm.rank == 0:
    print(json.dumps({"fine": grid.n, "coarse": coarse.n}))
"""


@needs_mpi
def test_block_coarsening_never_merges_vertices_cut_off_from_their_block():
    # every neighbour of a white square is black: no edge inside a block, so no vertex may merge with another
    # (merged as isolated vertices, far-apart squares made a coarse graph that cut 3 x more)
    result = json.loads(run_script(2, CHECKERBOARD))
    assert result["coarse"] == result["fine"], result


UNEVEN_BLOCKS = """
import json
import numpy as np
from mpi4py import MPI
from partkit.distributed import partition
from partkit.generators import grid2d
comm = MPI.COMM_WORLD

def run(graph, vtxdist, k, vwgt=None):
    a, b = vtxdist[comm.rank], vtxdist[comm.rank + 1]
    part = partition(comm, vtxdist, graph.xadj[a:b + 1] - graph.xadj[a], graph.adjncy[graph.xadj[a]:graph.xadj[b]],
                     k, vwgt=None if vwgt is None else vwgt[a:b])
    return np.concatenate(comm.allgather(part))

grid = grid2d(100, 50)
lopsided = run(grid, np.array([0] * comm.size + [grid.n]), 2)  # every vertex on the last rank
tiny = run(grid2d(2, 1), np.minimum(np.arange(comm.size + 1), 2), 2)  # more ranks than vertices
vwgt = np.arange(grid.n) % 7 + 1
weighted = run(grid, np.linspace(0, grid.n, comm.size + 1).astype(np.int64), 5, vwgt)
if comm.rank == 0:
    print(json.dumps({"lopsided": np.bincount(lopsided).tolist(), "tiny": sorted(tiny.tolist()),
                      "weighted": np.bincount(weighted, weights=vwgt).tolist(),
                      "weighted_bound": int(np.floor(1.03 * vwgt.sum() / 5))}))
"""


@needs_mpi
def test_partition_handles_empty_ranks_and_vertex_weights():
    result = json.loads(run_script(3, UNEVEN_BLOCKS))
    assert len(result["lopsided"]) == 2 and max(result["lopsided"]) <= 2575 and result["tiny"] == [0, 1]
    assert len(result["weighted"]) == 5 and max(result["weighted"]) <= result["weighted_bound"]


@needs_mpi
def test_cli_under_mpi_writes_the_partition_its_summary_describes(tmp_path):
    from partkit.generators import grid2d
    from partkit.io import read_partition, write_metis_graph
    from partkit.metrics import edge_cut, is_balanced

    path = tmp_path / "grid.graph"
    graph = grid2d(90, 60)
    write_metis_graph(path, graph)
    out = tmp_path / "grid.part"
    result = json.loads(run_mpi(2, [sys.executable, "-m", "partkit", "partition", str(path), "-k", "3",
                                    "-o", str(out), "--json"]))
    part = read_partition(out, n=graph.n, k=3)
    assert result["ranks"] == 2 and result["method"] == "distributed"
    assert result["cut"] == edge_cut(graph, part) and result["balanced"] and is_balanced(graph, part, 3)
    assert not list(tmp_path.glob(".*.tmp"))


@needs_mpi
@pytest.mark.parametrize("text, k, message", [
    ("3 2\n2\n1 3\n2\n", 5, "k must be an integer in 1..n=3"),
    ("3 2\n2\n1 3\n1\n", 2, "the adjacency is not symmetric"),
])
def test_cli_under_mpi_reports_bad_input_once(tmp_path, text, k, message):
    path = tmp_path / "tiny.graph"
    path.write_text(text)
    command, environ = mpiexec_command(2, [sys.executable, "-m", "partkit", "partition", str(path), "-k", str(k)])
    environ["PYTHONPATH"] = ROOT
    result = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2
    assert result.stderr.count("partkit: error:") == 1 and message in result.stderr, result.stderr



def test_serial_only_options_come_from_the_parser():
    """Every option of ``partkit partition`` that its distributed form does not take is refused when given,
    whatever it is (a new serial option included); the options it takes, and defaults, are not."""
    import doctest

    from partkit.cli import build_parser
    from partkit.cli import distributed

    assert doctest.testmod(distributed).failed == 0
    parser = build_parser().commands["partition"]
    takes = distributed.COMMANDS["partition"].takes
    base = ["g.graph", "-k", "4"]
    assert distributed.serial_only(parser, parser.parse_args(base + ["--seed", "3", "--json", "-o", "x",
                                                                     "--preset", "strong"]), takes) is None
    for argv, flag in ((["--contiguous"], "--contiguous"), (["--threads", "2"], "--threads"),
                       (["--edge-weights", "abs"], "--edge-weights"), (["-O", "nstarts=2"], "--option"),
                       (["--objective", "volume"], "--objective"), (["--hierarchy", "2:2"], "--hierarchy")):
        assert distributed.serial_only(parser, parser.parse_args(base + argv), takes) == flag
    parser.add_argument("--a-new-serial-flag", type=int, default=0)
    assert distributed.serial_only(parser, parser.parse_args(base + ["--a-new-serial-flag", "1"]),
                                   takes) == "--a-new-serial-flag"


@needs_mpi
def test_cli_under_mpi_refuses_a_serial_only_option_once(tmp_path):
    path = tmp_path / "tiny.graph"
    path.write_text("3 2\n2\n1 3\n2\n")
    command, environ = mpiexec_command(2, [sys.executable, "-m", "partkit", "partition", str(path), "-k", "2",
                                           "--threads", "2"])
    environ["PYTHONPATH"] = ROOT
    result = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("partkit: error: --threads is not available under MPI") == 1, result.stderr

def test_prediction_scales_the_measured_exchanges():
    from types import SimpleNamespace

    from partkit.collectives import best_allreduce
    from partkit.distributed.cost import phase_totals, predict

    alpha, beta = 1e-6, 1e9
    log = [SimpleNamespace(phase="coarsen 0", kind="alltoallv", words=1000, messages=3),
           SimpleNamespace(phase="coarsen 0", kind="allreduce", words=64, messages=0)]
    totals = phase_totals(log)
    assert totals == {"coarsen 0": {"alltoallv": [1, 1000, 3], "allreduce": [1, 64, 0]}}
    measured = [totals] * 4  # four ranks, the same log
    at4 = predict(measured, 4, alpha=alpha, beta=beta)["coarsen 0"]
    assert at4 == pytest.approx(3 * alpha + 8000 / beta + best_allreduce(4, 512, alpha, beta)[1])
    at64 = predict(measured, 64, alpha=alpha, beta=beta)["coarsen 0"]  # 62.5 words to 62.5 ranks
    assert at64 == pytest.approx(62.5 * alpha + 500 / beta + best_allreduce(64, 512, alpha, beta)[1])
    geometric = predict(measured, 1024, alpha=alpha, beta=beta, ordering="geometric")
    words = 1000 * (4 / 1024) ** (2 / 3)
    assert geometric["total"] == pytest.approx(min(26, words) * alpha + 8 * words / beta
                                               + best_allreduce(1024, 512, alpha, beta)[1])


@needs_mpi
def test_benchmark_runs_end_to_end(tmp_path):
    from partkit.generators import grid2d
    from partkit.io import write_metis_graph

    path = tmp_path / "grid.graph"
    write_metis_graph(path, grid2d(100, 60))
    out = tmp_path / "result.json"
    run = subprocess.run([sys.executable, os.path.join(ROOT, "benchmarks", "distributed.py"), "--graphs", str(path),
                          "-k", "2", "--ranks", "2", "--data", str(tmp_path), "--command-runs", "1",
                          "--json", str(out)],
                         capture_output=True, text=True, timeout=300,
                         env={**os.environ, "PYTHONPATH": ROOT})
    assert run.returncode == 0, run.stderr
    (row,) = json.loads(out.read_text())
    assert row["same_partition_twice"] and row["recomputed"]["cut"] == row["distributed"]["cut"]
    assert row["recomputed"]["balanced"] and set(row["predicted_seconds"]) == {"64", "256", "1024"}
    assert "predicted communication seconds" in run.stdout
    assert row["commands"]["serial"] > 0 and row["commands"]["distributed"] > 0


# ---------------------------------------------------------------- repartitioning (partkit.distributed.repartition)

REPARTITION = """
import doctest, json, sys
import numpy as np
from mpi4py import MPI
import partkit
import partkit.distributed.adaptive
from partkit.balance.repartition import repartition as serial, with_weights
from partkit.distributed import repartition
from partkit.generators import delaunay
from partkit.metrics import edge_cut, is_balanced
comm = MPI.COMM_WORLD
graph, k, itr = delaunay(6000, seed=4), 8, float(sys.argv[1])
old = partkit.partition(graph, k, seed=0)
c = graph.coords
w = np.where(np.hypot(c[:, 0] - 0.3, c[:, 1] - 0.4) < 0.25, 4, 1)
vtxdist = np.array([0, 100] + [int(graph.n * (r + 1) / comm.size) for r in range(1, comm.size)])  # uneven
a, b = vtxdist[comm.rank], vtxdist[comm.rank + 1]
part = repartition(comm, vtxdist, graph.xadj[a:b + 1] - graph.xadj[a], graph.adjncy[graph.xadj[a]:graph.xadj[b]],
                   old[a:b], k, vwgt=w[a:b], itr=itr)
part = np.concatenate(comm.allgather(part))
examples = doctest.testmod(partkit.distributed.adaptive)
if comm.rank == 0:
    s = serial(graph, old, w, k, itr=itr)
    print(json.dumps({"objective": itr * edge_cut(graph, part) + int(w[part != old].sum()),
                      "serial": s.objective(itr), "balanced": is_balanced(with_weights(graph, w), part, k),
                      "doctest": [examples.attempted, examples.failed]}))
"""


@needs_mpi
@pytest.mark.parametrize("nprocs", [2, 4])
def test_repartition_on_ranks_is_within_10_percent_of_serial(nprocs):
    for itr in (1000.0, 1.0):
        result = json.loads(run_script(nprocs, REPARTITION, itr))
        assert result["balanced"], result
        assert result["objective"] <= 1.10 * result["serial"], result
        assert result["doctest"][0] > 5 and result["doctest"][1] == 0


REPARTITION_ERRORS = """
import json
import numpy as np
from mpi4py import MPI
from partkit.distributed import repartition
from partkit.errors import InputError
from partkit.generators import grid2d
comm = MPI.COMM_WORLD
g = grid2d(12, 10)
vtxdist = np.linspace(0, g.n, comm.size + 1).astype(np.int64)
a, b = vtxdist[comm.rank], vtxdist[comm.rank + 1]
rows = (vtxdist, g.xadj[a:b + 1] - g.xadj[a], g.adjncy[g.xadj[a]:g.xadj[b]])
old = np.arange(a, b) * 4 // g.n
last = comm.rank == comm.size - 1
cases = {"length": dict(old_part=old[:-1] if last else old),
         "range": dict(old_part=np.where(np.arange(a, b) == g.n - 1, 4, old)),
         "vsize": dict(old_part=old, vsize=np.where(np.arange(a, b) == 0, -1, 1)),
         "k": dict(old_part=old, k=0)}
messages = {}
for name, case in cases.items():
    try:
        repartition(comm, *rows, case["old_part"], case.get("k", 4), vsize=case.get("vsize"))
        messages[name] = None
    except InputError as exc:
        messages[name] = str(exc)
gathered = comm.gather(messages, root=0)
if comm.rank == 0:
    print(json.dumps(gathered))
"""


@needs_mpi
def test_repartition_errors_reach_every_rank():
    per_rank = json.loads(run_script(3, REPARTITION_ERRORS))
    expected = {"length": "rank 2: the old partition has 39 entries for 40 local vertices",
                "range": "rank 2: old part ids must be integers in 0..3",
                "vsize": "rank 0: vsize must be non-negative integers",
                "k": "k must be an integer in 1..n=120, got 0"}
    assert len(per_rank) == 3
    for messages in per_rank:
        for name, message in expected.items():
            assert messages[name] is not None and message in messages[name], (name, messages[name])


@needs_mpi
def test_cli_repartition_under_mpi_matches_the_serial_command(tmp_path):
    from partkit.generators import delaunay
    from partkit.io import read_partition, write_metis_graph, write_partition
    from partkit.metrics import edge_cut

    import partkit

    graph = delaunay(3000, seed=2)
    path = tmp_path / "mesh.graph"
    write_metis_graph(path, graph)
    old = partkit.partition(graph, 4, seed=0)
    write_partition(tmp_path / "old.part", old)
    weights = np.where(graph.coords[:, 0] < 0.3, 3, 1)
    np.savetxt(tmp_path / "w.txt", weights, fmt="%d")
    argv = ["-m", "partkit", "repartition", str(path), str(tmp_path / "old.part"), "--weights",
            str(tmp_path / "w.txt"), "-k", "4", "--json"]
    result = json.loads(run_mpi(2, [sys.executable, *argv, "-o", str(tmp_path / "mpi.part")], timeout=300))
    part = read_partition(tmp_path / "mpi.part", n=graph.n, k=4)
    assert result["ranks"] == 2 and result["strategy"] == "multilevel" and result["balanced"]
    assert result["cut"] == edge_cut(graph, part) and result["migration"] == int(weights[part != old].sum())
    serial = subprocess.run([sys.executable, *argv, "-o", str(tmp_path / "serial.part")], capture_output=True,
                            text=True, env={**os.environ, "PYTHONPATH": ROOT}, timeout=300)
    assert serial.returncode == 0, serial.stderr[-3000:]
    assert json.loads(serial.stdout)["cut"] == result["cut"]
    command, environ = mpiexec_command(2, [sys.executable, *argv, "--strategy", "diffusion"])
    environ["PYTHONPATH"] = ROOT
    refused = subprocess.run(command, env=environ, capture_output=True, text=True, timeout=300)
    assert refused.returncode == 2 and refused.stderr.count("partkit: error:") == 1, refused.stderr[-3000:]
    assert "--strategy is not available under MPI" in refused.stderr
