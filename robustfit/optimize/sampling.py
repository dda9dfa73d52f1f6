"""Gradients sampled near a point, and the gradient sampling iteration built on them.

Near a kink, a forward difference whose step crosses the kink mixes the one-sided slopes
component by component and can produce vectors *outside* the subdifferential — with
enough of them, a fake "zero in the convex hull". So finite-difference gradients used
for a non-smooth certificate are *verified*: each component's forward and backward
differences must agree (up to curvature and rounding), else the sample is discarded.

The gradient sampling method (Burke, Lewis & Overton, SIAM J. Optim. 15, 2005): take
the shortest vector ``d`` in the convex hull of gradients sampled in a ball of radius
``r`` around ``z``, step along ``-d`` with an Armijo backtracking search, and shrink
``r`` when ``d`` is short or no step decreases ``f``. A point where no difference
changes ``f`` at all (a flat step) yields no gradient: zeros there are not evidence.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .events import EventLog
from .problem import ScaledProblem
from .stationarity import min_norm_convex_combination

__all__ = ["verified_gradient", "sample_gradients", "rise_explained", "gradient_sampling",
           "one_sided_slopes"]

# Much shorter than the usual forward step, so that the ± steps rarely straddle a kink
# next to a sampled point (rounding costs ~ eps |f| / 1e-9, far below the tests' 1e-6).
VERIFY_STEP = 1e-9
# a verification step is grown GROWTH-fold while f changes by at most this many of its
# roundings over it
RESOLVING_ROUNDINGS = 1e3
GROWTH = 100.0


def verified_gradient(p: ScaledProblem, z: np.ndarray, f: float) -> np.ndarray | None:
    """Central-difference gradient whose one-sided halves agree, else None.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> p = ScaledProblem(GuardedObjective(lambda x: float(abs(x[0]))), np.ones(1))
    >>> verified_gradient(p, np.array([1e-10]), 1e-10) is None     # the steps straddle 0
    True
    >>> verified_gradient(p, np.array([0.5]), 0.5)
    array([1.])
    """
    if p.analytic:
        return p.analytic_gradient(z)
    g = np.empty_like(z)
    changed = False
    resolved = RESOLVING_ROUNDINGS * p.guard.rounding(f)
    for i in range(z.size):
        h = p.step(z, i, VERIFY_STEP)
        # a step shortened to a fine structure (steps settled at 4e-14 around the
        # hinge loss's kinks, f = 0.05) may move f by a few roundings only, and its
        # one-sided differences then disagree by rounding: grown hundredfold while f
        # does not show, up to the step of the variable's own size
        widest = max(h, p.relative_step(VERIFY_STEP) * max(abs(z[i]), p.typical[i]))
        while True:
            sides = one_sided_slopes(p, z, f, i, h)
            if sides is None:
                return None
            gp, gm, fp, fm = sides
            if max(abs(fp - f), abs(fm - f)) > resolved or h >= widest:
                break
            h = min(GROWTH * h, widest)
        changed = changed or fp != f or fm != f
        slack = 1e-3 * max(abs(gp), abs(gm)) + 1e-5 * max(1.0, abs(f)) / max(1.0, abs(z[i]))
        if abs(gp - gm) > slack:
            return None
        g[i] = 0.5 * (gp + gm)
    # no step changed f at all: a flat step of a quantised function says nothing
    return g if changed else None


def one_sided_slopes(p: ScaledProblem, z: np.ndarray, f: float, i: int,
                     h: float) -> tuple[float, float, float, float] | None:
    """``(forward, backward, f(z + h e_i), f(z - h e_i))``: the one-sided differences of
    ``f`` in ``z[i]`` over the steps actually taken; None where a side leaves the bounds
    or is a bad point."""
    zp, zm = z.copy(), z.copy()
    zp[i] += h
    zm[i] -= h
    if p.upper is not None and (zp[i] > p.upper[i] or zm[i] < p.lower[i]):
        return None
    fp, fm = p.value(zp), p.value(zm)
    if not (np.isfinite(fp) and np.isfinite(fm)):
        return None
    return (fp - f) / (zp[i] - z[i]), (f - fm) / (z[i] - zm[i]), fp, fm


def sample_gradients(p: ScaledProblem, z: np.ndarray, radius: float, count: int,
                     rng: np.random.Generator, f: float | None = None
                     ) -> list[tuple[np.ndarray, float, np.ndarray]]:
    """Verified gradients at ``count`` points uniform in the box ``z ± radius max(1,|z|)``.

    With ``f`` (the value at ``z``), a sample whose value rises above ``f`` far more
    than its own gradient explains (:func:`rise_explained`) is left out: it lies
    beyond a feature of ``f`` narrower than the box, and says nothing about ``z``."""
    half = radius * np.maximum(1.0, np.abs(z))
    out = []
    for _ in range(count):
        zi = z + half * rng.uniform(-1.0, 1.0, z.size)
        if p.lower is not None:
            zi = np.clip(zi, p.lower, p.upper)
        fi = p.value(zi)
        if np.isfinite(fi):
            gi = verified_gradient(p, zi, fi)
            if gi is not None and np.all(np.isfinite(gi)) and (
                    f is None or rise_explained(p, z, f, zi, fi, gi)):
                out.append((zi, fi, gi))
    return out


# a sample's rise above the point tested counts as explained by its gradient up to this
# many times the slope's share (plus RISE_ROUNDINGS roundings of f)
RISE_FACTOR = 10.0
RISE_ROUNDINGS = 1e3


def rise_explained(p: ScaledProblem, z: np.ndarray, f: float, zi: np.ndarray, fi: float,
                   gi: np.ndarray) -> bool:
    """Whether ``f(zi) - f(z)`` is at most RISE_FACTOR times ``|gi . (zi - z)|`` plus
    RISE_ROUNDINGS roundings of ``f``. Near a minimum, smooth or convex at a kink, the
    rise to a sample is at most its own slope across the gap (``f(z) >= f(zi) + gi .
    (z - zi)`` for a convex ``f``; twice the rise for a quadratic). A sample far higher
    with a flat gradient sits off a well narrower than the sampled box: Hartmann's
    function moved to 1e8 (wells of width 0.2, the box 10 wide) had every sample ~0
    off the wells, their gradients ~0, and a point 6e-3 above the minimum passed for
    stationary.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> p = ScaledProblem(GuardedObjective(lambda x: float(abs(x[0]))), np.ones(1))
    >>> z, zi = np.array([0.0]), np.array([1e-7])
    >>> rise_explained(p, z, 0.0, zi, 1e-7, np.array([1.0]))   # a kink: explained
    True
    >>> rise_explained(p, z, -3.9, zi, 0.0, np.array([0.0]))   # off a narrow well
    False
    """
    rise = fi - f
    slope = abs(float(gi @ (zi - z)))
    return bool(rise <= RISE_FACTOR * slope + RISE_ROUNDINGS * p.guard.rounding(
        max(abs(f), abs(fi))))


def gradient_sampling(p: ScaledProblem, z: np.ndarray, f: float, *, radius: float,
                      rng: np.random.Generator, max_iter: int, gtol: float, log: EventLog,
                      stage: str, max_evaluations: int | None = None,
                      on_iteration: Callable[[], None] | None = None
                      ) -> tuple[np.ndarray, float, str]:
    """Gradient sampling from ``(z, f)``; returns the last point, value and a reason.

    Each iteration verifies ``n + 2`` gradients (``2 n + 1`` evaluations each, with
    finite differences); ``max_evaluations`` bounds the stage's total. ``on_iteration()``
    is called as each iteration begins (it may raise to end the stage)."""
    n = z.size
    start = p.guard.nfev
    for k in range(max_iter):
        if max_evaluations is not None and p.guard.nfev - start >= max_evaluations:
            return z, f, "evaluation share spent"
        if on_iteration is not None:
            on_iteration()
        items = sample_gradients(p, z, radius, n + 1, rng, f)
        g = verified_gradient(p, z, f)
        if g is not None:
            items.append((z, f, g))
        if not items:
            radius *= 0.1
            if radius < 1e-9:
                return z, f, "no verified gradients"
            continue
        d = min_norm_convex_combination(np.array([gi for _, _, gi in items]))
        measure = float(np.max(np.abs(d)) * max(1.0, np.max(np.abs(z))) / max(1.0, abs(f)))
        if measure <= gtol:
            if radius <= 1e-7:
                return z, f, "stationary at the smallest radius"
            radius *= 0.1
            continue
        dd = float(d @ d)
        t = 1.0
        for _ in range(40):
            zt = z - t * d
            if p.lower is not None:
                zt = np.clip(zt, p.lower, p.upper)
            ft = p.value(zt)
            if np.isfinite(ft) and ft <= f - 1e-6 * t * dd:
                z, f = zt, ft
                break
            t *= 0.5
        else:
            radius *= 0.1
            if radius < 1e-9:
                return z, f, "no descent at the smallest radius"
        del k
    log.add(stage, "gradient_sampling_iterations_spent", iterations=max_iter)
    return z, f, "iteration limit"
