"""Issue 17, readers: strict tokens, streams, size bombs, overflow, mesh elements."""

import gzip
import os
import subprocess
import sys
import threading

import numpy as np
import pytest

from partkit import Graph, InputError
from partkit.generators import grid2d
from partkit.io import read_graph, read_matrix, read_mesh, read_metis_graph, read_partition, read_vertex_weights

MM = "%%MatrixMarket matrix coordinate real general\n3 3 2\n"


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_bytes(text if isinstance(text, bytes) else text.encode())
    return path


def refused(path, reader=read_graph, match=None):
    with pytest.raises(InputError, match=match) as info:
        reader(path)
    message = str(info.value)
    assert message.startswith(str(path)) and "\n" not in message
    return message


# ------------------------------------------------ tokens the scipy parser would accept
@pytest.mark.parametrize("entry, match", [
    ("1 1 1.0 7", "found 4 tokens"),         # scipy ignores the rest of a line
    ("1 1 1_0", "'1_0' is not a number"),     # scipy reads the prefix 1, Python reads 10
    ("1 1 0x10", "'0x10' is not a number"),
    ("1 1 1d5", "'1d5' is not a number"),
    ("1_0 1 1", "index '1_0' is not an integer"),
    ("1 1 inf", "not finite"),
    ("1 1 1\x0c2", "is not a number"),        # form feed is not a line break
    ("1 1 1\x0b", "is not a number"),         # nor is vertical tab
    ("1 1 1\x1c2", "is not a number"),
])
def test_matrix_market_tokens_are_strict(tmp_path, entry, match):
    refused(write(tmp_path, "a.mtx", MM + entry + "\n2 3 2.5\n"), read_matrix, match)


def test_matrix_market_accepts_what_the_format_allows(tmp_path):
    text = "%%MATRIXMARKET Matrix Coordinate Double General\n% c\n\n3 3 2\n1 1 +1.5e+2\n\n2\t3  -.5\r\n"
    assert read_matrix(write(tmp_path, "a.mtx", text)).toarray()[[0, 1], [0, 2]].tolist() == [150.0, -0.5]
    integer = "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 +7\n"
    assert read_matrix(write(tmp_path, "i.mtx", integer)).data.tolist() == [7]
    refused(write(tmp_path, "c.mtx", MM + "1 1 1\n% late comment\n2 3 1\n"), read_matrix, "comment line")
    refused(write(tmp_path, "o.mtx", "%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 "
                  f"{2**63}\n"), read_matrix, "line 3: value '9223372036854775808' does not fit in 64 bits")


def test_matrix_market_symmetric_expansion_and_duplicates(tmp_path, data_dir):
    import scipy.io

    for name in ("bcsstk13.mtx", "jagmesh7.mtx", "west0067.mtx", "karate.mtx"):
        ours = read_matrix(data_dir / name)
        theirs = scipy.io.mmread(data_dir / name).tocsr()
        assert (ours != theirs).nnz == 0 and ours.has_sorted_indices
    refused(write(tmp_path, "d.mtx", "%%MatrixMarket matrix coordinate real symmetric\n3 3 3\n2 1 1\n3 3 1\n"
                  "1 2 1\n"), read_matrix, "line 5: duplicate entry")


# ----------------------------------------------------------------- streams
def test_pipe_and_process_substitution(tmp_path, data_dir):
    source = data_dir / "4elt.graph"
    code = ("import sys; from partkit.io import read_graph; g = read_graph(sys.argv[1]); "
            "print(g.n, g.m)")
    env = dict(os.environ, PYTHONPATH=str(os.path.dirname(os.path.dirname(__file__))))
    with open(source, "rb") as handle:
        run = subprocess.run([sys.executable, "-c", code, "/dev/stdin"], stdin=handle, capture_output=True,
                             text=True, env=env)
    assert run.stdout.split() == ["15606", "45878"], run.stderr
    run = subprocess.run(["bash", "-c", f"{sys.executable} -c '{code}' <(gzip -c {data_dir}/bcsstk13.mtx)"],
                         capture_output=True, text=True, env=env)
    assert run.stdout.split() == ["2003", "40940"], run.stderr


