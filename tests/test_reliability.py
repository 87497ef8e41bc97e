"""Issue 17, command line: output safety, user errors as exit 2, signals, streams."""

import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from partkit.cli import main
from partkit.generators import grid2d
from partkit.io import read_partition, write_metis_graph, write_partition

ROOT = Path(__file__).resolve().parents[1]
ENV = dict(os.environ, PYTHONPATH=str(ROOT))


@pytest.fixture
def grid_file(tmp_path):
    path = tmp_path / "grid.graph"
    write_metis_graph(path, grid2d(10, 10))
    return path


def partition(grid_file, *extra):
    return main(["partition", str(grid_file), "-k", "2", "--method", "block", *extra])


def one_line_error(capsys, *needles):
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err, err
    for needle in needles:
        assert needle in err, err
    return err


# ------------------------------------------------------------------ -o safety
def test_bad_output_paths_fail_before_the_work(grid_file, tmp_path, capsys, monkeypatch):
    def no_work(*args, **kwargs):
        raise AssertionError("the graph was read before the output was checked")

    monkeypatch.setattr("partkit.cli.partition.load_input", no_work)
    cases = [(tmp_path / "missing" / "p.part", "does not exist"), (tmp_path, "is a directory"),
             (grid_file, "is the input file"), (Path("/proc/p.part"), "cannot write")]
    for output, needle in cases:
        assert partition(grid_file, "-o", str(output)) == 2
        one_line_error(capsys, needle)
    assert grid_file.read_text().startswith("100 180")


def test_output_follows_symlinks_and_writes_devices_directly(grid_file, tmp_path, capsys):
    target = tmp_path / "target.part"
    link = tmp_path / "link.part"
    link.symlink_to(target)
    assert partition(grid_file, "-o", str(link)) == 0
    assert link.is_symlink() and read_partition(target, n=100).max() == 1
    assert partition(grid_file, "-o", "/dev/null") == 0
    assert stat.S_ISCHR(os.stat("/dev/null").st_mode)
    long_name = tmp_path / ("a" * 249)  # the temporary file's name must not be longer
    assert partition(grid_file, "-o", str(long_name)) == 0 and long_name.exists()
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_modes_follow_the_umask_and_an_existing_file_keeps_its_mode(tmp_path):
    old = os.umask(0o027)
    try:
        write_partition(tmp_path / "new.part", np.array([0, 1]))
        existing = tmp_path / "old.part"
        existing.write_text("0\n")
        existing.chmod(0o664)
        write_partition(existing, np.array([0, 1]))
    finally:
        os.umask(old)
    assert stat.S_IMODE((tmp_path / "new.part").stat().st_mode) == 0o640
    assert stat.S_IMODE(existing.stat().st_mode) == 0o664


def test_interrupted_write_leaves_neither_temporary_nor_partial_file(tmp_path, monkeypatch):
    from partkit.io import _output

    path = tmp_path / "p.part"
    write_partition(path, np.array([1, 0]))

    class Handle:
        def __init__(self, real):
            self.real = real

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.real.close()

        def write(self, text):
            raise KeyboardInterrupt

    real_fdopen = os.fdopen
    monkeypatch.setattr(_output.os, "fdopen", lambda fd, mode: Handle(real_fdopen(fd, mode)))
    with pytest.raises(KeyboardInterrupt):
        write_partition(path, np.array([0, 0]))
    assert [p.name for p in tmp_path.iterdir()] == ["p.part"] and path.read_text() == "1\n0\n"


def wait_until_catching(process, signum):
    """Wait until the process has installed its handler for ``signum`` (SigCgt in /proc)."""
    for _ in range(600):
        with open(f"/proc/{process.pid}/status") as status:
            caught = int(next(line for line in status if line.startswith("SigCgt:")).split()[1], 16)
        if caught >> (signum - 1) & 1:
            return
        time.sleep(0.05)
    raise AssertionError("the process never installed its signal handler")


def test_sigterm_exits_143_and_leaves_no_temporary_file(tmp_path):
    graph = tmp_path / "big.graph"
    write_metis_graph(graph, grid2d(300, 300))
    command = [sys.executable, "-m", "partkit", "partition", str(graph), "-k", "4", "--method", "labelprop",
               "-o", str(tmp_path / "out.part")]
    process = subprocess.Popen(command, env=ENV, stderr=subprocess.PIPE, text=True)
    wait_until_catching(process, signal.SIGTERM)
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=120)
    assert process.returncode in (0, 143), err
    if process.returncode == 143:
        assert err.strip() == "partkit: terminated"
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


