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


def minimize_local(f, t0, *, maxfev: int = 3000, xtol: float = 1e-9) -> LocalResult:
    """Minimise ``f`` from ``t0``; ``f`` returns ``inf`` where infeasible."""
    t0 = np.asarray(t0, dtype=float)
    tracker = _BestTracker(f, maxfev)
    if not np.isfinite(tracker(t0)):
        return LocalResult(t0, np.inf, False, "infeasible start", 1)
    msgs = []
    converged = False
    with warnings.catch_warnings(record=True) as rec, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            bfgs = _bfgs_stage(tracker, t0)
            msgs.append(f"BFGS: {bfgs.message}")
            converged = bool(bfgs.success)
            if not converged:
                converged = _nelder_mead_stage(tracker, t0, xtol, msgs)
        except _BudgetExhausted:
            msgs.append(f"stopped after {maxfev} evaluations")
        caught = sorted({f"{w.category.__name__}: {w.message}" for w in rec})
    return LocalResult(tracker.best_t, tracker.best_f, converged, "; ".join(msgs),
                       tracker.nfev, caught)


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


def _bfgs_stage(tracker, t0):
    def grad(t):
        # forward differences with steps scaled to |t|; an infeasible side is mirrored
        f0 = tracker(t)
        g = np.empty_like(t)
        for i in range(t.size):
            h = 1.5e-8 * max(1.0, abs(t[i]))
            tp = t.copy()
            tp[i] += h
            fp = tracker(tp)
            if not np.isfinite(fp):
                tp[i] = t[i] - h
                fm = tracker(tp)
                g[i] = (f0 - fm) / h if np.isfinite(fm) else 0.0
            else:
                g[i] = (fp - f0) / h
        return g

    return optimize.minimize(tracker, t0, jac=grad, method="BFGS",
                             options=dict(gtol=1e-6, maxiter=200 * t0.size))
