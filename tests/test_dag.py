"""Tests of task DAGs and their scheduling (partkit.balance.dag)."""

import numpy as np
import pytest
import scipy.linalg as la

from partkit.balance.dag import (TaskDAG, dataflow_edges, fork_join, simulate_dag, tile_tasks,
                                 tiled_cholesky, tiled_spd_inverse, unbalanced_tree)
from partkit.errors import InputError
from partkit.balance.kernels.schedule import simulate_dag_stealing


def test_tiled_cholesky_span_is_3t_minus_2():
    dag = tiled_cholesky(4)
    assert dag.n == 20 and dag.span == 10
    for t in range(1, 8):
        d = tiled_cholesky(t)
        assert d.span == 3 * t - 2
        assert d.n == t * (t + 1) * (t + 2) // 6


def test_spd_inversion_chain_span():
    # three phases one after another: (3t-2) + (t+1) + (3t-2) = 7t-3
    assert tiled_spd_inverse(4).span == 25
    for t in range(2, 8):
        assert tiled_spd_inverse(t).span == 7 * t - 3
        trtri = TaskDAG.from_edges(len(tile_tasks(t, ["trtri"])),
                                   dataflow_edges(tile_tasks(t, ["trtri"])))
        assert trtri.span == t + 1
    # with only the tile dependencies between phases, they overlap
    assert tiled_spd_inverse(4, pipelined=True).span == 18
    assert tiled_spd_inverse(4, pipelined=True).n == tiled_spd_inverse(4).n == 60


def _run_tiles(tasks, order, a, t, b):
    tiles = {(i, j): a[i * b:(i + 1) * b, j * b:(j + 1) * b].copy()
             for i in range(t) for j in range(i + 1)}
    for index in order:
        phase, kernel, idx, _, _ = tasks[index]
        A = tiles
        if phase == "potrf":
            if kernel == "POTRF":
                A[idx[0], idx[0]] = np.linalg.cholesky(A[idx[0], idx[0]])
            elif kernel == "TRSM":
                m, k = idx
                A[m, k] = la.solve_triangular(A[k, k], A[m, k].T, lower=True).T
            elif kernel == "SYRK":
                m, k = idx
                A[m, m] = A[m, m] - A[m, k] @ A[m, k].T
            else:
                m, n, k = idx
                A[m, n] = A[m, n] - A[m, k] @ A[n, k].T
        elif phase == "trtri":
            if kernel == "TRSM_R":
                m, k = idx
                A[m, k] = -A[m, k] @ np.linalg.inv(np.tril(A[k, k]))
            elif kernel == "GEMM":
                m, n, k = idx
                A[m, n] = A[m, n] + A[m, k] @ A[k, n]
            elif kernel == "TRSM_L":
                k, n = idx
                A[k, n] = np.linalg.inv(np.tril(A[k, k])) @ A[k, n]
            else:
                A[idx[0], idx[0]] = np.linalg.inv(np.tril(A[idx[0], idx[0]]))
        else:
            if kernel == "HERK":
                k, n = idx
                A[n, n] = A[n, n] + A[k, n].T @ A[k, n]
            elif kernel == "GEMM":
                k, m, n = idx
                A[m, n] = A[m, n] + A[k, m].T @ A[k, n]
            elif kernel == "TRMM":
                k, n = idx
                A[k, n] = np.tril(A[k, k]).T @ A[k, n]
            else:
                L = np.tril(A[idx[0], idx[0]])
                A[idx[0], idx[0]] = L.T @ L
    out = np.zeros_like(a)
    for (i, j), tile in tiles.items():
        out[i * b:(i + 1) * b, j * b:(j + 1) * b] = np.tril(tile) if i == j else tile
    return out


def _random_topological_order(dag, rng):
    indeg = np.bincount(dag.adj, minlength=dag.n)
    ready = list(np.flatnonzero(indeg == 0))
    order = []
    while ready:
        v = ready.pop(rng.integers(len(ready)))
        order.append(v)
        for u in dag.adj[dag.xadj[v]:dag.xadj[v + 1]]:
            indeg[u] -= 1
            if indeg[u] == 0:
                ready.append(u)
    return order


