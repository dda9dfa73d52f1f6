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
                   hess_inv0: np.ndarray | None = None,
                   race: tuple[int, float, float] | None = None) -> LocalResult:
    """Minimise ``f`` from ``t0``; ``f`` returns ``inf`` where infeasible.

    ``hess_inv0`` warm-starts BFGS (e.g. the estimate from a fit on a subsample, when
    polishing on the whole sample: the curvature per observation is nearly the same).
    ``race = (iterations, threshold, rival)``: after that many BFGS iterations, give up
    unless the value is below ``threshold``, or when it already equals the ``rival``
    value -- a second start racing a converged first one is finished only while it may
    still beat it.
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
            if hess_inv0 is None and INITIAL_HESSIAN:
                hess_inv0 = _inverse_hessian_estimate(tracker, t0)
            start = t0
            if race is not None:
                bfgs = _bfgs_stage(tracker, t0, hess_inv0, maxiter=race[0])
                if not bfgs.success and tracker.best_f > race[1]:
                    msgs.append(f"abandoned after {race[0]} BFGS iterations: no prospect "
                                "of beating the converged start")
                    raise _Abandoned
                if abs(tracker.best_f - race[2]) <= AGREE_RTOL * max(1.0, abs(race[2])):
                    msgs.append(f"after {race[0]} BFGS iterations at the converged start's "
                                "value: the starts agree")
                    raise _Abandoned
                start, hess_inv0 = tracker.best_t, getattr(bfgs, "hess_inv", None)
            bfgs = _bfgs_stage(tracker, start, hess_inv0)
            msgs.append(f"BFGS: {bfgs.message}")
            converged = bool(bfgs.success)
            hess_inv = getattr(bfgs, "hess_inv", None)
            if not converged:
                converged = _central_restarts(tracker, msgs)
            if not converged:
                converged = _nelder_mead_stage(tracker, t0, xtol, msgs)
            if converged:
                _newton_polish(tracker, msgs, hess_inv)
        except _BudgetExhausted:
            msgs.append(f"stopped after {maxfev} evaluations")
        except _Abandoned:
            pass
        caught = sorted({f"{w.category.__name__}: {w.message}" for w in rec})
    return LocalResult(tracker.best_t, tracker.best_f, converged, "; ".join(msgs),
                       tracker.nfev, caught, hess_inv)


class _Abandoned(Exception):
    pass


def _quasi_newton_polish(tracker, hess_inv, steps: int = 3) -> bool:
    """Steps ``-H g`` with BFGS's inverse Hessian and central-difference gradients;
    True once a step is below 1e-9 (relative), i.e. the point is settled."""
    h = _positive_definite(hess_inv, tracker.best_t.size)
    if h is None:
        return False
    for _ in range(steps):
        t = tracker.best_t
        step = h @ _gradient(tracker, t, central=True)
        if np.max(np.abs(step) / np.maximum(1.0, np.abs(t))) < 1e-9:
            return True
        before = tracker.best_f
        tracker(t - step)
        if not tracker.best_f < before:
            return False
    return False


def _newton_polish(tracker, msgs, hess_inv=None, steps: int = 3) -> None:
    """Newton steps (central-difference gradient, one finite-difference Hessian) from
    the converged point: BFGS stops within ~1e-6 of the optimum wherever its path
    happened to end; Newton takes every start (and every magnitude of the same data) to
    the same optimum to ~1e-10, which is what makes the fit equivariant in practice."""
    if hess_inv is not None and _quasi_newton_polish(tracker, hess_inv):
        msgs.append("quasi-Newton polish")
        return
    t = tracker.best_t
    hess = _hessian(tracker, t, rel=1e-4)
    if hess is None:
        return
    try:
        np.linalg.cholesky(hess)
    except np.linalg.LinAlgError:
        return  # not a strict local minimum in these coordinates (ridge, edge)
    taken = 0
    for _ in range(steps):
        t = tracker.best_t
        step = np.linalg.solve(hess, _gradient(tracker, t, central=True))
        before = tracker.best_f
        tracker(t - step)
        if not tracker.best_f < before:
            break
        taken += 1
        if np.max(np.abs(step) / np.maximum(1.0, np.abs(t))) < 1e-9:
            break
    if taken:
        msgs.append(f"{taken} Newton polish step(s)")


def _central_restarts(tracker, msgs, rounds: int = 2, gtol: float = 1e-5) -> bool:
    """Fresh BFGS runs from the best point with central differences.

    Forward differences limit BFGS to a gradient accuracy of ~sqrt(eps); on ridges that
    ends in "precision loss" short of the optimum. Restarting with a new Hessian and
    more accurate gradients either makes progress or shows a small gradient at the best
    point — the stated convergence test then.
    """
    if np.max(np.abs(_gradient(tracker, tracker.best_t, central=True))) <= gtol:
        msgs.append("central-difference gradient at the best point below 1e-5")
        return True  # the stop was at the optimum: forward differences were the limit
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


INITIAL_HESSIAN = True
# a racing start whose value is this close (relative) to the converged one's after its
# first iterations is heading for the same optimum (values are per observation)
AGREE_RTOL = 1e-7


def _hessian(tracker, t, rel: float = 1e-3) -> np.ndarray | None:
    """Finite-difference Hessian at ``t`` (1 + d(d+3)/2 evaluations), or None where a
    neighbouring point is infeasible."""
    d = t.size
    f0 = tracker(t)
    h = rel * np.maximum(1.0, np.abs(t))
    fp, fm = np.empty(d), np.empty(d)
    for i in range(d):
        e = np.zeros(d)
        e[i] = h[i]
        fp[i], fm[i] = tracker(t + e), tracker(t - e)
    if not (np.all(np.isfinite(fp)) and np.all(np.isfinite(fm))):
        return None
    hess = np.diag((fp - 2 * f0 + fm) / h**2)
    for i in range(d):
        for j in range(i + 1, d):
            e = np.zeros(d)
            e[i], e[j] = h[i], h[j]
            fpp = tracker(t + e)
            if not np.isfinite(fpp):
                return None
            hess[i, j] = hess[j, i] = (fpp - fp[i] - fp[j] + f0) / (h[i] * h[j])
    return hess if np.all(np.isfinite(hess)) else None


def _inverse_hessian_estimate(tracker, t) -> np.ndarray | None:
    """Inverse of a finite-difference Hessian at ``t`` with its eigenvalues made
    positive (absolute values, floored), so BFGS starts with the right scales instead of
    the identity."""
    hess = _hessian(tracker, t)
    if hess is None:
        return None
    w, v = np.linalg.eigh(hess)
    w = np.abs(w)
    top = w.max() if w.size else 0.0
    if not top > 0:
        return None
    w = np.maximum(w, 1e-6 * top)
    return (v / w) @ v.T


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


def _bfgs_stage(tracker, t0, hess_inv0=None, central: bool = False,
                maxiter: int | None = None):
    def grad(t):
        return _gradient(tracker, t, central)

    options = dict(gtol=1e-6, maxiter=maxiter or 200 * t0.size)
    warm = _positive_definite(hess_inv0, t0.size)
    if warm is not None:
        options["hess_inv0"] = warm
    return optimize.minimize(tracker, t0, jac=grad, method="BFGS", options=options)
