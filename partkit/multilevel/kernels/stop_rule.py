"""The adaptive stop of an FM search (KaHyPar's random-walk model), shared by the graph and hypergraph FM.

An FM search that has not improved for ``steps`` moves, whose gains since
its last improvement have mean ``mu`` and variance ``var``, is a random walk
with drift ``mu``; once ``steps * mu**2 > alpha * var + beta`` with a
negative drift, a return above its best is unlikely and the search stops.
A small ``alpha`` stops sooner; ``beta`` (KaHyPar: the logarithm of the
number of vertices) is also the fewest moves before any stop.

Examples
--------
>>> from partkit.multilevel.kernels.stop_rule import adaptive_stop
>>> gains = [-2, -1, -3, -2, -2, -1]  # steady losses: stop once the evidence outweighs beta
>>> total, squares = float(sum(gains)), float(sum(g * g for g in gains))
>>> bool(adaptive_stop(len(gains), total, squares, 1.0, 5.0))
True
>>> bool(adaptive_stop(len(gains), total, squares, 40.0, 5.0))  # a large alpha asks for more evidence
False
"""

from partkit._jit import njit


@njit(cache=True)
def adaptive_stop(steps, total, squares, alpha, beta):
    """Whether a search whose last ``steps`` gains sum to ``total`` (squares to ``squares``) should stop:
    ``steps > beta`` and ``steps * mu**2 > alpha * var + beta`` with a negative mean ``mu``."""
    if steps <= beta:
        return False
    mu = total / steps
    var = squares / steps - mu * mu
    return mu < 0 and steps * mu * mu > alpha * var + beta
