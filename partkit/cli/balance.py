"""``partkit balance``: simulate dynamic load balancing (scheduling policies, task DAGs, bins)."""

from __future__ import annotations

from partkit.cli import EXIT_OK
from partkit.cli._common import MAX_COUNT, integer, print_json, real


def register(subparsers):
    """Add the ``balance`` subcommand and its ``simulate``, ``dag`` and ``bins`` actions."""
    parser = subparsers.add_parser(
        "balance", help="simulate dynamic load balancing (scheduling, work stealing, DAGs)",
        description="Discrete-event simulations of dynamic load balancing. Times are in units of "
                    "the mean task cost.")
    actions = parser.add_subparsers(dest="action", metavar="ACTION", required=True)

    sim = actions.add_parser(
        "simulate", help="p workers, N independent tasks, one scheduling policy",
        description="Simulate p workers running N independent tasks with random costs under a "
                    "scheduling policy: ws (randomized work stealing), gss (guided self "
                    "scheduling), chunk (fixed chunks), self (one task per access). Reports the "
                    "makespan, its ratio to max(total/p, largest task), idle time, queue accesses "
                    "and steals.")
    sim.add_argument("--tasks", type=integer(0, MAX_COUNT), required=True, metavar="N", help="number of tasks")
    sim.add_argument("--workers", type=integer(1, 10**6), required=True, metavar="P", help="number of workers")
    sim.add_argument("--policy", choices=["ws", "gss", "chunk", "self"], default="ws",
                     help="scheduling policy (default ws)")
    sim.add_argument("--chunk", type=integer(1), metavar="K",
                     help="chunk size for --policy chunk (default: Kruskal-Weiss)")
    sim.add_argument("--costs", default="lognormal",
                     choices=["constant", "uniform", "exponential", "lognormal", "pareto"],
                     help="task cost distribution, mean 1 (default lognormal)")
    sim.add_argument("--cv", type=real(0), default=1.0,
                     help="coefficient of variation of the task costs (default 1)")
    sim.add_argument("--overhead", type=real(0), default=0.01,
                     help="cost of one queue access or deque pop (default 0.01)")
    sim.add_argument("--steal-latency", type=real(0), default=0.05,
                     help="duration of one steal attempt (default 0.05)")
    sim.add_argument("--steal", choices=["one", "half"], default="one",
                     help="ws: steal one task or half of the victim's deque (default one)")
    sim.add_argument("--initial", choices=["block", "root"], default="block",
                     help="ws: tasks start in p blocks or all on worker 0 (default block)")
    sim.add_argument("--serialize", action="store_true",
                     help="central queue is a lock: accesses do not overlap")
    _add_noise_arguments(sim)
    _add_seed_json(sim, run_simulate)

    dag = actions.add_parser(
        "dag", help="work stealing or greedy scheduling of a task DAG",
        description="Schedule a task DAG on p workers and compare the makespan with "
                    "max(work/p, span) and the greedy bound work/p + span.")
    dag.add_argument("--kind", choices=["cholesky", "potri", "forkjoin", "uts"], default="cholesky",
                     help="DAG: tiled Cholesky, tiled SPD inversion (POTRF+TRTRI+LAUUM), "
                          "balanced fork-join tree, binomial unbalanced tree (default cholesky)")
    dag.add_argument("--tiles", type=integer(1, 200), default=8, metavar="T",
                     help="cholesky/potri: tiles per dimension n/b (default 8)")
    dag.add_argument("--pipelined", action="store_true",
                     help="potri: link the three phases by tile dependencies only (no barriers)")
    dag.add_argument("--depth", type=integer(0, 24), default=10, help="forkjoin: depth (default 10)")
    dag.add_argument("--workers", type=integer(1, 10**6), required=True, metavar="P", help="number of workers")
    dag.add_argument("--policy", choices=["ws", "greedy"], default="ws",
                     help="work stealing or central greedy list scheduling (default ws)")
    dag.add_argument("--overhead", type=real(0), default=0.0, help="cost of a deque pop (default 0)")
    dag.add_argument("--steal-latency", type=real(0), default=0.01,
                     help="duration of one steal attempt (default 0.01)")
    _add_noise_arguments(dag)
    _add_seed_json(dag, run_dag)

    bins = actions.add_parser(
        "bins", help="balls into bins with one or d random choices",
        description="Throw M balls into N bins, each into the least loaded of d random bins, and "
                    "compare the maximum load with the leading-order theory.")
    bins.add_argument("--balls", type=integer(0, 10**9), required=True, metavar="M")
    bins.add_argument("--bins", type=integer(1, MAX_COUNT), required=True, metavar="N")
    bins.add_argument("-d", "--choices", dest="d", type=integer(1, 64), default=2,
                      help="candidate bins per ball (default 2)")
    bins.add_argument("--left", action="store_true", help="Voecking's always-go-left variant")
    _add_seed_json(bins, run_bins)


