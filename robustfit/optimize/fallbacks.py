"""Fallback stages run through scipy on the guarded, scaled objective."""

from __future__ import annotations

import warnings

import numpy as np
from scipy.optimize import minimize

from .problem import ScaledProblem

__all__ = ["run_scipy_stage"]


def run_scipy_stage(problem: ScaledProblem, z0: np.ndarray, method: str, maxfev: int,
                    bounds=None) -> str:
    """Run scipy's ``method`` from ``z0``; return scipy's message.

    Bad points reach scipy as ``inf`` (derivative-free methods) or, for L-BFGS-B, as a
    value far above the best seen with a zero gradient, so that its line search backs
    off. The guard keeps the best point, so scipy's own answer is not needed.
    """
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
                           options={"maxfun": maxfev, "ftol": 1e-15, "gtol": 1e-12})
        else:
            opts = {"maxfev": maxfev, "xtol": 1e-12, "ftol": 1e-15}
            if method == "Nelder-Mead":
                opts = {"maxfev": maxfev, "xatol": 1e-12, "fatol": 1e-15,
                        "adaptive": n > 4}
            res = minimize(problem.value, z0, method=method, bounds=bounds, options=opts)
    return str(res.message)
