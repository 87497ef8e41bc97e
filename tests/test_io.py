import gzip

import numpy as np
import pytest

from partkit import InputError
from partkit.generators import grid2d
from partkit.io import (read_coordinates, read_graph, read_matrix, read_mesh, read_metis_graph,
                        read_partition, write_coordinates, write_metis_graph, write_partition)


def write(tmp_path, name, text, mode="w"):
    path = tmp_path / name
    if mode == "wb":
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


# ----------------------------------------------------------- Matrix Market
def test_matrix_market_symmetric_real(tmp_path):
    path = write(tmp_path, "a.mtx", "%%MatrixMarket matrix coordinate real symmetric\n% c\n3 3 4\n"
                                    "1 1 4.0\n2 1 -1.5\n3 2 2\n3 3 1\n")
    a = read_matrix(path).toarray()
    assert a[1, 0] == a[0, 1] == -1.5 and a[2, 1] == a[1, 2] == 2
    g = read_graph(path)
    assert (g.n, g.m) == (3, 2)


def test_matrix_market_general_is_symmetrised(tmp_path):
    path = write(tmp_path, "b.mtx", "%%MatrixMarket matrix coordinate pattern general\n3 3 2\n1 2\n3 1\n")
    g = read_graph(path)
    assert sorted(map(tuple, np.argwhere(g.to_scipy().toarray()))) == [(0, 1), (0, 2), (1, 0), (2, 0)]


def test_matrix_market_skew_complex_hermitian_array(tmp_path):
    skew = write(tmp_path, "s.mtx", "%%MatrixMarket matrix coordinate integer skew-symmetric\n2 2 1\n2 1 3\n")
    assert read_matrix(skew).toarray().tolist() == [[0, -3], [3, 0]]
    herm = write(tmp_path, "h.mtx", "%%MatrixMarket matrix coordinate complex hermitian\n2 2 2\n"
                                    "1 1 1 0\n2 1 0 2\n")
    assert read_matrix(herm).toarray()[0, 1] == -2j
    dense = write(tmp_path, "d.mtx", "%%MatrixMarket matrix array real general\n2 2\n1\n0\n3\n4\n")
    assert read_matrix(dense).toarray().tolist() == [[1, 3], [0, 4]]
    sym = write(tmp_path, "e.mtx", "%%MatrixMarket matrix array real symmetric\n2 2\n1\n5\n4\n")
    assert read_matrix(sym).toarray().tolist() == [[1, 5], [5, 4]]


def test_matrix_market_crlf_blank_lines_comments_and_gzip(tmp_path):
    text = "%%MatrixMarket matrix coordinate real general\r\n%comment\r\n\r\n2 2 1\r\n\r\n1 2 7.5\r\n"
    path = write(tmp_path, "c.mtx", text)
    assert read_graph(path).m == 1
    gz = tmp_path / "c.mtx.gz"
    gz.write_bytes(gzip.compress(text.encode()))
    assert read_graph(gz).m == 1
    assert read_graph(gz).name == "c.mtx"


@pytest.mark.parametrize("text, message", [
    ("", "empty file"),
    ("hello\n", "missing '%%MatrixMarket' header"),
    ("%%MatrixMarket matrix coordinate real general\n", "missing the size line"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 3\n1 1 1\n", "truncated"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 1 1\n2 2 2\n", "more entries"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 3 1\n", "outside the 2x2"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n0 1 1\n", "outside the 2x2"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 x 1\n", "index 'x' is not an integer"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 abc\n", "value 'abc' is not a number"),
    # issue 28.14: the tokens are quoted as in the file, not with their + turned into 0
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n+1 2 1\n", r"line 3: index '\+1' is not an integer"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 +1\n2 1 +x\n", r"line 4: value '\+x' is not a number"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 +1.5\n", r"value '\+1.5' of an integer"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 2 nan\n", "not finite"),
    ("%%MatrixMarket matrix coordinate real general\n2 two 1\n", "not an integer"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 -1\n", "negative size"),
    ("%%MatrixMarket matrix coordinate integer general\n2 2 1\n1 2 1.5\n", "not an integer"),
    ("%%MatrixMarket matrix coordinate real general\n2 2 2\n1 2 1\n1 2 1\n", "duplicate entry"),
    ("%%MatrixMarket matrix coordinate real symmetric\n2 2 2\n1 2 1\n2 1 1\n", "duplicate entry"),
    ("%%MatrixMarket matrix coordinate real skew-symmetric\n2 2 1\n1 1 1\n", "no diagonal"),
    ("%%MatrixMarket matrix array pattern general\n1 1\n", "array pattern"),
    ("%%MatrixMarket vector coordinate real general\n1 1 0\n", "object 'vector'"),
    ("%%MatrixMarket matrix coordinate real general\n%%GraphBLAS type int8_t\n1 1 1\n1 1 1\n",
     "GraphBLAS type int8_t needs an integer"),
    ("%%MatrixMarket matrix coordinate integer general\n%%GraphBLAS type uint8_t\n1 1 1\n1 1 300\n",
     "does not fit"),
])
def test_matrix_market_errors_name_file_and_reason(tmp_path, text, message):
    path = write(tmp_path, "bad.mtx", text)
    with pytest.raises(InputError, match=message) as info:
        read_matrix(path)
    text = str(info.value)
    assert text.startswith(str(path)) and "\n" not in text


