"""Quantiles of a standard distribution at given shapes, without scipy's generic ppf.

For a distribution with no explicit ``_ppf`` (foldnorm, exponnorm, recipinvgauss,
vonmises_line, argus, ...), scipy's ``ppf`` solves ``cdf(x) = p`` by one ``brentq`` run
per probability, each step through the public ``cdf`` and its argument checks: about a
millisecond per shape vector, and the quantile-matching guesses ask at several shape
vectors in every fit -- more than the whole optimisation of a typical fit at n ~ 1e3.
Here every probability is solved at once on the private ``_cdf``: a common bracket is
found by doubling outwards from the support (or from 0), then a vectorised Illinois
iteration (regula falsi that halves the stale end's value, superlinear and always
inside its bracket) narrows each probability's bracket to ~1e-13 relative.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .likelihood import support

_MAX_DOUBLINGS = 1100  # from 1 to beyond float64's range
_MAX_ITERATIONS = 200
_XTOL = 1e-13


def standard_quantiles(dist, shapes: tuple, probs) -> np.ndarray:
    """Quantiles of ``dist`` (loc 0, scale 1) at ``shapes`` for ``probs`` in (0, 1).

    Uses the distribution's own ``ppf`` where it has an explicit one, else solves
    ``_cdf(x) = p`` for all ``probs`` at once; falls back to scipy's ``ppf`` where the
    private ``_cdf`` cannot be used. Non-finite entries mean the quantile is undefined.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from robustfit.fitting.quantiles import standard_quantiles
    >>> q = standard_quantiles(stats.foldnorm, (1.95,), [0.25, 0.5, 0.75])
    >>> bool(np.allclose(q, stats.foldnorm.ppf([0.25, 0.5, 0.75], 1.95), rtol=1e-10))
    True
    """
    probs = np.asarray(probs, dtype=float)
    shapes = tuple(float(s) for s in shapes)
    if type(dist)._ppf is not stats.rv_continuous._ppf:
        return _explicit_ppf(dist, shapes, probs)
    cdf = _private_cdf(dist, shapes)
    solved = None if cdf is None else _solve(cdf, probs, *support(dist, shapes))
    return _scipy_ppf(dist, shapes, probs) if solved is None else solved


def _explicit_ppf(dist, shapes: tuple, probs: np.ndarray) -> np.ndarray:
    """The distribution's own ``_ppf`` (what ``ppf`` returns at loc 0, scale 1 for
    probabilities in (0, 1), without its ~40 us of argument handling), else ``ppf``."""
    if probs.size and np.all(probs > 0) and np.all(probs < 1):
        try:
            with np.errstate(all="ignore"):
                q = np.asarray(dist._ppf(probs, *shapes), dtype=float)
        except Exception:  # a _ppf that wants shapes shaped like the probabilities
            q = None
        if q is not None and q.shape == probs.shape:
            return q
    return _scipy_ppf(dist, shapes, probs)


def _scipy_ppf(dist, shapes: tuple, probs: np.ndarray) -> np.ndarray:
    with np.errstate(all="ignore"):
        return np.asarray(dist.ppf(probs, *shapes), dtype=float)


def _private_cdf(dist, shapes: tuple):
    """``x -> _cdf(x, *shapes)`` for a float array ``x``, or None where the private
    method fails on scalar shapes and on shapes broadcast like ``x``."""
    probe = np.array([0.0])
    lo, hi = support(dist, shapes)
    if math.isfinite(lo) or math.isfinite(hi):
        # a point inside the support: the midpoint, or one unit in from a finite end
        probe[0] = (0.5 * (lo + hi) if math.isfinite(lo) and math.isfinite(hi)
                    else lo + 1.0 if math.isfinite(lo) else hi - 1.0)

    def scalar_shapes(x):
        return np.asarray(dist._cdf(x, *shapes), dtype=float)

    def broadcast_shapes(x):
        args = [np.full(x.shape, s) for s in shapes]
        return np.asarray(dist._cdf(x, *args), dtype=float)

    for cdf in (scalar_shapes, broadcast_shapes):
        try:
            with np.errstate(all="ignore"):
                value = cdf(probe)
        except Exception:  # a _cdf that wants shapes shaped like x, or cannot run
            continue
        if value.shape == probe.shape:
            return cdf
    return None


def _solve(cdf, probs: np.ndarray, a: float, b: float) -> np.ndarray | None:
    """Roots of ``cdf(x) = probs`` inside the support ``(a, b)``, or None where no
    bracket is found or the cdf is not finite along the way."""
    if probs.size == 0:
        return probs.copy()
    if not (np.all(probs > 0) and np.all(probs < 1)):
        return None
    with np.errstate(all="ignore"):
        lo = _outer_point(cdf, float(probs.min()), a, b, downwards=True)
        hi = _outer_point(cdf, float(probs.max()), a, b, downwards=False)
        if lo is None or hi is None or not lo[0] < hi[0]:
            return None
        return _illinois(cdf, probs, lo, hi)


def _outer_point(cdf, p: float, a: float, b: float, downwards: bool):
    """``(x, cdf(x))`` with ``cdf(x) <= p`` (downwards) or ``>= p``: a finite end of the
    support itself (the cdf is 0 or 1 there by definition), else a point doubling its
    distance outwards from the other end (or from 0)."""
    end = a if downwards else b
    if math.isfinite(end):
        return end, 0.0 if downwards else 1.0
    other = b if downwards else a
    origin = other if math.isfinite(other) else 0.0
    sign = -1.0 if downwards else 1.0
    step = 1.0
    for _ in range(_MAX_DOUBLINGS):
        x = origin + sign * step
        if not math.isfinite(x):
            return None
        value = float(cdf(np.array([x]))[0])
        if not math.isfinite(value):
            return None
        if (value <= p) if downwards else (value >= p):
            return x, value
        step *= 2.0
    return None


def _illinois(cdf, probs: np.ndarray, lo: tuple, hi: tuple) -> np.ndarray | None:
    # per-probability bookkeeping on Python floats (a handful of probabilities: numpy's
    # per-call overhead on tiny arrays would cost more than the cdf); one cdf call per
    # iteration for all probabilities still being narrowed
    ps = probs.tolist()
    xl, xh = [lo[0]] * len(ps), [hi[0]] * len(ps)
    fl, fh = [lo[1] - p for p in ps], [hi[1] - p for p in ps]  # <= 0, >= 0
    side = [0] * len(ps)  # the end replaced last: -1 low, +1 high
    for _ in range(_MAX_ITERATIONS):
        active = [i for i in range(len(ps)) if xh[i] - xl[i] > _XTOL * max(
            1.0, abs(xl[i]), abs(xh[i]))]
        if not active:
            break
        xs = []
        for i in active:
            denom = fh[i] - fl[i]
            x = xh[i] - fh[i] * (xh[i] - xl[i]) / denom if denom > 0 else math.nan
            # a secant point on (or numerically past) an end falls back to the midpoint
            xs.append(x if xl[i] < x < xh[i] else 0.5 * (xl[i] + xh[i]))
        values = cdf(np.array(xs)).tolist()
        for i, x, value in zip(active, xs, values, strict=True):
            fx = value - ps[i]
            if not math.isfinite(fx):
                return None
            if fx < 0:
                if side[i] == -1:  # Illinois: the high end kept twice, halve its value
                    fh[i] *= 0.5
                xl[i], fl[i], side[i] = x, fx, -1
            elif fx > 0:
                if side[i] == 1:
                    fl[i] *= 0.5
                xh[i], fh[i], side[i] = x, fx, 1
            else:
                xl[i] = xh[i] = x
    return np.array([xl[i] if xl[i] == xh[i] or abs(fl[i]) <= abs(fh[i]) else xh[i]
                     for i in range(len(ps))])
