"""Weak-Wolfe bracketing line search that is sound on non-smooth functions.

Lewis & Overton (Math. Program. 141, 2013, sec. 4.2): keep a bracket ``[lo, hi]`` of step
lengths; a step that fails the sufficient-decrease (Armijo) condition sets ``hi``, one
that passes it but fails the weak curvature condition ``g(t)·d >= c2 g(0)·d`` sets
``lo``; double ``t`` while ``hi`` is infinite, otherwise pick a point inside the
bracket. The bracket shrinks geometrically, which is what makes the search terminate on
non-smooth functions too. Here a NaN/inf value (a bad point) or an unobtainable gradient
counts as "step too long", and the new trial point is a safeguarded quadratic
interpolation (kept in the middle 80% of the bracket) instead of plain bisection, which
saves evaluations on smooth functions without losing the geometric shrinkage.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

__all__ = ["LineSearchResult", "weak_wolfe_search"]

# trials after which a bracket narrower than the finite-difference steps ends a search
RESOLVED_TRIALS = 4


@dataclass
class LineSearchResult:
    """Outcome of a line search.

    ``ok`` is True when both weak-Wolfe conditions hold at ``t``. When False, ``t`` is the
    longest step found that satisfies sufficient decrease (0 if none), with its value
    ``f`` and gradient ``g`` (None when ``t == 0``); ``reason`` says why it stopped.
    """

    t: float
    f: float
    g: np.ndarray | None
    ok: bool
    reason: str
    trials: int


def _next_trial(lo, f_lo, slope_lo, hi, f_hi):
    width = hi - lo
    t = 0.5 * (lo + hi)
    if math.isfinite(f_hi):
        curv = f_hi - f_lo - slope_lo * width
        if curv > 0:
            t = lo - slope_lo * width * width / (2.0 * curv)
    return min(max(t, lo + 0.1 * width), hi - 0.1 * width)


def weak_wolfe_search(value: Callable[[np.ndarray], float],
                      grad: Callable[[np.ndarray, float], np.ndarray | None],
                      z: np.ndarray, f0: float, g0: np.ndarray, d: np.ndarray, *,
                      t0: float = 1.0, c1: float = 1e-4, c2: float = 0.9,
                      max_trials: int = 60, max_move: float = np.inf,
                      rel_noise: float = 0.0,
                      resolution: np.ndarray | None = None) -> LineSearchResult:
    """Find ``t`` with ``f(z+td) <= f0 + c1 t g0·d`` and ``g(z+td)·d >= c2 g0·d``.

    Parameters
    ----------
    value, grad : callable
        ``value(z) -> float`` (inf for a bad point) and ``grad(z, f) -> array or None``.
    z, f0, g0 : current point, value and gradient.
    d : numpy.ndarray
        A descent direction (``g0·d < 0``).
    t0 : float
        First trial step.
    max_move : float
        The largest change of any coordinate in one search (``t * max|d|``): on a
        long, nearly flat ridge the doubling of ``t`` would otherwise run to extreme
        points (where some objectives are slow or meaningless). A step held at this
        length that decreases ``f`` enough is accepted.
    rel_noise : float
        Relative rounding level of ``f`` (0: not used). The search gives up once the
        decrease the slope promises over the whole bracket is below
        ``rel_noise * max(1, |f0|)``: no trial inside it can show a decrease, and
        objectives with finite-difference gradients or kinks would otherwise spend
        dozens of evaluations shrinking the bracket.
    resolution : numpy.ndarray or None
        Per coordinate, the finite-difference step of the gradients (None: exact
        gradients). After RESOLVED_TRIALS trials, the search gives up once the bracket
        spans less than it in every coordinate: the differences there straddle the
        same points (at a kink, the mean of its two sides, which the curvature
        condition may never accept; the hinge loss with finite differences ran
        searches of 60 trials, 11 evaluations each). Not sooner: near a smooth minimum
        whole steps are shorter than the forward-difference steps, and the first
        interpolation finds the point.

    Examples
    --------
    >>> import numpy as np
    >>> f = lambda z: float(abs(z[0] - 1.0))           # a kink at 1
    >>> g = lambda z, fz: np.sign(z - 1.0)
    >>> r = weak_wolfe_search(f, g, np.zeros(1), 1.0, np.array([-1.0]), np.array([1.0]),
    ...                       t0=8.0)
    >>> r.ok, 0.0 < r.t, r.f < 1.0
    (True, True, True)
    """
    slope0 = float(g0 @ d)
    lo, f_lo, slope_lo, g_lo = 0.0, f0, slope0, None
    hi, f_hi = np.inf, np.inf
    d_max = float(np.max(np.abs(d)))
    z_max = float(np.max(np.abs(z)))
    t_cap = max_move / d_max if math.isfinite(max_move) else math.inf
    t = min(t0, t_cap)
    for trial in range(1, max_trials + 1):
        zt = z + t * d
        ft = value(zt)
        if not math.isfinite(ft) or ft > f0 + c1 * t * slope0:
            hi, f_hi = t, ft
        else:
            gt = grad(zt, ft)
            if gt is None or not np.isfinite(gt).all():
                hi, f_hi = t, np.inf
            elif gt @ d < c2 * slope0:
                if t >= t_cap:
                    return LineSearchResult(t, ft, gt, True, "step held at max_move", trial)
                lo, f_lo, slope_lo, g_lo = t, ft, float(gt @ d), gt
            else:
                return LineSearchResult(t, ft, gt, True, "weak Wolfe conditions hold", trial)
        if math.isfinite(hi):
            # collapsed: the bracket is below rounding both in t and in the points it
            # spans (with a gradient of 1e25 -- Meyer's function far from its valley --
            # the first trial step is 1e-25, and a test on t alone ended every search
            # there at its first trial)
            if (hi - lo <= 1e-15 * max(1.0, hi)
                    and (hi - lo) * d_max <= 1e-15 * max(1.0, z_max)):
                return LineSearchResult(lo, f_lo, g_lo, False, "bracket collapsed", trial)
            if -slope0 * hi <= rel_noise * max(1.0, abs(f0)):
                return LineSearchResult(lo, f_lo, g_lo, False, "the decrease the slope "
                                        "promises is below rounding", trial)
            if (resolution is not None and trial >= RESOLVED_TRIALS
                    and np.all((hi - lo) * np.abs(d) <= resolution)):
                return LineSearchResult(lo, f_lo, g_lo, False, "bracket within the "
                                        "finite-difference steps", trial)
            t = _next_trial(lo, f_lo, slope_lo, hi, f_hi)
        else:
            t = min(2.0 * t, t_cap)
            if not math.isfinite(t * d_max):
                return LineSearchResult(lo, f_lo, g_lo, False, "function unbounded below?",
                                        trial)
    return LineSearchResult(lo, f_lo, g_lo, False, "too many trials", max_trials)
