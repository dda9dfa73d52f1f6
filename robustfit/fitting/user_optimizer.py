"""The ``optimizer=`` argument of ``dist.fit``: the user's optimiser, run from ours.

scipy calls ``optimizer(func, x0, args=(data,), disp=0)`` from its own start and takes
the parameters it returns. Here the user's optimiser starts from robustfit's optimum,
on the same objective in standardised coordinates (every free parameter O(1), at any
magnitude of the data); a point it finds lower is then polished and checked by
robustfit's own local optimisation. Its outcome -- the value it reached, or the error it
raised -- is recorded in the fit's ``attempts`` and never raised.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import NamedTuple

import numpy as np

from .result import Attempt

USER_OPTIMIZER = "user_optimizer"  # the start label of its point in ``attempts``
# relative: a decrease no larger is rounding (Powell "lowered" a converged likelihood of
# 671 in its eleventh digit), and the point is not worth a polish
ROUNDING = 1e-12


class UserOptimum(NamedTuple):
    """What the user's optimiser returned: the full parameter vector (None where it
    failed or found nothing lower than its start) and the attempt to record."""

    theta: np.ndarray | None
    value: float
    attempt: Attempt


def _as_parameters(out, n_free: int) -> np.ndarray | None:
    """The free parameters in what an optimiser returned: an array (what ``dist.fit``
    expects), an ``OptimizeResult`` (its ``x``), or a ``full_output`` tuple (its first
    item); None where none of them has ``n_free`` finite values."""
    if hasattr(out, "x"):
        out = out.x
    elif isinstance(out, tuple | list) and len(out) != n_free and len(out) > 0:
        out = out[0]
    try:
        values = np.asarray(out, dtype=float).ravel()
    except (TypeError, ValueError):
        return None
    if values.size != n_free or not np.all(np.isfinite(values)):
        return None
    return values


def run_user_optimizer(optimizer: Callable, theta: np.ndarray, objective: Callable,
                       free: Sequence[int]) -> UserOptimum:
    """Call ``optimizer(func, x0, args=(), disp=0)`` from ``theta`` (standardised).

    ``func(p)`` is ``objective`` at ``theta`` with its ``free`` entries set to ``p``
    (``inf`` where the parameters are invalid or put data outside the support);
    ``x0 = theta[free]``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import optimize
    >>> def objective(theta):  # minimum at (1, 2), the last entry fixed
    ...     return (theta[0] - 1.0) ** 2 + (theta[1] - 2.0) ** 2
    >>> found = run_user_optimizer(optimize.fmin, np.array([0.0, 0.0, 5.0]), objective,
    ...                            [0, 1])
    >>> np.round(found.theta, 3).tolist(), found.attempt.start
    ([1.0, 2.0, 5.0], 'user_optimizer')
    """
    free = list(free)
    start = np.array(theta, dtype=float)
    x0 = start[free]
    calls = [0]

    def func(p, *args) -> float:
        calls[0] += 1
        full = start.copy()
        full[free] = np.asarray(p, dtype=float).ravel()
        try:
            value = float(objective(full))
        except (ArithmeticError, ValueError, TypeError):
            return math.inf
        return value if math.isfinite(value) else math.inf

    def record(params, value, success, message) -> Attempt:
        return Attempt(USER_OPTIMIZER, "user_optimizer", tuple(start), tuple(params),
                       float(value), success, message, calls[0])

    start_value = func(x0)
    try:
        out = optimizer(func, x0.copy(), args=(), disp=0)
    except Exception as exc:  # the user's code: recorded, robustfit's optimum stands
        message = f"the optimizer raised {type(exc).__name__}: {exc}"[:300]
        return UserOptimum(None, math.inf, record(start, start_value, False, message))
    values = _as_parameters(out, len(free))
    if values is None:
        message = (f"the optimizer returned {type(out).__name__}, not {len(free)} finite "
                   "parameter values")
        return UserOptimum(None, math.inf, record(start, start_value, False, message))
    found = start.copy()
    found[free] = values
    value = func(values)
    if not value < start_value - ROUNDING * abs(start_value):
        message = (f"the optimizer found nothing lower than robustfit's optimum "
                   f"({value:.10g} against {start_value:.10g})")
        return UserOptimum(None, value, record(found, value, False, message))
    message = f"the optimizer lowered the objective from {start_value:.10g} to {value:.10g}"
    return UserOptimum(found, value, record(found, value, True, message))
