"""The generalised gamma in Prentice's coordinates, through its lognormal member.

scipy's ``gengamma(a, c, loc, scale)`` (Stacy's form) is ``loc + scale * G**(1/c)``
with ``G ~ gamma(a)``. Where the data look lognormal the likelihood's maximum runs off
along a curve, ``a -> inf`` and ``c -> 0`` with ``c sqrt(a)`` settling and ``log scale``
growing like ``sqrt(a) log a``: a BFGS in ``(a, c, scale)`` crawls that valley, and
fits of lognormal samples with ``floc=0`` stopped after their evaluation budget up to
0.15 log-likelihood units short of the maximum (scipy's own fit 1 to 6 units short).

Prentice (Biometrika 61, 1974; the parameterisation of R's flexsurv) writes the same
family as ``log(x - loc) = mu + sigma W``, where ``W`` has the density

    f(w; Q) = |Q| k^k exp(k (Q w - e^(Q w))) / Gamma(k),   k = 1 / Q^2,

and ``f(w; 0)`` is the standard normal: the lognormal is the interior point ``Q = 0``,
between ``c > 0`` (``Q > 0``) and ``c < 0``. Back in scipy's parameters,
``a = 1 / Q^2``, ``c = Q / sigma`` and ``log scale = mu - log(a) / c``. Near ``Q = 0``
the density is summed as a series (the closed form cancels ``k log k`` against
``log Gamma(k)``), so the likelihood is smooth through the lognormal member and a local
optimiser in ``(Q, mu, log sigma)`` meets a well-conditioned maximum. Where that maximum
has ``|Q|`` so small that ``scale`` leaves float64 (``a = 4e6``, ``log scale = 9000``),
scipy's parameters cannot express it: :func:`refit` says so, and
:func:`nearest_expressible` finds the nearest member they can.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .optimizer import minimize_local

__all__ = ["PrenticeFit", "PrenticeNLL", "log_w_density", "nearest_expressible", "refit",
           "to_prentice", "to_stacy", "w_cdf_sf"]

# from this |Q| down (k = 1/Q^2 >= 11) Stirling's series replaces k log k - log Gamma(k),
# which cancel to ~eps k log k (3e-9 at Q = 1e-3, a likelihood jittering by 1e-6 over
# 1000 points); below SERIES_Q, where also |Q w| < SERIES_QW, e^(Qw) - 1 - Qw is summed
# as its own series
STIRLING_Q = 0.3
SERIES_Q = 1e-3
SERIES_QW = 0.02
# below this |Q| the distribution function is the normal's with its first-order term
# (the next is ~Q^2)
CDF_SERIES_Q = 1e-6
# the largest |log scale| returned by default (the fit narrows the bounds so that the
# scale times the data's spread, in the user's units, stays within USER_LOG_SCALE_LIMIT:
# inside float64's normal numbers, 2.2e-308 to 1.8e308)
LOG_SCALE_LIMIT = 600.0
USER_LOG_SCALE_LIMIT = 700.0
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)
# |Q| at which a maximum that scipy's parameters cannot express is sought instead, from
# the smallest above it: a ladder of quarter decades, the same at every magnitude
Q_LADDER = tuple(10.0 ** (-k / 4.0) for k in range(16, 1, -1))


def log_w_density(w: np.ndarray, q: float) -> np.ndarray:
    """``log f(w; Q)`` of Prentice's standardised log-generalised-gamma variable.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> w = np.array([-2.0, 0.0, 1.5])
    >>> bool(np.allclose(log_w_density(w, 0.0), stats.norm.logpdf(w), rtol=0, atol=1e-15))
    True
    >>> bool(np.allclose(log_w_density(w, 1e-4), log_w_density(w, 0.0), atol=1e-3))
    True
    """
    w = np.asarray(w, dtype=float)
    if q == 0.0:
        return -_HALF_LOG_2PI - 0.5 * w * w
    k = 1.0 / (q * q)
    if abs(q) > STIRLING_Q:
        return (math.log(abs(q)) + k * math.log(k) - float(special.gammaln(k))
                - k * special.expm1(q * w) + k * q * w - k)
    # log|Q| + k log k - k - log Gamma(k) = -log(2 pi)/2 - (Q^2/12 - Q^6/360 + ...), and
    # k (Qw - e^(Qw) + 1) = -(e^(Qw) - 1 - Qw) / Q^2 = -w^2 (1/2 + Qw/6 + ...)
    q2 = q * q
    remainder = q2 * (1.0 / 12.0 - q2 * q2 * (1.0 / 360.0 - q2 * q2 * (
        1.0 / 1260.0 - q2 * q2 / 1680.0)))
    t = q * w
    if abs(q) < SERIES_Q and float(np.max(np.abs(t), initial=0.0)) < SERIES_QW:
        bend = w * w * (0.5 + t * (1.0 / 6.0 + t * (1.0 / 24.0 + t * (
            1.0 / 120.0 + t * (1.0 / 720.0 + t / 5040.0)))))
    else:
        bend = (special.expm1(t) - t) * k
    return -_HALF_LOG_2PI - remainder - bend


def to_prentice(a: float, c: float, scale: float) -> tuple[float, float, float]:
    """``(Q, mu, sigma)`` of scipy's ``gengamma(a, c, scale=scale)``."""
    root_a = math.sqrt(a)
    return (math.copysign(1.0 / root_a, c), math.log(scale) + math.log(a) / c,
            1.0 / (abs(c) * root_a))