# --------------------------------------------------------------- user errors
@pytest.mark.parametrize("argv, needle", [
    (["--seed", "-1"], "--seed: -1 is outside"),
    (["-k", "1000000000000"], "-k/--parts: 1000000000000 is outside"),
    (["-k", "1_0"], "'1_0' is not an integer"),
    (["--imbalance", "nan"], "not a finite number"),
    (["-objtype=vol"], "unknown option '-objtype=vol'"),
    (["--imb", "0.1"], "unrecognized arguments: --imb"),   # no abbreviations
    (["--ncommon", "-1"], "--ncommon: -1 is outside"),
])
def test_argument_errors_exit_2_with_one_line(grid_file, capsys, argv, needle):
    assert partition(grid_file, *argv) == 2
    one_line_error(capsys, needle)


@pytest.mark.parametrize("argv, needle", [
    (["generate", "grid", "-n", "1000000000000", "-o", "x.graph"], "is more than partkit generates"),
    (["balance", "simulate", "--tasks", "1000000000000", "--workers", "4"], "--tasks"),
    (["balance", "bins", "--balls", "10", "--bins", "1000000000000"], "--bins"),
    (["balance", "dag", "--kind", "forkjoin", "--depth", "60", "--workers", "2"], "--depth"),
])
def test_size_bombs_in_arguments_exit_2(capsys, argv, needle):
    assert main(argv) == 2
    one_line_error(capsys, needle)


def test_k_beyond_n_in_evaluate_is_refused(grid_file, tmp_path, capsys):
    part = tmp_path / "p.part"
    write_partition(part, np.zeros(100, dtype=int))
    assert main(["evaluate", str(grid_file), str(part), "-k", "5000"]) == 2
    one_line_error(capsys, "k=5000 exceeds the number of vertices n=100")


def test_broken_pipe_is_not_an_internal_error(grid_file, tmp_path):
    command = (f"{sys.executable} -m partkit partition {grid_file} -k 2 --method block "
               f"-o {tmp_path / 'p.part'} --json | head -c 1 >/dev/null; exit ${{PIPESTATUS[0]}}")
    run = subprocess.run(["bash", "-c", command], env=ENV, capture_output=True, text=True)
    assert run.returncode in (0, 2) and "internal error" not in run.stderr and "Traceback" not in run.stderr


def test_stdin_input_writes_its_default_output_in_the_current_folder(grid_file, tmp_path):
    with open(grid_file) as handle:
        run = subprocess.run([sys.executable, "-m", "partkit", "partition", "/dev/stdin", "-k", "2",
                              "--method", "block"], stdin=handle, cwd=tmp_path, env=ENV,
                             capture_output=True, text=True)
    assert run.returncode == 0, run.stderr
    assert read_partition(tmp_path / "stdin.part.2", n=100).max() == 1


# ------------------------------------------------------------------- signals
def test_ctrl_c_at_random_moments_exits_130(tmp_path):
    """The quick version of benchmarks/interrupts.py (100 tries on 10^6 vertices, in docs/history/benchmarks.md)."""
    run = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "interrupts.py"), "--grid", "150",
                          "--tries", "5", "-k", "8"], env=ENV, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "5 of 5 interrupts exited 130 cleanly" in run.stdout


def test_signal_handler_removes_pending_temporary_files(tmp_path):
    from partkit.io import _output

    temporary = tmp_path / ".partkit-0.tmp"
    temporary.write_text("partial")
    _output.PENDING.add(str(temporary))
    try:
        _output.remove_pending()
    finally:
        _output.PENDING.discard(str(temporary))
    assert not temporary.exists()


def test_read_only_install_runs_with_a_private_cache(tmp_path, grid_file):
    """A read-only bind mount of the package (user namespace) and no writable home cache."""
    script = (f"mount -o bind,ro {ROOT} {ROOT} && cd {tmp_path} && "
              f"env -u NUMBA_CACHE_DIR XDG_CACHE_HOME=/proc/partkit-none HOME=/proc/partkit-none "
              f"TMPDIR={tmp_path} PYTHONPATH={ROOT} {sys.executable} -m partkit partition {grid_file} -k 2 "
              f"--method block -o {tmp_path / 'p.part'}")
    run = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, timeout=600)
    if run.returncode != 0 and "unshare" in run.stderr:
        pytest.skip(f"no user namespaces here: {run.stderr.strip()}")
    assert run.returncode == 0, run.stderr
    assert run.stderr.startswith("partkit: note: no writable Numba cache folder")
    assert (tmp_path / f"partkit-numba-cache-{os.getuid()}").is_dir()
    assert read_partition(tmp_path / "p.part", n=100).max() == 1
