"""Limits at infinity: a "minimum" that the variables reached by running off.

A model whose terms can trade size for size has valleys that end at infinity. NIST's
Hahn1 is a ratio of two cubics, ``(b1 + b2 x + b3 x^2 + b4 x^3) / (1 + b5 x + b6 x^2 +
b7 x^3)``: when all seven coefficients grow together the ``1`` stops counting, the ratio
no longer depends on their common size, and ``f`` tends to the best fit of the
degenerate model. From its first start (coefficients from 1e-6 to 10) BFGS's restarts
ran them to 1e9..1e14, where ``f = 31.6`` against a minimum of 1.53: stationary to the
tests (the gradient is ``1e-6 f`` per variable's size), and ``f`` is the same to 3e-15
when those variables are halved or doubled together. That is the infimum of a valley,
approached, not a minimum; the minimum may be elsewhere.

:func:`scale_free_run_off` finds the variables that grew beyond :data:`RUN_OFF` times
their start's size (at least 1), and says whether ``f`` ignores their common size. A
genuine minimiser far out (Brown's badly scaled function, ``x* = (1e6, 2e-6)`` from
``(1, 1)``) moves far less, and ``f`` there changes at once when it is doubled.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .newton import (
    MAX_DIMENSION,
    finite_difference_hessian,
    hessian_cost,
    refine_steps,
    valley_floor_point,
)
from .offset import RESOLVED
from .problem import ScaledProblem

__all__ = ["scale_free_run_off", "falls_further_out", "RUN_OFF", "SCALE_FREE", "FAR_OUT"]

# growth over the start's size (at least 1) that counts as having run off
RUN_OFF = 1e8
# |f(c x) - f(x)| <= SCALE_FREE max(|f|, tiny) for c = 1/2 and 2: f ignores the size
SCALE_FREE = 1e-8
# growth over the start's size (at least 1) beyond which falls_further_out probes
FAR_OUT = 1e3
# ... multiplying those variables by these factors (and by their squares)
ALONG_THE_VALLEY = (2.0, 0.5)


def scale_free_run_off(value: Callable[[np.ndarray], float], x: np.ndarray, f: float,
                       x0: np.ndarray) -> list[int]:
    """The indices of the variables that ran off from ``x0`` to ``x`` (beyond
    :data:`RUN_OFF` times ``max(1, |x0_i|)``) where ``f`` does not depend on their
    common size: halving them and doubling them (2 evaluations of ``value``) changes
    ``f`` by at most :data:`SCALE_FREE` of itself. Empty where none ran off or ``f``
    depends on their size.

    Examples
    --------
    >>> import numpy as np
    >>> ratio = lambda x: (x[0] / (1 + x[1]) - 2.0) ** 2 + 1.0   # x -> c x: 1 stops counting
    >>> scale_free_run_off(ratio, np.array([2e12, 1e12]), 1.0, np.array([1.0, 1.0]))
    [0, 1]
    >>> bowl = lambda x: (x[0] - 1e9) ** 2                       # a minimiser far out
    >>> scale_free_run_off(bowl, np.array([1e9]), 0.0, np.array([1.0]))
    []
    """
    x = np.asarray(x, dtype=float)
    far = np.abs(x) > RUN_OFF * np.maximum(1.0, np.abs(np.asarray(x0, dtype=float)))
    if not np.any(far) or not np.isfinite(f):
        return []
    allowed = SCALE_FREE * max(abs(f), np.finfo(float).tiny)
    for c in (0.5, 2.0):
        scaled = x.copy()
        scaled[far] *= c
        fc = value(scaled)
        if not (np.isfinite(fc) and abs(fc - f) <= allowed):
            return []
    return [int(i) for i in np.flatnonzero(far)]


def falls_further_out(p: ScaledProblem, z: np.ndarray, f: float, x0: np.ndarray,
                      tol: float) -> tuple[list[int], float] | None:
    """Where variables grew beyond :data:`FAR_OUT` times their start's size (at least
    1): ``(their indices, the lower f)`` if multiplying them by a factor of
    :data:`ALONG_THE_VALLEY` (further out, or back in), the other variables brought to
    the valley's floor by Newton steps on the curvatures measured there, lowers ``f``
    by more than ``tol``, or by more than ``RESOLVED`` times its rounding and then,
    with the factor squared, lower again by as much; else None.

    Such a point is on a valley that runs off to infinity, not at a minimum, even where
    the tests passed: along the valley ``f`` approaches its infimum like ``1 / x``, the
    slope and the curvature vanish faster than the gap, and the quadratic model of a
    curved valley sees little of it. Beale's function from ``(-3.84, -3.87)`` was
    certified by the Newton decrement (2e-8 of ``f``) at ``x = (-85050, 1.00001)``,
    ``f = 0.452027``: the valley ``x1 -> -inf, x2 -> 1`` falls to 0.452009. Withdrawn
    there (doubling ``x1`` lowers ``f`` by 9e-6), the restarts ran out on the other
    side, ``x1 = 228627``, where ``f`` falls back in (halving ``x1``), on to the minimum,
    0 at ``(3, 0.5)``. A far minimiser (Brown's badly scaled function,
    ``x* = (1e6, 2e-6)`` from ``(1, 1)``) is lower neither way. From ``(1.11, 2.49)``
    the run went on to ``x1 = -1.3e8``, where ``f`` is within 1e-8 of its infimum and
    the changes are far below ``tol``, yet ``f`` falls and falls again as ``x1`` doubles
    twice; on a valley of minima (an over-parametrised model whose parameters ran off)
    both points lie on its floor, as low as each other. Not tried beyond
    :data:`~.newton.MAX_DIMENSION` variables or without the budget; the lowest point
    probed is the best one now.

    Examples
    --------
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(1.0 - 1.0 / x[0] + (x[1] - 1.0 - 1.0 / x[0]) ** 2)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z = np.array([-1e5, 1.0 - 1e-5])       # on the floor of a valley to x0 -> -inf
    >>> far, lower = falls_further_out(p, z, fun(z), np.array([-2.0, 0.0]), 1e-7)
    >>> far, bool(lower < fun(z) - 4e-6)     # (1 + 1e-5 at x0 = -1e5, 1 + 5e-6 at -2e5)
    ([0], True)
    >>> bowl = lambda x: float((x[0] - 1e6) ** 2 + x[1] ** 2)   # a minimiser far out
    >>> q = ScaledProblem(GuardedObjective(bowl), np.ones(2))
    >>> falls_further_out(q, np.array([1e6, 0.0]), 0.0, np.array([1.0, 1.0]), 1e-7) is None
    True
    """
    x = p.to_x(z)
    far = np.abs(x) > FAR_OUT * np.maximum(1.0, np.abs(np.asarray(x0, dtype=float)))
    if not np.any(far) or z.size > MAX_DIMENSION or not np.isfinite(f):
        return None
    others = np.flatnonzero(~far)
    cost = hessian_cost(p, others.size) if others.size else 0
    # (each floor: the Hessian of the others, then Newton steps of 2 slopes per
    # direction and a few halvings, counted as 8 per variable; up to two floors per
    # factor)
    if p.guard.maxfev is not None and p.guard.nfev + 2 * len(ALONG_THE_VALLEY) * (
            cost + 8 * z.size) > p.guard.maxfev:
        return None
    resolved = RESOLVED * p.noise * p.guard.rounding(f)
    for c in ALONG_THE_VALLEY:
        once = _valley_floor(p, _times(z, far, c), others)
        if not (np.isfinite(once) and once < f - resolved):
            continue
        if once < f - tol:
            return [int(i) for i in np.flatnonzero(far)], float(once)
        # lower by less than tol: lower again, by more than rounding, as far again
        # (on a valley of minima both are on its floor, as low as each other)
        twice = _valley_floor(p, _times(z, far, c * c), others)
        if np.isfinite(twice) and twice < once - resolved:
            return [int(i) for i in np.flatnonzero(far)], float(twice)
    return None


def _times(z: np.ndarray, which: np.ndarray, c: float) -> np.ndarray:
    """``z`` with the variables ``which`` (a mask) multiplied by ``c``."""
    moved = z.copy()
    moved[which] *= c
    return moved


def _valley_floor(p: ScaledProblem, z: np.ndarray, others: np.ndarray) -> float:
    """``f`` at the floor of the valley through ``z`` in the variables ``others``: Newton
    steps on the curvatures measured at ``z`` (the valley's width changes as it runs
    out: on Beale's function the curvature in ``x2`` grows as ``x1**2``, and steps on
    those of the point before overshot fourfold); inf where ``z`` is a bad point or not
    above a floor."""
    f = p.value(z)
    if not others.size or not np.isfinite(f):
        return f
    H = finite_difference_hessian(p, z, f, coords=others)
    if H is None or not np.all(np.isfinite(H)):
        return np.inf
    vals, vecs = np.linalg.eigh(H)
    if not vals[0] > 0:
        return np.inf
    steps = refine_steps(max(abs(f), np.finfo(float).tiny), vals, z)
    return valley_floor_point(p, z, np.eye(z.size)[:, others] @ vecs, vals, steps)[1]