def test_fifo_is_read_once(tmp_path):
    fifo = tmp_path / "g"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text("3 2\n2\n1 3\n2\n"))
    writer.start()
    assert read_graph(fifo).m == 2
    writer.join()


# --------------------------------------------------------------- size bombs
def test_declared_sizes_are_checked_before_allocating(tmp_path):
    refused(write(tmp_path, "r.mtx", "%%MatrixMarket matrix coordinate real general\n2000000000 2000000000 1\n"
                  "1 1 1\n"), read_matrix, "too large for a")
    refused(write(tmp_path, "e.mtx", "%%MatrixMarket matrix coordinate real general\n10 10 100000000000000000000\n"),
            read_matrix, "more than the")
    refused(write(tmp_path, "n.graph", "2000000000 1\n2\n1\n"), read_metis_graph, "more than the")
    refused(write(tmp_path, "m.mesh", "2000000000\n1 2 3\n"), read_mesh, "more than the")
    path = write(tmp_path, "p.part", "0\n1000000000000\n")
    assert refused(path, lambda p: read_partition(p, n=2)).endswith("is not below the number of vertices n=2")


def test_gzip_bomb_stops_early(tmp_path):
    header = b"%%MatrixMarket matrix coordinate pattern general\n4 4 1\n1 2\n"
    bomb = tmp_path / "bomb.mtx.gz"
    with gzip.open(bomb, "wb") as handle:
        handle.write(header)
        zeros = b" " * (1 << 20)
        for _ in range(64):  # 64 MiB of blanks in a file of about 64 KiB
            handle.write(zeros)
    assert bomb.stat().st_size < 1 << 20
    assert "decompresses to more than" in refused(bomb, read_matrix)


def test_truncated_gzip(tmp_path):
    path = write(tmp_path, "t.mtx.gz", gzip.compress(MM.encode() + b"1 1 1\n2 2 1\n")[:-12])
    assert "cannot read" in refused(path, read_matrix)


# ------------------------------------------------------------ overflow, mesh
def test_weight_sums_that_leave_int64_are_refused(tmp_path):
    big = 2**62
    path = write(tmp_path, "v.graph", f"3 2 10\n{big} 2\n{big} 1 3\n{big} 2\n")
    assert "vertex weights sum to" in refused(path, read_metis_graph)
    path = write(tmp_path, "e.graph", f"2 1 1\n2 {big}\n1 {big}\n")
    assert "edge weights sum to" in refused(path, read_metis_graph)
    with pytest.raises(InputError, match="vertex weights sum"):
        Graph(grid2d(2, 2).xadj, grid2d(2, 2).adjncy, vwgt=[big, big, 1, 1])
    weights = write(tmp_path, "w.txt", f"{big}\n{big}\n")
    assert "sum to" in refused(weights, lambda p: read_vertex_weights(p, 2))


def test_mesh_element_with_a_repeated_node_is_refused(tmp_path):
    path = write(tmp_path, "r.mesh", "2\n1 2 3\n2 2 4\n")
    assert refused(path, read_mesh).endswith("line 3: the element lists node 2 twice")


def test_mesh_with_sparse_node_ids_and_coordinates(tmp_path):
    path = write(tmp_path, "s.mesh", "2\n1 2 2000000000\n2 2000000000 5\n")
    assert read_mesh(path).m == 1
    coords = write(tmp_path, "c.xyz", "0 0\n1 0\n")
    with pytest.raises(InputError, match="2 node coordinates for nodes up to 2000000000"):
        read_mesh(path, node_coords=coords)


def test_adjacency_check_names_the_vertices():
    g = grid2d(3, 3)
    with pytest.raises(InputError, match="vertex 1 has 1 neighbours but is listed by 0"):
        Graph([0, 1, 1], [1])
    adjwgt = g.adjwgt.copy()
    adjwgt[0] = 5
    with pytest.raises(InputError, match="vertex 2 lists 1 but not the other way round"):
        Graph(g.xadj, g.adjncy, adjwgt=adjwgt)


def test_graph_without_edges_validates():
    assert Graph([0, 0, 0], []).m == 0 and Graph([0], [], vwgt=np.zeros((0, 2))).n == 0
