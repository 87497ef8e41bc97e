"""Scheduling independent tasks on ``p`` workers: a discrete-event simulator.

The policies are the classic ones for a parallel loop whose iteration costs
are not known in advance:

``self``
    Self scheduling: every access to the central queue takes one task.
``chunk``
    Fixed chunks of ``K`` consecutive tasks per access (default ``K`` from
    the Kruskal-Weiss formula, see :func:`kruskal_weiss_chunk`).
``gss``
    Guided self scheduling (Polychronopoulos-Kuck): the ``i``-th access takes
    ``K_i = ceil(R_i / p)`` of the ``R_i`` remaining tasks.
``ws``
    Randomized work stealing: the tasks start split into ``p`` blocks (or all
    on worker 0); a worker pops its own deque LIFO and, when empty, steals
    FIFO from a uniformly random victim, each attempt taking
    ``steal_latency``.

Every queue access (or local pop) costs ``overhead``. Workers can be noisy:
some run ``slowdown`` times slower, and all can be frozen periodically (as by
OS daemons) for ``freeze_length`` out of every ``freeze_period``, each with
a random phase. Times are in the units of the task costs; with
:func:`sample_costs` the mean task cost is 1.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.errors import InputError
from partkit._random import derive
from partkit.balance.kernels.schedule import simulate_central, simulate_stealing

POLICIES = ("self", "chunk", "gss", "ws")
DISTRIBUTIONS = ("constant", "uniform", "exponential", "lognormal", "pareto")


@dataclass
class ScheduleResult:
    """Outcome of one simulation of independent tasks.

    Attributes
    ----------
    policy : str
    p, n_tasks : int
    makespan : float
        Time at which the last task completes.
    lower_bound : float
        ``max(total work / p, largest task)``, the best any schedule can do
        without overheads and noise.
    total_work : float
        Sum of the nominal task costs.
    busy, overhead : numpy.ndarray of float64, shape (p,)
        Per worker: time spent running tasks and time spent on queue
        accesses, pops and steal attempts (including waits for the lock).
    accesses : int
        Central-queue accesses, or local deque pops for ``ws``.
    steal_attempts, steals : int
        Steal attempts and successful steals (``ws`` only; 0 otherwise).
    """

    policy: str
    p: int
    n_tasks: int
    makespan: float
    lower_bound: float
    total_work: float
    busy: np.ndarray
    overhead: np.ndarray
    accesses: int
    steal_attempts: int = 0
    steals: int = 0

    @property
    def ratio(self) -> float:
        """``makespan / lower_bound`` (1.0 is optimal)."""
        return self.makespan / self.lower_bound if self.lower_bound > 0 else 1.0

    @property
    def idle_time(self) -> float:
        """Total time workers spend neither running tasks nor scheduling, up to the makespan."""
        return float(np.maximum(self.makespan - self.busy - self.overhead, 0.0).sum())

    def to_dict(self) -> dict:
        """The result as a JSON-serialisable dictionary."""
        return {
            "policy": self.policy,
            "workers": self.p,
            "tasks": self.n_tasks,
            "makespan": self.makespan,
            "lower_bound": self.lower_bound,
            "ratio": self.ratio,
            "total_work": self.total_work,
            "idle_time": self.idle_time,
            "overhead_time": float(self.overhead.sum()),
            "accesses": self.accesses,
            "steal_attempts": self.steal_attempts,
            "steals": self.steals,
        }


def sample_costs(n, distribution="lognormal", *, cv=1.0, mean=1.0, seed=0) -> np.ndarray:
    """Draw ``n`` independent task costs with a given mean and coefficient of variation.

    Parameters
    ----------
    n : int
        Number of tasks.
    distribution : {"constant", "uniform", "exponential", "lognormal", "pareto"}
        ``constant`` ignores ``cv``; ``uniform`` supports ``cv <= 1/sqrt(3)``;
        ``exponential`` has ``cv = 1`` always; ``lognormal`` and ``pareto``
        (shape chosen to give ``cv``) take any ``cv > 0``.
    cv : float
        Standard deviation / mean.
    mean : float
        Mean cost.
    seed : int

    Returns
    -------
    numpy.ndarray of float64, shape (n,)
    """
    if n < 1:
        raise InputError(f"number of tasks must be at least 1, got {n}")
    if mean <= 0 or not np.isfinite(mean):
        raise InputError(f"mean task cost must be positive, got {mean}")
    if cv < 0 or not np.isfinite(cv):
        raise InputError(f"cost coefficient of variation must be >= 0, got {cv}")
    rng = np.random.default_rng(seed)
    if distribution == "constant" or (cv == 0 and distribution != "exponential"):
        return np.full(n, float(mean))
    if distribution == "uniform":
        half = cv * np.sqrt(3.0)
        if half > 1.0:
            raise InputError(f"uniform costs need cv <= {1 / np.sqrt(3):.3f}, got {cv}")
        return mean * rng.uniform(1.0 - half, 1.0 + half, n)
    if distribution == "exponential":
        return rng.exponential(mean, n)
    if distribution == "lognormal":
        sigma2 = np.log1p(cv * cv)
        return mean * rng.lognormal(-sigma2 / 2.0, np.sqrt(sigma2), n)
    if distribution == "pareto":
        # Pareto (minimum 1, shape a > 2) has cv^2 = 1 / (a (a - 2)); rescale to the mean.
        a = 1.0 + np.sqrt(1.0 + 1.0 / (cv * cv))
        return mean * (a - 1.0) * (1.0 + rng.pareto(a, n)) / a
    raise InputError(f"unknown cost distribution {distribution!r}; "
                     f"available: {', '.join(DISTRIBUTIONS)}")


def kruskal_weiss_chunk(n, p, overhead, sigma) -> int:
    """The fixed chunk size of Kruskal and Weiss (1985).

    ``K = (sqrt(2) n h / (sigma p sqrt(ln p)))^(2/3)``, which balances the
    scheduling overhead ``h`` of ``n / K`` accesses against the expected
    imbalance of the last chunks for task costs of standard deviation
    ``sigma``; clipped to ``[1, ceil(n / p)]``.
    """
    upper = max(1, -(-n // p))
    if p < 2 or sigma <= 0:
        return upper
    if overhead <= 0:
        return 1
    k = (np.sqrt(2.0) * n * overhead / (sigma * p * np.sqrt(np.log(p)))) ** (2.0 / 3.0)
    return int(min(max(1, round(k)), upper))


def worker_noise(p, *, slow_workers=0, slowdown=1.0, freeze_period=0.0, freeze_length=0.0,
                 seed=0):
    """Per-worker slowdown factors and freeze phases for the simulators.

    Returns
    -------
    slow : numpy.ndarray of float64, shape (p,)
        1 for normal workers, ``slowdown`` for the first ``slow_workers``.
    phase : numpy.ndarray of float64, shape (p,)
        Start of each worker's first freeze, uniform in ``[0, freeze_period)``.
    """
    if not 0 <= slow_workers <= p:
        raise InputError(f"slow workers must be between 0 and p={p}, got {slow_workers}")
    if slowdown < 1.0 or not np.isfinite(slowdown):
        raise InputError(f"slowdown must be a finite factor >= 1, got {slowdown}")
    if freeze_period < 0 or freeze_length < 0:
        raise InputError("freeze period and length must be non-negative")
    if freeze_period > 0 and freeze_length >= freeze_period:
        raise InputError(f"freeze length {freeze_length} must be shorter than the period "
                         f"{freeze_period}")
    slow = np.ones(p, dtype=np.float64)
    slow[:slow_workers] = slowdown
    rng = np.random.default_rng([seed, 1])
    phase = rng.uniform(0.0, freeze_period, p) if freeze_period > 0 else np.zeros(p)
    return slow, phase


def _check_common(p, overhead, steal_latency):
    if isinstance(p, bool) or not isinstance(p, (int, np.integer)) or p < 1:
        raise InputError(f"number of workers must be a positive integer, got {p!r}")
    if overhead < 0 or not np.isfinite(overhead):
        raise InputError(f"scheduling overhead must be >= 0, got {overhead}")
    if steal_latency <= 0 or not np.isfinite(steal_latency):
        raise InputError(f"steal latency must be > 0, got {steal_latency}")


def simulate(costs, p, policy="ws", *, chunk=None, overhead=0.01, steal_latency=0.05,
             steal="one", initial="block", serialize=False, slow_workers=0, slowdown=2.0,
             freeze_period=0.0, freeze_length=0.0, seed=0) -> ScheduleResult:
    """Simulate ``p`` workers running independent tasks under a scheduling policy.

    Parameters
    ----------
    costs : array_like of float, shape (n,)
        Nominal task costs (non-negative), in loop order.
    p : int
        Number of workers.
    policy : {"self", "chunk", "gss", "ws"}
    chunk : int, optional
        Chunk size for ``chunk`` (default :func:`kruskal_weiss_chunk`).
    overhead : float, default 0.01
        Cost of one central-queue access or local deque pop.
    steal_latency : float, default 0.05
        Duration of one steal attempt (``ws``), successful or not.
    steal : {"one", "half"}
        ``ws``: a thief takes one task or half of the victim's deque.
    initial : {"block", "root"}
        ``ws``: tasks start split into ``p`` contiguous blocks, or all on worker 0.
    serialize : bool, default False
        Central queue only: accesses are mutually exclusive (a lock).
    slow_workers, slowdown, freeze_period, freeze_length
        Worker noise, see :func:`worker_noise`.
    seed : int
        Seed of the noise phases and of the victim choices.

    Returns
    -------
    ScheduleResult
    """
    costs = np.ascontiguousarray(costs, dtype=np.float64)
    if costs.ndim != 1 or costs.size == 0:
        raise InputError("task costs must be a non-empty 1-D array")
    if not np.all(np.isfinite(costs)) or costs.min() < 0:
        raise InputError("task costs must be finite and non-negative")
    _check_common(p, overhead, steal_latency)
    p = int(p)
    slow, phase = worker_noise(p, slow_workers=slow_workers, slowdown=slowdown,
                               freeze_period=freeze_period, freeze_length=freeze_length, seed=seed)
    n = costs.size
    total = float(costs.sum())
    bound = max(total / p, float(costs.max()))
    steals = attempts = 0
    if policy in ("self", "chunk", "gss"):
        if policy == "chunk":
            if chunk is None:
                chunk = kruskal_weiss_chunk(n, p, overhead, float(costs.std()))
            if isinstance(chunk, bool) or not isinstance(chunk, (int, np.integer)) or chunk < 1:
                raise InputError(f"chunk size must be a positive integer, got {chunk!r}")
        code = {"self": 0, "chunk": 1, "gss": 2}[policy]
        finish, busy, over, acc = simulate_central(
            costs, p, code, int(chunk or 1), float(overhead), bool(serialize), slow, phase,
            float(freeze_period), float(freeze_length))
        accesses = int(acc.sum())
    elif policy == "ws":
        if steal not in ("one", "half"):
            raise InputError(f"steal must be 'one' or 'half', got {steal!r}")
        if initial not in ("block", "root"):
            raise InputError(f"initial distribution must be 'block' or 'root', got {initial!r}")
        stream = np.array([derive(seed, "stealing"), 0], dtype=np.int64)
        finish, busy, over, pops, att, st = simulate_stealing(
            costs, p, steal == "half", initial == "root", float(overhead), float(steal_latency),
            slow, phase, float(freeze_period), float(freeze_length), stream)
        accesses = int(pops.sum())
        attempts = int(att.sum())
        steals = int(st.sum())
    else:
        raise InputError(f"unknown policy {policy!r}; available: {', '.join(POLICIES)}")
    return ScheduleResult(policy=policy, p=p, n_tasks=n, makespan=float(finish.max()),
                          lower_bound=bound, total_work=total, busy=busy, overhead=over,
                          accesses=accesses, steal_attempts=attempts, steals=steals)
