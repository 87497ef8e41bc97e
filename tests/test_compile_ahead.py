"""The compile-ahead helper: when it starts, and that the engine loads what it compiled."""

import json
import os
import subprocess
import sys

import pytest

from partkit.multilevel import compile_ahead
from partkit.multilevel.context import preset

#: Run in a fresh process on the helper's cache: a whole partition that refines with every task's kernels
#: (strong: label propagation, k-way FM and flows on every level; a part left overweight: the balancer),
#: listing the kernels it compiled (those it loaded from the cache are not compiled).
ENGINE_RUN = """
import json
from numba.core import event
import partkit
from partkit.generators import delaunay
rec = event.RecordingListener()
event.register("numba:compile", rec)
g = delaunay(3000, seed=4)
partkit.partition(g, 8, "multilevel", preset="strong", imbalance=0.0, threads=1)
print(json.dumps(sorted({ev.data["dispatcher"].py_func.__name__ for _, ev in rec.buffer if ev.is_start})))
"""


def test_tasks_follow_the_refinement_of_the_levels():
    default, strong, fast = preset(), preset("strong"), preset("fast")
    assert compile_ahead.tasks_for(8, 500, default) == ["kway"]
    assert compile_ahead.tasks_for(2, 100_000, default) == ["flow"]
    assert compile_ahead.tasks_for(2, 99_999, default) == []
    assert compile_ahead.tasks_for(2, 10**6, fast) == []  # fast bisections: 2-way FM only
    assert compile_ahead.tasks_for(8, 500, strong) == ["kway", "flow"]


@pytest.mark.parametrize("environ, allowed", [
    ({}, True),
    ({"PARTKIT_COMPILE_AHEAD": "0"}, False),
    ({"PARTKIT_COMPILE_AHEAD": "1"}, True),
    ({"PMI_RANK": "0"}, False),  # under mpiexec every rank would start one
    ({"OMPI_COMM_WORLD_SIZE": "4"}, False),
    ({"NUMBA_DISABLE_JIT": "1"}, False),
])
def test_helper_allowed_by_the_environment(environ, allowed, monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert compile_ahead.helper_allowed(environ) is allowed


def test_no_helper_in_a_frozen_application(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.setattr(sys, "frozen", True, raising=False)
    assert not compile_ahead.helper_allowed({})


def test_no_helper_on_one_core(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {3}, raising=False)
    assert not compile_ahead.helper_allowed({})
    monkeypatch.setattr(compile_ahead, "_started", {})
    assert compile_ahead.start(8, 10**6, preset()) == []


def test_the_engine_loads_what_the_helper_compiled(tmp_path):
    """Slow (compiles): the helper fills an empty cache; a partition in another process then compiles none
    of the tasks' kernels, nor anything else of the refinement, itself."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "PARTKIT_COMPILE_AHEAD": "0"}
    helper = subprocess.run([sys.executable, "-c", compile_ahead.HELPER, "kway", "flow"], capture_output=True,
                            text=True, env=env)
    assert helper.returncode == 0, helper.stderr
    engine = subprocess.run([sys.executable, "-c", ENGINE_RUN], capture_output=True, text=True, env=env)
    assert engine.returncode == 0, engine.stderr
    compiled = set(json.loads(engine.stdout.splitlines()[-1]))
    tasks = {name for kernels in compile_ahead.TASK_KERNELS.values() for _, name in kernels}
    assert not compiled & tasks
    assert not compiled & {"rate_candidates_in_range", "boundary_in_range", "rate_for_balance_in_range"}
    assert "bisection_tries" in compiled  # the initial partitioning: this process's own compile


def test_a_cached_task_is_looked_at_once(monkeypatch):
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    monkeypatch.delenv("PARTKIT_COMPILE_AHEAD", raising=False)
    monkeypatch.setattr(compile_ahead, "_started", {})
    monkeypatch.setattr(compile_ahead, "due", lambda task: False)
    assert compile_ahead.start(8, 10**6, preset()) == [] and compile_ahead._started == {"kway": None}

    def looked_again(task):
        raise AssertionError(f"{task} looked at again")

    monkeypatch.setattr(compile_ahead, "due", looked_again)
    assert compile_ahead.start(16, 10**5, preset()) == []