@pytest.mark.parametrize("seed", range(3))
def test_tile_dependencies_are_sufficient_for_the_numerics(seed):
    """Any order that respects the DAG computes L and A^-1: no dependency is missing."""
    t, b = 4, 3
    rng = np.random.default_rng(seed)
    m = rng.standard_normal((t * b, t * b))
    a = m @ m.T + t * b * np.eye(t * b)
    chol_tasks = tile_tasks(t, ["potrf"])
    chol = _run_tiles(chol_tasks, _random_topological_order(tiled_cholesky(t), rng), a, t, b)
    assert np.allclose(chol, np.linalg.cholesky(a))
    inv_tasks = tile_tasks(t, ["potrf", "trtri", "lauum"])
    dag = tiled_spd_inverse(t, pipelined=True)
    inv = _run_tiles(inv_tasks, _random_topological_order(dag, rng), a, t, b)
    assert np.allclose(inv, np.tril(np.linalg.inv(a)))


def test_dropping_an_edge_breaks_the_numerics():
    """The numeric check above can fail: without the WAR edges some order gives a wrong result."""
    t, b = 4, 2
    rng = np.random.default_rng(0)
    m = rng.standard_normal((t * b, t * b))
    a = m @ m.T + t * b * np.eye(t * b)
    tasks = tile_tasks(t, ["potrf", "trtri", "lauum"])
    edges = dataflow_edges(tasks)
    weakened = TaskDAG.from_edges(len(tasks), edges[::2])
    wrong = 0
    for _ in range(5):
        try:
            inv = _run_tiles(tasks, _random_topological_order(weakened, rng), a, t, b)
            wrong += not np.allclose(inv, np.tril(np.linalg.inv(a)))
        except np.linalg.LinAlgError:  # a tile factorized before its updates
            wrong += 1
    assert wrong > 0


def test_fork_join_and_uts_shapes():
    fj = fork_join(6, 3)
    inner = (3**6 - 1) // 2
    assert fj.n == 2 * inner + 3**6 and fj.span == 2 * 6 + 1 and fj.work == fj.n
    uts = unbalanced_tree(root_children=50, q=0.2, m=4, seed=7)
    assert uts.n == 1 + uts.adj.size  # a tree
    assert uts.n == unbalanced_tree(root_children=50, q=0.2, m=4, seed=7).n
    with pytest.raises(InputError):
        unbalanced_tree(q=0.5, m=4, max_nodes=1000)


@pytest.mark.parametrize("p", [2, 8, 32])
def test_schedules_respect_the_bounds(p):
    dags = [fork_join(8), unbalanced_tree(root_children=100, seed=1),
            tiled_cholesky(8, costs={"POTRF": 1, "TRSM": 3, "SYRK": 3, "GEMM": 6}),
            tiled_spd_inverse(6)]
    for dag in dags:
        greedy = simulate_dag(dag, p, "greedy")
        assert dag.span <= greedy.lower_bound <= greedy.makespan <= greedy.greedy_bound + 1e-9
        assert greedy.busy.sum() == pytest.approx(dag.work)
        ws = simulate_dag(dag, p, "ws", steal_latency=0.01, seed=p)
        assert ws.lower_bound <= ws.makespan <= 1.1 * ws.greedy_bound
        assert ws.busy.sum() == pytest.approx(dag.work)


def test_work_stealing_runs_every_task_once_after_its_predecessors():
    dag = tiled_cholesky(6)
    state = np.array([12345], dtype=np.uint64)
    ones = np.ones(8)
    makespan, busy, _, pops, _, steals, worker = simulate_dag_stealing(
        dag.costs, dag.xadj, dag.adj, 8, 0.0, 0.01, ones, np.zeros(8), 0.0, 0.0, state)
    assert np.all(worker >= 0) and pops.sum() == dag.n and steals.sum() > 0
    assert makespan >= dag.span


def test_deterministic_and_cycles_rejected():
    dag = unbalanced_tree(root_children=100, seed=2)
    a = simulate_dag(dag, 16, "ws", seed=4).to_dict()
    assert a == simulate_dag(dag, 16, "ws", seed=4).to_dict()
    with pytest.raises(InputError):
        TaskDAG.from_edges(3, [(0, 1), (1, 2), (2, 0)])
    with pytest.raises(InputError):
        simulate_dag(dag, 4, "random")
