"""Fallback stages run through scipy on the guarded, scaled objective."""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize

from .problem import ScaledProblem

__all__ = ["log_coordinates", "moved_by_decades", "run_log_nelder_mead", "run_scipy_stage"]


def run_scipy_stage(problem: ScaledProblem, z0: np.ndarray, method: str, maxfev: int,
                    bounds=None, on_iteration: Callable[[], None] | None = None) -> str:
    """Run scipy's ``method`` from ``z0``; return scipy's message.

    Bad points reach scipy as ``inf`` (derivative-free methods) or, for L-BFGS-B, as a
    value far above the best seen with a zero gradient, so that its line search backs
    off. The guard keeps the best point, so scipy's own answer is not needed.
    ``on_iteration()`` is called after each of scipy's iterations (it may raise to end
    the stage: the exception passes through scipy).
    """
    callback = _scipy_callback(on_iteration)
    n = z0.size
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if method == "L-BFGS-B":
            def fun_and_grad(z):
                f = problem.value(z)
                g = problem.grad(z, f) if np.isfinite(f) else None
                if g is None:
                    best = problem.guard.best_f
                    return (abs(best) + 1.0) * 1e10, np.zeros(n)
                return f, g

            res = minimize(fun_and_grad, z0, jac=True, method="L-BFGS-B", bounds=bounds,
                           options={"maxfun": maxfev, "ftol": 1e-15, "gtol": 1e-12},
                           callback=callback)
        else:
            opts = {"maxfev": maxfev, "xtol": 1e-12, "ftol": 1e-15}
            if method == "Nelder-Mead":
                opts = {"maxfev": maxfev, "xatol": 1e-12, "fatol": 1e-15,
                        "adaptive": n > 4}
            try:
                res = minimize(problem.value, z0, method=method, bounds=bounds,
                               options=opts, callback=callback)
            except (RuntimeError, ArithmeticError, ValueError) as exc:
                # scipy's own failure, not ours (our signals are none of these; fun's
                # exceptions never reach scipy, the guard turns them into inf): Powell's
                # line search raises "No valid bracket was found" where f falls without
                # bound along a direction (Wolfe's function, linear in x3, at x3 =
                # -2.6e285), and a ValueError (a maximum of an empty array) where a
                # variable's bounds are equal. The guard kept the best point; the stage
                # just ends
                return f"{method} stopped: {type(exc).__name__}: {exc}"[:200]
    return str(res.message)


def _scipy_callback(on_iteration: Callable[[], None] | None):
    """scipy's per-iteration ``callback`` (it passes the iterate) calling
    ``on_iteration()``, or None."""
    return None if on_iteration is None else (lambda *_args: on_iteration())


# the log-coordinate stage runs where some variable that kept its sign moved by at least
# this many decades from the start: evidence that its natural moves are multiplicative
DECADES_MOVED = 2.0
# the initial simplex of the log-coordinate Nelder-Mead: every vertex multiplies one
# variable by exp(LOG_SIMPLEX_STEP) (or moves an unlogged one by that fraction of its size)
LOG_SIMPLEX_STEP = 0.1


def log_coordinates(z_start: np.ndarray, z_origin: np.ndarray) -> np.ndarray:
    """The variables that are non-zero and kept their sign from ``z_origin`` (the start
    of the run) to ``z_start``: those a log-coordinate stage moves multiplicatively.

    Examples
    --------
    >>> log_coordinates(np.array([1e-13, 4e4, -3.0, 0.0]), np.array([0.2, 4e4, 1.0, 2.0]))
    array([ True,  True, False, False])
    """
    return (z_start != 0) & (np.sign(z_start) == np.sign(z_origin))


def moved_by_decades(z_start: np.ndarray, z_origin: np.ndarray) -> bool:
    """Whether some variable that kept its sign from ``z_origin`` to ``z_start`` changed
    its magnitude by at least DECADES_MOVED decades.

    Examples
    --------
    >>> moved_by_decades(np.array([1e-13, 3e4]), np.array([0.2, 4e4]))
    True
    >>> moved_by_decades(np.array([-1e-13, 3e4]), np.array([0.2, 4e4]))
    False
    """
    logged = log_coordinates(z_start, z_origin)
    ratio = np.abs(z_start[logged] / z_origin[logged])
    return bool(np.any(np.abs(np.log10(ratio)) >= DECADES_MOVED))


def run_log_nelder_mead(problem: ScaledProblem, z_start: np.ndarray, logged: np.ndarray,
                        maxfev: int, on_iteration: Callable[[], None] | None = None) -> str:
    """Nelder-Mead from ``z_start`` in coordinates ``w`` where the ``logged`` variables
    are ``z_start * exp(w)`` and the others ``z_start + w * size``; return scipy's
    message.

    In a model of rates and amplitudes (``a * exp(b / (t + c))``, a sum of decays) a
    valley that is straight in ``log a`` bends by decades in ``a``: every simplex step
    there is a multiplicative one. MGH's Meyer from 10 x0 reached its minimum from ten
    starts of ten thrown about by factors of e^0.5 (at most 1600 evaluations each),
    where scipy's BFGS and L-BFGS-B in the same log coordinates reached it from none
    (105 to 4e9 against 87.95), and Nelder-Mead in the scaled variables never does.
    """
    n = z_start.size
    size = np.maximum(np.abs(z_start), problem.typical)

    def to_z(w):
        return np.where(logged, z_start * np.exp(np.where(logged, w, 0.0)),
                        z_start + w * size)

    def value(w):
        z = to_z(w)  # (exp(w) overflowing: a point too far, never passed to fun)
        return problem.value(z) if np.all(np.isfinite(z)) else np.inf

    simplex = np.vstack([np.zeros(n), LOG_SIMPLEX_STEP * np.eye(n)])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = minimize(value, np.zeros(n), method="Nelder-Mead",
                       options={"maxfev": maxfev, "xatol": 1e-12, "fatol": 1e-15,
                                "adaptive": n > 4, "initial_simplex": simplex},
                       callback=_scipy_callback(on_iteration))
    return str(res.message)
