"""Task DAGs: builders, exact work and span, and simulated scheduling on p workers.

A :class:`TaskDAG` is a set of tasks with costs and precedence edges
(successor lists in CSR form). Its work is the sum of the costs and its
span the heaviest path; every schedule on ``p`` workers takes at least
``max(work / p, span)``, and any greedy schedule at most ``work / p + span``
(Graham, Brent).

Builders:

* :func:`fork_join` -- a balanced fork-join (divide and conquer) tree.
* :func:`unbalanced_tree` -- the binomial unbalanced tree search (UTS)
  benchmark tree: the root has ``root_children`` children, every other node
  ``m`` children with probability ``q``.
* :func:`tiled_cholesky` and :func:`tiled_spd_inverse` -- the tile
  algorithms of PLASMA / Chameleon on a ``t x t`` tile matrix (lower
  storage): Cholesky (POTRF, TRSM, SYRK, GEMM), triangular inversion (TRTRI)
  and the product ``L^-T L^-1`` (LAUUM). Their edges are not written by hand:
  :func:`dataflow_edges` derives them from the tiles each task reads and
  writes, in the sequential task order (read after write, write after read,
  write after write), as a superscalar runtime (QUARK, StarPU) does.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.balance.schedule import _check_common, worker_noise
from partkit.errors import InputError
from partkit._random import derive
from partkit.balance.kernels.schedule import dag_longest_path, simulate_dag_greedy, simulate_dag_stealing


@dataclass
class TaskDAG:
    """Tasks with costs and precedence constraints.

    Attributes
    ----------
    costs : numpy.ndarray of float64, shape (n,)
    xadj, adj : numpy.ndarray of int64
        Successors of task ``v`` are ``adj[xadj[v]:xadj[v + 1]]``.
    labels : list of str or None
        Optional task names (e.g. ``"GEMM(3,1,0)"``).
    name : str
    """

    costs: np.ndarray
    xadj: np.ndarray
    adj: np.ndarray
    labels: list | None = None
    name: str = "dag"

    @classmethod
    def from_edges(cls, n, edges, costs=None, labels=None, name="dag"):
        """Build a DAG from ``(predecessor, successor)`` pairs (duplicates removed).

        Raises
        ------
        InputError
            If an edge is out of range, a cost is negative, or there is a cycle.
        """
        edges = np.asarray(edges, dtype=np.int64).reshape(-1, 2)
        if edges.size and (edges.min() < 0 or edges.max() >= n):
            raise InputError(f"{name}: edge endpoint outside [0, {n})")
        edges = np.unique(edges, axis=0) if edges.size else edges
        costs = np.ones(n) if costs is None else np.ascontiguousarray(costs, dtype=np.float64)
        if costs.shape != (n,) or not np.all(np.isfinite(costs)) or (n and costs.min() < 0):
            raise InputError(f"{name}: task costs must be {n} finite non-negative numbers")
        order = np.lexsort((edges[:, 1], edges[:, 0]))
        edges = edges[order]
        xadj = np.zeros(n + 1, dtype=np.int64)
        np.cumsum(np.bincount(edges[:, 0], minlength=n), out=xadj[1:])
        dag = cls(costs, xadj, np.ascontiguousarray(edges[:, 1]), labels, name)
        if dag.span < 0:
            raise InputError(f"{name}: the task graph has a cycle")
        return dag

    @property
    def n(self) -> int:
        """Number of tasks."""
        return self.costs.size

    @property
    def work(self) -> float:
        """Sum of the task costs (the time on one worker)."""
        return float(self.costs.sum())

    @property
    def span(self) -> float:
        """Cost of the heaviest path (the time on infinitely many workers)."""
        return float(dag_longest_path(self.costs, self.xadj, self.adj)[0])

    @property
    def parallelism(self) -> float:
        """``work / span``."""
        return self.work / self.span if self.span > 0 else 1.0


@dataclass
class DagScheduleResult:
    """Outcome of scheduling a :class:`TaskDAG` on ``p`` workers.

    ``greedy_bound = work / p + span`` bounds every greedy schedule (no
    worker idle while a task is ready); work stealing is not greedy (a
    thief may miss ready work) but stays close to it when steals are cheap.
    """

    policy: str
    p: int
    makespan: float
    work: float
    span: float
    busy: np.ndarray
    steal_attempts: int = 0
    steals: int = 0

    @property
    def lower_bound(self) -> float:
        """``max(work / p, span)``."""
        return max(self.work / self.p, self.span)

    @property
    def greedy_bound(self) -> float:
        """``work / p + span``."""
        return self.work / self.p + self.span

    def to_dict(self) -> dict:
        """The result as a JSON-serialisable dictionary."""
        return {"policy": self.policy, "workers": self.p, "makespan": self.makespan,
                "work": self.work, "span": self.span, "lower_bound": self.lower_bound,
                "greedy_bound": self.greedy_bound, "ratio": self.makespan / self.lower_bound,
                "steal_attempts": self.steal_attempts, "steals": self.steals}


def simulate_dag(dag, p, policy="ws", *, overhead=0.0, steal_latency=0.01, slow_workers=0,
                 slowdown=2.0, freeze_period=0.0, freeze_length=0.0, seed=0):
    """Schedule ``dag`` on ``p`` simulated workers.

    Parameters
    ----------
    dag : TaskDAG
    p : int
    policy : {"ws", "greedy"}
        ``ws``: randomized work stealing (ready successors go to the bottom
        of the finishing worker's deque; pop LIFO, steal one task FIFO from a
        random victim; the sources start on worker 0). ``greedy``: one
        central FIFO ready queue served without overhead.
    overhead, steal_latency : float
        Cost of a local pop and of a steal attempt (``ws`` only).
    slow_workers, slowdown, freeze_period, freeze_length, seed
        Worker noise and random seed, as in :func:`partkit.balance.schedule.simulate`.

    Returns
    -------
    DagScheduleResult
    """
    _check_common(p, overhead, steal_latency)
    p = int(p)
    slow, phase = worker_noise(p, slow_workers=slow_workers, slowdown=slowdown,
                               freeze_period=freeze_period, freeze_length=freeze_length, seed=seed)
    if policy == "ws":
        stream = np.array([derive(seed, "dag stealing"), 0], dtype=np.int64)
        makespan, busy, _, _, attempts, steals, _ = simulate_dag_stealing(
            dag.costs, dag.xadj, dag.adj, p, float(overhead), float(steal_latency), slow, phase,
            float(freeze_period), float(freeze_length), stream)
        return DagScheduleResult("ws", p, float(makespan), dag.work, dag.span, busy,
                                 int(attempts.sum()), int(steals.sum()))
    if policy == "greedy":
        makespan, busy, _ = simulate_dag_greedy(dag.costs, dag.xadj, dag.adj, p, slow, phase,
                                                float(freeze_period), float(freeze_length))
        return DagScheduleResult("greedy", p, float(makespan), dag.work, dag.span, busy)
    raise InputError(f"unknown DAG policy {policy!r}; available: ws, greedy")


# ------------------------------------------------------------- builders
def fork_join(depth, branching=2, *, leaf_cost=1.0, node_cost=1.0):
    """A balanced fork-join tree: every inner node forks ``branching`` children, then joins.

    An inner node is two tasks (fork, join, each ``node_cost``); a leaf is
    one task (``leaf_cost``). With unit costs the span is ``2 depth + 1``.
    """
    if depth < 0 or branching < 1:
        raise InputError(f"fork-join tree needs depth >= 0 and branching >= 1, got "
                         f"{depth}, {branching}")
    inner = (branching**depth - 1) // (branching - 1) if branching > 1 else depth
    nodes = inner + branching**depth
    child = (branching * np.arange(inner)[:, None] + np.arange(1, branching + 1)).ravel()
    parent = np.repeat(np.arange(inner), branching)
    child_is_inner = child < inner
    # fork(parent) -> fork(child); child's last task (its join, or the leaf) -> join(parent)
    child_exit = np.where(child_is_inner, nodes + child, child)
    edges = np.concatenate([np.stack([parent, child], axis=1),
                            np.stack([child_exit, nodes + parent], axis=1)])
    # tasks: forks/leaves are 0..nodes-1, joins are nodes..nodes+inner-1
    costs = np.concatenate([np.full(inner, node_cost), np.full(nodes - inner, leaf_cost),
                            np.full(inner, node_cost)])
    return TaskDAG.from_edges(nodes + inner, edges, costs,
                              name=f"forkjoin_d{depth}_b{branching}")


def unbalanced_tree(*, root_children=200, q=0.124875, m=8, max_nodes=1_000_000, cost=1.0,
                    seed=0):
    """A binomial UTS tree (Olivier et al., 2006) as a DAG of spawn edges.

    The root has ``root_children`` children; every other node has ``m``
    children with probability ``q`` and none otherwise. With ``q m < 1`` the
    expected size is ``1 + root_children / (1 - q m)`` but the variance is
    huge: subtrees are very unbalanced, which is what work stealing is for.

    Raises
    ------
    InputError
        If the parameters are out of range or the tree exceeds ``max_nodes``.
    """
    if not (0 <= q <= 1) or m < 1 or root_children < 0:
        raise InputError(f"UTS tree needs 0 <= q <= 1, m >= 1, root_children >= 0; got "
                         f"q={q}, m={m}, root_children={root_children}")
    rng = np.random.default_rng(seed)
    parents = [np.zeros(root_children, dtype=np.int64)]
    total = 1 + root_children
    level = np.arange(1, total, dtype=np.int64)
    while level.size:
        spawning = level[rng.random(level.size) < q]
        children = np.repeat(spawning, m)
        if total + children.size > max_nodes:
            raise InputError(f"UTS tree exceeds max_nodes={max_nodes}; lower q * m "
                             f"(= {q * m}) or raise max_nodes")
        parents.append(children)
        level = np.arange(total, total + children.size, dtype=np.int64)
        total += children.size
    parent = np.concatenate(parents)
    edges = np.stack([parent, np.arange(1, total, dtype=np.int64)], axis=1)
    return TaskDAG.from_edges(total, edges, np.full(total, float(cost)),
                              name=f"uts_binomial_q{q}_m{m}_seed{seed}")


def tile_tasks(t, phases=("potrf",)):
    """The tasks of tile algorithms on a ``t x t`` lower tile matrix, in sequential order.

    Parameters
    ----------
    t : int
        Number of tile rows and columns (``n / b``).
    phases : sequence of {"potrf", "trtri", "lauum"}
        ``potrf``: right-looking Cholesky ``A = L L^T``; ``trtri``: in-place
        ``L := L^-1``; ``lauum``: in-place ``L := L^T L`` (lower part). The
        three in turn compute ``A^-1`` (POTRI). Loop orders follow PLASMA's
        ``pzpotrf``, ``pztrtri`` and ``pzlauum`` (lower).

    Returns
    -------
    list of tuple
        ``(phase, kernel, indices, reads, writes)`` per task, where
        ``reads``/``writes`` are lists of tiles ``(row, col)``; a written
        tile is also read. Kernel semantics (``A[i,j]`` a tile):

        - potrf: ``POTRF(k)``: ``A[k,k] = chol(A[k,k])``; ``TRSM(m,k)``:
          ``A[m,k] = A[m,k] A[k,k]^-T``; ``SYRK(m,k)``: ``A[m,m] -= A[m,k] A[m,k]^T``;
          ``GEMM(m,n,k)``: ``A[m,n] -= A[m,k] A[n,k]^T``.
        - trtri: ``TRSM_R(m,k)``: ``A[m,k] = -A[m,k] A[k,k]^-1``;
          ``GEMM(m,n,k)``: ``A[m,n] += A[m,k] A[k,n]``; ``TRSM_L(k,n)``:
          ``A[k,n] = A[k,k]^-1 A[k,n]``; ``TRTRI(k)``: ``A[k,k] = A[k,k]^-1``.
        - lauum: ``HERK(k,n)``: ``A[n,n] += A[k,n]^T A[k,n]``;
          ``GEMM(k,m,n)``: ``A[m,n] += A[k,m]^T A[k,n]``; ``TRMM(k,n)``:
          ``A[k,n] = A[k,k]^T A[k,n]``; ``LAUUM(k)``: ``A[k,k] = A[k,k]^T A[k,k]``.
    """
    if isinstance(t, bool) or not isinstance(t, (int, np.integer)) or t < 1:
        raise InputError(f"number of tiles must be a positive integer, got {t!r}")
    tasks = []

    def add(phase, kernel, idx, reads, writes):
        tasks.append((phase, kernel, idx, reads, writes))

    for phase in phases:
        if phase == "potrf":
            for k in range(t):
                add(phase, "POTRF", (k,), [], [(k, k)])
                for m in range(k + 1, t):
                    add(phase, "TRSM", (m, k), [(k, k)], [(m, k)])
                for m in range(k + 1, t):
                    add(phase, "SYRK", (m, k), [(m, k)], [(m, m)])
                    for n in range(k + 1, m):
                        add(phase, "GEMM", (m, n, k), [(m, k), (n, k)], [(m, n)])
        elif phase == "trtri":
            for k in range(t):
                for m in range(k + 1, t):
                    add(phase, "TRSM_R", (m, k), [(k, k)], [(m, k)])
                for m in range(k + 1, t):
                    for n in range(k):
                        add(phase, "GEMM", (m, n, k), [(m, k), (k, n)], [(m, n)])
                for n in range(k):
                    add(phase, "TRSM_L", (k, n), [(k, k)], [(k, n)])
                add(phase, "TRTRI", (k,), [], [(k, k)])
        elif phase == "lauum":
            for k in range(t):
                for n in range(k):
                    add(phase, "HERK", (k, n), [(k, n)], [(n, n)])
                    for m in range(n + 1, k):
                        add(phase, "GEMM", (k, m, n), [(k, m), (k, n)], [(m, n)])
                for n in range(k):
                    add(phase, "TRMM", (k, n), [(k, k)], [(k, n)])
                add(phase, "LAUUM", (k,), [], [(k, k)])
        else:
            raise InputError(f"unknown tile phase {phase!r}; available: potrf, trtri, lauum")
    return tasks


def dataflow_edges(tasks):
    """Precedence edges implied by the tiles each task reads and writes, in task order.

    Task ``j`` follows task ``i < j`` when ``j`` reads or writes a tile that
    ``i`` was the last to write (RAW, WAW), or writes a tile that ``i`` read
    since that tile's last write (WAR).

    Returns
    -------
    numpy.ndarray of int64, shape (e, 2)
    """
    last_writer = {}
    readers = {}
    edges = []
    for j, (_, _, _, reads, writes) in enumerate(tasks):
        preds = {last_writer[x] for x in (*reads, *writes) if x in last_writer}
        for x in writes:
            preds.update(readers.get(x, ()))
        edges.extend((i, j) for i in preds)
        for x in writes:
            last_writer[x] = j
            readers[x] = []
        for x in reads:
            readers.setdefault(x, []).append(j)
    return np.array(edges, dtype=np.int64).reshape(-1, 2)


def _tile_dag(t, phases, barriers, costs, name):
    tasks = tile_tasks(t, phases)
    edges = dataflow_edges(tasks)
    if barriers and len(phases) > 1:
        phase_of = np.array([phases.index(task[0]) for task in tasks])
        extra = []
        for a in range(len(phases) - 1):
            inside = edges[(phase_of[edges[:, 0]] == a) & (phase_of[edges[:, 1]] == a)]
            members_a = np.flatnonzero(phase_of == a)
            sinks = np.setdiff1d(members_a, inside[:, 0])
            inside_b = edges[(phase_of[edges[:, 0]] == a + 1) & (phase_of[edges[:, 1]] == a + 1)]
            sources = np.setdiff1d(np.flatnonzero(phase_of == a + 1), inside_b[:, 1])
            extra.append(np.stack(np.meshgrid(sinks, sources, indexing="ij"), -1).reshape(-1, 2))
        edges = np.concatenate([edges, *extra])
    labels = [f"{kernel}({','.join(map(str, idx))})" for _, kernel, idx, _, _ in tasks]
    kernel_cost = costs or {}
    cost = np.array([kernel_cost.get(kernel, 1.0) for _, kernel, _, _, _ in tasks])
    return TaskDAG.from_edges(len(tasks), edges, cost, labels, name)


def tiled_cholesky(t, costs=None):
    """The DAG of the tiled Cholesky factorization of a ``t x t`` tile matrix.

    With unit costs its span is ``3 t - 2``. ``costs`` maps a kernel name
    (``POTRF``, ``TRSM``, ``SYRK``, ``GEMM``) to its cost (default 1), e.g.
    flop counts ``{"POTRF": 1, "TRSM": 3, "SYRK": 3, "GEMM": 6}`` in units of
    ``b^3 / 3``.
    """
    return _tile_dag(t, ("potrf",), False, costs, f"cholesky_t{t}")


def tiled_spd_inverse(t, *, pipelined=False, costs=None):
    """The DAG of the tile SPD inversion POTRF + TRTRI + LAUUM (POTRI).

    Parameters
    ----------
    t : int
        Number of tile rows/columns.
    pipelined : bool, default False
        False: each phase starts when the previous one has finished (three
        synchronous calls); with unit costs the span is the sum of the phase
        spans, ``(3t-2) + (t+1) + (3t-2) = 7t - 3`` for ``t >= 2``. True: only
        the tile dependencies link the phases, so they overlap (one
        asynchronous call) and the span drops to ``3t + 6`` for ``t >= 3``.
    costs : dict, optional
        Kernel name -> cost (default 1 for every kernel).
    """
    phases = ("potrf", "trtri", "lauum")
    name = f"potri_t{t}_{'pipelined' if pipelined else 'phased'}"
    return _tile_dag(t, phases, not pipelined, costs, name)
