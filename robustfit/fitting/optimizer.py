"""Local minimisation of a guarded objective in unconstrained coordinates.

A quasi-Newton stage (BFGS with finite differences) does the bulk of the work; a
Nelder–Mead stage started from its end point, with a simplex sized by the BFGS steps,
polishes it and rescues runs where BFGS stopped at a kink or an infeasible edge. The
best point either stage evaluated is returned, so the result is never worse than the
start.
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


class _BestTracker:
    """Wraps ``f``: counts calls, maps NaN to inf and keeps the best point seen."""

    def __init__(self, f, maxfev: int):
        self.f = f
        self.maxfev = maxfev
        self.nfev = 0
        self.best_t = None
        self.best_f = np.inf

    def __call__(self, t) -> float:
        self.nfev += 1
        try:
            val = float(self.f(t))
        except (ArithmeticError, ValueError):
            val = np.inf
        if not np.isfinite(val):
            val = np.inf
        if val < self.best_f:
            self.best_f, self.best_t = val, np.array(t, dtype=float)
        return val


def minimize_local(f, t0, *, maxfev: int = 4000, xtol: float = 1e-10) -> LocalResult:
    """Minimise ``f`` from ``t0``; ``f`` returns ``inf`` where infeasible."""
    tracker = _BestTracker(f, maxfev)
    f0 = tracker(t0)
    if not np.isfinite(f0):
        return LocalResult(np.asarray(t0, float), np.inf, False, "infeasible start", 1)
    caught: list[str] = []
    dim = len(t0)
    msgs = []
    converged = False
    with warnings.catch_warnings(record=True) as rec, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        bfgs = _bfgs_stage(tracker, np.asarray(t0, float), maxfev // 2)
        msgs.append(f"BFGS: {bfgs.message}")
        start = tracker.best_t
        step = np.abs(start - np.asarray(t0, float))
        simplex_scale = np.clip(0.05 * step, 1e-4, 0.5) if bfgs.success else np.clip(
            0.2 * step, 1e-2, 1.0)
        simplex = np.vstack([start] + [start + np.eye(dim)[i] * simplex_scale[i]
                                       for i in range(dim)])
        remaining = max(maxfev - tracker.nfev, 20 * dim)
        nm = optimize.minimize(tracker, start, method="Nelder-Mead",
                               options=dict(initial_simplex=simplex, xatol=xtol,
                                            fatol=1e-13, maxfev=remaining, adaptive=dim > 3))
        msgs.append(f"Nelder-Mead: {nm.message}")
        converged = bool(nm.success) or bool(bfgs.success)
        caught = sorted({f"{w.category.__name__}: {w.message}" for w in rec})
    return LocalResult(tracker.best_t, tracker.best_f, converged, "; ".join(msgs),
                       tracker.nfev, caught)


def _bfgs_stage(tracker, t0, maxfev):
    def fun(t):
        return tracker(t)

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

    return optimize.minimize(fun, t0, jac=grad, method="BFGS",
                             options=dict(gtol=1e-7, maxiter=max(maxfev // (t0.size + 2), 10)))
