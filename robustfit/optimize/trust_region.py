"""A trust-region Newton stage on a finite-difference Hessian, for valleys BFGS cannot end.

BFGS builds its curvature from the steps it takes; in a narrow curved valley whose
Hessian spans many orders of magnitude (sums of exponentials with nearly equal rates:
NIST's Lanczos problems, MGH's Osborne 1 from 10 x0) the secant pairs stop carrying
information, every line search ends with "the decrease the slope promises is below
rounding", and restarts rebuild the same poor model. A Hessian measured by finite
differences at each accepted point does not depend on the path, and a trust region
(Moré & Sorensen, "Computing a trust region step", SIAM J. Sci. Stat. Comput. 4, 1983;
Nocedal & Wright, *Numerical Optimization*, ch. 4) takes the model only as far as it has
been right: a step is accepted when ``f`` drops by at least a tenth of what the model
promised, and the radius grows or shrinks with that agreement.

The subproblem ``min g·s + s·Hs/2`` over ``|s| <= radius`` is solved exactly from the
eigen-decomposition of ``H`` (at most :data:`MAX_DIMENSION` variables): the Newton step
where ``H`` is positive definite and the step fits; otherwise ``s(λ) = -(H + λI)⁻¹ g`` on
the boundary, with ``λ`` found by bisection on ``|s(λ)| = radius``, and in the "hard
case" (``g`` orthogonal to the eigenvector of the smallest eigenvalue) the boundary
reached along that eigenvector.

A measured Hessian costs ``2 n² + 2`` evaluations with finite differences (``n + 1``
gradients with an analytic one). Between measurements the model is carried by
symmetric rank-one updates from the gradients of accepted steps (SR1, the quasi-Newton
update trust regions are built for: it may be indefinite, and it is not forced to be
positive definite where the valley is not); it is measured again after ``n`` updates,
and whenever an updated model fails, before the radius shrinks. From Powell's point on
MGH's Osborne 1 (10 x0) this reached the minimum in 9,800 evaluations, against 14,800
with a measured Hessian at every accepted step. A rejected step costs one evaluation.

Where the valley curves, a straight step leaves it within a sliver, and the radius
shrinks to that sliver. So where the model is ill-conditioned and its step is bound by
the radius, a *valley step* is tried first (:func:`_valley_step`): along the flattest
eigenvector, far beyond the radius, then back down to the valley's floor along the
others. NIST's Bennett5 from its first start needed it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import numpy as np

from .eigen_sweeps import MAX_SWEEP_ROUNDS, eigen_line_sweeps
from .newton import (
    ILL_CONDITIONED,
    MAX_DIMENSION,
    finite_difference_hessian,
    refine_steps,
    valley_floor_point,
)
from .problem import ScaledProblem

__all__ = ["trust_region_newton", "trust_region_step", "TrustRegionOutcome"]

ACCEPT = 0.1  # accept a step when f drops by this fraction of the model's promise
SHRINK_BELOW, GROW_ABOVE = 0.25, 0.75  # agreement that shrinks / grows the radius
# a valley step (see _valley_step) first reaches at least VALLEY_REACH radii; a try that
# is not lower is cut by VALLEY_CUT (at most VALLEY_TRIES tries, none shorter than
# VALLEY_MIN_REACH radii), one that is, doubled while that is lower still (at most
# VALLEY_DOUBLINGS times)
VALLEY_REACH = 8.0
VALLEY_MIN_REACH = 2.0
VALLEY_CUT = 0.25
VALLEY_TRIES = 4
VALLEY_DOUBLINGS = 8
EPS = np.finfo(float).eps


class TrustRegionOutcome(NamedTuple):
    """Why the stage stopped, and how many steps it accepted."""

    reason: str
    iterations: int


def trust_region_step(g: np.ndarray, H: np.ndarray, radius: float) -> np.ndarray:
    """The minimiser of ``g·s + s·H s / 2`` over ``|s| <= radius``.

    Examples
    --------
    >>> import numpy as np
    >>> H = np.diag([2.0, -1.0])                  # indefinite: the step reaches the edge
    >>> s = trust_region_step(np.array([2.0, 0.0]), H, 1.0)
    >>> round(float(np.linalg.norm(s)), 12), bool(s[0] < 0)
    (1.0, True)
    >>> trust_region_step(np.array([2.0, 4.0]), np.diag([2.0, 4.0]), 10.0)  # Newton step
    array([-1., -1.])
    """
    vals, vecs = np.linalg.eigh(H)
    gt = vecs.T @ g
    low = vals[0]
    if low > 0:
        newton = -gt / vals
        if float(np.linalg.norm(newton)) <= radius:
            return vecs @ newton
    floor = max(0.0, -low)

    def length(lam: float) -> float:
        with np.errstate(divide="ignore", invalid="ignore"):
            return float(np.linalg.norm(gt / (vals + lam)))

    gnorm = float(np.linalg.norm(g))
    # the hard case: g has (almost) no component along the lowest eigenvector, so the
    # step never reaches the boundary for λ above -low; go to it along that eigenvector
    tiny = EPS * max(1.0, float(np.max(np.abs(vals))))
    if floor > 0 and length(floor + tiny) <= radius:
        mask = vals > low + tiny
        s = np.zeros_like(gt)
        s[mask] = -gt[mask] / (vals[mask] + floor)
        rest = radius ** 2 - float(s @ s)
        s[~mask] = 0.0
        k = int(np.flatnonzero(~mask)[0])
        s[k] = math.sqrt(max(rest, 0.0)) * (-1.0 if gt[k] > 0 else 1.0)
        return vecs @ s
    lo, hi = floor, floor + gnorm / radius + tiny
    for _ in range(200):  # bisection (geometric where the bracket spans decades)
        mid = math.sqrt(lo * hi) if lo > 0 and hi > 4 * lo else 0.5 * (lo + hi)
        if length(mid) > radius:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-14 * hi:
            break
    return vecs @ (-gt / (vals + hi))


def trust_region_newton(p: ScaledProblem, z: np.ndarray, f: float,
                        gradient: Callable[[np.ndarray, float], np.ndarray | None], *,
                        max_evaluations: int, gtol: float,
                        on_iteration: Callable | None = None) -> TrustRegionOutcome:
    """Trust-region Newton iterations from ``z`` until the Newton decrement is below
    ``0.1 gtol |f|`` (the test of :mod:`robustfit.optimize.newton`), the radius shrinks
    to rounding, a Hessian cannot be measured, or ``max_evaluations`` are spent.

    ``gradient(z, f)`` gives an accurate (analytic, or extrapolated finite-difference)
    gradient. The
    best point is kept by the guarded objective; this returns only why it stopped.
    With bounds every step is clipped to the box (``robust_minimize`` runs the stage
    on unbounded problems only).
    """
    n = z.size
    if n > MAX_DIMENSION:
        return TrustRegionOutcome("too many variables for a finite-difference Hessian", 0)
    start = p.guard.nfev
    g = gradient(z, f)
    radius = 0.1 * max(1.0, float(np.linalg.norm(z)))
    accepted = sweeps = 0
    H, measured = None, False  # the model's Hessian, and whether it was measured here

    def arrived(z_new: np.ndarray, f_new: float) -> np.ndarray | None:
        """The gradient at a point reached by a jump (a valley step or a sweep), which
        the callback then sees; the caller measures the Hessian there afresh."""
        g_new = gradient(z_new, f_new)
        if on_iteration is not None:
            on_iteration(z_new, f_new, g_new)
        return g_new

    since_measured = 0
    while p.guard.nfev - start < max_evaluations:
        if g is None or not np.all(np.isfinite(g)):
            return TrustRegionOutcome("no gradient", accepted)
        if H is None or since_measured >= n:
            H = finite_difference_hessian(p, z, f, g)
            if H is None or not np.all(np.isfinite(H)):
                return TrustRegionOutcome("a Hessian step hit a bad point", accepted)
            measured, since_measured = True, 0
            if _decrement_negligible(g, H, f, gtol):
                return TrustRegionOutcome("converged: Newton decrement", accepted)
        s = trust_region_step(g, H, radius)
        if p.lower is not None:
            s = np.clip(z + s, p.lower, p.upper) - z
        promised = -(float(g @ s) + 0.5 * float(s @ H @ s))
        step = float(np.linalg.norm(s))
        if not promised > EPS * max(abs(f), EPS) or step <= EPS * max(1.0, float(
                np.linalg.norm(z))):
            if not measured:
                H = None  # an updated model may be what promises nothing: measure it
                continue
            swept = eigen_line_sweeps(p, z, f, H) if sweeps < MAX_SWEEP_ROUNDS else None
            sweeps += 1
            if swept is not None and f - swept[1] > 0.1 * gtol * abs(f):
                # the gradient is at its rounding floor, yet f still resolves a lower
                # point along the model's eigenvectors: go on from there
                z, f = swept
                g = arrived(z, f)
                H, measured = None, False
                accepted += 1
                continue
            return TrustRegionOutcome("the model promises nothing above rounding", accepted)
        if step >= 0.99 * radius and p.lower is None:
            moved = _valley_step(p, z, f, g, H, radius)
            if moved is not None:  # a new point far away: its gradient and Hessian
                z, f = moved
                g = arrived(z, f)
                H, measured = None, False
                accepted += 1
                continue
        f_new = p.value(z + s)
        agreement = (f - f_new) / promised if np.isfinite(f_new) else -np.inf
        if agreement >= ACCEPT and f_new < f:
            g_new = gradient(z + s, f_new)
            if g_new is not None and np.all(np.isfinite(g_new)):
                H = _sr1_update(H, s, g_new - g)
                measured = False
                since_measured += 1
            z, f, g = z + s, f_new, g_new
            accepted += 1
            if on_iteration is not None:
                on_iteration(z, f, g)
        elif not measured:
            H = None  # a model built by updates failed: measure it before shrinking
            continue
        if agreement < SHRINK_BELOW:
            radius = 0.25 * step
        elif agreement > GROW_ABOVE and step >= 0.99 * radius:
            radius = 2.0 * radius
    return TrustRegionOutcome("evaluation share spent", accepted)


def _valley_step(p: ScaledProblem, z: np.ndarray, f: float, g: np.ndarray,
                 H: np.ndarray, radius: float) -> tuple[np.ndarray, float] | None:
    """A step down a curved valley, far beyond the trust radius; None where ``H`` is
    not ill-conditioned (:data:`~robustfit.optimize.newton.ILL_CONDITIONED`), a stiff
    curvature is not positive, or no try is lower than ``f``.

    Where the valley curves, a straight step leaves it within a sliver: the radius
    shrinks to what the stiff curvature allows, and every step, however well the model
    predicts it, gains a sliver. On NIST's Bennett5 (from its first start, the Hessian's
    curvatures 0.05 to 1e7) trust-region steps of 3e-4 gained 1e-5 of ``f`` each, 346 of
    them 0.4% of the way. A valley step moves downhill along the flattest eigenvector
    of ``H`` -- to the model's minimum along it, but at least :data:`VALLEY_REACH` radii
    (coordinate differences measure so small a curvature as rounding: on
    ``1e6 (y - x**2)**2 + 1e-2 (x - 3)**2`` they said 0.2 to 0.8 where the valley's own
    is 1e-3) -- then back down to the valley's floor along the other eigenvectors
    (:func:`~robustfit.optimize.newton.valley_floor_point`). A try that is not lower is
    cut by :data:`VALLEY_CUT`; one that is, doubled while that is lower still.
    """
    vals, vecs = np.linalg.eigh(H)
    span = float(np.max(np.abs(vals)))
    if not (span > 0 and float(np.min(np.abs(vals))) <= ILL_CONDITIONED * span):
        return None
    flat, rest, curvatures = vecs[:, 0], vecs[:, 1:], vals[1:]
    if np.any(curvatures <= 0):
        return None
    slope = float(g @ flat)
    model = abs(slope) / vals[0] if vals[0] > 0 else 0.0
    t = -math.copysign(max(model, VALLEY_REACH * radius), slope)
    # slopes along the stiff directions with steps that change f by ~REFINE_CHANGE |f|
    steps = refine_steps(max(abs(f), EPS), curvatures, z)

    def floor_at(t: float) -> tuple[np.ndarray, float]:
        return valley_floor_point(p, z + t * flat, rest, curvatures, steps)

    for _ in range(VALLEY_TRIES):
        if not abs(t) > VALLEY_MIN_REACH * radius:
            return None
        zt, ft = floor_at(t)
        if np.isfinite(ft) and ft < f:
            for _ in range(VALLEY_DOUBLINGS):
                z2, f2 = floor_at(2.0 * t)
                if not (np.isfinite(f2) and f2 < ft):
                    break
                zt, ft, t = z2, f2, 2.0 * t
            return zt, ft
        t *= VALLEY_CUT
    return None


def _sr1_update(H: np.ndarray, s: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The symmetric rank-one update of ``H`` by the step ``s`` and the change of
    gradient ``y``, skipped where its denominator is small (Nocedal & Wright, 6.2)."""
    r = y - H @ s
    denominator = float(r @ s)
    if abs(denominator) <= 1e-8 * float(np.linalg.norm(r)) * float(np.linalg.norm(s)):
        return H
    return H + np.outer(r, r) / denominator


def _decrement_negligible(g: np.ndarray, H: np.ndarray, f: float, gtol: float) -> bool:
    """``g·H⁻¹g / 2 <= 0.1 gtol |f|`` with ``H`` positive definite."""
    try:
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return False
    w = np.linalg.solve(L, g)
    return 0.5 * float(w @ w) <= 0.1 * gtol * abs(f)
