"""A certificate for minima at kinks that lie along the coordinates (an L1 penalty).

Gradient sampling certifies a kink by finding 0 in the convex hull of gradients sampled
around it, which needs samples on every side of every kink: with 23 coefficients of an
L1-penalised logistic regression at 0, 60 samples 1e-7 around the optimum left a
shortest combination of 0.1 (of 0.03 at 240; ~1e-8 at 960), and with finite
differences each sample costs ``2 n + 1`` evaluations. The run spent its 155,000
evaluations and ended ``success=False`` at the optimum.

Where the kinks run along the coordinates the subdifferential is a box: the one-sided
partials ``d⁻_i <= d⁺_i`` bound each component, and 0 lies in it when every
``d⁻_i <= 0 <= d⁺_i`` (``2 n`` evaluations). That holds for separable kinks only: a
crease ``|x2 - x1²|`` has one-sided partials of both signs in both variables at a point
where ``f`` still falls along the crease. So the box is checked against ``f`` itself:
along moves by ``±h_i`` in every variable at once (random signs), a separable kink
changes ``f`` by exactly ``sum_i d^{sign}_i (±h_i)``, and a crease by less (its kink
term is ``|n·d|``, not ``sum |n_i d_i|``), half of the sign patterns by much less. A
smooth ``f`` at the same step shows one-sided partials that differ by its curvature
times ``h`` and grow apart with the step; a kink's stay: a variable counts as kinked
only where doubling the step leaves them, as :mod:`.smoothness` tells kinks from
curvature. Where none is kinked, the smooth tests decide.
"""

from __future__ import annotations

import numpy as np

from .problem import ScaledProblem
from .sampling import one_sided_slopes

__all__ = ["separable_kink_measure"]

# the steps: this much of each variable's size (at least 1), the gradient-sampling radius
KINK_STEP = 1e-7
# one-sided partials that do not change by more than this share of their jump when the
# step doubles belong to a kink (a smooth f's jump, its curvature times h, doubles)
KINK_STEADY = 0.1
# a move of every variable changes f as the box predicts to this share of the moves'
# first-order size (plus rounding)
AGREEMENT = 0.01
# sign patterns tried (at least), and the roundings of f allowed per variable in each
# comparison
MIN_PATTERNS = 8
ROUNDINGS = 10.0


def separable_kink_measure(p: ScaledProblem, z: np.ndarray, f: float,
                           rng: np.random.Generator) -> float | None:
    """``max_i dist(0, [d⁻_i, d⁺_i]) max(1, |z_i|) / max(1, |f|)`` -- the relative size
    of the shortest vector of the box of one-sided partials -- where at least one
    variable has a kink, and ``f`` changes along
    ``max(n, MIN_PATTERNS)`` random sign patterns as a box predicts; else None (the
    certificate does not apply). Costs ``4 n`` evaluations, plus the patterns where
    some variable is kinked. Not with bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> lasso = lambda x: float((x[0] - 2.0) ** 2 + 0.5 * (x[1] - 0.1) ** 2
    ...                         + np.abs(x).sum())
    >>> p = ScaledProblem(GuardedObjective(lasso), np.ones(2))
    >>> z = np.array([1.5, 0.0])                     # the minimum: x1 held at its kink
    >>> float(separable_kink_measure(p, z, lasso(z), np.random.default_rng(0))) < 1e-6
    True
    >>> crease = lambda x: float(abs(x[1] - x[0] ** 2) + 0.01 * abs(x[0] + 5.0))
    >>> p = ScaledProblem(GuardedObjective(crease), np.ones(2))
    >>> z = np.array([0.5, 0.25])                    # on the crease, not a minimum
    >>> separable_kink_measure(p, z, crease(z), np.random.default_rng(0)) is None
    True
    """
    if p.lower is not None:
        return None
    n = z.size
    h = KINK_STEP * np.maximum(1.0, np.abs(z))
    near = _one_sided(p, z, f, h)
    far = _one_sided(p, z, f, 2.0 * h)
    if near is None or far is None:
        return None
    (up, down), (up2, down2) = near, far
    jump = up - down
    steady = (np.abs(up2 - up) <= KINK_STEADY * np.abs(jump)) & \
        (np.abs(down2 - down) <= KINK_STEADY * np.abs(jump))
    kinked = steady & (jump > 0)
    if not np.any(kinked):
        return None
    # allowed disagreement: a share of the moves' first-order size, and rounding (the
    # prediction sums n partials)
    allowed = (AGREEMENT * float(np.sum(np.maximum(np.abs(up), np.abs(down)) * h))
               + ROUNDINGS * (n + 2) * p.guard.rounding(f))
    for _ in range(max(n, MIN_PATTERNS)):
        signs = rng.choice([-1.0, 1.0], size=n)
        move = signs * h
        predicted = float(np.sum(np.where(signs > 0, up, down) * move))
        value = p.value(z + move)
        if not np.isfinite(value):
            return None
        if abs((value - f) - predicted) > allowed:
            return None  # not a box: the kinks are not separable here
    distance = np.maximum(0.0, np.maximum(-up, down))
    return float(np.max(distance * np.maximum(1.0, np.abs(z))) / max(1.0, abs(f)))


def _one_sided(p: ScaledProblem, z: np.ndarray, f: float,
               h: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Forward and backward differences of ``f`` at ``z`` with steps ``h``."""
    up, down = np.empty(z.size), np.empty(z.size)
    for i in range(z.size):
        sides = one_sided_slopes(p, z, f, i, float(h[i]))
        if sides is None:
            return None
        up[i], down[i] = sides[:2]
    return up, down
