"""Run every command shown in the docs and compare the numbers they show, so the docs cannot rot.

In ``docs/**/*.md`` (but the dated logs of ``docs/history/``), every fenced block runs, page by page, in a scratch
folder whose ``data/`` links to the project's inputs (``data/4elt.graph``, ...):

* ```` ```python ```` blocks are scripts (they must run);
* ```` ```console ```` blocks and plain ```` ``` ```` blocks with lines starting
  with ``$ `` are shell sessions: each ``$ `` line runs, and the lines after it
  are its output. Shown output is compared with the printed output line by
  line: the words must match and the numbers must agree to the digits shown,
  except durations (a number followed by ``s``, or after ``time``) and the
  rest of a line after ``...``. A ``$ cat FILE`` of a file the page has not
  made yet writes the shown text to FILE (that is how a page shows an input).

``sh`` blocks hold commands that take minutes (benchmarks) or install:
``python benchmarks/NAME.py ARGS`` lines are checked against the script's
own argument parser (the script stops right after parsing), ``pip install``
and the test command itself are what CI has just run, and any other ``sh``
command runs. The README's main command runs too (without its ``pip
install`` step, which CI has done). The ``Examples`` of every docstring of
the package run as doctests.
"""

import itertools
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import DATA

ROOT = Path(__file__).resolve().parents[1]
#: Every page but the dated logs of ``docs/history/`` (past runs, whose commands are kept as they were run).
DOCS = sorted(p for p in (ROOT / "docs").rglob("*.md") if "history" not in p.relative_to(ROOT / "docs").parts)
BLOCK = re.compile(r"^```(console|python|)\n(.*?)^```", re.S | re.M)
SH_BLOCK = re.compile(r"^```sh\n(.*?)^```", re.S | re.M)
SH_PAGES = [p for p in DOCS if SH_BLOCK.search(p.read_text())]
#: Runs a benchmark script up to the end of its argument parsing: exit 0 when ARGS parse, 2 when they do not.
PARSE_ONLY = """import argparse, runpy, sys
parse = argparse.ArgumentParser.parse_args
def parse_and_stop(self, *args, **kwargs):
    parse(self, *args, **kwargs)
    raise SystemExit(0)
argparse.ArgumentParser.parse_args = parse_and_stop
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
"""
NUMBER = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?")


def scratch(tmp_path):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    for path in DATA.iterdir():
        os.symlink(path, work / "data" / path.name)
    return work


def run(command, cwd, label):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    result = subprocess.run(command, cwd=cwd, shell=isinstance(command, str), capture_output=True,
                            text=True, env=env, timeout=900)
    assert result.returncode == 0, f"{label} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"
    return result.stdout


def sessions(body):
    """``(command, shown output lines)`` of a shell block."""
    out = []
    for line in body.splitlines():
        if line.startswith("$ "):
            out.append((line[2:], []))
        elif out:
            out[-1][1].append(line)
    return out


def _mask_durations(line):
    line = re.sub(r"time [-+]?\d+\.?\d*(?:e[-+]?\d+)? ?s\b", "time <t>", line)
    return re.sub(r"\b\d+\.?\d*s\b", "<t>", line)


def same_line(shown, printed):
    """True when the printed line shows the same words and, to the digits shown, the same numbers."""
    if "..." in shown:
        head = shown.split("...")[0]
        shown, printed = head, printed[:len(head)]
    shown, printed = _mask_durations(shown), _mask_durations(printed)
    if NUMBER.sub("#", shown).split() != NUMBER.sub("#", printed).split():
        return False
    for a, b in zip(NUMBER.findall(shown), NUMBER.findall(printed)):
        decimals = len(a.split(".")[1]) if "." in a and "e" not in a.lower() else 0
        tolerance = 0.5 * 10 ** -decimals if "e" not in a.lower() else abs(float(a)) * 1e-6
        if abs(float(a) - float(b)) > tolerance + 1e-12:
            return False
    return True


def check_output(label, shown, printed):
    shown = [line for line in shown if line.strip()]
    printed = [line for line in printed.splitlines() if line.strip()]
    assert len(printed) >= len(shown), f"{label}: shows {len(shown)} lines, prints {len(printed)}:\n" + \
        "\n".join(printed)
    for a, b in zip(shown, printed):
        assert same_line(a, b), f"{label}: the docs show\n  {a}\nbut it prints\n  {b}"


def run_session(command, shown, work, label):
    cat = re.fullmatch(r"cat (\S+)", command)
    if cat and not (work / cat.group(1)).exists():
        (work / cat.group(1)).write_text("\n".join(shown) + "\n")
        return
    check_output(label, shown, run(command, work, label))


@pytest.mark.parametrize("page", DOCS, ids=[str(p.relative_to(ROOT / "docs")) for p in DOCS])
def test_doc_page_commands_run_and_print_what_they_show(page, tmp_path):
    text = page.read_text()
    work = scratch(tmp_path)
    for kind, body in BLOCK.findall(text):
        if kind == "python":
            run([sys.executable, "-c", body], work, f"{page.name}: python block")
            continue
        for command, shown in sessions(body):
            run_session(command, shown, work, f"{page.name}: $ {command}")


