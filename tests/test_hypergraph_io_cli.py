"""hMETIS .hgr files and the hypergraph model in the command line."""

import json

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from partkit import InputError
from partkit.cli import main
from partkit.hypergraph import Hypergraph, connectivity_minus_one, read_hgr, spmv_communication, write_hgr


@pytest.mark.parametrize("fmt", [None, 0, 1, 10, 11])
def test_hgr_round_trip(tmp_path, fmt):
    h = Hypergraph.from_nets(5, [[0, 1, 4], [1, 2], [4, 3, 2, 0]], vwgt=[1, 2, 3, 1, 7], net_cost=[4, 1, 2])
    path = tmp_path / "h.hgr"
    write_hgr(path, h, fmt=fmt)
    back = read_hgr(path)
    assert back.n == 5 and np.array_equal(back.net_ptr, h.net_ptr) and np.array_equal(back.pins, h.pins)
    keeps_nets, keeps_vertices = fmt in (None, 1, 11), fmt in (None, 10, 11)
    assert np.array_equal(back.net_cost, h.net_cost if keeps_nets else [1, 1, 1])
    assert np.array_equal(back.vwgt, h.vwgt if keeps_vertices else np.ones(5))
    assert path.read_text().splitlines()[0] == {None: "3 5 11", 0: "3 5", 1: "3 5 1", 10: "3 5 10", 11: "3 5 11"}[fmt]


def test_hgr_keeps_empty_nets_and_ignores_trailing_blank_lines(tmp_path):
    h = Hypergraph.from_nets(3, [[0, 1], [], [1, 2], []])
    path = tmp_path / "e.hgr"
    write_hgr(path, h)
    path.write_text(path.read_text() + "\n\n")
    back = read_hgr(path)
    assert back.net_ptr.tolist() == [0, 2, 2, 4, 4] and back.pins.tolist() == [0, 1, 1, 2]


def test_hgr_reads_comments_and_a_real_matrix_model(tmp_path, data_dir):
    a = scipy.io.mmread(data_dir / "west0067.mtx").tocsr()
    h = Hypergraph.from_matrix(a)
    path = tmp_path / "w.hgr"
    write_hgr(path, h)
    path.write_text("% a comment\n" + path.read_text())
    back = read_hgr(path)
    assert np.array_equal(back.pins, h.pins) and np.array_equal(back.vwgt, h.vwgt)


@pytest.mark.parametrize("text, reason", [
    ("", "empty"), ("2 3\n1 2\n", "lines after the header"), ("1 3 5\n1 2\n", "fmt 5"),
    ("1 3\n1 4\n", "pin outside"), ("1 3\n1 x\n", "integers"), ("1 3\n2 2\n", "twice"),
    ("1 2 10\n1 2\n1\n", "lines after the header"), ("1 2 1\n-1 1 2\n", "non-negative"),
])
def test_malformed_hgr_is_an_input_error_naming_the_file(tmp_path, text, reason):
    path = tmp_path / "bad.hgr"
    path.write_text(text)
    with pytest.raises(InputError, match=reason) as info:
        read_hgr(path)
    assert "bad.hgr" in str(info.value)


def test_cli_partition_evaluate_estimate(tmp_path, capsys):
    a = sp.random(300, 300, density=0.02, random_state=4, format="csr") + sp.identity(300)
    mtx = tmp_path / "a.mtx"
    scipy.io.mmwrite(mtx, a)
    out = tmp_path / "a.part"
    assert main(["partition", str(mtx), "-k", "4", "--model", "hypergraph", "-o", str(out), "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    part = np.loadtxt(out, dtype=np.int64)
    volume = spmv_communication(a, part, 4).total_words
    assert made["connectivity_minus_one"] == volume and made["balanced"] and made["imbalance"] <= 0.03
    assert main(["evaluate", str(mtx), str(out), "--model", "hypergraph", "--json"]) == 0
    evaluated = json.loads(capsys.readouterr().out)
    assert evaluated["connectivity_minus_one"] == volume
    assert evaluated["max_volume"] == made["max_volume"] == spmv_communication(a, part, 4).send_words.max()
    assert main(["estimate", str(mtx), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total_words"] == volume
    # row-net model with unit weights: a column partition, its fold estimated through A^T
    assert main(["partition", str(mtx), "-k", "4", "--model", "hypergraph-rows", "--vertex-weights", "unit",
                 "-o", str(out), "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    cols = np.loadtxt(out, dtype=np.int64)
    assert made["connectivity_minus_one"] == connectivity_minus_one(Hypergraph.row_net(a), cols, 4)
    assert np.bincount(cols, minlength=4).max() <= 309
    assert main(["estimate", str(mtx), str(out), "--model", "hypergraph-rows", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["total_words"] == made["connectivity_minus_one"]


def test_cli_rectangular_hgr_and_errors(tmp_path, capsys):
    a = sp.random(40, 70, density=0.08, random_state=5, format="csr")
    mtx = tmp_path / "r.mtx"
    scipy.io.mmwrite(mtx, a)
    assert main(["partition", str(mtx), "-k", "3", "--model", "hypergraph", "-o", str(tmp_path / "r.part")]) == 0
    assert "λ-1" in capsys.readouterr().out
    # issue 34: columns partitioned, y_i goes to the part of most of row i, so the fold sends the row-net
    # λ-1 (before: exit 2, "a 70x40 matrix needs x_part", an argument the command line does not have)
    cols_file = tmp_path / "r.cols"
    assert main(["partition", str(mtx), "-k", "3", "--model", "hypergraph-rows", "-o", str(cols_file), "--json"]) == 0
    made = json.loads(capsys.readouterr().out)
    cols = np.loadtxt(cols_file, dtype=np.int64)
    assert main(["estimate", str(mtx), str(cols_file), "--model", "hypergraph-rows", "--json"]) == 0
    words = json.loads(capsys.readouterr().out)["total_words"]
    assert words == made["connectivity_minus_one"]
    assert words == connectivity_minus_one(Hypergraph.from_matrix(a, model="rows"), cols, 3)
    assert main(["estimate", str(mtx), str(cols_file), "--model", "hypergraph-rows"]) == 0
    assert "40x70" in capsys.readouterr().out
    hgr = tmp_path / "r.hgr"
    write_hgr(hgr, Hypergraph.from_matrix(a))
    assert main(["partition", str(hgr), "-k", "3", "--model", "hypergraph", "-O", "tries=2", "--json",
                 "-o", str(tmp_path / "h.part")]) == 0
    assert json.loads(capsys.readouterr().out)["n"] == 40
    assert main(["partition", str(mtx), "-k", "3", "--model", "hypergraph", "--method", "kl"]) == 2
    assert main(["partition", str(mtx), "-k", "3", "--model", "hypergraph", "-O", "nope=1"]) == 2
    assert main(["partition", str(mtx), "-k", "99", "--model", "hypergraph"]) == 2
    err = capsys.readouterr().err
    assert "--method applies to the graph model" in err and "nope" in err and "k must be" in err



def test_boolean_options_parse_true_and_false():
    from partkit.cli._hypergraph import context_options
    from partkit.errors import InputError
    from partkit.hypergraph.partitioner import Context

    assert context_options(Context(), ["communities=true"], "hypergraph").communities is True
    assert context_options(Context(communities=True), ["communities=false"], "hypergraph").communities is False
    assert context_options(Context(), ["heavy_node_penalty=1"], "hypergraph").heavy_node_penalty is True
    with pytest.raises(InputError, match="communities must be of type bool"):
        context_options(Context(), ["communities=maybe"], "hypergraph")
