"""The distributed partitioner's own communication: measured per level, predicted by the alpha-beta model.

:class:`~partkit.distributed.comm.Channel` logs every call of a run.
:func:`phase_totals` sums one rank's log by phase and kind (calls, words,
messages); :func:`predict` turns the totals measured on ``P`` ranks into
the time of the same run on ``N`` ranks with :mod:`partkit.collectives`:

* sparse exchanges (halo, routing): a rank sends ``messages`` messages of
  ``words`` words in all, ``messages * alpha + words * word_size / beta``
  (one port); the slowest rank counts. The number of calls does not depend
  on ``N`` (rounds per level are fixed). The words per rank scale with the
  rank's share of the edges, ``P / N``, when the input order has no
  locality (``ordering="random"``: every neighbour is on another rank, and
  a rank talks to up to ``N - 1`` others), or with the surface of a 3D
  block, ``(P / N)^(2/3)``, with at most 26 neighbouring ranks
  (``ordering="geometric"``);
* Alltoall of the counts before a routing exchange: the lower bound of a
  uniform AllToAll of ``N`` words;
* Allreduce and Exscan of ``w`` words: the best AllReduce algorithm of
  :func:`partkit.collectives.best_allreduce`;
* Allgather (the replicated coarsest graph, balancer candidates) and Bcast
  (the best initial partition): their lower bounds for the measured sizes,
  which do not depend on ``N``.
"""

from __future__ import annotations

from collections import defaultdict

from partkit.collectives import best_allreduce, lower_bound
from partkit.errors import InputError

#: Largest number of neighbouring ranks of a 3D block decomposition (faces, edges, corners).
GEOMETRIC_NEIGHBOURS = 26
ORDERINGS = ("random", "geometric")


def phase_totals(log):
    """``{phase: {kind: [calls, words, messages]}}`` of one rank's log, phases in order of appearance."""
    totals = defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))
    for op in log:
        entry = totals[op.phase][op.kind]
        entry[0] += 1
        entry[1] += op.words
        entry[2] += op.messages
    return {phase: dict(kinds) for phase, kinds in totals.items()}


def predict(per_rank, nranks, *, alpha=2e-6, beta=1e10, word_size=8, ordering="random"):
    """Predicted communication seconds of every phase of the run on ``nranks`` ranks.

    Parameters
    ----------
    per_rank : list of dict
        :func:`phase_totals` of every rank of the measured run (``P`` ranks).
    nranks : int
        ``N``, the number of ranks to predict for.
    ordering : {"random", "geometric"}
        How the halo shrinks with more ranks (see the module text).

    Returns
    -------
    dict
        ``{phase: seconds}`` in the measured phase order, and ``"total"``.
    """
    if ordering not in ORDERINGS:
        raise InputError(f"ordering must be one of {', '.join(ORDERINGS)}, got {ordering!r}")
    measured = len(per_rank)
    N = int(nranks)
    shrink = measured / N if ordering == "random" else (measured / N) ** (2 / 3)
    fan_out = N - 1 if ordering == "random" else min(N - 1, GEOMETRIC_NEIGHBOURS)
    result = {}
    for phase in per_rank[0]:
        slowest = 0.0
        for totals in per_rank:
            seconds = 0.0
            for kind, (calls, words, messages) in totals.get(phase, {}).items():
                if calls == 0:
                    continue
                per_call = words / calls
                if kind == "alltoallv":
                    # a call reaches at most fan_out ranks, with at most one message a word
                    fan = messages / calls if N == measured else min(fan_out, per_call * shrink)
                    seconds += calls * (fan * alpha + per_call * shrink * word_size / beta)
                elif kind == "alltoall":
                    seconds += calls * lower_bound("alltoall", N, N * word_size, alpha, beta).total
                elif kind in ("allreduce", "exscan"):
                    seconds += calls * best_allreduce(N, per_call * word_size, alpha, beta)[1]
                elif kind == "allgather":
                    seconds += calls * lower_bound("allgather", N, per_call * word_size, alpha, beta).total
                elif kind == "bcast":
                    seconds += calls * lower_bound("broadcast", N, per_call * word_size, alpha, beta).total
            slowest = max(slowest, seconds)
        result[phase] = slowest
    result["total"] = sum(result.values())
    return result