def sh_commands(body):
    """The commands of an ``sh`` block: continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n\s*", " ", body)
    return [line.split(" #")[0].strip() for line in text.splitlines() if line.strip() and not line.startswith("#")]


@pytest.mark.parametrize("page", SH_PAGES, ids=[str(p.relative_to(ROOT / "docs")) for p in SH_PAGES])
def test_doc_page_sh_commands_parse_or_run(page, tmp_path):
    work = scratch(tmp_path)
    for body in SH_BLOCK.findall(page.read_text()):
        for command in sh_commands(body):
            words = shlex.split(command)
            if words[0] == "pip" or "pytest" in words:
                continue  # what CI has just done
            if words[0] == "python" and words[1].startswith("benchmarks/"):
                script = ROOT / words[1]
                assert script.is_file(), f"{page.name}: {command}: no such script"
                args = list(itertools.takewhile(lambda word: word not in (">", ">>", "|"), words[2:]))
                run([sys.executable, "-c", PARSE_ONLY, str(script), *args], work, f"{page.name}: {command}")
            else:
                run(command, work, f"{page.name}: {command}")


def test_comparison_rules():
    assert same_line("  cut 812  imbalance 0.0000  time 0.001 s", "  cut 812  imbalance 0.00001  time 2.5 s")
    assert not same_line("  cut 812  imbalance 0.0000", "  cut 813  imbalance 0.0000")
    assert same_line("ratio 2.56   0.12s", "ratio 2.5649   3.40s")
    assert same_line('{"k": 4, "cut": 9, ...}', '{"k": 4, "cut": 9, "volume": 3}')
    assert not same_line("makespan 626.5", "makespan 626.6")


def test_readme_main_command_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"^```\n(pip install -e \. && .*?)\n```", readme, re.M).group(1)
    command = first.split("&&", 1)[1].strip()
    run(command, scratch(tmp_path), f"README: {command}")


def test_readme_main_command_leaves_git_status_clean():
    """Every file the README's main command writes (graph, coordinates, partition) is ignored by git."""
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"^```\n(pip install -e \. && .*?)\n```", readme, re.M).group(1)
    graph = re.search(r"generate \S+ .*?-o (\S+)", first).group(1)
    k = re.search(r"partition \S+ -k (\d+)", first).group(1)
    written = [graph, str(Path(graph).with_suffix(".xyz")), f"{graph}.part.{k}"]
    try:
        result = subprocess.run(["git", "check-ignore", "--no-index", "--verbose", "--non-matching", *written],
                                cwd=ROOT, capture_output=True, text=True)
    except FileNotFoundError:
        pytest.skip("git is not installed")
    if result.returncode == 128:
        pytest.skip(f"not a git work tree: {result.stderr.strip()}")
    # --verbose shows the pattern that decides; a "!" pattern or none ("::") means the file shows in git status
    decided = {line.split("\t")[1]: line.split("\t")[0] for line in result.stdout.splitlines()}
    unignored = [path for path in written if decided.get(path, "::").endswith("::")
                 or decided[path].split(":", 2)[2].startswith("!")]
    assert not unignored, f"git status would show {unignored}: {result.stdout}"


def test_readme_synopsis_options_exist():
    """Every option the README's "Command line" block shows is an option of its command."""
    import argparse

    from partkit.cli import build_parser

    def command(parser, name):
        return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[name]

    block = re.search(r"^## Command line\n\n```\n(.*?)^```", (ROOT / "README.md").read_text(), re.S | re.M).group(1)
    parser = build_parser()
    current = None
    for line in block.splitlines():
        words = line.split()
        if not words:
            continue
        if words[0] == "mpiexec":  # mpiexec -n P partkit ...
            words, line = words[3:], " ".join(words[3:])
        if words[0] == "partkit":
            current = command(parser, words[1])
            if words[1] == "balance":
                current = command(current, words[2])
        known = {option for action in current._actions for option in action.option_strings}
        shown = set(re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", line))
        assert shown <= known, f"README synopsis: {line.strip()!r} shows {sorted(shown - known)}"
    assert "--coords" in block.split("partkit info")[0], "the partition synopsis shows --coords"


def test_every_docstring_example_runs(tmp_path, monkeypatch):
    """The ``Examples`` sections of every module of ``partkit`` run and print what they show (the
    distributed ones on the single rank of this process; ``tests/test_distributed.py`` runs them on
    several)."""
    import doctest

    from tests.conftest import package_modules

    monkeypatch.chdir(tmp_path)  # examples write files
    attempted, failed = 0, []
    for module in package_modules():
        result = doctest.testmod(module, report=False)
        attempted += result.attempted
        if result.failed:
            failed.append(module.__name__)
    assert attempted > 250 and failed == []
