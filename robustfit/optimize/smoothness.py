"""Whether a finite-difference Hessian measured curvature or a kink.

The Newton-decrement test trusts the quadratic model of a Hessian measured by finite
differences. At a kink of ``f`` (a crease ``|x2 - c x1**2|``, a cusp ``sqrt|x2 - c x1**2|``)
a second difference is not the curvature times ``h**2``: it grows like ``h`` (a kink) or
``sqrt(h)`` (a cusp), so the "curvature" is ``1 / h`` or ``h**-1.5`` -- huge, and the
decrement ``g·H⁻¹g / 2`` tiny whatever the slope left. On Bukin's sixth function,
``100 sqrt|x2 - 0.01 x1**2| + 0.01 |x1 + 10|``, the test passed on its crease at every
point (eight random starts, ``f`` 6.7e-4 to 0.04, where ``f`` keeps falling along the
crease to 0 at ``x1 = -10``).

Doubling the step tells them apart: a smooth ``f`` has ``d(2h) = 4 d(h)`` to
``O(h**2)`` (``d`` the second difference), a kink ``2 d(h)``, a cusp ``sqrt(2) d(h)``.
With an analytic gradient the forward difference of the gradient doubles for a smooth
``f`` and stays the jump for a kink.
"""

from __future__ import annotations

import numpy as np

from .offset import RESOLVED
from .problem import ScaledProblem

__all__ = ["kinked_directions", "KINK_RATIO"]

# d(2h) / (4 d(h)) (or, with a gradient, its difference over 2h against twice that over
# h) below this: not a curvature. Smooth: 1 + O(h**2); a kink 0.5; a cusp 0.35
KINK_RATIO = 0.7
# a gradient difference counts where it is this many roundings of the gradient
GRADIENT_RESOLVED = 1e4


def kinked_directions(p: ScaledProblem, z: np.ndarray, f: float, V: np.ndarray,
                      curvatures: np.ndarray, steps: np.ndarray,
                      g: np.ndarray | None = None) -> list[int]:
    """The columns ``k`` of ``V`` (unit directions in ``z``) whose curvature
    ``curvatures[k]``, measured by second differences of ``f`` with ``steps[k]``, does not
    hold at twice the step: ``f`` has a kink or a cusp there, and the Hessian says
    nothing of a minimum. With ``g`` (the analytic gradient at ``z``, every variable)
    the curvatures are forward differences of the gradient over ``steps`` instead.
    Only curvatures measured above rounding are checked, and only where twice the step
    keeps inside the bounds; two evaluations (one gradient) per direction checked.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(abs(x[0]) + (x[1] - 1.0) ** 2)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z, h = np.array([0.0, 1.0]), np.array([1e-4, 1e-4])
    >>> curvatures = np.array([2e-4 / h[0] ** 2, 2.0])   # |x0|'s "curvature", f'' in x1
    >>> kinked_directions(p, z, fun(z), np.eye(2), curvatures, h)
    [0]
    """
    kinked = []
    for k in range(V.shape[1]):
        v, h = V[:, k], float(steps[k])
        ahead, behind = z + 2.0 * h * v, z - 2.0 * h * v
        if p.lower is not None and not (np.all(np.minimum(ahead, behind) >= p.lower)
                                        and np.all(np.maximum(ahead, behind) <= p.upper)):
            continue
        if g is not None:
            change = curvatures[k] * h  # v·(g(z + h v) - g(z))
            if not abs(change) > GRADIENT_RESOLVED * np.finfo(float).eps * abs(g @ v):
                continue
            g2 = p.analytic_gradient(ahead)
            if g2 is None:
                continue
            ratio = float(v @ (g2 - g)) / (2.0 * change)
        else:
            d = curvatures[k] * h * h
            if not d > RESOLVED * p.guard.rounding(f):
                continue
            f_ahead, f_behind = p.value(ahead), p.value(behind)
            if not (np.isfinite(f_ahead) and np.isfinite(f_behind)):
                continue
            ratio = (f_ahead + f_behind - 2.0 * f) / (4.0 * d)
        if ratio < KINK_RATIO:
            kinked.append(k)
    return kinked