def test_non_square_matrix_is_not_a_graph(tmp_path):
    path = write(tmp_path, "r.mtx", "%%MatrixMarket matrix coordinate real general\n2 3 1\n1 3 1\n")
    assert read_matrix(path).shape == (2, 3)
    with pytest.raises(InputError, match="square"):
        read_graph(path)


def test_binary_and_missing_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_graph(tmp_path / "nope.mtx")
    with pytest.raises(InputError, match="not a text file"):
        read_graph(write(tmp_path, "bin.mtx", b"%%MatrixMarket\xff\xfe", mode="wb"))
    with pytest.raises(InputError, match="cannot read"):
        read_graph(write(tmp_path, "trunc.mtx.gz", gzip.compress(b"%%MatrixMarket matrix")[:-6], mode="wb"))


def test_every_shared_bad_file_is_refused_with_one_line(data_dir):
    for path in sorted((data_dir / "bad").iterdir()):
        with pytest.raises(InputError) as info:
            read_graph(path)
        message = str(info.value)
        assert str(path) in message and "\n" not in message


# -------------------------------------------------------------- METIS graph
def test_metis_formats(tmp_path):
    plain = write(tmp_path, "p.graph", "% triangle\n3 3\n2 3\n1 3\n1 2\n")
    assert read_metis_graph(plain).m == 3
    edge_weighted = write(tmp_path, "e.graph", "3 2 1\n2 5\n1 5 3 7\n2 7\n")
    assert read_metis_graph(edge_weighted).adjwgt.tolist() == [5, 5, 7, 7]
    vertex_weighted = write(tmp_path, "v.graph", "3 2 10 2\n1 2 2\n3 4 1 3\n5 6 2\n")
    g = read_metis_graph(vertex_weighted)
    assert g.vwgt.tolist() == [[1, 2], [3, 4], [5, 6]]
    both = write(tmp_path, "b.graph", "2 1 11\n4 2 9\n6 1 9\n")
    g = read_metis_graph(both)
    assert g.vwgt[:, 0].tolist() == [4, 6] and g.adjwgt.tolist() == [9, 9]
    sizes = write(tmp_path, "s.graph", "2 1 100\n3 2\n8 1\n")
    assert read_metis_graph(sizes).vsize.tolist() == [3, 8]


def test_metis_isolated_vertex_is_an_empty_line(tmp_path):
    path = write(tmp_path, "iso.graph", "3 1\n2\n1\n\n")
    g = read_metis_graph(path)
    assert g.n == 3 and g.degrees().tolist() == [1, 1, 0]


@pytest.mark.parametrize("text, message", [
    ("", "empty file"),
    ("3\n", "header must be"),
    ("a b\n", "must be integers"),
    ("2 1 7\n2\n1\n", "fmt '7'"),
    ("2 1 0 2\n2\n1\n", "no vertex weights"),
    ("3 2\n2\n1\n", "declares 3 vertices"),
    ("2 1\n2\n1\n1\n", "declares 2 vertices"),
    ("2 2\n2\n1\n", "declares 2 edges"),
    ("2 1\n3\n1\n", "outside 1..2"),
    ("2 1\n1\n2\n", "self loop"),
    ("3 2\n2\n1 3\n1\n", "not symmetric"),
    ("2 1 1\n2 4\n1 5\n", "not symmetric"),
    ("2 1 1\n2\n1 5\n", "found 1 tokens"),
    ("2 1 10\n-1 2\n1 1\n", "negative vertex"),
    ("2 1\n2 x\n1\n", "'x' is not an integer"),
])
def test_metis_errors(tmp_path, text, message):
    path = write(tmp_path, "bad.graph", text)
    with pytest.raises(InputError, match=message) as info:
        read_metis_graph(path)
    assert "\n" not in str(info.value)


def test_metis_write_read_round_trip(tmp_path):
    g = grid2d(5, 4)
    g.adjwgt[:] = 2
    path = tmp_path / "g.graph"
    write_metis_graph(path, g)
    back = read_graph(path)
    assert np.array_equal(back.adjncy, g.adjncy) and np.array_equal(back.adjwgt, g.adjwgt)


def test_shared_graphs_load(data_dir):
    g = read_graph(data_dir / "4elt.graph")
    assert (g.n, g.m) == (15606, 45878)
    multi = read_graph(data_dir / "test.mgraph")
    assert multi.ncon == 2
    bcsstk13 = read_graph(data_dir / "bcsstk13.mtx")
    assert bcsstk13.n == 2003
    west = read_graph(data_dir / "west0067.mtx")  # structurally unsymmetric: symmetrised
    assert west.n == 67 and (west.to_scipy() != west.to_scipy().T).nnz == 0


