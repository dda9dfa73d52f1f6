"""Building the one result shape ``robust_minimize`` returns."""

from __future__ import annotations

import numpy as np
from scipy.optimize import OptimizeResult

__all__ = ["STATUS", "build_result"]

#: status code -> meaning; ``success`` is True only for status 0.
STATUS = {
    0: "converged",
    1: "maxfev reached",
    2: "maxtime reached",
    3: "interrupted (KeyboardInterrupt)",
    4: "stopped without passing a convergence test",
    5: "stopped by callback",
    6: "no point with a finite value found",
    7: "stopped by an internal error of robustfit (please report it)",
    8: "maxiter reached (options['maxiter'], the run's iterations over all its stages)",
}

_REASON_STATUS = {"maxfev": 1, "maxtime": 2, "interrupted": 3, "callback": 5,
                  "internal error": 7, "maxiter": 8}


def build_result(*, guard, x0, stop_reason, verdict, nit, njev, restarts, log,
                 detail: str) -> OptimizeResult:
    """Assemble the result from the guard's best point; ``fun`` is always ``f(x)``."""
    if guard.best_x is None:
        # (the first point fun saw, and its value: inf where fun gave inf, not NaN)
        x, fun = ((guard.first[0].copy(), float(guard.first[1])) if guard.first is not None
                  else (np.array(x0, dtype=float), np.nan))
        status = 6
        message = STATUS[6] + (f"; {detail}" if detail else "")
    else:
        x, fun = guard.best_x.copy(), float(guard.best_value)
        if verdict is not None and verdict.passed:
            status = 0
            message = f"converged: {verdict.test} (measure {verdict.measure:.2e})"
        else:
            status = _REASON_STATUS.get(stop_reason, 4)
            message = STATUS[status]
            if detail:
                message += f"; {detail}"
    return OptimizeResult(
        x=x, fun=fun, success=status == 0, status=status, message=message,
        nfev=guard.nfev, njev=njev, nit=nit, restarts=restarts,
        events=log.as_list(), best_history=list(guard.history),
        jac=None if guard.best_grad is None else np.array(guard.best_grad),
        stationarity=None if verdict is None else verdict.measure,
    )
