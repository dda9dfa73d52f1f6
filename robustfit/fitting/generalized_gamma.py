"""The generalised gamma in Prentice's coordinates, through its lognormal member.

scipy's ``gengamma(a, c, loc, scale)`` (Stacy's form) is ``loc + scale * G**(1/c)``
with ``G ~ gamma(a)``. Where the data look lognormal the likelihood's maximum runs off
along a curve, ``a -> inf`` and ``c -> 0`` with ``c sqrt(a)`` settling and ``log scale``
growing like ``sqrt(a) log a``: a BFGS in ``(a, c, scale)`` crawls that valley, and
fits of lognormal samples with ``floc=0`` stopped after their evaluation budget up to
0.15 log-likelihood units short of the maximum (scipy's own fit 3 units short).

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
scipy's parameters cannot express it: :func:`refit` says so and the fit keeps its own.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import special

from .optimizer import minimize_local

__all__ = ["PrenticeFit", "log_w_density", "refit", "to_prentice", "to_stacy"]

# from this |Q| down (k = 1/Q^2 >= 11) Stirling's series replaces k log k - log Gamma(k),
# which cancel to ~eps k log k (3e-9 at Q = 1e-3, a likelihood jittering by 1e-6 over
# 1000 points); below SERIES_Q, where also |Q w| < SERIES_QW, e^(Qw) - 1 - Qw is summed
# as its own series
STIRLING_Q = 0.3
SERIES_Q = 1e-3
SERIES_QW = 0.02
# the largest |log scale| returned (scale and its map back to the user's units, which
# multiplies it by the data's spread, stay far inside float64)
LOG_SCALE_LIMIT = 600.0
_HALF_LOG_2PI = 0.5 * math.log(2.0 * math.pi)


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


def to_stacy(q: float, mu: float, sigma: float) -> tuple[float, float, float] | None:
    """``(a, c, scale)`` of Prentice's ``(Q, mu, sigma)``; None where ``Q = 0`` (the
    lognormal itself) or the scale leaves float64 (``|log scale|`` above
    :data:`LOG_SCALE_LIMIT`)."""
    if q == 0.0 or not (sigma > 0 and math.isfinite(q) and math.isfinite(mu)):
        return None
    a = 1.0 / (q * q)
    c = q / sigma
    log_scale = mu - math.log(a) / c
    if not (math.isfinite(a) and abs(log_scale) <= LOG_SCALE_LIMIT):
        return None
    return a, c, math.exp(log_scale)


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


def refit(z: np.ndarray, starts: list, loc: float | None, gap_floor: float
          ) -> PrenticeFit | None:
    """Maximise the generalised gamma's likelihood of the sample ``z`` in Prentice's
    coordinates from each of ``starts`` (``(Q, mu, sigma, loc)``, see
    :func:`to_prentice`); ``loc`` fixed where given, else free below the smallest
    observation (at least ``gap_floor`` below it). The best run's optimum, or None where
    no start is valid.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.lognorm.rvs(0.5, scale=3.0, size=500, random_state=3)
    >>> out = refit(x, [(0.0, 1.0, 0.5, 0.0)], loc=0.0, gap_floor=0.0)
    >>> out.success, round(out.q, 4), round(float(out.theta[0]), -2)  # a = 1/Q^2
    (True, 0.0097, 10600.0)
    """
    z = np.asarray(z, dtype=float)
    zmin, n = float(np.min(z)), z.size
    free_loc = loc is None

    def unpack(t):
        q, mu, sigma = float(t[0]), float(t[1]), math.exp(float(t[2]))
        at = zmin - gap_floor - math.exp(float(t[3])) if free_loc else loc
        return q, mu, sigma, at

    def nll(t) -> float:
        q, mu, sigma, at = unpack(t)
        y = z - at
        if not (np.all(y > 0) and math.isfinite(sigma) and sigma > 0):
            return math.inf
        log_y = np.log(y)
        with np.errstate(all="ignore"):
            total = float(np.sum(log_w_density((log_y - mu) / sigma, q) - log_y))
        value = -(total - n * math.log(sigma))
        return value / n if math.isfinite(value) else math.inf

    best = None
    for q, mu, sigma, at in starts:
        if not (sigma > 0 and all(map(math.isfinite, (q, mu, sigma, at)))):
            continue
        t0 = [q, mu, math.log(sigma)]
        if free_loc:
            gap = zmin - at - gap_floor
            if not gap > 0:
                continue
            t0.append(math.log(gap))
        if not math.isfinite(nll(np.array(t0))):
            continue
        res = minimize_local(nll, np.array(t0))
        if best is None or res.fun < best.fun:
            best = res
    if best is None or not math.isfinite(best.fun):
        return None
    q, mu, sigma, at = unpack(best.t)
    stacy = to_stacy(q, mu, sigma)
    theta = None if stacy is None else np.array([stacy[0], stacy[1], at, stacy[2]])
    return PrenticeFit(theta, q, mu, sigma, at, best.fun * n, bool(best.success),
                       best.message, best.nfev)