# -------------------------------------------------------------------- mesh
def test_mesh_dual_graph_of_two_triangles_and_quads(tmp_path):
    triangles = write(tmp_path, "t.mesh", "3\n1 2 3\n2 3 4\n4 5 6\n")
    g = read_mesh(triangles)
    assert g.m == 1 and g.degrees().tolist() == [1, 1, 0]
    coords = write(tmp_path, "t.xyz", "0 0\n1 0\n0 1\n1 1\n2 2\n3 3\n")
    g = read_mesh(triangles, node_coords=coords)
    assert np.allclose(g.coords[0], [1 / 3, 1 / 3])
    quads = write(tmp_path, "q.mesh", "2 4\n1 2 3 4\n3 4 5 6\n")
    assert read_mesh(quads, ncommon=2).m == 1
    with pytest.raises(InputError, match="declares 3 elements"):
        read_mesh(write(tmp_path, "bad.mesh", "3\n1 2 3\n"))


def test_shared_mesh(data_dir):
    g = read_graph(data_dir / "metis.mesh")
    assert g.n == 7434 and g.degrees().max() <= 3


# ---------------------------------------------- coordinates and partitions
def test_partition_files_round_trip_and_errors(tmp_path):
    path = tmp_path / "p.part"
    write_partition(path, np.array([0, 2, 1, 2]))
    assert read_partition(path, n=4, k=3).tolist() == [0, 2, 1, 2]
    assert [p.name for p in tmp_path.iterdir()] == ["p.part"]  # no temporary file left behind
    with pytest.raises(InputError, match="4 part ids for 5 vertices"):
        read_partition(path, n=5)
    with pytest.raises(InputError, match="not below k=2"):
        read_partition(path, k=2)
    with pytest.raises(InputError, match="negative part id"):
        read_partition(write(tmp_path, "neg.part", "0\n-1\n"))
    with pytest.raises(InputError, match="'x' is not an integer"):
        read_partition(write(tmp_path, "x.part", "0\nx\n"))


def test_partition_write_is_atomic(tmp_path, monkeypatch):
    path = tmp_path / "p.part"
    write_partition(path, np.array([1, 1, 0]))

    class Boom(Exception):
        pass

    def failing_replace(*args):
        raise Boom

    monkeypatch.setattr("partkit.io._output.os.replace", failing_replace)
    with pytest.raises(Boom):
        write_partition(path, np.array([0, 0, 0]))
    assert path.read_text() == "1\n1\n0\n"
    assert [p.name for p in tmp_path.iterdir()] == ["p.part"]


def test_coordinates(tmp_path):
    path = tmp_path / "c.xyz"
    write_coordinates(path, np.array([[0.5, 1.0], [2.0, 3.25]]))
    assert read_coordinates(path, n=2).tolist() == [[0.5, 1.0], [2.0, 3.25]]
    with pytest.raises(InputError, match="2 points for 3 vertices"):
        read_coordinates(path, n=3)
    with pytest.raises(InputError, match="2 or 3 numbers"):
        read_coordinates(write(tmp_path, "bad.xyz", "1\n2\n"))


def test_unknown_suffix_is_sniffed(tmp_path):
    mm = write(tmp_path, "a.dat", "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n2 1\n")
    metis = write(tmp_path, "b.txt", "2 1\n2\n1\n")
    assert read_graph(mm).m == 1 and read_graph(metis).m == 1


def test_integer_tokenizer_kernel():
    from partkit.io._text import OVERFLOW, line_tokens, parse_int_tokens

    buf = np.frombuffer(b" 12\t-3 +4\r\n\n7  8 9 ", dtype=np.uint8)
    counts, found, extra = line_tokens(buf, 0, 3, False, -1, -1)
    assert counts.tolist() == [3, 0, 3] and found == 3 and extra == -1
    values, bad, _ = parse_int_tokens(buf, 0, 6, True, -1, -1)
    assert bad == -1 and values.tolist() == [12, -3, 4, 7, 8, 9]
    for text, index in [(b"1 2x 3", 1), (b"1 - 3", 1), (b"1 3+", 1), (b"1 1_0 2", 1), (b"1 0x1 2", 1),
                        (b"1 2\x0c3 4", 1), (b"1 2\x1c3 4", 1)]:
        assert parse_int_tokens(np.frombuffer(text, dtype=np.uint8), 0, 3, True, -1, -1)[1] == index
    assert parse_int_tokens(np.frombuffer(b"9" * 19, dtype=np.uint8), 0, 1, True, -1, -1)[2] == OVERFLOW


def test_metis_numbers_are_c_numbers_not_python_literals(tmp_path):
    assert read_metis_graph(write(tmp_path, "p.graph", "2 1\n+2\n1\n")).adjncy.tolist() == [1, 0]
    with pytest.raises(InputError, match="line 3: entry '0_1' is not an integer"):
        read_metis_graph(write(tmp_path, "u.graph", "2 1\n2\n0_1\n"))
    huge = write(tmp_path, "h.graph", f"2 1 10\n{2**62} 2\n1 1\n")
    assert read_metis_graph(huge).vwgt[0, 0] == 2**62
    over = write(tmp_path, "o.graph", f"2 1 10\n{2**64} 2\n1 1\n")
    with pytest.raises(InputError, match="does not fit in 64 bits"):
        read_metis_graph(over)
