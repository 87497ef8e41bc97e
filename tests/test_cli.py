import json
import os
import subprocess
import sys

import pytest

from partkit.cli import main
from partkit.io import read_partition, write_metis_graph
from partkit.generators import grid2d


@pytest.fixture
def grid_file(tmp_path):
    path = tmp_path / "grid.graph"
    write_metis_graph(path, grid2d(20, 10))
    return path


def test_partition_json_writes_default_output(grid_file, capsys):
    assert main(["partition", str(grid_file), "-k", "4", "--method", "block", "--json"]) == 0
    result = json.loads(capsys.readouterr().out)
    for key in ("n", "m", "k", "method", "cut", "imbalance", "volume", "seconds"):
        assert key in result
    assert result["n"] == 200 and result["k"] == 4 and result["method"] == "block"
    part = read_partition(f"{grid_file}.part.4", n=200, k=4)
    assert part.max() == 3


def test_partition_text_and_evaluate_agree(grid_file, tmp_path, capsys):
    out = tmp_path / "p.txt"
    assert main(["partition", str(grid_file), "-k", "2", "--method", "block", "-o", str(out)]) == 0
    text = capsys.readouterr().out
    assert "cut 20" in text and str(out) in text
    assert main(["evaluate", str(grid_file), str(out), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["cut"] == 20


def test_bad_inputs_exit_2_with_one_line(tmp_path, grid_file, capsys):
    bad = tmp_path / "bad.mtx"
    bad.write_text("%%MatrixMarket matrix coordinate real general\n2 2 1\n1 9 1\n")
    assert main(["partition", str(bad), "-k", "2", "--method", "block"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.mtx" in err and "outside" in err
    assert main(["partition", str(grid_file), "-k", "201", "--method", "block"]) == 2
    assert "exceeds the number of vertices" in capsys.readouterr().err
    assert main(["evaluate", str(grid_file), str(tmp_path / "missing.part")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_infeasible_balance_exits_3_and_still_writes(tmp_path, capsys):
    path = tmp_path / "heavy.graph"
    path.write_text("4 3 10\n10 2\n1 1 3\n1 2 4\n1 3\n")
    out = tmp_path / "heavy.part"
    assert main(["partition", str(path), "-k", "2", "--method", "block", "-o", str(out)]) == 3
    assert "heavier than the balance bound" in capsys.readouterr().err
    assert read_partition(out, n=4).size == 4


def test_unknown_option_for_method_is_refused(grid_file, capsys):
    assert main(["partition", str(grid_file), "-k", "2", "--method", "block", "--preset", "fast"]) == 2
    assert "has no option 'preset'" in capsys.readouterr().err


def test_method_options_from_the_command_line(grid_file, capsys):
    assert main(["partition", str(grid_file), "-k", "2", "--method", "fm", "-O", "nstarts=2",
                 "-O", "init=greedy", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["k"] == 2
    assert main(["partition", str(grid_file), "-k", "2", "--method", "fm", "-O", "bogus=1"]) == 2
    assert "has no option 'bogus' (it accepts: init, nstarts, npasses)" in capsys.readouterr().err
    assert main(["partition", str(grid_file), "-k", "2", "--method", "fm", "-O", "nstarts"]) == 2
    assert "must look like KEY=VALUE" in capsys.readouterr().err


def test_generate_then_partition(tmp_path, capsys):
    out = tmp_path / "d.graph"
    assert main(["generate", "delaunay", "-n", "500", "-o", str(out)]) == 0
    assert out.exists() and (tmp_path / "d.xyz").exists()
    assert main(["partition", str(out), "-k", "3", "--method", "block", "--coords",
                 str(tmp_path / "d.xyz"), "--json"]) == 0


def test_generated_coordinates_are_found_beside_the_graph(tmp_path, capsys):
    out = tmp_path / "d.graph"
    assert main(["generate", "delaunay", "-n", "300", "-o", str(out)]) == 0
    capsys.readouterr()
    assert main(["partition", str(out), "-k", "4", "--method", "rcb", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["k"] == 4
    assert main(["plot", str(out), f"{out}.part.4", "-o", str(tmp_path / "d.png")]) == 0
    assert "(partition drawing)" in capsys.readouterr().out
    # --coords still decides: a wrong file is refused, naming it
    (tmp_path / "three.xyz").write_text("0 0\n1 0\n0 1\n")
    assert main(["partition", str(out), "-k", "4", "--method", "rcb", "--coords", str(tmp_path / "three.xyz")]) == 2
    assert "three.xyz: 3 points for 300 vertices" in capsys.readouterr().err
    # a .xyz beside the graph that does not fit says where it came from
    (tmp_path / "d.xyz").write_text("0 0\n1 0\n0 1\n")
    assert main(["partition", str(out), "-k", "4", "--method", "rcb"]) == 2
    assert "the coordinates beside" in capsys.readouterr().err
    # methods that do not use coordinates do not read them
    assert main(["partition", str(out), "-k", "4", "--quiet"]) == 0
    assert main(["evaluate", str(out), f"{out}.part.4"]) == 0
    capsys.readouterr()
    # without a .xyz the geometric methods refuse as before
    (tmp_path / "d.xyz").unlink()
    assert main(["partition", str(out), "-k", "4", "--method", "rcb"]) == 2
    assert "coordinates" in capsys.readouterr().err


def test_console_script_shared_bad_files_exit_2(data_dir):
    for path in sorted((data_dir / "bad").iterdir()):
        run = subprocess.run([sys.executable, "-m", "partkit", "partition", str(path), "-k", "2",
                              "--method", "block"], capture_output=True, text=True)
        assert run.returncode == 2, path
        assert run.stderr.count("\n") == 1 and "Traceback" not in run.stderr
        assert str(path) in run.stderr


def test_console_script_bcsstk13_json(data_dir, tmp_path):
    run = subprocess.run([sys.executable, "-m", "partkit", "partition", str(data_dir / "bcsstk13.mtx"),
                          "-k", "8", "--method", "block", "--json", "-o", str(tmp_path / "b.part")],
                         capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["n"] == 2003


def test_cold_partition_announces_the_compilation_and_times_it_apart(grid_file, tmp_path):
    """With an empty Numba cache (slow: it compiles the kernels) a piped run says so before the work,
    and the time it prints is the work's; a second run loads the kernels and says nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    command = [sys.executable, "-m", "partkit", "partition", str(grid_file), "-k", "2", "--json",
               "-o", str(tmp_path / "g.part")]
    cold = subprocess.run(command, capture_output=True, text=True, env=env)
    assert cold.returncode == 0, cold.stderr
    lines = cold.stderr.splitlines()
    assert lines[0].startswith("partkit: compiling the partition kernels on first use")
    assert lines[1].startswith("partkit: compiled the kernels in ") and len(lines) == 2
    result = json.loads(cold.stdout)
    assert result["compile_seconds"] > 2 and result["seconds"] < result["compile_seconds"]
    warm = subprocess.run(command, capture_output=True, text=True, env=env)
    assert warm.returncode == 0 and warm.stderr == ""
    assert json.loads(warm.stdout)["compile_seconds"] == 0
