"""Exact fits of large samples from a few sufficient statistics, in a few passes.

Where the likelihood of a distribution (with its fixed set) depends on the data only
through a handful of sums, the MLE follows from those sums: one pass over the data for
each, no standardisation, no optimisation over the sample. This is the big-data path of
:func:`robustfit.fit`; any doubt (a statistic that is not finite or not a normal
float64, data outside the support, a fixed set the table does not cover) returns
``None`` and the general path takes over, which also produces the right error message.

Non-finite data need no separate check here: a NaN or inf observation makes every sum
that contains it non-finite, and then this path declines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import optimize, special

from .closed_form import gamma_shape_mle, weibull_shape_mle

# sums of squares outside this band lose digits to overflow or subnormals
_SAFE_LO, _SAFE_HI = 1e-280, 1e280


@dataclass(frozen=True)
class SufficientFit:
    """Parameters (scipy's order) and how they were obtained."""

    theta: np.ndarray
    statistics: str


Rule = Callable[[np.ndarray, dict], "SufficientFit | None"]
_RULES: dict[str, Rule] = {}


def _rule(*names: str):
    def deco(fn: Rule) -> Rule:
        for name in names:
            _RULES[name] = fn
        return fn
    return deco


def sufficient_statistic_fit(dist, x: np.ndarray, fixed: dict) -> SufficientFit | None:
    """Exact MLE of ``dist`` from sufficient statistics of ``x``, or ``None``.

    Parameters
    ----------
    dist : scipy.stats.rv_continuous
        Only scipy's own distributions are covered (a subclass may change the density).
    x : numpy.ndarray
        1-D float64 data in the user's units; not checked for finiteness beforehand.
    fixed : dict
        Parameter index (scipy's order) -> fixed value.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = np.array([1.0, 2.0, 2.5, 4.0])
    >>> sufficient_statistic_fit(stats.maxwell, x, {0: 0.0}).theta  # floc=0
    array([0.        , 1.50692844])
    """
    rule = _RULES.get(getattr(dist, "name", ""))
    if rule is None or type(dist).__module__.split(".")[0] != "scipy" or x.size < 2:
        return None
    with np.errstate(all="ignore"):
        out = rule(x, fixed)
    if out is None or not np.all(np.isfinite(out.theta)) or not out.theta[-1] > 0:
        return None
    return out


def _loc_scale(fixed: dict, loc_index: int):
    return fixed.get(loc_index), fixed.get(loc_index + 1)


def _shifted(x: np.ndarray, loc: float) -> np.ndarray:
    return x if loc == 0.0 else x - loc


def _normal_number(v: float) -> bool:
    return bool(_SAFE_LO < abs(v) < _SAFE_HI)


def _radial(k: float, strict: bool):
    """Chi-type laws with k degrees of freedom and a fixed loc: scale² = Σy²/(k n)."""
    def rule(x, fixed):
        loc, scale = _loc_scale(fixed, 0)
        if loc is None or scale is not None:
            return None
        y = _shifted(x, loc)
        lowest = float(y.min())
        if not (lowest > 0 if strict else lowest >= 0):
            return None
        sum_sq = float(np.dot(y, y))
        if not _normal_number(sum_sq / y.size):
            return None
        return SufficientFit(np.array([loc, np.sqrt(sum_sq / (k * y.size))]), "sum(y**2)")
    return rule


_rule("maxwell")(_radial(3.0, strict=True))
_rule("rayleigh")(_radial(2.0, strict=True))
_rule("halfnorm")(_radial(1.0, strict=False))


@_rule("norm")
def _norm(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    if scale is not None:
        return None
    mean = float(np.mean(x)) if loc is None else loc
    d = x - mean
    var = float(np.dot(d, d)) / x.size
    if not _normal_number(var):
        return None
    return SufficientFit(np.array([mean, np.sqrt(var)]), "mean, sum((x-mean)**2)")


@_rule("expon")
def _expon(x, fixed):
    loc, scale = _loc_scale(fixed, 0)
    if scale is not None or loc is None:
        return None
    if not float(x.min()) >= loc:
        return None
    scale = float(np.mean(x)) - loc
    if not _normal_number(scale):
        return None
    return SufficientFit(np.array([loc, scale]), "sum(x)")


def _one_shape_with_fixed_loc(x, fixed):
    """``(loc, y = x - loc)`` for a one-shape family fitted with only ``loc`` fixed, or
    None where more or other parameters are fixed, or some ``y`` is not positive."""
    shape, (loc, scale) = fixed.get(0), _loc_scale(fixed, 1)
    if loc is None or shape is not None or scale is not None:
        return None
    y = _shifted(x, loc)
    if not float(y.min()) > 0:
        return None
    return loc, y


@_rule("gamma")
def _gamma(x, fixed):
    found = _one_shape_with_fixed_loc(x, fixed)
    if found is None:
        return None
    loc, y = found
    mean_y, mean_log = float(np.mean(y)), float(np.mean(np.log(y)))
    if not (np.isfinite(mean_y) and np.isfinite(mean_log)):
        return None
    a = gamma_shape_mle(np.log(mean_y) - mean_log)
    return SufficientFit(np.array([a, loc, mean_y / a]), "sum(y), sum(log y)")


@_rule("lognorm")
def _lognorm(x, fixed):
    found = _one_shape_with_fixed_loc(x, fixed)
    if found is None:
        return None
    loc, y = found
    logy = np.log(y)
    mu = float(np.mean(logy))
    d = logy - mu
    s = np.sqrt(float(np.dot(d, d)) / logy.size)
    return SufficientFit(np.array([s, loc, np.exp(mu)]), "sum(log y), sum(log(y)**2)")


@_rule("weibull_min")
def _weibull_min(x, fixed):
    found = _one_shape_with_fixed_loc(x, fixed)
    if found is None:
        return None
    loc, y = found
    logy = np.log(y)
    if not np.isfinite(float(np.sum(logy))):
        return None
    c = weibull_shape_mle(logy)
    shift = float(np.max(logy))
    scale = np.exp(shift) * float(np.mean(np.exp(c * (logy - shift)))) ** (1.0 / c)
    return SufficientFit(np.array([c, loc, scale]), "log y (1-D profile in c)")


@_rule("invgauss")
def _invgauss(x, fixed):
    found = _one_shape_with_fixed_loc(x, fixed)
    if found is None:
        return None
    loc, y = found
    m = float(np.mean(y))
    lam = y.size / (float(np.sum(1.0 / y)) - y.size / m)
    return SufficientFit(np.array([m / lam, loc, lam]), "sum(y), sum(1/y)")


@_rule("beta")
def _beta(x, fixed):
    """With loc and scale fixed: maximise n[ln Γ(a+b) − ln Γ(a) − ln Γ(b)] + (a−1)S₁ +
    (b−1)S₂ over (a, b), where S₁ = Σ log u, S₂ = Σ log(1−u), u = (x−loc)/scale."""
    a, b, (loc, scale) = fixed.get(0), fixed.get(1), _loc_scale(fixed, 2)
    if loc is None or scale is None or a is not None or b is not None:
        return None
    u = _shifted(x, loc) / scale
    if not (float(u.min()) > 0 and float(u.max()) < 1):
        return None
    m1, m2 = float(np.mean(np.log(u))), float(np.mean(np.log1p(-u)))
    if not (np.isfinite(m1) and np.isfinite(m2)):
        return None
    mean, var = float(np.mean(u)), float(np.var(u))
    common = mean * (1 - mean) / var - 1 if var > 0 else 1.0
    start = np.log(np.clip([mean * common, (1 - mean) * common], 1e-3, 1e3))

    def nll(t):
        a, b = np.exp(t)
        return -(special.gammaln(a + b) - special.gammaln(a) - special.gammaln(b)
                 + (a - 1) * m1 + (b - 1) * m2)

    def grad(t):
        a, b = np.exp(t)
        dab = special.digamma(a + b)
        return -np.array([(dab - special.digamma(a) + m1) * a,
                          (dab - special.digamma(b) + m2) * b])

    res = optimize.minimize(nll, start, jac=grad, method="BFGS",
                            options={"gtol": 1e-12, "maxiter": 500})
    if not np.all(np.isfinite(res.x)):
        return None
    a, b = np.exp(res.x)
    return SufficientFit(np.array([a, b, loc, scale]), "sum(log u), sum(log(1-u))")
