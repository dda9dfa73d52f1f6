"""Local minimisation of a guarded objective in unconstrained coordinates.

A quasi-Newton stage (BFGS with forward differences) does the work; where it does not
report convergence (a kink, an infeasible edge, precision loss), a Nelder–Mead stage
started from the best point it found, with a simplex sized by the steps taken, finishes
the job. The best point either stage evaluated is returned, so the result is never worse
than the start.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize


@dataclass
class LocalResult:
    t: np.ndarray
    fun: float
    success: bool
    message: str
    nfev: int
    warnings: list = field(default_factory=list)
    hess_inv: np.ndarray | None = None  # BFGS's inverse-Hessian estimate, to warm-start


class _BudgetExhausted(Exception):
    pass


class _BestTracker:
    """Wraps ``f``: counts calls, maps NaN/errors to inf, keeps the best point seen and
    remembers the last evaluation (BFGS asks for f and its gradient at the same point)."""

    def __init__(self, f, maxfev: int):
        self.f = f
        self.maxfev = maxfev
        self.nfev = 0
        self.best_t = None
        self.best_f = np.inf
        self._last_t = None
        self._last_f = np.inf

    def __call__(self, t) -> float:
        t = np.asarray(t, dtype=float)
        if self._last_t is not None and np.array_equal(t, self._last_t):
            return self._last_f
        if self.nfev >= self.maxfev:
            raise _BudgetExhausted
        self.nfev += 1
        try:
            val = float(self.f(t))
        except (ArithmeticError, ValueError):
            val = np.inf
        if not np.isfinite(val):
            val = np.inf
        if val < self.best_f:
            self.best_f, self.best_t = val, t.copy()
        self._last_t, self._last_f = t.copy(), val
        return val


def minimize_local(f, t0, *, maxfev: int = 3000, xtol: float = 1e-9,
                   hess_inv0: np.ndarray | None = None) -> LocalResult:
    """Minimise ``f`` from ``t0``; ``f`` returns ``inf`` where infeasible.

    ``hess_inv0`` warm-starts BFGS (e.g. the estimate from a fit on a subsample, when
    polishing on the whole sample: the curvature per observation is nearly the same).
    """
    t0 = np.asarray(t0, dtype=float)
    tracker = _BestTracker(f, maxfev)
    if not np.isfinite(tracker(t0)):
        return LocalResult(t0, np.inf, False, "infeasible start", 1)
    msgs = []
    converged = False
    hess_inv = None
    with warnings.catch_warnings(record=True) as rec, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            bfgs = _bfgs_stage(tracker, t0, hess_inv0)
            msgs.append(f"BFGS: {bfgs.message}")
            converged = bool(bfgs.success)
            hess_inv = getattr(bfgs, "hess_inv", None)
            if not converged:
                converged = _central_restarts(tracker, msgs)
            if not converged:
                converged = _nelder_mead_stage(tracker, t0, xtol, msgs)
        except _BudgetExhausted:
            msgs.append(f"stopped after {maxfev} evaluations")
        caught = sorted({f"{w.category.__name__}: {w.message}" for w in rec})
    return LocalResult(tracker.best_t, tracker.best_f, converged, "; ".join(msgs),
                       tracker.nfev, caught, hess_inv)


def _central_restarts(tracker, msgs, rounds: int = 3, gtol: float = 1e-5) -> bool:
    """Fresh BFGS runs from the best point with central differences.

    Forward differences limit BFGS to a gradient accuracy of ~sqrt(eps); on ridges that
    ends in "precision loss" short of the optimum. Restarting with a new Hessian and
    more accurate gradients either makes progress or shows a small gradient at the best
    point — the stated convergence test then.
    """
    for _ in range(rounds):
        before = tracker.best_f
        res = _bfgs_stage(tracker, tracker.best_t, None, central=True)
        msgs.append(f"BFGS restart (central differences): {res.message}")
        if res.success:
            return True
        if tracker.best_f >= before - 1e-12 * max(1.0, abs(before)):
            g = _gradient(tracker, tracker.best_t, central=True)
            small = bool(np.max(np.abs(g)) <= gtol)
            if small:
                msgs.append("gradient at the best point below 1e-5")
            return small
    return False


def _gradient(tracker, t, central: bool) -> np.ndarray:
    """Finite-difference gradient with steps scaled to |t|; an infeasible side is
    replaced by the other one."""
    f0 = tracker(t)
    g = np.empty_like(t)
    rel = 6e-6 if central else 1.5e-8
    for i in range(t.size):
        h = rel * max(1.0, abs(t[i]))
        tp, tm = t.copy(), t.copy()
        tp[i] += h
        tm[i] -= h
        fp = tracker(tp)
        if central:
            fm = tracker(tm)
            if np.isfinite(fp) and np.isfinite(fm):
                g[i] = (fp - fm) / (2 * h)
                continue
        elif np.isfinite(fp):
            g[i] = (fp - f0) / h
            continue
        fm = tracker(tm) if not central else fm
        g[i] = (fp - f0) / h if np.isfinite(fp) else (f0 - fm) / h if np.isfinite(fm) else 0.0
    return g


def _nelder_mead_stage(tracker, t0, xtol, msgs) -> bool:
    start = tracker.best_t
    dim = start.size
    step = np.clip(0.1 * np.abs(start - t0), 1e-3, 0.5)
    simplex = np.vstack([start] + [start + np.eye(dim)[i] * step[i] for i in range(dim)])
    nm = optimize.minimize(tracker, start, method="Nelder-Mead",
                           options=dict(initial_simplex=simplex, xatol=xtol, fatol=1e-12,
                                        maxfev=200 * dim, adaptive=dim > 3))
    msgs.append(f"Nelder-Mead: {nm.message}")
    return bool(nm.success)


def _positive_definite(h, dim: int) -> np.ndarray | None:
    """``h`` symmetrised if it is a usable (finite, well-conditioned SPD) matrix."""
    if h is None or np.shape(h) != (dim, dim) or not np.all(np.isfinite(h)):
        return None
    h = 0.5 * (h + h.T)
    eig = np.linalg.eigvalsh(h)
    if not (eig[0] > 1e-12 * eig[-1] > 0):
        return None
    try:
        np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        return None
    return h


def _bfgs_stage(tracker, t0, hess_inv0=None, central: bool = False):
    def grad(t):
        return _gradient(tracker, t, central)

    options = dict(gtol=1e-6, maxiter=200 * t0.size)
    warm = _positive_definite(hess_inv0, t0.size)
    if warm is not None:
        options["hess_inv0"] = warm
    return optimize.minimize(tracker, t0, jac=grad, method="BFGS", options=options)