def _add_noise_arguments(parser):
    parser.add_argument("--slow-workers", type=integer(0), default=0,
                        help="number of workers running --slowdown times slower (default 0)")
    parser.add_argument("--slowdown", type=real(0), default=2.0,
                        help="slowdown factor of the slow workers (default 2)")
    parser.add_argument("--freeze-period", type=real(0), default=0.0,
                        help="every worker freezes once per period, at a random phase (default: never)")
    parser.add_argument("--freeze-length", type=real(0), default=0.0,
                        help="length of each freeze (default 0)")


def _add_seed_json(parser, func):
    """The ``--seed`` and ``--json`` options every action takes, and the function that runs it."""
    parser.add_argument("--seed", type=integer(0), default=0, help="random seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.set_defaults(func=func)


def _noise(args):
    return {"slow_workers": args.slow_workers, "slowdown": args.slowdown,
            "freeze_period": args.freeze_period, "freeze_length": args.freeze_length}


def run_simulate(args):
    """``partkit balance simulate``."""
    from partkit.balance.schedule import sample_costs, simulate
    from partkit.errors import InputError

    if args.chunk is not None and args.policy != "chunk":
        raise InputError(f"--chunk applies to --policy chunk, not {args.policy}")
    costs = sample_costs(args.tasks, args.costs, cv=args.cv, seed=args.seed)
    result = simulate(costs, args.workers, args.policy, chunk=args.chunk, overhead=args.overhead,
                      steal_latency=args.steal_latency, steal=args.steal, initial=args.initial,
                      serialize=args.serialize, seed=args.seed, **_noise(args))
    payload = {**result.to_dict(), "costs": args.costs, "cv": args.cv, "overhead": args.overhead}
    if args.policy == "ws":
        payload["steal_latency"] = args.steal_latency
    if args.json:
        print_json(payload)
        return EXIT_OK
    print(f"{args.tasks} tasks ({args.costs}, cv {args.cv:g}) on {args.workers} workers, "
          f"policy {args.policy}")
    print(f"  makespan {result.makespan:.4g}  lower bound {result.lower_bound:.4g}  "
          f"ratio {result.ratio:.4f}")
    print(f"  idle time {result.idle_time:.4g}  overhead time {result.overhead.sum():.4g}  "
          f"accesses {result.accesses}", end="")
    if args.policy == "ws":
        print(f"  steals {result.steals} of {result.steal_attempts} attempts")
    else:
        print()
    return EXIT_OK


def run_dag(args):
    """``partkit balance dag``."""
    from partkit.balance.dag import (fork_join, simulate_dag, tiled_cholesky, tiled_spd_inverse,
                                     unbalanced_tree)

    if args.kind == "cholesky":
        dag = tiled_cholesky(args.tiles)
    elif args.kind == "potri":
        dag = tiled_spd_inverse(args.tiles, pipelined=args.pipelined)
    elif args.kind == "forkjoin":
        dag = fork_join(args.depth)
    else:
        dag = unbalanced_tree(seed=args.seed)
    result = simulate_dag(dag, args.workers, args.policy, overhead=args.overhead,
                          steal_latency=args.steal_latency, seed=args.seed, **_noise(args))
    payload = {"dag": dag.name, "tasks": dag.n, **result.to_dict()}
    if args.json:
        print_json(payload)
        return EXIT_OK
    print(f"{dag.name}: {dag.n} tasks, work {dag.work:g}, span {dag.span:g}, "
          f"parallelism {dag.parallelism:.2f}")
    print(f"  {args.policy} on {args.workers} workers: makespan {result.makespan:.4g}  "
          f"lower bound {result.lower_bound:.4g}  greedy bound {result.greedy_bound:.4g}")
    return EXIT_OK


def run_bins(args):
    """``partkit balance bins``."""
    from partkit.balance.bins import throw

    result = throw(args.balls, args.bins, args.d, left=args.left, seed=args.seed)
    if args.json:
        print_json(result.to_dict())
        return EXIT_OK
    print(f"{args.balls} balls into {args.bins} bins, d={args.d}{' (left)' if args.left else ''}: "
          f"max load {result.max_load} (average {args.balls / args.bins:.4g}, "
          f"theory ~{result.theory:.2f})")
    return EXIT_OK
