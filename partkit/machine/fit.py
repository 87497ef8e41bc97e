"""Least-squares fit of the alpha-beta model ``t(M) = alpha + M / beta`` to measured timings.

Timings of a ping-pong span four orders of magnitude between 8 bytes and
16 MB, so an ordinary least-squares fit would be decided by the largest
messages alone and leave ``alpha`` to chance. The fit minimises the
*relative* residuals ``(t_i - alpha - M_i / beta) / t_i`` instead (least
squares weighted by ``1 / t_i``), under ``alpha >= 0`` and ``1 / beta >= 0``
(non-negative least squares): every size counts alike, which is what a
prediction ratio asks of the model.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from partkit.errors import InputError


#: Bandwidth (bytes/s) written for a fit whose timings do not grow with the size.
UNBOUNDED = 1e18


@dataclass(frozen=True)
class Fit:
    """A fitted alpha-beta model and how well it fits.

    Attributes
    ----------
    alpha : float
        Seconds per message.
    beta : float
        Bytes per second (``inf`` when the timings show no size dependence).
    sizes, seconds : ndarray
        The timings fitted (bytes, seconds).
    """

    alpha: float
    beta: float
    sizes: np.ndarray
    seconds: np.ndarray

    def predict(self, sizes):
        """Modelled seconds for messages of ``sizes`` bytes."""
        return self.alpha + np.asarray(sizes, dtype=float) / self.beta

    @property
    def ratios(self) -> np.ndarray:
        """Predicted over measured seconds, one per timing."""
        return self.predict(self.sizes) / self.seconds

    @property
    def residuals(self) -> np.ndarray:
        """Relative residuals ``(measured - predicted) / measured``."""
        return 1.0 - self.ratios

    def worst_ratio(self, low=0, high=np.inf) -> float:
        """Largest factor ``max(r, 1/r)`` between prediction and measurement for sizes in ``[low, high]``."""
        keep = (self.sizes >= low) & (self.sizes <= high)
        if not keep.any():
            return 1.0
        r = self.ratios[keep]
        return float(np.max(np.maximum(r, 1.0 / r)))

    def to_dict(self) -> dict:
        """Parameters, timings and residuals (JSON-serialisable)."""
        # no measurable size dependence: a bandwidth too high to matter, still a finite number for JSON
        return {"alpha": self.alpha, "beta": self.beta if np.isfinite(self.beta) else UNBOUNDED,
                "sizes": [int(s) for s in self.sizes], "seconds": [float(t) for t in self.seconds],
                "predicted": [float(t) for t in self.predict(self.sizes)],
                "residuals": [float(r) for r in self.residuals],
                "rms_relative_residual": float(np.sqrt(np.mean(self.residuals ** 2)))}


def fit_alpha_beta(sizes, seconds) -> Fit:
    """Fit ``seconds = alpha + sizes / beta`` with relative weights and non-negative coefficients.

    Parameters
    ----------
    sizes : array_like
        Message sizes in bytes.
    seconds : array_like
        Measured time of one message of each size (for a ping-pong, half the round trip).

    Returns
    -------
    Fit

    Examples
    --------
    >>> f = fit_alpha_beta([8, 1024, 2**20], [1e-6 + 8 / 5e9, 1e-6 + 1024 / 5e9, 1e-6 + 2**20 / 5e9])
    >>> round(f.alpha * 1e6, 6), round(f.beta / 1e9, 6)
    (1.0, 5.0)
    """
    from scipy.optimize import nnls

    sizes = np.asarray(sizes, dtype=float)
    seconds = np.asarray(seconds, dtype=float)
    if sizes.shape != seconds.shape or sizes.ndim != 1 or sizes.size < 2:
        raise InputError("a fit needs at least two (size, seconds) timings of equal length")
    if not (np.all(np.isfinite(seconds)) and np.all(seconds > 0) and np.all(sizes >= 0)):
        raise InputError("timings must be positive and finite, sizes non-negative")
    if np.unique(sizes).size < 2:
        raise InputError("a fit needs timings of at least two different sizes")
    weights = 1.0 / seconds
    design = np.column_stack([weights, sizes * weights])
    (alpha, inverse_beta), _ = nnls(design, np.ones_like(seconds))
    beta = 1.0 / inverse_beta if inverse_beta > 0 else np.inf
    return Fit(alpha=float(alpha), beta=float(beta), sizes=sizes, seconds=seconds)


@dataclass(frozen=True)
class Segments:
    """A piecewise alpha-beta model: a message of ``M`` bytes costs ``alpha_i + M / beta_i``,
    ``i`` the last segment with ``starts[i] <= M`` (``starts[0] == 0``).

    MPI libraries switch protocols with the size (eager, then rendezvous)
    and copies slow down once a message no longer fits in cache: one line
    through 8 B..16 MB misses by a factor of 2 where a few segments do not.
    """

    starts: tuple
    alphas: tuple
    betas: tuple

    def __post_init__(self):
        if not (len(self.starts) == len(self.alphas) == len(self.betas) >= 1) or self.starts[0] != 0:
            raise InputError("segments need equal numbers of starts, alphas and betas, the first starting at 0")
        if any(b <= a for a, b in zip(self.starts, self.starts[1:])):
            raise InputError("segment starts must increase")

    def params(self, nbytes):
        """``(alpha, beta)`` arrays of the segment of every size in ``nbytes``."""
        i = np.searchsorted(np.asarray(self.starts, dtype=float), np.asarray(nbytes, dtype=float), side="right") - 1
        return np.asarray(self.alphas)[i], np.asarray(self.betas)[i]

    def seconds(self, nbytes):
        """Modelled seconds of messages of ``nbytes`` bytes."""
        alpha, beta = self.params(nbytes)
        return alpha + np.asarray(nbytes, dtype=float) / beta

    def to_list(self) -> list:
        return [{"from": int(s), "alpha": float(a), "beta": float(b)}
                for s, a, b in zip(self.starts, self.alphas, self.betas)]

    @classmethod
    def from_list(cls, items, where="segments"):
        """From ``[{"from": bytes, "alpha": s, "beta": B/s}, ...]`` (checked)."""
        if not isinstance(items, list) or not items:
            raise InputError(f"{where}: must be a non-empty list of {{from, alpha, beta}} objects")
        for i, item in enumerate(items):
            if not isinstance(item, dict) or any(key not in item for key in ("from", "alpha", "beta")):
                raise InputError(f"{where}[{i}]: needs fields 'from', 'alpha' and 'beta'")
            for key in ("from", "alpha", "beta"):
                value = item[key]
                if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value) \
                        or value < 0 or (key == "beta" and value == 0):
                    raise InputError(f"{where}[{i}]: field {key!r} must be a "
                                     f"{'positive' if key == 'beta' else 'non-negative'} finite number, got {value!r}")
        try:
            return cls(tuple(i["from"] for i in items), tuple(i["alpha"] for i in items),
                       tuple(i["beta"] for i in items))
        except InputError as exc:
            raise InputError(f"{where}: {exc}") from None


def _worst(fit_seconds, seconds):
    r = fit_seconds / seconds
    return float(np.max(np.maximum(r, 1 / r)))


@dataclass(frozen=True)
class ExchangeFit:
    """A fitted exchange model: ``count`` messages of ``M`` bytes each take ``start + count * segments.seconds(M)``.

    Attributes
    ----------
    start : float
        Seconds an exchange costs once, whatever it sends (0 when fitted without it).
    segments : Segments
        Seconds per message by its size.
    counts, sizes, seconds : ndarray
        The timings fitted: messages per exchange, bytes per message, seconds.
    """

    start: float
    segments: Segments
    counts: np.ndarray
    sizes: np.ndarray
    seconds: np.ndarray

    def predict(self, counts, sizes):
        """Modelled seconds of exchanges of ``counts`` messages of ``sizes`` bytes."""
        return self.start + np.asarray(counts, dtype=float) * self.segments.seconds(sizes)

    @property
    def residuals(self) -> np.ndarray:
        """Relative residuals ``(measured - predicted) / measured``."""
        return 1.0 - self.predict(self.counts, self.sizes) / self.seconds

    def to_dict(self) -> dict:
        """The timings, what the fit makes of them and the residuals (JSON-serialisable)."""
        return {"counts": [int(c) for c in self.counts], "sizes": [int(s) for s in self.sizes],
                "seconds": [float(t) for t in self.seconds],
                "predicted": [float(t) for t in self.predict(self.counts, self.sizes)],
                "residuals": [float(r) for r in self.residuals],
                "rms_relative_residual": float(np.sqrt(np.mean(self.residuals ** 2))),
                "worst_ratio": _worst(self.predict(self.counts, self.sizes), self.seconds)}


def _fit_split(counts, sizes, seconds, starts, with_start):
    """Non-negative least squares of the relative residuals of ``start + count * (alpha_i + M / beta_i)``."""
    from scipy.optimize import nnls

    segment = np.searchsorted(starts, sizes, side="right") - 1
    weights = 1.0 / seconds
    columns = [weights] if with_start else []
    for i in range(len(starts)):
        on = (segment == i) * counts * weights
        columns += [on, on * sizes]
    design = np.column_stack(columns)
    scale = np.linalg.norm(design, axis=0)
    scale[scale == 0] = 1.0
    coefficients = nnls(design / scale, np.ones_like(seconds))[0] / scale
    start = float(coefficients[0]) if with_start else 0.0
    pairs = coefficients[int(with_start):].reshape(-1, 2)
    betas = tuple(float(min(1.0 / b, UNBOUNDED)) if b > 0 else UNBOUNDED for b in pairs[:, 1])
    return ExchangeFit(start, Segments(tuple(int(s) for s in starts), tuple(float(a) for a in pairs[:, 0]), betas),
                       counts, sizes, seconds)


def fit_exchange(counts, sizes, seconds, *, with_start=True, max_segments=4, min_points=2,
                 good_enough=1.2) -> ExchangeFit:
    """Fit ``seconds = start + count * (alpha_i + size / beta_i)``: a start per exchange and a piecewise message cost.

    The timings are of exchanges of ``count`` messages of ``size`` bytes
    each. Segment ``i`` holds the sizes from its start to the next;
    breakpoints are measured sizes, tried exhaustively, each segment
    spanning at least ``min_points`` distinct sizes. All coefficients are
    fitted at once by least squares on the relative residuals with every
    coefficient ``>= 0`` (as :func:`fit_alpha_beta`); for each number of
    segments the split with the smallest mean squared log ratio (predicted
    over measured) is kept, and the fewest segments (up to
    ``max_segments``) that predict every timing within ``good_enough``
    win, else the best split with ``max_segments``.

    Examples
    --------
    >>> counts = [1, 2, 4, 1, 2, 4]
    >>> sizes = [8, 8, 8, 4096, 4096, 4096]
    >>> seconds = [5e-6 + c * (3e-6 + s / 1e9) for c, s in zip(counts, sizes)]
    >>> f = fit_exchange(counts, sizes, seconds)
    >>> round(f.start * 1e6, 6), round(f.segments.alphas[0] * 1e6, 6), round(f.segments.betas[0] / 1e9, 6)
    (5.0, 3.0, 1.0)
    """
    counts = np.asarray(counts, dtype=float)
    sizes = np.asarray(sizes, dtype=float)
    seconds = np.asarray(seconds, dtype=float)
    if not (counts.shape == sizes.shape == seconds.shape and sizes.ndim == 1):
        raise InputError("counts, sizes and seconds must be 1-D arrays of equal length")
    if not (np.all(np.isfinite(seconds)) and np.all(seconds > 0) and np.all(sizes >= 0) and np.all(counts >= 1)):
        raise InputError("timings must be positive and finite, sizes non-negative, counts at least 1")
    distinct = np.unique(sizes)
    if distinct.size < 2 or (with_start and np.unique(counts).size < 2):
        raise InputError("a fit needs timings of at least two different sizes"
                         + (" and two different counts" if with_start else ""))
    best = None
    for number in range(1, max_segments + 1):
        best_here = None
        for cuts in _cut_choices(distinct.size, number, min_points):
            fit = _fit_split(counts, sizes, seconds, np.concatenate([[0], distinct[list(cuts)]]), with_start)
            score = float(np.mean(np.log(fit.predict(counts, sizes) / seconds) ** 2))
            if best_here is None or score < best_here[0] - 1e-15:
                best_here = (score, fit)
        if best_here is None:
            break
        best = best_here[1]
        if _worst(best.predict(counts, sizes), seconds) <= good_enough:
            break
    return best


def fit_segments(sizes, seconds, max_segments=4, min_points=2, good_enough=1.2) -> Segments:
    """A piecewise fit of one message's time: :func:`fit_exchange` of one message per timing, no start.

    The fewest segments (up to ``max_segments``) that predict every
    timing within ``good_enough``; each segment's ``alpha`` and ``beta`` is
    :func:`fit_alpha_beta` of its own timings (the segments do not share a
    coefficient). For each number of segments the split with the smallest
    mean squared log ratio is kept: the split that fits the curve's shape,
    which one noisy timing does not decide (a minimax choice would follow
    it).
    """
    sizes = np.asarray(sizes, dtype=float)
    return fit_exchange(np.ones_like(sizes), sizes, seconds, with_start=False, max_segments=max_segments,
                        min_points=min_points, good_enough=good_enough).segments


def _cut_choices(n, count, min_points):
    """Increasing cut indices splitting ``range(n)`` into ``count`` runs of at least ``min_points``."""
    from itertools import combinations

    if count == 1:
        return [()]
    if n < count * min_points:
        return []
    return [c for c in combinations(range(min_points, n - min_points + 1), count - 1)
            if all(b - a >= min_points for a, b in zip(c, c[1:]))]