def to_stacy(q: float, mu: float, sigma: float,
             log_scale_bounds: tuple[float, float] = (-LOG_SCALE_LIMIT, LOG_SCALE_LIMIT)
             ) -> tuple[float, float, float] | None:
    """``(a, c, scale)`` of Prentice's ``(Q, mu, sigma)``; None where ``Q = 0`` (the
    lognormal itself) or ``log scale`` falls outside ``log_scale_bounds`` (by default
    ``|log scale|`` at most :data:`LOG_SCALE_LIMIT`, far inside float64)."""
    if q == 0.0 or not (sigma > 0 and math.isfinite(q) and math.isfinite(mu)):
        return None
    a = 1.0 / (q * q)
    c = q / sigma
    log_scale = mu - math.log(a) / c
    low, high = log_scale_bounds
    if not (math.isfinite(a) and low <= log_scale <= high):
        return None
    return a, c, math.exp(log_scale)


def w_cdf_sf(w: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """``P(W <= w)`` and ``P(W > w)`` for Prentice's ``W``: regularised incomplete
    gamma functions of ``k e^(Qw)`` (each side computed directly, not as ``1 -`` the
    other), and below :data:`CDF_SERIES_Q` the normal's with its first-order term in
    ``Q``, ``Q phi(w) (w^2 + 2) / 6`` (scipy's ``gammainc`` at ``k = 1e16`` has lost
    the difference to rounding of ``k e^(Qw)``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> w = np.array([-1.0, 0.5])
    >>> lower, upper = w_cdf_sf(w, 0.0)
    >>> bool(np.allclose(lower, stats.norm.cdf(w)) and np.allclose(upper, stats.norm.sf(w)))
    True
    """
    w = np.asarray(w, dtype=float)
    if abs(q) < CDF_SERIES_Q:
        shift = q * np.exp(-0.5 * w * w - _HALF_LOG_2PI) * (w * w + 2.0) / 6.0
        return special.ndtr(w) + shift, special.ndtr(-w) - shift
    k = 1.0 / (q * q)
    x = k * np.exp(q * w)
    lower, upper = special.gammainc(k, x), special.gammaincc(k, x)
    return (lower, upper) if q > 0 else (upper, lower)


class PrenticeNLL:
    """The generalised gamma's negative log-likelihood in Prentice's coordinates, for
    exact values and, as ``scipy.stats.CensoredData`` has them, left-censored values
    (upper bounds), right-censored values (lower bounds) and intervals ``(lo, hi]``.
    ``edge``: the least value the location must stay below (exact values, left bounds,
    interval tops)."""

    def __init__(self, uncensored, left=(), right=(), lo=(), hi=()):
        self.uncensored = np.asarray(uncensored, dtype=float)
        self.left = np.asarray(left, dtype=float)
        self.right = np.asarray(right, dtype=float)
        self.lo = np.asarray(lo, dtype=float)
        self.hi = np.asarray(hi, dtype=float)
        self.n = (self.uncensored.size + self.left.size + self.right.size
                  + self.lo.size)
        bounds = [v[np.isfinite(v)] for v in (self.uncensored, self.left, self.hi)]
        bounds = [v for v in bounds if v.size]
        self.edge = float(min(np.min(v) for v in bounds)) if bounds else math.nan

    def __call__(self, q: float, mu: float, sigma: float, loc: float) -> float:
        if not (sigma > 0 and math.isfinite(sigma) and loc < self.edge):
            return math.inf
        total = 0.0
        with np.errstate(all="ignore"):
            if self.uncensored.size:
                log_y = np.log(self.uncensored - loc)
                total += float(np.sum(log_w_density((log_y - mu) / sigma, q) - log_y)
                               - self.uncensored.size * math.log(sigma))
            if self.left.size:
                total += float(np.sum(np.log(self._cdf_sf(self.left, q, mu, sigma, loc)[0])))
            if self.right.size:
                above = self.right[self.right > loc]  # (bounds below loc: probability 1)
                total += float(np.sum(np.log(self._cdf_sf(above, q, mu, sigma, loc)[1])))
            if self.lo.size:
                total += float(np.sum(np.log(self._interval(q, mu, sigma, loc))))
        return -total if math.isfinite(total) else math.inf

    @staticmethod
    def _cdf_sf(v, q, mu, sigma, loc):
        return w_cdf_sf((np.log(v - loc) - mu) / sigma, q)

    def _interval(self, q, mu, sigma, loc) -> np.ndarray:
        """``P(lo < X <= hi)`` on whichever tail keeps its digits (``lo`` below
        ``loc``: ``P(X <= hi)``)."""
        f_hi, s_hi = self._cdf_sf(self.hi, q, mu, sigma, loc)
        inside = self.lo > loc
        f_lo, s_lo = self._cdf_sf(np.where(inside, self.lo, self.hi), q, mu, sigma, loc)
        f_lo, s_lo = np.where(inside, f_lo, 0.0), np.where(inside, s_lo, 1.0)
        return np.where(f_hi < 0.5, f_hi - f_lo, s_lo - s_hi)


@dataclass(frozen=True)
class PrenticeFit:
    """The maximum in Prentice's coordinates: ``theta`` in scipy's order (None where
    scipy's parameters cannot express it), the coordinates themselves, the negative
    log-likelihood, whether the local optimiser converged, and its message."""

    theta: np.ndarray | None
    q: float
    mu: float
    sigma: float
    loc: float
    nll: float
    success: bool
    message: str
    nfev: int


def _loc_of(t_gap: float, nll: PrenticeNLL, loc: float | None, gap_floor: float) -> float:
    """The location: ``loc`` where fixed, else ``gap_floor + e^t_gap`` below ``nll.edge``."""
    return loc if loc is not None else nll.edge - gap_floor - math.exp(float(t_gap))


def _fit_at(q: float, mu: float, sigma: float, at: float, res, n: int,
            log_scale_bounds: tuple[float, float]) -> PrenticeFit:
    """The :class:`PrenticeFit` of a local run ``res`` that ended at these coordinates."""
    stacy = to_stacy(q, mu, sigma, log_scale_bounds)
    theta = None if stacy is None else np.array([stacy[0], stacy[1], at, stacy[2]])
    return PrenticeFit(theta, q, mu, sigma, at, res.fun * n, bool(res.success),
                       res.message, res.nfev)


def refit(nll: PrenticeNLL, starts: list, loc: float | None, gap_floor: float,
          maxfev: int = 3000,
          log_scale_bounds: tuple[float, float] = (-LOG_SCALE_LIMIT, LOG_SCALE_LIMIT)
          ) -> PrenticeFit | None:
    """Maximise the generalised gamma's likelihood ``nll`` in Prentice's coordinates
    from each of ``starts`` (``(Q, mu, sigma, loc)``, see :func:`to_prentice`); ``loc``
    fixed where given, else free below ``nll.edge`` (at least ``gap_floor`` below it);
    at most ``maxfev`` evaluations a start. The best run's optimum, or None where no
    start is valid; its ``theta`` None where the scale's log falls outside
    ``log_scale_bounds`` (see :func:`to_stacy`).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.lognorm.rvs(0.5, scale=3.0, size=500, random_state=3)
    >>> out = refit(PrenticeNLL(x), [(0.0, 1.0, 0.5, 0.0)], loc=0.0, gap_floor=0.0)
    >>> out.success, round(out.q, 4), round(float(out.theta[0]), -2)  # a = 1/Q^2
    (True, 0.0097, 10600.0)
    """
    free_loc = loc is None
    n = max(nll.n, 1)

    def unpack(t):
        return (float(t[0]), float(t[1]), math.exp(float(t[2])),
                _loc_of(t[3] if free_loc else 0.0, nll, loc, gap_floor))

    def objective(t) -> float:
        return nll(*unpack(t)) / n

    best = None
    for q, mu, sigma, at in starts:
        if not (sigma > 0 and all(map(math.isfinite, (q, mu, sigma, at)))):
            continue
        t0 = [q, mu, math.log(sigma)]
        if free_loc:
            gap = nll.edge - at - gap_floor
            if not gap > 0:
                continue
            t0.append(math.log(gap))
        if not math.isfinite(objective(np.array(t0))):
            continue
        res = minimize_local(objective, np.array(t0), maxfev=maxfev)
        if best is None or res.fun < best.fun:
            best = res
    if best is None or not math.isfinite(best.fun):
        return None
    return _fit_at(*unpack(best.t), best, n, log_scale_bounds)


def nearest_expressible(nll: PrenticeNLL, found: PrenticeFit, loc: float | None,
                        gap_floor: float, maxfev: int = 3000,
                        log_scale_bounds: tuple[float, float] = (-LOG_SCALE_LIMIT,
                                                                 LOG_SCALE_LIMIT)
                        ) -> PrenticeFit | None:
    """Where the maximum ``found`` has a ``Q`` too small for scipy's parameters: the most
    likely member they can express, with ``|Q|`` the smallest rung of :data:`Q_LADDER`
    above ``|found.q|`` (on its side of 0) at which, the other coordinates refitted, the
    scale stays within ``log_scale_bounds``; None where no rung does. The likelihood
    falls away from the maximum along ``Q``, so the first such rung is the nearest
    member, and the same one at every magnitude of the data.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.lognorm.rvs(0.5, scale=3.0, size=500, random_state=3)
    >>> found = refit(PrenticeNLL(x), [(0.0, 1.0, 0.5, 0.0)], loc=0.0, gap_floor=0.0,
    ...               log_scale_bounds=(-100.0, 100.0))
    >>> found.theta is None, round(found.q, 4)  # (e^-486 is out of these bounds)
    (True, 0.0097)
    >>> near = nearest_expressible(PrenticeNLL(x), found, 0.0, 0.0,
    ...                            log_scale_bounds=(-100.0, 100.0))
    >>> round(near.q, 4), bool(0 < near.nll - found.nll < 0.1)
    (0.0562, True)
    """
    free_loc = loc is None
    n = max(nll.n, 1)
    side = 1.0 if found.q >= 0 else -1.0
    start = [found.mu, math.log(found.sigma)]
    if free_loc:  # (found's own gap above gap_floor, positive but for rounding)
        start.append(math.log(max(nll.edge - found.loc - gap_floor, 1e-300)))
    for rung in (r for r in Q_LADDER if r > abs(found.q)):
        q = side * rung

        def unpack(t, q=q):
            return (q, float(t[0]), math.exp(float(t[1])),
                    _loc_of(t[2] if free_loc else 0.0, nll, loc, gap_floor))

        res = minimize_local(lambda t, unpack=unpack: nll(*unpack(t)) / n,
                             np.array(start), maxfev=maxfev)
        if not math.isfinite(res.fun):
            continue
        near = _fit_at(*unpack(res.t), res, n, log_scale_bounds)
        if near.theta is not None:
            return near
        start = list(res.t)  # (the next rung starts from this one's optimum)
    return None
