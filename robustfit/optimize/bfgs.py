"""Guarded inverse-Hessian BFGS.

The textbook update (Nocedal & Wright, *Numerical Optimization*, eq. 6.17) of the
inverse Hessian ``H`` with ``s = z_new - z``, ``y = g_new - g``, ``rho = 1/(y·s)``::

    H <- (I - rho s y^T) H (I - rho y s^T) + rho s s^T

with two guards that scipy's BFGS lacks:

* curvature guard: when ``y·s <= eps ‖y‖‖s‖`` (this is scipy's "rhok divide-by-zero",
  and also NaN-tainted or negative curvature) the update is *skipped*; two skips in a
  row reset ``H`` to a scaled identity, and persistent failure ends the stage so the
  driver can restart;
* the line search is the NaN-aware weak-Wolfe search of :mod:`.linesearch`, which is
  sound on non-smooth functions (Lewis & Overton 2013), where BFGS converges to kinks.

Before the first update ``H`` is scaled by ``y·s / y·y`` (N&W eq. 6.20), unless the
first line search had to shorten its step below FIRST_STEP_SHORTENED of the first trial:
then the step saw one direction far stiffer than the unit step assumed, ``y·s / y·y`` is
that direction's inverse curvature, and scaling ``H`` by it shrinks the steps in every
other direction by as much. The update alone corrects the stiff direction and leaves
the others at the unit step. NIST's Gauss1-3 (a decay rate of 0.01 next to amplitudes
and centres of 100) took 160 to 170 iterations with the scaling and 21 without it,
where scipy's BFGS (no scaling) takes 19; over NIST's 54 runs evaluations fell by 29%
on average (Hahn1 from its first start 32,483 -> 2,368), and on the MGH catalogue they
fell on 9 problems and rose on 2 (Lewis-Overton's non-smooth Rosenbrock from (0.5, 2)
1,638 -> 2,830). The price is paid where every direction is that stiff and the start
is near the minimiser (``1e6 |x - 1|^2`` in 10 variables from 1e-6 away: 92 -> 297
evaluations), where the scaling would have been right for all of them. Every gradient
computed is added to the :class:`Bundle` that the termination test reads.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from .events import EventLog
from .limited_memory import DENSE_LIMIT, LimitedMemoryInverse
from .linesearch import weak_wolfe_search

__all__ = ["Bundle", "CoreOutcome", "bundle_size", "guarded_bfgs"]

CURVATURE_EPS = 1e-10
# the first step shorter than this fraction of the first trial keeps H unscaled
FIRST_STEP_SHORTENED = 0.01
# the bundle of recent points and gradients holds at most about this many bytes
BUNDLE_MEMORY = 2 ** 26


def bundle_size(n: int) -> int:
    """Items a run's :class:`Bundle` keeps for ``n`` variables: ``3 n + 10`` (enough
    for the non-smooth certificate's convex hull) up to about 1,180 variables, fewer
    beyond, where they would hold more than BUNDLE_MEMORY bytes (``48 n**2``: 4.8 GB
    at 10,000 variables, 43 GB at 30,000), but at least 16."""
    return int(min(3 * n + 10, max(16, BUNDLE_MEMORY // (16 * max(n, 1)))))


# from this many variables BFGS's update is taken in its rank-2 form (see _update)
RANK_TWO_FORM = 128


class Bundle:
    """The most recent points with their values and gradients (a ring buffer)."""

    def __init__(self, size: int):
        self.size = size
        self.items: list[tuple[np.ndarray, float, np.ndarray]] = []

    def add(self, z: np.ndarray, f: float, g: np.ndarray) -> None:
        self.items.append((np.array(z), float(f), np.array(g)))
        if len(self.items) > self.size:
            del self.items[0]


@dataclass
class CoreOutcome:
    """How a BFGS stage ended: its last point, the reason code and some statistics."""

    z: np.ndarray
    f: float
    g: np.ndarray | None
    reason: str
    iterations: int
    step_norms: list[float] = field(default_factory=list)
    curvature_skips: int = 0
    # the inverse-Hessian estimate when the stage ended (a LimitedMemoryInverse beyond
    # DENSE_LIMIT variables)
    H: np.ndarray | LimitedMemoryInverse | None = None


def _update(H: np.ndarray, s: np.ndarray, y: np.ndarray, sy: float) -> np.ndarray:
    """BFGS's inverse update ``H - rho (Hy s' + s Hy') + (rho^2 y'Hy + rho) s s'``.

    From RANK_TWO_FORM variables on, ``H`` (which the caller owns) is updated in place
    by the one rank-2 term ``s w' + w s'`` (``w = (rho^2 y'Hy + rho)/2 s - rho Hy``):
    two outer products added in place, where the three-term form made eight arrays of
    ``n^2`` numbers, each a fresh allocation. At 500 variables the update had been 80%
    of a run's time on the chained Rosenbrock function with its gradient (0.67 ms of a
    0.85 ms iteration; the run takes 1.3 s instead of 2.8 s). The two forms round
    differently (the rank-2 one leaves ``H`` symmetric only up to its last bit), and
    BFGS's path, hence a run's
    evaluation count, follows the last bit: below RANK_TWO_FORM, where the update costs
    microseconds either way, the three-term form, into a new array, is kept.
    """
    rho = 1.0 / sy
    Hy = H @ y
    if s.size < RANK_TWO_FORM:
        return (H - rho * (np.outer(Hy, s) + np.outer(s, Hy))
                + (rho * rho * float(y @ Hy) + rho) * np.outer(s, s))
    w = (0.5 * (rho * rho * float(y @ Hy) + rho)) * s - rho * Hy
    H += np.outer(s, w)
    H += np.outer(w, s)
    return H


def guarded_bfgs(value: Callable, grad: Callable, z: np.ndarray, f: float,
                 g: np.ndarray, *, converged: Callable[[np.ndarray, float, np.ndarray,
                                                        np.ndarray], bool],
                 max_iter: int, bundle: Bundle, log: EventLog, stage: str,
                 first_step: float | None = None,
                 on_iteration: Callable[[np.ndarray, float, np.ndarray], None] | None = None,
                 refine: Callable[[np.ndarray, float], np.ndarray | None] | None = None,
                 H0: np.ndarray | None = None, max_move: float = np.inf,
                 rel_noise: float = 0.0,
                 fd_steps: Callable[[np.ndarray], np.ndarray] | None = None) -> CoreOutcome:
    """Run guarded BFGS from ``(z, f, g)`` until ``converged`` or a stall.

    Parameters
    ----------
    value, grad : callable
        ``value(z) -> float`` (inf at bad points), ``grad(z, f) -> array or None``.
    converged : callable
        ``converged(z, f, g, H) -> bool``, the stopping test, checked every iteration.
    max_iter : int
    bundle : Bundle
        Receives every ``(z, f, g)`` with a gradient.
    first_step : float or None
        Length of the first trial step (None: ``min(1, 1/‖g‖)``, as scipy does).
    refine : callable or None
        ``refine(z, f) -> more accurate gradient or None``, asked once per failed line
        search before giving up (e.g. to switch from forward to central differences
        without losing ``H``).
    H0 : numpy.ndarray or None
        A symmetric positive definite initial inverse Hessian (e.g. from finite
        differences, or a previous run on similar data); kept as given, where the
        identity would be rescaled after the first step.
    max_move, rel_noise : float
        The largest change of any coordinate in one iteration, and the relative
        rounding level of ``value`` (see
        :func:`~robustfit.optimize.linesearch.weak_wolfe_search`).
    fd_steps : callable or None
        ``fd_steps(z) -> array``, the finite-difference steps of ``grad`` at ``z`` (None:
        exact gradients): the line search's ``resolution``.

    Beyond :data:`~.limited_memory.DENSE_LIMIT` variables (and without ``H0``) the
    estimate is a :class:`~.limited_memory.LimitedMemoryInverse`, rescaled at every
    update, with the same guards.

    Returns
    -------
    CoreOutcome
        ``reason`` is one of ``converged``, ``line_search_failed``,
        ``curvature_failures``, ``no_progress``, ``no_descent``, ``max_iter``.

    Examples
    --------
    >>> import numpy as np
    >>> f = lambda z: float((z[0] - 3) ** 2 + 10 * z[1] ** 2)
    >>> g = lambda z, fz: np.array([2 * (z[0] - 3), 20 * z[1]])
    >>> conv = lambda z, fz, gz, H: np.max(np.abs(gz)) < 1e-10
    >>> z0 = np.array([0.0, 1.0])
    >>> out = guarded_bfgs(f, g, z0, f(z0), g(z0, 0), converged=conv, max_iter=50,
    ...                    bundle=Bundle(5), log=EventLog(), stage="doc")
    >>> out.reason, np.round(out.z, 8) + 0.0
    ('converged', array([3., 0.]))
    """
    n = z.size

    def grad_recorded(zt, ft):
        gt = grad(zt, ft)
        if gt is not None and np.isfinite(gt).all():
            bundle.add(zt, ft, gt)
        return gt

    bundle.add(z, f, g)
    limited = H0 is None and n > DENSE_LIMIT
    if limited:
        H = LimitedMemoryInverse(n)
    else:
        H = np.eye(n) if H0 is None else np.array(H0, dtype=float)
    scaled, gamma = H0 is not None, 1.0

    def reset():
        if limited:
            H.reset()
            return H
        return gamma * np.eye(n) if H0 is None else np.array(H0, dtype=float)

    skips_in_row = ls_fails = stalls = 0
    out = CoreOutcome(z, f, g, "max_iter", 0)
    for k in range(max_iter):
        out.z, out.f, out.g, out.iterations, out.H = z, f, g, k, H
        if converged(z, f, g, H):
            out.reason = "converged"
            return out
        d = -(H @ g)
        if not np.isfinite(d).all() or not float(g @ d) < 0:
            log.add(stage, "hessian_reset", iteration=k, reason="not a descent direction")
            H = reset()
            d = -(H @ g)
            if not float(g @ d) < 0:
                out.reason = "no_descent"
                return out
        if k == 0:
            t0 = first_step if first_step is not None else min(1.0, 1.0 / np.linalg.norm(g))
        else:
            t0 = 1.0
        ls = weak_wolfe_search(value, grad_recorded, z, f, g, d, t0=t0, max_move=max_move,
                               rel_noise=rel_noise,
                               resolution=None if fd_steps is None else fd_steps(z))
        if ls.t == 0.0 and refine is not None:
            better = refine(z, f)
            if better is not None:
                g = better
                continue
        if ls.t == 0.0:
            out.reason = "line_search_failed"
            log.add(stage, "line_search_failed", iteration=k, reason=ls.reason)
            return out
        s = ls.t * d
        y = ls.g - g
        f_prev = f
        z, f, g = z + s, ls.f, ls.g
        s_norm = math.sqrt(float(s @ s))
        out.step_norms.append(s_norm)
        if on_iteration is not None:
            on_iteration(z, f, g)
        sy = float(s @ y)
        curved = sy > CURVATURE_EPS * s_norm * math.sqrt(float(y @ y))
        if curved and limited:
            H.update(s, y, sy)
            skips_in_row = 0
        elif curved:
            if not scaled and k == 0 and ls.t < FIRST_STEP_SHORTENED * t0:
                scaled = True  # (see the module's docstring)
            if not scaled:
                gamma = sy / float(y @ y)
                H = gamma * np.eye(n)
                scaled = True
            H = _update(H, s, y, sy)
            skips_in_row = 0
        else:
            out.curvature_skips += 1
            skips_in_row += 1
            log.add(stage, "curvature_skip", iteration=k, sy=sy,
                    bound=float(CURVATURE_EPS * s_norm * math.sqrt(float(y @ y))))
            if skips_in_row >= 2:
                H = reset()
                log.add(stage, "hessian_reset", iteration=k, reason="repeated curvature skips")
            if skips_in_row >= 4:
                out.z, out.f, out.g, out.iterations, out.H = z, f, g, k + 1, H
                out.reason = "curvature_failures"
                return out
        ls_fails = 0 if ls.ok else ls_fails + 1
        stalls = stalls + 1 if f_prev - f <= 1e-15 * max(1.0, abs(f)) else 0
        if (ls_fails >= 2 or stalls >= 5) and refine is not None:
            better = refine(z, f)
            if better is not None:
                g, ls_fails, stalls = better, 0, 0
                continue
        if ls_fails >= 2 or stalls >= 5:
            out.z, out.f, out.g, out.iterations, out.H = z, f, g, k + 1, H
            out.reason = "line_search_failed" if ls_fails >= 2 else "no_progress"
            why = ls.reason if ls_fails >= 2 else "f fell by < 1e-15 (relative) in 5 iterations"
            log.add(stage, out.reason, iteration=k, reason=why)
            return out
    out.z, out.f, out.g, out.iterations, out.H = z, f, g, max_iter, H
    return out
