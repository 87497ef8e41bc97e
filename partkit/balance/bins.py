"""Balls into bins: one random choice versus the better of ``d`` choices.

Throwing ``m`` balls into ``n`` bins, each into a uniformly random bin,
leaves a maximum load of about ``ln n / ln ln n`` when ``m = n`` (and
``m/n + sqrt(2 (m/n) ln n)`` when ``m >> n ln n``). Letting every ball look
at ``d >= 2`` random bins and join the least loaded one (Azar, Broder,
Karlin, Upfal 1994; Berenbrink et al. 2000 for ``m >> n``) brings the excess
over the average down to ``ln ln n / ln d + O(1)``, independently of ``m``:
the "power of two choices" behind randomized load balancers and work
stealing with two probes. Vöcking's "always go left" variant (split the bins
into ``d`` groups, one candidate per group, ties to the leftmost group)
improves the constant to ``ln ln n / (d ln phi_d)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.errors import InputError
from partkit.balance.kernels.bins import place_balls

#: Balls placed per batch of pre-drawn random choices (bounds memory use).
BATCH = 1 << 20


@dataclass
class BinsResult:
    """Loads after throwing the balls, with the leading-order theory."""

    balls: int
    bins: int
    d: int
    loads: np.ndarray

    @property
    def max_load(self) -> int:
        return int(self.loads.max())

    @property
    def gap(self) -> float:
        """Maximum load minus the average ``balls / bins``."""
        return self.max_load - self.balls / self.bins

    @property
    def theory(self) -> float:
        """Leading-order prediction of the maximum load, see :func:`max_load_theory`."""
        return max_load_theory(self.balls, self.bins, self.d)

    def to_dict(self) -> dict:
        return {"balls": self.balls, "bins": self.bins, "d": self.d, "max_load": self.max_load,
                "average": self.balls / self.bins, "gap": self.gap, "theory": self.theory}


def throw(balls, bins, d=1, *, left=False, seed=0) -> BinsResult:
    """Throw ``balls`` balls into ``bins`` bins, each into the least loaded of ``d`` random bins.

    Parameters
    ----------
    balls, bins : int
    d : int, default 1
        Number of candidate bins per ball (``d = 1``: plain random placement).
    left : bool, default False
        "Always go left": candidate ``j`` is drawn from the ``j``-th of ``d``
        equal groups of bins and ties go to the lowest group (needs
        ``bins >= d``).
    seed : int

    Returns
    -------
    BinsResult
    """
    for label, value, low in (("balls", balls, 0), ("bins", bins, 1), ("d", d, 1)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < low:
            raise InputError(f"{label} must be an integer >= {low}, got {value!r}")
    if left and bins < d:
        raise InputError(f"always-go-left needs at least d={d} bins, got {bins}")
    rng = np.random.default_rng(seed)
    loads = np.zeros(bins, dtype=np.int64)
    edges = (np.arange(d + 1) * bins) // d
    for start in range(0, balls, BATCH):
        count = min(BATCH, balls - start)
        if left:
            sizes = np.diff(edges)
            choices = edges[:-1] + (rng.random((count, d)) * sizes).astype(np.int64)
        else:
            choices = rng.integers(0, bins, size=(count, d), dtype=np.int64)
        place_balls(np.ascontiguousarray(choices), loads)
    return BinsResult(int(balls), int(bins), int(d), loads)


def max_load_theory(balls, bins, d=1) -> float:
    """Leading-order maximum load, with the ``O(1)`` and ``o(1)`` terms dropped.

    * ``d = 1``, ``m < n ln n`` (Raab and Steger 1998): ``ln n / ln(n ln n / m)``,
      which is ``ln n / ln ln n`` for ``m = n``.
    * ``d = 1``, ``m >= n ln n``: ``m/n + sqrt(2 (m/n) ln n)``.
    * ``d >= 2`` (Azar et al.; Berenbrink et al.): ``m/n + ln ln n / ln d``.

    The dropped terms are not small for practical ``n`` (the measured maximum
    is typically 1 to 3 away from these values), so compare trends, not
    digits.
    """
    n = float(bins)
    if balls == 0:
        return 0.0
    average = balls / n
    if n < 3:
        return float(balls)
    log_n = np.log(n)
    if d >= 2:
        return float(average + np.log(log_n) / np.log(d))
    if balls >= n * log_n:
        return float(average + np.sqrt(2.0 * average * log_n))
    return float(log_n / np.log(n * log_n / balls))
