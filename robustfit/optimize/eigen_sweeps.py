"""Line searches on values of ``f`` along a Hessian's eigenvectors, below the gradient's
rounding floor.

Near a small-residual minimum, ``f = sum(r**2)`` with residuals far smaller than the
terms they are computed from, a finite-difference gradient stops resolving the slope
before ``f`` stops resolving the point: a difference step ``h`` moves the residuals by
``|J| h``, so ``f`` at the stencil's points is rounded to about ``eps |J| h |r|`` and
the slope to about ``eps |J| |r|``, whatever ``h`` is. On NIST's Lanczos1 (certified
minimum 1.43e-25, Hessian eigenvalues 6e-8 to 30) central, extrapolated and
small-step differences all left errors of 2e-16 to 8e-16 in a gradient of 6e-16, and
the trust-region model, steered by them, promised nothing at 1.79e-25, 25% above the
minimum: rounding of ``f`` itself there is 1e-28.

Values of ``f`` along one direction keep that resolution. Along each eigenvector ``v``
of the measured Hessian (curvature ``λ > 0``, flattest first) this takes ``f`` at
``±τ v`` with ``λ τ² = |f|`` -- the curvature then changes ``f`` by its own size, far
above its rounding wherever ``f`` is not zero to rounding -- fits the parabola through
the three values, and moves to the lowest of the probes and the parabola's minimum
(at most :data:`EXTRAPOLATION` ``τ`` away). From Lanczos1's stop one sweep of 18
evaluations reached 1.429e-25; coordinate directions gained nothing (Powell's method
along them ended where it started, along the eigenvectors it reached 1.429e-25 in 76).
"""

from __future__ import annotations

import numpy as np

from .problem import ScaledProblem

__all__ = ["eigen_line_sweeps", "MAX_SWEEP_ROUNDS"]

# a sweep is repeated while it lowers f by more than SWEEP_GAIN of |f|, at most
# SWEEPS_PER_CALL times; a caller gives the sweeps at most MAX_SWEEP_ROUNDS calls
SWEEP_GAIN = 1e-3
SWEEPS_PER_CALL = 3
MAX_SWEEP_ROUNDS = 3
# the parabola's minimum is taken at most this many probe lengths away
EXTRAPOLATION = 4.0


def eigen_line_sweeps(p: ScaledProblem, z: np.ndarray, f: float,
                      H: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The lowest point found by parabolic line searches on values of ``f`` along the
    eigenvectors of ``H`` from ``z``, and its value; None where none is below ``f``.

    Each costs three evaluations per eigenvector of positive curvature and sweep (see
    the module's docstring). Probes outside the bounds or at bad points are skipped.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float((x[0] + x[1] - 2) ** 2 + 1e-6 * (x[0] - x[1]) ** 2 + 1.0)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> H = np.array([[2.000002, 1.999998], [1.999998, 2.000002]])
    >>> z, f = eigen_line_sweeps(p, np.array([1.5, 0.5]), fun([1.5, 0.5]), H)
    >>> np.round(z, 6), round(f, 12)
    (array([1., 1.]), 1.0)
    """
    vals, vecs = np.linalg.eigh(H)
    start = f
    for _ in range(SWEEPS_PER_CALL):
        before = f
        for k in range(vals.size):
            if not vals[k] > 0 or not np.isfinite(vals[k]):
                continue
            z, f = _parabolic_move(p, z, f, vecs[:, k], np.sqrt(abs(f) / vals[k]))
        if not before - f > SWEEP_GAIN * abs(before):
            break
    return (z, f) if f < start else None


def _parabolic_move(p: ScaledProblem, z: np.ndarray, f: float, v: np.ndarray,
                    tau: float) -> tuple[np.ndarray, float]:
    """The lowest of ``z``, ``z ± τ v`` and the minimum of the parabola through them
    (at most EXTRAPOLATION ``τ`` away), with its value."""
    up, down = z + tau * v, z - tau * v
    if not (tau > 0 and np.any(up != z) and np.any(down != z)):
        return z, f  # a step below the spacing of z
    f_up, f_down = _value(p, up), _value(p, down)
    best_z, best_f = z, f
    for zc, fc in ((up, f_up), (down, f_down)):
        if fc < best_f:
            best_z, best_f = zc, fc
    if not (np.isfinite(f_up) and np.isfinite(f_down)):
        return best_z, best_f
    curvature = (f_up - 2.0 * f + f_down) / tau ** 2
    if curvature > 0:
        t = -(f_up - f_down) / (2.0 * tau * curvature)
        t = float(np.clip(t, -EXTRAPOLATION * tau, EXTRAPOLATION * tau))
        zt = z + t * v
        if np.any(zt != z):
            ft = _value(p, zt)
            if ft < best_f:
                best_z, best_f = zt, ft
    return best_z, best_f


def _value(p: ScaledProblem, z: np.ndarray) -> float:
    """``f`` at ``z``; inf outside the bounds, where nothing is evaluated (nor counted
    against the first descent's limit of points outside, as ``p.value`` does)."""
    if not p.inside(z):
        return np.inf
    value = p.value(z)
    return value if np.isfinite(value) else np.inf
