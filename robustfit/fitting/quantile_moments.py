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

import math
import time
import warnings
from collections.abc import Callable

import numpy as np
from scipy import integrate, stats
from scipy.special import expit

from .families import scipy_family_entry

__all__ = ["adaptive_quantile_moments", "has_own", "leading_moments",
           "moments_left_to_integration", "own_statistics", "quantile_raw_moments",
           "settled_rule"]

_BASE = stats.rv_continuous
T_MAX = 4.5  # nodes t in [-T_MAX, T_MAX]: u and 1 - u reach 1e-61
COARSE_STEP = 1.0 / 8.0
AGREE = 1e-10  # the two step sizes agree to this share of the integral of |Q|**k
# a family whose rule took longer than this, SLOW_STRIKES times, in CPU time (its
# quantile function solves for each point: ksone's took 0.3 s, against 0.3-0.6 ms for
# explicit ones) is left to scipy from then on. Wall time, once, had left a user's
# density to scipy's route (a root of its integrated cdf for every point of the
# quantile function, a minute a moment) for the rest of the process wherever a pause of
# the machine fell within one rule: a fit by the method of moments then ran for minutes
SLOW_RULE_S = 0.05
SLOW_STRIKES = 2
_STRIKES: dict[type, int] = {}
_SLOW: set[type] = set()
ADAPTIVE_REL_ERROR = 1e-8  # QUADPACK's error estimate, as a share of ∫|Q|**k
END_PROBES = (1e-6, 1e-11, 1e-16)  # distances to each end of (0, 1) where q |Q|**k must fall
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


def own_statistics(dist, shapes: tuple, moments: str):
    """What the family's own ``_stats`` returns for ``shapes`` (at loc 0, scale 1),
    ``moments`` passed where it takes them, as ``dist.stats`` calls it."""
    with np.errstate(all="ignore"):
        if getattr(dist, "_stats_has_moments", False):
            return dist._stats(*shapes, moments=moments)
        return dist._stats(*shapes)


def settled_rule(dist, rule, coarse_step: float, slow: set) -> np.ndarray | None:
    """The sums of ``rule(step) -> (sums, magnitudes) or None`` at ``coarse_step``
    halved, where the rule at ``coarse_step`` agrees with them (within :data:`AGREE` of
    the magnitudes); None where a rule fails, raises, or disagrees. A rule slower than
    :data:`SLOW_RULE_S` of CPU time is None; the SLOW_STRIKES-th adds ``type(dist)`` to
    ``slow`` (the caller then leaves the family to scipy from then on)."""
    rules = []
    for step in (coarse_step, 0.5 * coarse_step):
        started = time.process_time()
        try:
            values = rule(step)
        except Exception:  # (a user's method that takes no arrays)
            values = None
        if time.process_time() - started > SLOW_RULE_S:
            strikes = _STRIKES.get(type(dist), 0) + 1
            _STRIKES[type(dist)] = strikes
            if strikes >= SLOW_STRIKES:
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
    None where scipy's own route should serve: the family has ``_munp`` of its own, or
    a ``_stats`` that computes a statistic itself (see :func:`deferred_statistics`), or
    no explicit ``_ppf``, or the rule does not settle (see the module docstring). NaN
    where the shapes are outside the family's domain, and for the moments its
    ``_stats`` says do not exist (see :func:`deferred_statistics`)."""
    # (a quantile function by root-finding, ksone's, is too slow for the rule)
    return _on_existing(dist, shapes, count, lambda existing: settled_rule(
        dist, lambda step: _rule(dist, shapes, existing, step), COARSE_STEP, _SLOW))


def _on_existing(dist, shapes: tuple, count: int, moments) -> np.ndarray | None:
    """``moments(m)`` for the ``m`` leading moments that exist, NaN beyond (and for
    shapes outside the family's domain); None where the family does not qualify (no
    explicit quantile function, a slow one, closed forms of its own) or ``moments``
    returns None."""
    if not has_own(dist, "_ppf") or type(dist) in _SLOW:
        return None
    if not np.all(dist._argcheck(*shapes)):
        return np.full(count, np.nan)
    existing = moments_left_to_integration(dist, shapes, count)
    if existing is None:
        return None
    return leading_moments(count, existing, moments)


def leading_moments(count: int, existing: int, moments) -> np.ndarray | None:
    """``count`` moments: ``moments(existing)`` in the first ``existing`` entries, NaN
    after; None where ``moments(existing)`` is None."""
    out = np.full(count, np.nan)
    if existing == 0:
        return out
    sums = moments(existing)
    if sums is None:
        return None
    out[:existing] = sums
    return out


def adaptive_quantile_moments(dist, shapes: tuple, count: int) -> np.ndarray | None:
    """``E[Y**k] = ∫_0^1 Q(u)**k du``, k = 1..``count``, by adaptive quadrature
    (QUADPACK) over each half of (0, 1), the upper one through ``_isf`` where the family
    has it: for where the double-exponential rules (this module's and
    :mod:`.density_moments`') did not settle: a moment that barely exists (kappa3's
    ``Q(u)**3`` at ``a = 3.1`` grows as ``(1 - u)**-0.96``, its mass beyond the rule's
    last node), or a tail the quantile function cannot resolve near 1. It is scipy's
    own route for these families, through the private methods instead of the public
    ``ppf`` (whose argument checks were 80% of a kappa3 fit of 58 s). NaN for a moment
    whose integrand does not fall towards the ends (:func:`_ends_decay`), or whose
    integral does not settle (to :data:`ADAPTIVE_REL_ERROR` of ``∫|Q|**k``):
    scipy's route, the same integral to about the same tolerance, would return it
    unsettled, with a warning, 2 to 10 times slower; the moment counts as unknown, and
    a fit by the method of moments steps away, as from a bad point (scipy's kappa4
    next to ``h = 0`` rounds its quantile function near 1 to the support's end: 73
    for 19.7 at ``h = 1e-6, k = 0.0137``, where the rules do not settle either). None
    where the family does not qualify (see :func:`quantile_raw_moments`) or a method
    raises: scipy's route then serves."""
    return _on_existing(dist, shapes, count,
                        lambda existing: _adaptive_rule(dist, shapes, existing))


