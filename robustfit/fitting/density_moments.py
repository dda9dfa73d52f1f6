"""Raw moments of a family's standard member by quadrature of its density.

Where a family has neither closed-form statistics (``_stats``, or one that leaves them to
integration: :func:`.quantile_moments.moments_left_to_integration`), moments (``_munp``)
nor an explicit quantile function (``_ppf``, see :mod:`.quantile_moments`), scipy computes
each moment as the integral of ``ppf(q)**k`` over ``q``, every value of ``ppf`` a root
of the cdf, itself an integral of the density. That is every user subclass that
defines only ``_pdf`` (a Weibull density written out: 2.2 s for one moment, 7 s for
``stats("mvsk")``, so that a fit by the method of moments of 300 points ran past 15
minutes) and scipy's recipinvgauss, vonmises and vonmises_line (2-4 s for the four).

Here ``E[Y**k] = ∫ y**k pdf(y) dy`` is one vectorised call of ``_pdf`` at the nodes of
a double-exponential rule (Takahasi & Mori, Publ. RIMS 9, 1974) fitted to the support:
tanh-sinh on a bounded interval, exp-sinh on a half-line, sinh-sinh on the line. Their
node spacing shrinks double-exponentially towards the ends, which absorbs a density's
singularities at a bounded end and reaches far into tails (``1e-30`` to ``1e30`` from
the end of a half-line). The rule is applied at two step sizes; its result stands only
where

* the density integrates to 1 (within :data:`MASS_TOL`): a peak the nodes stepped over
  shows as missing mass;
* the two step sizes agree (within :data:`.quantile_moments.AGREE` of ``∫ |y|**k pdf``);
* the outermost nodes carry at most :data:`TAIL_SHARE` of each integral: a moment that
  does not exist, or a tail beyond the nodes, does not pass.

Otherwise the rule is tried once more, fitted to where the mass is (the support split
at the median or a pilot's heaviest node: :func:`_placement_at_mass`), and then, for a
family without a quantile function of its own, adaptive quadrature of the same
integrals (milliseconds); for one with it, the caller's adaptive quadrature of the
quantile function (:func:`.quantile_moments.adaptive_quantile_moments`).

Examples
--------
>>> import numpy as np
>>> from scipy import stats
>>> mu = 0.63   # recipinvgauss: mean 1/mu + 1, variance 1/mu + 2
>>> m = density_raw_moments(stats.recipinvgauss, (mu,), 2)
>>> bool(np.allclose(m, [1 / mu + 1, 1 / mu + 2 + (1 / mu + 1) ** 2], rtol=1e-12))
True
>>> density_raw_moments(stats.norm, (), 2) is None   # (scipy's closed forms serve)
True
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy import integrate
from scipy.special import expit

from .accurate_logpdf import accurate_pdf
from .quantile_moments import has_own, leading_moments, moments_left_to_integration, settled_rule

__all__ = ["density_raw_moments"]

T_MAX = 4.5  # nodes t in [-T_MAX, T_MAX]: to 1e-61 of a bounded support's width from
# its ends, from 1e-30 to 1e30 away from the end of a half-line, to +-1e30 on the line
# (a density's rule converges more slowly in the step than a quantile function's: the
# Weibull density of shape 2.5 on the half-line integrates to 1 + 1.4e-7 at 1/8, 2e-13 at
# 1/16 and to rounding at 1/32; vonmises_line(3.99) 1.3e-4, 4e-12, rounding)
COARSE_STEP = 1.0 / 32.0
FINE_STEP = 1.0 / 64.0  # (the first step of the rules fitted to where the mass is)
MASS_TOL = 1e-9  # |∫ pdf - 1| at most this
TAIL_SHARE = 1e-10  # the outermost kept node on each side carries at most this share
# families whose rule took longer than quantile_moments.SLOW_RULE_S (a density that
# solves or integrates for each point), left to scipy from then on
_SLOW: set[type] = set()
# the adaptive fallback (see _adaptive_moments): the mass within this of 1, and each
# integral's error estimate within this share of it
ADAPTIVE_MASS_TOL = 1e-8
ADAPTIVE_REL_ERROR = 1e-8
# ... and a moment counts as existing where |y|**(k+1) pdf(y) falls along these
# distances from 0 (see _tails_decay)
TAIL_PROBES = (1e1, 1e2, 1e4, 1e8, 1e16)
TAIL_LIMIT = 1e-6
TAIL_FALL = 0.01


def _pdf(dist) -> Callable:
    """The family's density, ``dist._pdf``'s arguments: robustfit's accurate one where
    scipy's own cancels (:mod:`.accurate_logpdf`: kappa4 next to ``h = 0`` or
    ``k = 0``, where a fit by the method of moments may wander); ``exp`` of the
    family's own ``_logpdf`` where it defines no ``_pdf`` (scipy's default ``_pdf``
    differentiates the cdf numerically, or, with no ``_cdf`` either, integrates back
    into itself: a Weibull written as ``_logpdf`` and ``_cdf`` took minutes for a fit by
    the method of moments, one with ``_logpdf`` alone had "no finite moments")."""
    accurate = accurate_pdf(dist)
    if accurate is not None:
        return accurate
    if has_own(dist, "_logpdf") and not has_own(dist, "_pdf"):
        return lambda x, *shapes: np.exp(dist._logpdf(x, *shapes))
    return dist._pdf


def _nodes(a: float, b: float, step: float,
           reach: float = 1.0) -> tuple[np.ndarray, np.ndarray] | None:
    """``(y, weight)`` of the double-exponential rule on ``(a, b)`` with ``step``, or
    None where the support is empty or not ordered. On a half-line the nodes are at
    ``reach`` times ``e**(π/2 sinh t)`` from its end."""
    if not a < b:
        return None
    t = np.arange(-T_MAX, T_MAX + 0.5 * step, step)
    half_pi_cosh = 0.5 * np.pi * np.cosh(t)
    s = 0.5 * np.pi * np.sinh(t)
    if np.isfinite(a) and np.isfinite(b):
        width = b - a
        lower, upper = expit(2.0 * s), expit(-2.0 * s)  # (distances to each end / width)
        y = np.where(lower <= 0.5, a + width * lower, b - width * upper)
        return y, step * width * 2.0 * half_pi_cosh * lower * upper
    if np.isfinite(a):
        e = reach * np.exp(s)
        return a + e, step * e * half_pi_cosh
    if np.isfinite(b):
        e = reach * np.exp(s)
        return b - e, step * e * half_pi_cosh
    return np.sinh(s), step * np.cosh(s) * half_pi_cosh


def _placement_at_mass(dist, shapes: tuple, support: tuple[float, float]):
    """A node placement ``step -> (y, weight) or None`` fitted to where the density's
    mass is (the quartiles of the family's own quantile function, else a pilot of the
    rule, step 1/8), for where the rule fitted to the support does not settle; None
    where neither finds it. kappa4(0, -0.05) lives on (-20, inf) with its mass near 0,
    20 away from the end, where nodes at unit reach are 2 apart against a spread of
    1.3: its mass came to 0.968 and 1.0004 at steps 1/32 and 1/64; kappa4(1e-7, 0.0127)
    puts its mass near 0.5 on (-17.9, 78.7) (1.012 and 0.999996). So: the support split
    at the median (or the pilot's heaviest node), the rule fitted to each part (nodes
    gathering at both ends of each, so at the split), an infinite part's nodes reaching
    as far as the spread."""
    a, b = support
    found = _quartiles(dist, shapes) or _pilot(dist, shapes, support)
    if found is None:
        return None
    centre, spread = found
    return lambda step: _split_nodes(a, b, centre, spread, step)


def _quartiles(dist, shapes: tuple) -> tuple[float, float] | None:
    """``(median, interquartile range)`` from the family's own quantile function, or
    None (kappa4(0, 0.001) puts its mass of width 1.3 on (-inf, 1000), 1000 from the
    end: the pilot's nodes there are 200 apart and found none of it)."""
    if not has_own(dist, "_ppf"):
        return None
    with np.errstate(all="ignore"):
        q = np.asarray(dist._ppf(np.array([0.25, 0.5, 0.75]),
                                 *(np.full(3, s) for s in shapes)), dtype=float)
    if q.shape != (3,) or not (np.all(np.isfinite(q)) and q[0] < q[1] < q[2]):
        return None
    return float(q[1]), float(q[2] - q[0])


def _pilot(dist, shapes: tuple, support: tuple[float, float]) -> tuple[float, float] | None:
    """``(heaviest node, spread)`` of the density's mass at the rule's nodes at step
    1/8, or None where they find none."""
    y, w = _nodes(*support, 0.125)
    with np.errstate(all="ignore"):
        mass = w * np.asarray(_pdf(dist)(y, *(np.full(y.size, s) for s in shapes)),
                              dtype=float)
    if mass.shape != y.shape:
        return None
    mass = np.where(np.isfinite(mass) & (mass > 0), mass, 0.0)
    total = float(np.sum(mass))
    if not (np.isfinite(total) and total > 0):
        return None
    centre = float(y[np.argmax(mass)])
    with np.errstate(all="ignore"):
        spread = float(np.sqrt(np.sum(mass * (y - centre) ** 2) / total))
    if not (np.isfinite(spread) and spread > 0):
        return None
    return centre, spread


def _split_nodes(a: float, b: float, centre: float, spread: float,
                 step: float) -> tuple[np.ndarray, np.ndarray] | None:
    """``(y, weight)`` of the rules on ``(a, centre)`` and ``(centre, b)`` together, in
    order: their nodes gather at both ends of each part, so at ``centre`` too, and an
    infinite part's reach is ``spread``."""
    if not a < centre < b:
        return None
    parts = [_nodes(a, centre, step, spread), _nodes(centre, b, step, spread)]
    y = np.concatenate([part[0] for part in parts])
    w = np.concatenate([part[1] for part in parts])
    order = np.argsort(y, kind="stable")
    return y[order], w[order]


def _rule(dist, shapes: tuple, count: int, step: float, placement):
    """``(Σ w y**k pdf, Σ w |y|**k pdf)`` over k = 0..count at the nodes ``placement``
    puts at ``step``; None where the nodes' densities are not finite between the ends,
    where the mass or a tail check fails (see the module docstring)."""
    nodes = placement(step)
    if nodes is None:
        return None
    y, w = nodes
    with np.errstate(all="ignore"):
        density = np.asarray(_pdf(dist)(y, *(np.full(y.size, s) for s in shapes)),
                             dtype=float)
        if density.shape != y.shape:
            return None
        kept = np.flatnonzero(np.isfinite(density) & (w > 0))
        if kept.size == 0 or kept[-1] - kept[0] + 1 != kept.size:
            return None  # (only the ends may round away: a gap inside is a failure)
        wk, yk = w[kept] * density[kept], y[kept]
        terms = wk * yk[None, :] ** np.arange(0, count + 1)[:, None]
        sums = terms.sum(axis=1)
        magnitudes = np.abs(terms).sum(axis=1)
    ends = np.abs(terms[:, [0, -1]]).max(axis=1)
    if not (np.all(np.isfinite(sums)) and np.all(ends <= TAIL_SHARE * magnitudes)):
        return None
    if not abs(sums[0] - 1.0) <= MASS_TOL:
        return None
    return sums[1:], magnitudes[1:]


def density_raw_moments(dist, shapes: tuple, count: int) -> np.ndarray | None:
    """``E[Y**k]`` for k = 1..``count`` of ``Y ~ dist(*shapes)`` (loc 0, scale 1), or
    None where scipy's own route should serve: the family's own closed forms
    (``_munp``, or a ``_stats`` that computes a statistic itself), or the rule does not
    settle for a family with a quantile function of
    its own. Without one, the moments come from adaptive quadrature where the rule
    does not settle (see :func:`_adaptive_moments`). NaN where the shapes are outside
    the family's domain."""
    if type(dist) in _SLOW:
        return None
    try:
        if not np.all(dist._argcheck(*shapes)):
            return np.full(count, np.nan)
        support = tuple(float(v) for v in dist._get_support(*shapes))
    except Exception:  # (a user's _argcheck or support that takes no floats)
        return None
    existing = moments_left_to_integration(dist, shapes, count)
    if existing is None:
        return None

    def moments(number: int) -> np.ndarray | None:
        sums = settled_rule(dist, lambda step: _rule(
            dist, shapes, number, step, lambda s: _nodes(*support, s)), COARSE_STEP, _SLOW)
        if sums is None and type(dist) not in _SLOW:
            try:
                placement = _placement_at_mass(dist, shapes, support)
            except Exception:  # (a user's _pdf or _ppf that takes no arrays)
                placement = None
            if placement is not None:
                sums = settled_rule(dist, lambda step: _rule(
                    dist, shapes, number, step, placement), FINE_STEP, _SLOW)
        if sums is None and type(dist) not in _SLOW and not has_own(dist, "_ppf"):
            # (with a quantile function, scipy's route integrates it: adaptive, fast)
            sums = _adaptive_moments(dist, shapes, number, support)
        return sums

    return leading_moments(count, existing, moments)


def _adaptive_moments(dist, shapes: tuple, count: int,
                      support: tuple[float, float]) -> np.ndarray | None:
    """``∫ y**k pdf(y) dy`` by adaptive quadrature (QUADPACK), for a density the rule
    could not settle (a peak narrower than its nodes' spacing, a tail beyond them).
    scipy's own route for a family without a quantile function integrates the
    quantile function, each value of it a root of the cdf, itself an integral of the
    density: 36 ms a point, 2 s a moment, where this takes a few ms. NaN where the
    density does not integrate to 1 (within :data:`ADAPTIVE_MASS_TOL`) and for a
    moment whose integral does not settle: the moments count as unknown there (a fit
    by the method of moments steps away, as from a bad point) rather than waiting
    minutes for scipy's route. None where ``_pdf`` raises or the density does not
    integrate over its support (scipy's route then serves)."""
    density = _pdf(dist)

    def integrand(y, k):
        return y ** k * float(density(np.array([y]), *(np.array([s]) for s in shapes))[0])

    out = np.empty(count + 1)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            for k in range(count + 1):
                if not _tails_decay(integrand, support, k):
                    out[k] = np.inf if k % 2 == 0 else np.nan
                    continue
                value, error = integrate.quad(integrand, *support, args=(k,),
                                              epsabs=0.0, epsrel=1e-12, limit=200)
                out[k] = value if error <= ADAPTIVE_REL_ERROR * abs(value) else np.nan
        except Exception:  # (a user's _pdf that takes no arrays)
            return None
    if out[0] == np.inf:
        # (not integrable on its declared support: vonmises, periodic on the whole line,
        # whose moments scipy takes over one period from its own cdf)
        return None
    if not abs(out[0] - 1.0) <= ADAPTIVE_MASS_TOL:
        return np.full(count, np.nan)
    return out[1:]


def _tails_decay(integrand, support: tuple[float, float], k: int) -> bool:
    """Whether ``|y| * y**k pdf(y)`` falls towards 0 along each infinite end of the
    support, as it must for ``∫ y**k pdf`` to converge: over the TAIL_PROBES distances
    where it is finite (``pdf`` may be NaN far out, ``inf * 0``), at least two, it
    ends below TAIL_LIMIT and below TAIL_FALL of its first value (or at 0). QUADPACK's
    error estimate does not see a divergent tail: it returned -33.6, error estimate
    1e-10, for the fourth moment of Student's t with 3 degrees of freedom."""
    for end, sign in ((support[0], -1.0), (support[1], 1.0)):
        if np.isfinite(end):
            continue
        values = [abs(y * integrand(sign * y, k)) for y in TAIL_PROBES]
        values = [v for v in values if np.isfinite(v)]
        if len(values) < 2 or not (values[-1] <= TAIL_LIMIT
                                   and values[-1] <= TAIL_FALL * values[0]):
            return False
    return True
