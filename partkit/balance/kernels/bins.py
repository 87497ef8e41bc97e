"""Kernel of the balls-into-bins simulation of :mod:`partkit.balance.bins`."""

from __future__ import annotations

from partkit._jit import njit


@njit(cache=True)
def place_balls(choices, loads):
    """Put each ball into the least loaded of its candidate bins.

    Parameters
    ----------
    choices : int64 (balls, d)
        Candidate bins of every ball, in placement order. Ties go to the
        first candidate (the candidates are random, so this is a random
        tie-break unless the caller orders them, as "always go left" does).
    loads : int64 (bins,)
        Current loads, updated in place.
    """
    for i in range(choices.shape[0]):
        best = choices[i, 0]
        for j in range(1, choices.shape[1]):
            c = choices[i, j]
            if loads[c] < loads[best]:
                best = c
        loads[best] += 1