def _adaptive_rule(dist, shapes: tuple, count: int) -> np.ndarray | None:
    args = tuple(np.array([s], dtype=float) for s in shapes)

    def lower(u: float, k: int) -> float:
        return float(dist._ppf(np.array([u]), *args)[0]) ** k

    if has_own(dist, "_isf"):
        def upper(q: float, k: int) -> float:
            return float(dist._isf(np.array([q]), *args)[0]) ** k
    else:
        def upper(q: float, k: int) -> float:
            return float(dist._ppf(np.array([1.0 - q]), *args)[0]) ** k

    out = np.empty(count)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            for k in range(1, count + 1):
                if not _ends_decay((lower, upper), k):
                    out[k - 1] = np.nan
                    continue
                halves = [integrate.quad(half, 0.0, 0.5, args=(k,), epsabs=0.0,
                                         epsrel=1e-12, limit=200)
                          for half in (lower, upper)]
                value = halves[0][0] + halves[1][0]
                size = abs(halves[0][0]) + abs(halves[1][0])
                error = halves[0][1] + halves[1][1]
                settled = np.isfinite(value) and error <= ADAPTIVE_REL_ERROR * size
                out[k - 1] = value if settled else np.nan
        except Exception:  # (a user's quantile function that takes no arrays)
            return None
    return out


def _ends_decay(halves, k: int) -> bool:
    """Whether ``q |Q|**k`` falls towards each end (``q`` the distance to it) along
    :data:`END_PROBES`, as it must for ``∫ |Q|**k`` to converge: to at most half its
    first value, or 0. QUADPACK's error estimate does not see a divergent end: it
    returned -3, settled, for ``∫ (1 - u)**(-4/3)``, the fourth moment of a Pareto tail
    of index 3. A moment that barely exists passes (kappa3's third at ``a = 3.135``:
    ``q**0.043``, 0.37 over the probes)."""
    for half in halves:
        values = [q * abs(half(q, k)) for q in END_PROBES]
        values = [v for v in values if np.isfinite(v)]
        if len(values) < 2 or not (values[-1] == 0.0 or values[-1] <= 0.5 * values[0]):
            return False
    return True


def moments_left_to_integration(dist, shapes: tuple, count: int) -> int | None:
    """How many of the first ``count`` moments of ``dist(*shapes)`` exist, where scipy
    would integrate every one of them (the family has neither ``_munp`` nor a ``_stats``
    that computes a statistic itself: :func:`deferred_statistics`); None where the
    family's own closed forms serve."""
    if has_own(dist, "_munp"):
        return None
    if not has_own(dist, "_stats"):
        return count
    return deferred_statistics(dist, shapes, count)


def _kappa4_existing(count: int, h: float, k: float) -> int:
    """How many of kappa4's first ``count`` moments exist: those of order below
    ``-1/k`` where ``k < 0`` (its upper tail falls as ``y**(1/k)``) and below
    ``-1/(h k)`` where ``h < 0 < k`` (its lower tail as ``|y|**(1/(h k))``); all of
    them otherwise. scipy's ``_stats`` counts ``int(-k/h)`` in the second case (one at
    ``h = -0.1, k = 0.1``, where 99 exist; none at ``k = 0``, where the lower tail is
    exponential) and those below ``int(-1/k)`` in the first (two at ``k = -0.3``,
    where three exist)."""
    if k < 0:
        bound = -1.0 / k
    elif h < 0 < k:
        bound = -1.0 / (h * k)
    else:
        return count
    return int(min(count, math.ceil(bound) - 1)) if math.isfinite(bound) else count


# families whose _stats says which moments exist, and says it wrongly somewhere
_EXISTING: dict[str, Callable[..., int]] = {"kappa4": _kappa4_existing}


def deferred_statistics(dist, shapes: tuple, count: int) -> int | None:
    """How many of the first ``count`` moments exist, where the family's own ``_stats``
    leaves one of them to integration; None where it computes all of them itself (its
    closed forms serve) or cannot be asked.

    scipy's kappa3 and kappa4 have a ``_stats`` that only says which moments exist:
    None for "integrate it" (``x**k pdf`` by adaptive quadrature: 2.5 s for kappa4's
    four statistics, and a fit by the method of moments ran past 120 s) and NaN for
    "does not exist"; argus's gives its mean and variance and leaves the skewness and
    kurtosis (a fit by the method of moments took 48 s). Their moments are then the
    rules', up to the first that does not exist (NaN or infinite). Only the first four
    are told (mean, variance, skewness, kurtosis).
    """
    corrected = scipy_family_entry(dist, _EXISTING)
    if corrected is not None:
        return corrected(count, *(float(s) for s in shapes))
    try:
        told = own_statistics(dist, shapes, "mvsk")
    except Exception:  # (a user's _stats that takes no scalars)
        return None
    if not isinstance(told, (tuple, list)):
        return None
    existing, deferred = 0, False
    for value in list(told)[:min(count, 4)]:
        if value is None:
            deferred = True
        else:
            try:
                if not np.all(np.isfinite(value)):
                    break  # (from here on, none exists)
            except TypeError:
                return None
        existing += 1
    if existing and not deferred:
        return None  # (its own values serve: scipy's route uses them)
    return existing if existing < 4 else count


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
