"""Run every command shown in the docs, so the docs cannot rot.

In ``docs/**/*.md``, each ```` ```console ```` block holds shell commands on lines
starting with ``$ `` and each ```` ```python ```` block is a script; they run in
order, page by page, in a scratch folder that has ``data/`` and a ``../shared``
link to the shared inputs. The README's main command runs too (without its
``pip install`` step, which CI has done). Benchmarks are shown in ``sh``
blocks: they take minutes and are run by hand (their pages say how).
"""

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import SHARED_DATA

ROOT = Path(__file__).resolve().parents[1]
DOCS = sorted((ROOT / "docs").rglob("*.md"))
BLOCK = re.compile(r"^```(console|python)\n(.*?)^```", re.S | re.M)


def scratch(tmp_path):
    work = tmp_path / "work"
    (work / "data").mkdir(parents=True)
    os.symlink(SHARED_DATA.parent, tmp_path / "shared")
    return work


def run(command, cwd, label):
    env = dict(os.environ, MPLBACKEND="Agg", PYTHONPATH=str(ROOT))
    result = subprocess.run(command, cwd=cwd, shell=isinstance(command, str), capture_output=True,
                            text=True, env=env, timeout=900)
    assert result.returncode == 0, f"{label} failed ({result.returncode}):\n{result.stdout}\n{result.stderr}"


@pytest.mark.parametrize("page", DOCS, ids=[str(p.relative_to(ROOT / "docs")) for p in DOCS])
def test_doc_page_commands_run(page, tmp_path):
    text = page.read_text()
    if "../shared/" in text and not SHARED_DATA.is_dir():
        pytest.skip("the page uses ../shared/data, which is absent")
    work = scratch(tmp_path)
    blocks = BLOCK.findall(text)
    for kind, body in blocks:
        if kind == "console":
            for line in body.splitlines():
                if line.startswith("$ "):
                    run(line[2:], work, f"{page.name}: {line}")
        else:
            run([sys.executable, "-c", body], work, f"{page.name}: python block")


def test_readme_main_command_runs(tmp_path):
    readme = (ROOT / "README.md").read_text()
    first = re.search(r"^```\n(pip install -e \. && .*?)\n```", readme, re.M).group(1)
    command = first.split("&&", 1)[1].strip()
    run(command, scratch(tmp_path), f"README: {command}")
