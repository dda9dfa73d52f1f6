"""Exact maximum-likelihood estimates, by distribution and set of fixed parameters.

Each entry takes the (standardised) data and the fixed values and returns the full
parameter vector in scipy's order, or ``None`` when it does not apply to that fixed set.
Entries are exact MLEs (solved in closed form, or by a 1-D root on the score equation),
so where one applies and covers every free parameter, no optimisation is needed.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import optimize, special

from .families import scipy_family_entry
from .log_concave import POTENTIALS, log_concave_mle
from .profile_roots import profile_root_mle

ClosedForm = Callable[[np.ndarray, dict], "np.ndarray | None"]
_TABLE: dict[str, ClosedForm] = {}


def _register(*names: str):
    def deco(fn: ClosedForm) -> ClosedForm:
        for name in names:
            _TABLE[name] = fn
        return fn
    return deco


def closed_form_mle(dist, x: np.ndarray, fixed: dict) -> np.ndarray | None:
    """Exact MLE of ``dist`` on ``x`` with ``fixed`` (index -> value), or None.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = np.array([1.0, 2.0, 2.5, 4.0])
    >>> closed_form_mle(stats.maxwell, x, {0: 0.0})  # floc=0 -> [loc, scale]
    array([0.        , 1.50692844])
    >>> round(float(np.sqrt(np.mean(x**2) / 3)), 8)  # the Maxwell scale sqrt(sum x²/3n)
    1.50692844
    """
    fn = scipy_family_entry(dist, _TABLE)
    if fn is None:
        return None
    with np.errstate(all="ignore"):
        theta = fn(x, fixed)
    if theta is None or not np.all(np.isfinite(theta)):
        return None
    return np.asarray(theta, dtype=float)


LimitForm = Callable[[np.ndarray, dict], "tuple[list, str] | None"]
_LIMITS: dict[str, LimitForm] = {}


def _register_limit(name: str):
    def deco(fn: LimitForm) -> LimitForm:
        _LIMITS[name] = fn
        return fn
    return deco


def closed_form_limit(dist, x: np.ndarray, fixed: dict) -> tuple[np.ndarray, str] | None:
    """Where a closed form proves that the likelihood of ``dist`` on ``x`` has no
    maximum -- its supremum is a limit that the family's finite parameters only
    approach -- the parameters at which that approach is reported (a fixed value of
    the shape that runs away, :data:`LIMIT_LADDER_END`, the same at every magnitude;
    the likelihood there is the supremum's to rounding) and what the limit is; else
    None.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = np.array([0.0, 0.1, 0.3, 0.7, 1.5, 3.1])  # exponential-looking
    >>> theta, why = closed_form_limit(stats.laplace_asymmetric, x, {})
    >>> float(theta[0]), float(theta[1])  # kappa -> 0, loc on the smallest observation
    (1e-12, 0.0)
    >>> nll = stats.laplace_asymmetric.nnlf(theta, x)
    >>> bool(np.isclose(nll, x.size * np.log(np.mean(x)) + x.size, rtol=1e-14))
    True
    """
    fn = scipy_family_entry(dist, _LIMITS)
    if fn is None:
        return None
    with np.errstate(all="ignore"):
        out = fn(x, fixed)
    if out is None:
        return None
    theta, why = out
    theta = np.asarray(theta, dtype=float)
    return (theta, why) if np.all(np.isfinite(theta)) else None


def _loc_scale(fixed, loc_index):
    return fixed.get(loc_index), fixed.get(loc_index + 1)


@_register("norm")
def _norm(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    loc = np.mean(x) if loc is None else loc
    scale = np.sqrt(np.mean((x - loc) ** 2)) if scale is None else scale
    return [loc, scale]


@_register("expon")
def _expon(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    loc = np.min(x) if loc is None else loc
    scale = np.mean(x) - loc if scale is None else scale
    return [loc, scale]


def _radial(k: float):
    """Chi-type laws with k > 1 degrees of freedom, scale free: with loc fixed,
    ``scale² = Σy²/(k n)``; with loc free, the gap ``δ = min(x) - loc`` is the one root
    of the profile's slope (:func:`radial_gap`)."""
    def fn(x, fixed):
        loc, scale = _loc_scale(fixed, 0)
        if scale is not None:
            return None
        if loc is None:
            gap = radial_gap(x - np.min(x), k)
            if gap is None:
                return None
            loc = float(np.min(x)) - gap
        return [loc, np.sqrt(np.mean((x - loc) ** 2) / k)]
    return fn


def radial_gap(d: np.ndarray, k: float) -> float | None:
    """The gap ``δ > 0`` below the smallest observation at which the profile likelihood
    of a chi-type law (density ``∝ y^(k-1) e^(-y²/2s²) / s^k``, ``k > 1``) over loc
    is largest, given ``d = x - min(x)``.

    With ``s² = Σy²/(kn)`` the profile's slope in δ is
    ``-(k-1) Σ 1/y + kn Σy / Σy²`` (``y = d + δ``): -inf as δ -> 0 (the smallest
    observation's ``1/δ``) and ``n/δ > 0`` as δ -> inf. The density is log-concave, so
    the likelihood is quasi-concave along loc (each loc is a line through the origin in
    ``(1/s, -loc/s)``, where the negative log-likelihood is convex) and the root is
    unique: scipy solves the same equation for rayleigh; maxwell has no ``fit`` of its
    own. None for data without spread.

    Examples
    --------
    >>> import numpy as np
    >>> d = np.array([0.0, 0.7, 1.1, 1.6, 2.9])
    >>> gap = radial_gap(d, 2.0)
    >>> y = d + gap
    >>> bool(abs(-np.sum(1 / y) + 2 * y.size * np.sum(y) / np.sum(y * y)) < 1e-9)
    True
    """
    top = float(np.max(d))
    if not top > 0 or not k > 1:
        return None
    n = d.size

    def slope(t: float) -> float:
        y = d + math.exp(t)
        return float(-(k - 1.0) * np.sum(1.0 / y) + k * n * np.sum(y) / np.sum(y * y))

    lo, hi = math.log(top) - 40.0, math.log(top) + 40.0
    if not (slope(lo) < 0 < slope(hi)):
        return None
    return math.exp(optimize.brentq(slope, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps))


_register("maxwell")(_radial(3.0))
_register("rayleigh")(_radial(2.0))


@_register("halfnorm")
def _halfnorm(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    loc = np.min(x) if loc is None else loc
    scale = np.sqrt(np.mean((x - loc) ** 2)) if scale is None else scale
    return [loc, scale]


@_register("uniform")
def _uniform(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    if loc is None and scale is None:
        return [np.min(x), np.max(x) - np.min(x)]
    if scale is None:
        return [loc, np.max(x) - loc]
    if loc is None:
        # every loc in [max - scale, min] is a maximum: the support centred over the
        # data's range, as scipy's uniform.fit chooses (and the same member at every
        # magnitude)
        return [np.min(x) - 0.5 * (scale - (np.max(x) - np.min(x))), scale]
    return None


@_register("laplace")
def _laplace(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    loc = np.median(x) if loc is None else loc
    scale = np.mean(np.abs(x - loc)) if scale is None else scale
    return [loc, scale]


@_register("lognorm")
def _lognorm(x, fixed):
    s, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None:
        return lognorm3_mle(x) if s is None and scale is None else None
    y = np.log(x - loc)
    scale = np.exp(np.mean(y)) if scale is None else scale
    if s is None:
        s = np.sqrt(np.mean((y - np.log(scale)) ** 2))
    return [s, loc, scale]


def lognorm3_mle(x: np.ndarray) -> list[float] | None:
    """The three-parameter lognormal MLE ``[s, loc, scale]``, the interior root of the
    profile score in ``loc`` (:mod:`.profile_roots`), or None where the profile has no
    interior minimum (it falls towards the normal limit, or towards the singularity at
    ``loc -> min(x)``: the general path says which) or its root lies more than
    ``exp(FLAT_BEYOND)`` spreads from the data, where the profile is flat to rounding.

    At a fixed ``loc``, ``L = log(x - loc)`` has mean ``log scale`` and standard
    deviation ``s``; the profile NLL is ``sum(L) + n/2 log(var L)`` up to a constant,
    and its score in ``loc`` is ``sum((1 + (L - mean L) / var L) / (x - loc))`` (Cohen
    and Whitten, J. Am. Stat. Assoc. 75, 1980, eq. 3.1, the equation scipy's
    ``lognorm.fit`` solves). The general path (a profile start, then a local run in all
    three parameters) took 6.6 ms at n = 1000 and 1.9 s at n = 1e6, against scipy's
    0.5 ms and 0.08 s.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.lognorm.rvs(0.5, loc=-2.0, scale=3.0, size=2000, random_state=3)
    >>> s, loc, scale = lognorm3_mle(x)
    >>> bool(stats.lognorm.nnlf((s, loc, scale), x) < stats.lognorm.nnlf((0.5, -2, 3), x))
    True
    >>> round(loc, 2), round(s, 3)
    (-1.97, 0.511)
    """
    def conditional(y):
        logs = np.log(y)
        mean = float(np.mean(logs))
        dev = logs - mean
        var = float(np.dot(dev, dev)) / y.size
        if not (var > 0 and math.isfinite(var)):
            return None
        nll = float(np.sum(logs)) + 0.5 * y.size * math.log(var)
        return (math.sqrt(var), math.exp(mean)), nll, -float(np.sum((1.0 + dev / var) / y))

    found = profile_root_mle(x, conditional)
    if found is None:
        return None
    loc, (s, scale) = found
    return [s, loc, scale]


@_register("gamma")
def _gamma(x, fixed):
    a, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None:
        return None
    y = x - loc
    if scale is not None and a is None:
        # score in a: digamma(a) = mean(log y) - log(scale)
        target = np.mean(np.log(y)) - np.log(scale)
        return [_inverse_digamma(target), loc, scale]
    if a is None:
        a = gamma_shape_mle(np.log(np.mean(y)) - np.mean(np.log(y)))
    return [a, loc, np.mean(y) / a if scale is None else scale]


@_register("chi2")
def _chi2(x, fixed):
    """chi2(df, loc, scale) is gamma(df / 2, loc, 2 * scale)."""
    df, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    as_gamma = {1: loc} if loc is not None else {}
    if df is not None:
        as_gamma[0] = df / 2.0
    if scale is not None:
        as_gamma[2] = 2.0 * scale
    theta = _gamma(x, as_gamma)
    return None if theta is None else [2.0 * theta[0], theta[1], theta[2] / 2.0]


def _gaps(x: np.ndarray, loc: float) -> np.ndarray | None:
    """``x - loc``, or None where an observation is not strictly beyond ``loc`` (a loc
    inside the data: the profile over loc asks at any loc on its grid)."""
    y = x - loc
    return None if np.any(y <= 0) else y


# relative rounding of a score summed from a few terms of O(1): below it, a root
_ROOT_NOISE = 8 * np.finfo(float).eps
_MAX_NEWTON_STEP = 2.0  # in log(shape): a factor e^2 per step at most


def _trigamma(a: float) -> float:
    return float(special.zeta(2.0, a))  # polygamma(1, a), without its Python wrapper


def gamma_shape_mle(s: float) -> float:
    """Solve ``log(a) - digamma(a) = s`` (s > 0) by Newton in log(a) from Minka's start.

    On Python floats: the profile over loc (:mod:`.loc_profile`) solves this dozens of
    times per fit.
    """
    s = float(s)
    if not (s > 0 and math.isfinite(s)):
        return np.nan
    a = (3.0 - s + math.sqrt((s - 3.0) ** 2 + 24.0 * s)) / (12.0 * s)
    for _ in range(50):
        log_a, digamma_a = math.log(a), float(special.digamma(a))
        f = log_a - digamma_a - s
        if abs(f) <= _ROOT_NOISE * (abs(log_a) + abs(digamma_a) + s):
            break  # the root to rounding (small s: log a - digamma(a) cancels to ~s)
        fprime = 1.0 / a - _trigamma(a)
        step = f / (fprime * a)  # Newton step in log(a)
        if not math.isfinite(step):
            return np.nan
        a *= math.exp(-min(_MAX_NEWTON_STEP, max(-_MAX_NEWTON_STEP, step)))
        if abs(step) < 1e-14:
            break
    return a


def _inverse_digamma(y: float) -> float:
    a = np.exp(y) + 0.5 if y >= -2.22 else -1.0 / (y - special.digamma(1.0))
    for _ in range(50):
        a -= (special.digamma(a) - y) / _trigamma(a)
    return float(a)


def _shape_and_gaps(x, fixed):
    """``(shape, loc, scale, y)`` of a one-shape family with loc fixed (shape and scale
    None where free, ``y = x - loc`` all positive), or None."""
    loc = fixed.get(1)
    y = None if loc is None else _gaps(x, loc)
    return None if y is None else (fixed.get(0), loc, fixed.get(2), y)


@_register("weibull_min")
def _weibull_min(x, fixed):
    known = _shape_and_gaps(x, fixed)
    if known is None:
        return None
    c, loc, scale, y = known
    logy = np.log(y)
    if c is None:
        if scale is not None:
            return None
        c = weibull_shape_mle(logy)
    if scale is None:
        shift = np.max(logy)
        scale = np.exp(shift) * np.mean(np.exp(c * (logy - shift))) ** (1.0 / c)
    return [c, loc, scale]


@_register("weibull_max")
def _weibull_max(x, fixed):
    """weibull_max(c, loc, scale) at x is weibull_min(c, -loc, scale) at -x."""
    mirrored = dict(fixed)
    if 1 in fixed:
        mirrored[1] = -fixed[1]
    theta = _weibull_min(-np.asarray(x), mirrored)
    return None if theta is None else [theta[0], -theta[1], theta[2]]


def weibull_shape_mle(logy: np.ndarray) -> float:
    """Root of the Weibull profile score ``S(c) = Σy^c log y / Σy^c - 1/c - mean(log y)``.

    ``S`` increases strictly (``dS/dc`` is the ``y^c``-weighted variance of ``log y``
    plus ``1/c^2``), so Newton steps in ``log c`` kept inside a bracket that every
    evaluation narrows converge from the moment guess in a few steps (the profile over
    loc asks for this root at ~50 locations per fit; brentq took ~12 evaluations each).
    """
    z = logy - np.max(logy)  # y/ymax: keeps y^c in range for any c
    mean_z = float(np.mean(z))
    sd = float(np.std(logy))
    if not sd > 0:
        return np.nan

    def score_and_slope(log_c):
        c = math.exp(log_c)
        w = np.exp(c * z)
        sw, swz, swzz = float(np.sum(w)), float(np.dot(w, z)), float(np.dot(w * z, z))
        mean_w = swz / sw
        score = mean_w - 1.0 / c - mean_z
        # (the weighted variance, >= 0: where the weights sit on the largest value it
        # cancels to rounding, and a negative slope sent Newton into a bisection that
        # crawled back over 60 units of log c)
        slope = c * max(swzz / sw - mean_w * mean_w, 0.0) + 1.0 / c  # dS/dlog c
        noise = _ROOT_NOISE * (abs(mean_w) + 1.0 / c + abs(mean_z))
        return score, slope, noise

    u = math.log(1.2825498301618641 / sd)  # pi/sqrt(6)/sd: moments of log y
    lo, hi = u - 60.0, u + 60.0
    for _ in range(200):
        score, slope, noise = score_and_slope(u)
        if not math.isfinite(score):
            return np.nan
        if abs(score) <= noise:
            break  # the root to rounding: a further step would follow the noise
        if score > 0:
            hi = u
        else:
            lo = u
        step = score / slope if math.isfinite(slope) else math.inf
        nxt = u - max(-_MAX_NEWTON_STEP, min(_MAX_NEWTON_STEP, step))
        if not lo < nxt < hi:
            nxt = 0.5 * (lo + hi)
        if abs(nxt - u) <= 1e-15 * max(1.0, abs(u)) or hi - lo <= 1e-15 * max(1.0, abs(u)):
            u = nxt
            break
        u = nxt
    return math.exp(u)


def gumbel_scale_mle(y: np.ndarray) -> float | None:
    """Root in ``s`` of the Gumbel score ``mean(y) - s - Σ y w / Σ w``, ``w = e^(-y/s)``.

    ``y = x - min(x)`` (the equation is shift-invariant, and the weights cannot
    underflow all at once). The left side falls from ``mean(y)`` (as ``s -> 0``) to
    below 0 by ``s = mean(y)``; None for data without spread.

    Examples
    --------
    >>> import numpy as np
    >>> y = np.array([0.0, 0.4, 1.1, 2.5])
    >>> s = gumbel_scale_mle(y)
    >>> w = np.exp(-y / s)
    >>> bool(abs(np.mean(y) - s - np.sum(y * w) / np.sum(w)) < 1e-12)
    True
    """
    m = float(np.mean(y))
    if not m > 0:
        return None

    def score(s: float) -> float:
        w = np.exp(-y / s)
        return m - s - float(np.dot(y, w) / np.sum(w))

    lo, hi = 1e-6 * m, m
    if not score(lo) > 0:
        return None
    return optimize.brentq(score, lo, hi, xtol=1e-14 * m, rtol=4 * np.finfo(float).eps)


@_register("gumbel_r")
def _gumbel_r(x, fixed):
    """Scale from its 1-D score equation, then ``loc = -s log(mean(e^(-x/s)))``."""
    loc, scale = _loc_scale(fixed, 0)
    if scale is None:
        if loc is not None:  # a different score equation: left to the optimiser
            return None
        scale = gumbel_scale_mle(x - np.min(x))
        if scale is None:
            return None
    if loc is None:
        lo = np.min(x)
        loc = lo - scale * math.log(float(np.mean(np.exp(-(x - lo) / scale))))
    return [loc, scale]


@_register("gumbel_l")
def _gumbel_l(x, fixed):
    """gumbel_l(loc, scale) at x is gumbel_r(-loc, scale) at -x."""
    mirrored = {k: (-v if k == 0 else v) for k, v in fixed.items()}
    theta = _gumbel_r(-x, mirrored)
    return None if theta is None else [-theta[0], theta[1]]


@_register("pareto")
def _pareto(x, fixed):
    b, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None:
        return None
    y = x - loc
    scale = np.min(y) if scale is None else scale
    if b is None:
        b = y.size / np.sum(np.log(y / scale))
    return [b, loc, scale]


@_register("invgauss")
def _invgauss(x, fixed):
    mu, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None or mu is not None or scale is not None:
        return None
    y = x - loc
    m = np.mean(y)
    lam = y.size / np.sum(1.0 / y - 1.0 / m)
    return [m / lam, loc, lam]


@_register("wald")
def _wald(x, fixed):
    """Wald is invgauss with mu = 1: the scale is lambda, and the score in lambda,
    n*lam - lam**2 * sum(1/y) + sum(y) = 0, is a quadratic with one positive root."""
    loc, scale = _loc_scale(fixed, 0)
    if loc is None or scale is not None:
        return None
    y = x - loc
    s_inv, s, n = np.sum(1.0 / y), np.sum(y), y.size
    return [loc, (n + np.sqrt(n * n + 4.0 * s_inv * s)) / (2.0 * s_inv)]


@_register("loguniform", "reciprocal")
def _loguniform(x, fixed):
    """With loc and scale fixed, the density 1/(u log(b/a)) on [a, b] is largest for the
    shortest interval holding the data: a = min(u), b = max(u), u = (x - loc)/scale —
    widened by a few ulps so that rounding of the standardisation never leaves an
    observation outside."""
    a, b, (loc, scale) = fixed.get(0), fixed.get(1), _loc_scale(fixed, 2)
    if loc is None or a is not None or b is not None:
        return None
    if scale is None:
        # scale free: s LogUniform(a, b) is LogUniform(s a, s b), a ridge of one and the
        # same distribution; the member with b = 1 (the scale is the support's upper end
        # above loc) is the one the fit reports (see .symmetries)
        scale = float(np.max(x)) - loc
        if not scale > 0:
            return None
    u = (x - loc) / scale
    lo, hi = float(np.min(u)), float(np.max(u))
    if not 0 < lo < hi:
        return None
    eps = 8 * np.finfo(float).eps
    return [lo * (1 - eps), hi * (1 + eps), loc, scale]


def _gap_sums(x: np.ndarray, loc: float) -> tuple[float, float]:
    """``(S+, S-)``: the sums of ``x - loc`` above ``loc`` and of ``loc - x`` below it."""
    return (float(np.sum(np.maximum(x - loc, 0.0))),
            float(np.sum(np.maximum(loc - x, 0.0))))


def _laplace_asymmetric_best_loc(x: np.ndarray) -> float | None:
    """The observation at which laplace_asymmetric's profile likelihood over loc is
    highest -- its NLL there ``2n log(sqrt S+ + sqrt S-) - n log n + n`` (see
    :func:`_laplace_asymmetric`) -- or None where no observation has others on both
    sides, or where a limit at an end beats every one
    (:func:`_laplace_asymmetric_limit`)."""
    n = x.size
    xs = np.sort(x - np.median(x))
    below = np.concatenate(([0.0], np.cumsum(xs)[:-1]))  # Σ x_j for j < i
    above = np.sum(xs) - below - xs                          # Σ x_j for j > i
    idx = np.arange(n)
    lower_all = idx * xs - below
    upper_all = above - (n - 1 - idx) * xs
    inside = (lower_all > 0) & (upper_all > 0)
    if not np.any(inside):
        return None
    h = np.where(inside, np.sqrt(np.maximum(upper_all, 0.0))
                 + np.sqrt(np.maximum(lower_all, 0.0)), np.inf)
    i = int(np.argmin(h))
    # the profile at the two ends (kappa running to 0 or to infinity) is a limit of
    # the family; an interior maximum exists only where it is lower than both
    if not h[i] < min(np.sqrt(upper_all[0]), np.sqrt(lower_all[-1])):
        return None
    return float(np.sort(x)[i])


@_register("laplace_asymmetric")
def _laplace_asymmetric(x, fixed):
    """With loc ``m`` the scores give ``kappa = (S-/S+)**(1/4)`` and
    ``scale = (kappa S+ + S-/kappa) / n``, where ``S+ = Σ(x - m)`` over ``x > m`` and
    ``S- = Σ(m - x)`` over ``x < m``; the profile NLL is then
    ``2n log(√S+ + √S-) - n log n + n``. Between two observations ``√S+ + √S-`` is
    concave in ``m``, so with loc free its minimum is at an observation: all of them
    are tried at once from cumulative sums (an exact global maximum, where an
    optimiser ends within ~1e-6 of the kink)."""
    kappa, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if kappa is not None or scale is not None:
        return None
    if loc is None:
        loc = _laplace_asymmetric_best_loc(x)
        if loc is None:
            return None
    upper, lower = _gap_sums(x, loc)
    if not (upper > 0 and lower > 0):
        return None
    kappa = (lower / upper) ** 0.25
    return [kappa, loc, (kappa * upper + lower / kappa) / x.size]


# a limit of a family is reported at this value of the shape that approaches it (the
# last probe of .open_ends' ladders, 1e12 or 1e-12): the same at every magnitude
LIMIT_LADDER_END = 1e12


@_register_limit("laplace_asymmetric")
def _laplace_asymmetric_limit(x, fixed):
    """Where the profile over loc is lowest at an end (with loc fixed: where every
    observation lies on one side of it), the likelihood has no maximum: it rises as
    kappa runs to 0 (to infinity), towards the exponential law above the smallest
    observation (below the largest) whose mean is ``S+/n`` (``S-/n``) -- the
    profile's value at that end. Reported at ``kappa = 1e-12`` (``1e12``) with
    ``scale = 1e-12 * mean``, where the density is that law's to rounding
    (``log(1 + kappa**2)`` vanishes in float64)."""
    kappa, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if kappa is not None or scale is not None or x.size < 2:
        return None
    if loc is None:
        if _laplace_asymmetric_best_loc(x) is not None:
            return None  # an interior maximum (_laplace_asymmetric)
        lo, hi = float(np.min(x)), float(np.max(x))
        upper, lower = _gap_sums(x, lo)[0], _gap_sums(x, hi)[1]
        if not (upper > 0 and lower > 0):
            return None
        above = upper <= lower  # (the end whose profile, sqrt(S+) or sqrt(S-), is lower)
        loc, upper, lower = (lo, upper, 0.0) if above else (hi, 0.0, lower)
    else:
        upper, lower = _gap_sums(x, loc)
        if (upper > 0) == (lower > 0):
            return None  # an interior maximum, or no spread
        above = upper > 0
    mean = (upper if above else lower) / x.size
    kappa = 1.0 / LIMIT_LADDER_END if above else LIMIT_LADDER_END
    where = "above the smallest" if above else "below the largest"
    return [kappa, loc, mean / LIMIT_LADDER_END], (
        f"the likelihood rises as kappa runs to {'0' if above else 'infinity'}, towards "
        f"the exponential law {where} observation (the family's limit there); reported "
        f"at kappa = {kappa:g}, where the density is that law's to rounding")


@_register("loglaplace")
def _loglaplace(x, fixed):
    """``log((X - loc) / scale)`` is Laplace with scale ``1/c``: with loc fixed the MLE is
    Laplace's on the logs, ``scale = exp(median)`` and ``1/c`` the mean absolute
    deviation from it. (For an even count every point between the two middle logs is a
    maximum; the median's midpoint is the one reported at every magnitude.)"""
    known = _shape_and_gaps(x, fixed)
    if known is None:
        return None
    c, loc, scale, y = known
    logy = np.log(y)
    m = float(np.median(logy)) if scale is None else math.log(scale)
    if c is None:
        spread = float(np.mean(np.abs(logy - m)))
        if not spread > 0:
            return None
        c = 1.0 / spread
    return [c, loc, math.exp(m)]


# -- families that are gamma, Weibull or inverse Gaussian after squaring, inverting or
# folding the gap y = x - loc. A transform whose Jacobian does not involve the parameters
# leaves the maximiser unchanged, so each MLE with loc fixed is the transformed family's.


def _transformed(base: ClosedForm, transform: Callable[[np.ndarray], np.ndarray] | None = None,
                 *, shape_to=None, shape_from=None, scale_to=None, scale_from=None,
                 fold: bool = False) -> ClosedForm:
    """A one-shape family whose ``transform(y)`` follows ``base`` with shape
    ``shape_to(shape)`` and scale ``scale_to(scale)`` (identities by default);
    ``fold``: ``y = |x - loc|`` (a symmetric double family), else ``y = x - loc > 0``."""
    def same(v):
        return v

    transform = transform or same
    shape_to, shape_from = shape_to or same, shape_from or same
    scale_to, scale_from = scale_to or same, scale_from or same

    def fn(x, fixed):
        shape, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
        if loc is None:
            return None
        y = np.abs(np.asarray(x) - loc) if fold else _gaps(x, loc)
        if y is None or np.any(y <= 0):
            return None
        as_base = {1: 0.0}
        if shape is not None:
            as_base[0] = shape_to(shape)
        if scale is not None:
            as_base[2] = scale_to(scale)
        theta = base(transform(y), as_base)
        if theta is None:
            return None
        return [shape_from(theta[0]), loc, scale_from(theta[2])]
    return fn


def _reciprocal(v):
    return 1.0 / v


def _square(v):
    return v * v


_register("invgamma")(_transformed(_gamma, _reciprocal, scale_to=_reciprocal,
                                   scale_from=_reciprocal))         # 1/y ~ gamma(a, 1/s)
_register("chi")(_transformed(                                      # y² ~ gamma(df/2, 2s²)
    _gamma, _square, shape_to=lambda df: df / 2.0, shape_from=lambda a: 2.0 * a,
    scale_to=lambda s: 2.0 * s * s, scale_from=lambda t: math.sqrt(t / 2.0)))
_register("invweibull")(_transformed(_weibull_min, _reciprocal, scale_to=_reciprocal,
                                     scale_from=_reciprocal))       # 1/y ~ weibull_min(c, 1/s)
_register("dweibull")(_transformed(_weibull_min, fold=True))   # |y| ~ weibull_min(c, s)
_register("dgamma")(_transformed(_gamma, fold=True))           # |y| ~ gamma(a, s)


@_register("nakagami")
def _nakagami(x, fixed):
    """nakagami(nu, loc, s): ``y**2 ~ gamma(nu, scale=s**2 / nu)`` (with s fixed and nu
    free the gamma scale moves with nu: not covered)."""
    nu, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None or scale is not None:
        return None
    y = _gaps(x, loc)
    if y is None:
        return None
    theta = _gamma(y ** 2, {1: 0.0} if nu is None else {0: nu, 1: 0.0})
    return None if theta is None else [theta[0], loc, math.sqrt(theta[2] * theta[0])]


@_register("recipinvgauss")
def _recipinvgauss(x, fixed):
    """recipinvgauss(mu, loc, s): ``1/y ~ invgauss(mu, scale=1/s)``."""
    mu, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None or mu is not None or scale is not None:
        return None
    y = _gaps(x, loc)
    if y is None:
        return None
    theta = _invgauss(1.0 / y, {1: 0.0})
    return None if theta is None else [theta[0], loc, 1.0 / theta[2]]


def _scale_only(statistic: Callable[[np.ndarray], float]) -> ClosedForm:
    """A family without shapes, loc fixed and scale free: ``scale = statistic(y)``."""
    def fn(x, fixed):
        loc, scale = _loc_scale(fixed, 0)
        if loc is None or scale is not None:
            return None
        y = _gaps(x, loc)
        return None if y is None else [loc, float(statistic(y))]
    return fn


# levy(loc, s): log L = n/2 log s - s/2 Σ 1/y + const, so s = n / Σ 1/y
_levy = _register("levy")(_scale_only(lambda y: y.size / np.sum(1.0 / y)))
# gibrat is lognorm with s = 1: scale = exp(mean(log y))
_register("gibrat")(_scale_only(lambda y: np.exp(np.mean(np.log(y)))))


@_register("levy_l")
def _levy_l(x, fixed):
    """levy_l(loc, s) at x is levy(-loc, s) at -x."""
    theta = _levy(-np.asarray(x), {0: -fixed[0]} if 0 in fixed else {})
    return None if theta is None or 1 in fixed else [-theta[0], theta[1]]


@_register("powerlaw")
def _powerlaw(x, fixed):
    """powerlaw(a, loc, s) on [loc, loc + s]: the likelihood ``a^n s^(-n a) Π y^(a-1)``
    falls with s, so ``s = max(y)``, and then ``a = n / Σ log(s / y)``."""
    a, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None:
        return None
    y = _gaps(x, loc)
    if y is None:
        return None
    if scale is None:
        scale = float(np.max(y))
    elif np.max(y) > scale:
        return None
    if a is None:
        total = float(np.sum(np.log(scale / y)))
        if not total > 0:
            return None
        a = y.size / total
    return [a, loc, scale]


def _log_concave(name: str) -> ClosedForm:
    potential = POTENTIALS[name]

    def fn(x, fixed):
        loc, scale = _loc_scale(fixed, 0)
        return log_concave_mle(potential, x, loc, scale)
    return fn


for _name in POTENTIALS:
    _register(_name)(_log_concave(_name))


def _decreasing_density(scale_score: Callable[[np.ndarray, float], float]) -> ClosedForm:
    """A family without shapes whose density falls on its support ``[loc, inf)``: each
    observation's likelihood rises with loc, so a free ``loc = min(x)`` whatever the
    scale; a free scale is the root of ``scale_score(y, log s)``, which falls from
    positive to negative in ``log s`` (one root: the global maximum)."""
    def fn(x, fixed):
        loc, scale = _loc_scale(fixed, 0)
        y = x - (np.min(x) if loc is None else loc)
        if np.any(y < 0):
            return None
        if scale is None:
            top = float(np.max(y))
            if not top > 0:
                return None
            lo, hi = math.log(top) - 60.0, math.log(top) + 2.0
            if not (scale_score(y, lo) > 0 > scale_score(y, hi)):
                return None
            scale = math.exp(optimize.brentq(lambda t: scale_score(y, t), lo, hi,
                                             xtol=1e-15, rtol=4 * np.finfo(float).eps))
        return [float(np.min(x)) if loc is None else loc, scale]
    return fn


# halfcauchy: d/ds log L = (2 Σ y²/(s² + y²) - n) / s; the share y²/(s² + y²) falls with s
_register("halfcauchy")(_decreasing_density(
    lambda y, t: float(np.sum(1.0 / (1.0 + (math.exp(t) / y[y > 0]) ** 2))) - 0.5 * y.size))
# halflogistic: d/ds log L = (Σ u tanh(u / 2) - n) / s with u = y / s, rising in u
_register("halflogistic")(_decreasing_density(
    lambda y, t: float(np.sum((u := y * math.exp(-t)) * np.tanh(0.5 * u))) - y.size))
