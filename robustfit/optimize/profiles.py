"""A probe along each variable's profile, for passes the Newton model cannot settle.

The profile of ``f`` in a variable ``x_i`` is ``min`` of ``f`` over the others with
``x_i`` held. At a minimum every profile has its minimum there too; in a *curved*
valley the profile still falls, while the quadratic model at the point sees only the
valley's straight tangent and promises almost nothing. A logistic curve fitted to data
of 1e-6 over times of 1e-3, from ones, stopped with its midpoint beyond the data and the
amplitude 1000 times too large, where the curve is an exponential: ``a exp(-r m)`` is
what the data fix, so ``a`` and the midpoint ``m`` trade off along a valley that is a
straight line in ``log a``, not in ``a``. The gradient passed on its floor
(``f = 3e-11``, 100 times the minimum), the Newton model promised 1e-5 of ``f``, below
the level at which a pass is withdrawn, and its own point was higher.

Here ``x_i`` is moved by :data:`PROFILE_MOVE` of its size, the others following to first
order (along ``e_i - H_oo^{-1} H_oi``, the profile's tangent by the Hessian) and then
re-minimised by Newton steps on their measured curvatures
(:func:`.newton.valley_floor_point`). A point lower than the tolerance witnesses that
the pass is no minimum; at true minima (MGH's Gaussian and Penalty II from 10 x0, where
the model promises 9e-6 and 1e-5 of ``f``) nothing is lower.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from .newton import refine_steps, valley_floor_point
from .problem import ScaledProblem

__all__ = ["lower_along_profiles", "profile_probe_cost", "PROFILE_MOVE"]

PROFILE_MOVE = 0.1  # of the variable's size (|x_i|, or its typical size at 0)
# Newton steps that re-minimise the others (each halved up to 6 times): the valley is
# curved, and the profile falls by a few 1e-4 of f over the move, so the floor is
# needed to about 1e-6 of f
_NEWTON_STEPS = 6


def profile_probe_cost(n: int, probed: int) -> int:
    """An upper bound on the evaluations :func:`lower_along_profiles` spends probing
    ``probed`` of ``n`` variables (both ways; slopes along the other ``n - 1``)."""
    return 2 * probed * (1 + _NEWTON_STEPS * (2 * (n - 1) + 6))


def lower_along_profiles(p: ScaledProblem, z: np.ndarray, f: float, H: np.ndarray,
                         variables: Iterable[int], tol: float) -> int | None:
    """The first of ``variables`` along whose profile ``f`` falls below ``f - tol``
    (the lower point is then the best one seen), else None.

    ``H`` is the Hessian at ``z`` over all variables. A variable whose complement
    block of ``H`` is not positive definite is skipped (no valley floor to follow).
    Nothing is probed where ``f`` is 0 (the re-minimising steps change ``f`` by a
    fraction of ``|f|``; the Newton test, relative to ``|f|``, does not apply there).

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> from robustfit.optimize.newton import finite_difference_hessian
    >>> # the valley x1 = log(x0) falls slowly as x0 grows: nowhere a minimum
    >>> fun = lambda x: float(1e4 * (x[1] - np.log(x[0])) ** 2 + 1.0 / (1.0 + x[0]))
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z = np.array([0.5, np.log(0.5)])
    >>> H = finite_difference_hessian(p, z, fun(z))
    >>> lower_along_profiles(p, z, fun(z), H, [0, 1], 1e-7 * fun(z))
    0
    >>> bool(p.guard.best_f < fun(z))
    True
    """
    if not (np.isfinite(f) and f != 0):
        return None  # (the re-minimising steps are scaled by |f|)
    n = z.size
    for i in variables:
        others = np.array([j for j in range(n) if j != i], dtype=int)
        tangent = np.zeros(n)
        tangent[i] = 1.0
        rest = curvatures = steps = None
        if others.size:
            block = H[np.ix_(others, others)]
            try:
                curvatures, vecs = np.linalg.eigh(block)
                follow = np.linalg.solve(block, H[others, i])
            except np.linalg.LinAlgError:
                continue
            if not (curvatures[0] > 0 and np.all(np.isfinite(follow))):
                continue
            tangent[others] = -follow
            rest = np.eye(n)[:, others] @ vecs
            # the slopes along the others' eigenvectors with steps that change f by
            # about REFINE_CHANGE |f| (coordinate steps mix in the stiff curvature)
            steps = refine_steps(abs(f), curvatures, z)
        move = PROFILE_MOVE * (abs(float(z[i])) or float(p.typical[i]))
        for sign in (1.0, -1.0):
            zt = z + sign * move * tangent
            if p.lower is not None and not (np.all(zt >= p.lower) and np.all(zt <= p.upper)):
                continue
            if rest is None:
                ft = p.value(zt)
            else:
                _, ft = valley_floor_point(p, zt, rest, curvatures, steps, _NEWTON_STEPS)
            if np.isfinite(ft) and ft < f - tol:
                return int(i)
    return None
