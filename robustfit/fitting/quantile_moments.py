"""Raw moments of a family's standard member by quadrature of its quantile function.

Where a family has neither closed-form statistics (``_stats``) nor moments (``_munp``),
scipy integrates ``x**k pdf(x)`` with adaptive quadrature, one integral per moment:
0.1-0.3 s for the four moments of exponpow, gompertz, halfgennorm, powernorm and the
like, so that a fit by the method of moments takes minutes. Where the family has an
explicit quantile function, ``E[Y**k] = ∫_0^1 Q(u)**k du`` is one vectorised call of
it at the nodes of a tanh-sinh rule (0.2-0.4 ms), whose double-exponential node
spacing absorbs the singularities of ``Q`` at 0 and 1. The rule is applied at two step
sizes; where they disagree, or the outermost nodes still carry weight (a moment that
barely exists, or a tail the rule could not reach), the caller falls back to scipy.

Examples
--------
>>> import numpy as np
>>> from scipy import special, stats
>>> m = quantile_raw_moments(stats.gompertz, (0.94,), 4)   # mean e**c E1(c)
>>> bool(np.isclose(m[0], np.exp(0.94) * special.exp1(0.94), rtol=1e-13, atol=0))
True
>>> quantile_raw_moments(stats.norm, (), 2) is None   # (scipy's closed forms serve)
True
"""

from __future__ import annotations

import time

import numpy as np
from scipy import stats
from scipy.special import expit

__all__ = ["has_own", "quantile_raw_moments", "settled_rule"]

_BASE = stats.rv_continuous
T_MAX = 4.5  # nodes t in [-T_MAX, T_MAX]: u and 1 - u reach 1e-61
COARSE_STEP = 1.0 / 8.0
AGREE = 1e-10  # the two step sizes agree to this share of the integral of |Q|**k
# a family whose rule took longer than this (its quantile function solves for each
# point: ksone's took 0.3 s, against 0.3-0.6 ms for explicit ones) is left to scipy
# from then on
SLOW_RULE_S = 0.05
_SLOW: set[type] = set()
TAIL_SHARE = 1e-10  # the outermost kept node on each side carries at most this share
# (where a quantile function without an accurate tail rounds to +-inf beyond 1e-16 of
# probability, a light tail's last kept node carries ~1e-12: powernorm)


def _nodes(step: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(u, 1 - u, weight)`` of the tanh-sinh rule on (0, 1) with step ``step``:
    ``u = (1 + tanh(π/2 sinh t)) / 2``, both ends computed without cancellation."""
    t = np.arange(-T_MAX, T_MAX + 0.5 * step, step)
    s = np.pi * np.sinh(t)
    u, q = expit(s), expit(-s)
    return u, q, step * np.pi * np.cosh(t) * u * q


def has_own(dist, name: str) -> bool:
    """Whether ``dist``'s class defines method ``name`` itself (not rv_continuous's)."""
    return getattr(type(dist), name) is not getattr(_BASE, name)


def settled_rule(dist, rule, coarse_step: float, slow: set) -> np.ndarray | None:
    """The sums of ``rule(step) -> (sums, magnitudes) or None`` at ``coarse_step``
    halved, where the rule at ``coarse_step`` agrees with them (within :data:`AGREE` of
    the magnitudes); None where a rule fails, raises, or disagrees. A rule slower than
    :data:`SLOW_RULE_S` adds ``type(dist)`` to ``slow`` (the caller then leaves the
    family to scipy from then on)."""
    rules = []
    for step in (coarse_step, 0.5 * coarse_step):
        started = time.perf_counter()
        try:
            values = rule(step)
        except Exception:  # (a user's method that takes no arrays)
            values = None
        if time.perf_counter() - started > SLOW_RULE_S:
            slow.add(type(dist))
            return None
        if values is None:
            return None
        rules.append(values)
    (coarse, _), (sums, magnitudes) = rules
    if np.any(np.abs(sums - coarse) > AGREE * magnitudes):
        return None
    return sums


def quantile_raw_moments(dist, shapes: tuple, count: int) -> np.ndarray | None:
    """``E[Y**k]`` for k = 1..``count`` of ``Y ~ dist(*shapes)`` (loc 0, scale 1), or
    None where scipy's own route should serve: the family has ``_stats`` or ``_munp``
    of its own, or no explicit ``_ppf``, or the rule does not settle (see the module
    docstring). NaN where the shapes are outside the family's domain."""
    if has_own(dist, "_stats") or has_own(dist, "_munp") or not has_own(dist, "_ppf") \
            or type(dist) in _SLOW:
        return None
    if not np.all(dist._argcheck(*shapes)):
        return np.full(count, np.nan)
    # (a quantile function by root-finding, ksone's, is too slow for the rule)
    return settled_rule(dist, lambda step: _rule(dist, shapes, count, step), COARSE_STEP,
                        _SLOW)


def _rule(dist, shapes: tuple, count: int, step: float):
    """``(Σ w Q**k, Σ w |Q|**k)`` over k at the nodes of ``step``; None where an
    outermost kept node carries more than TAIL_SHARE, where a node between kept ones is
    not finite, or where none is."""
    u, q, w = _nodes(step)
    y = np.empty_like(u)
    lower = u < 0.5
    upper = ~lower
    with np.errstate(all="ignore"):
        y[lower] = dist._ppf(u[lower], *(np.full(lower.sum(), s) for s in shapes))
        if has_own(dist, "_isf"):
            y[upper] = dist._isf(q[upper], *(np.full(upper.sum(), s) for s in shapes))
        else:
            y[upper] = dist._ppf(u[upper], *(np.full(upper.sum(), s) for s in shapes))
        kept = np.flatnonzero(np.isfinite(y) & (w > 0))
        if kept.size == 0 or kept[-1] - kept[0] + 1 != kept.size:
            return None  # (only the tails may round away: a gap inside is a failure)
        wk, yk = w[kept], y[kept]
        powers = yk[None, :] ** np.arange(1, count + 1)[:, None]
        terms = wk * powers
        sums = terms.sum(axis=1)
        magnitudes = np.abs(terms).sum(axis=1)
    ends = np.abs(terms[:, [0, -1]]).max(axis=1)
    if not (np.all(np.isfinite(sums)) and np.all(ends <= TAIL_SHARE * magnitudes)):
        return None
    return sums, magnitudes
