"""The guarded objective: counts evaluations, turns failures into bad points, keeps the best.

A wrapper in the optax ``apply_if_finite`` sense: every other piece of the optimiser
calls the user's function only through :class:`GuardedObjective`, so none of them has to
think about exceptions, NaN, budgets or the best point seen.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from .events import EventLog

__all__ = ["BudgetExhausted", "GuardedObjective", "as_real"]


class BudgetExhausted(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Raised by the guard when ``maxfev`` or ``maxtime`` is spent; the driver catches it."""

    def __init__(self, reason: str):
        super().__init__(reason)
        self.reason = reason


def _as_scalar(value: Any) -> float:
    arr = np.asarray(value)
    if arr.size != 1:
        raise TypeError(f"fun must return a scalar, got an array of shape {arr.shape}")
    return float(as_real(arr, "fun").reshape(()))


def as_real(value: Any, name: str) -> np.ndarray:
    """``value`` as a float array; a complex one only where its imaginary part is 0
    (keeping the real part of any other would hide a bug of the user's, as numpy's
    ComplexWarning did)."""
    arr = np.asarray(value)
    if np.iscomplexobj(arr):
        if np.any(arr.imag != 0):
            first = arr.ravel()[np.flatnonzero(arr.imag.ravel() != 0)[0]]
            raise TypeError(f"{name} returned complex values, not real numbers "
                            f"({complex(first)})")
        arr = arr.real
    return np.asarray(arr, dtype=float)


class GuardedObjective:
    """``fun(x, *args)`` behind a guard.

    Calling the guard returns ``f(x)`` as a float, or ``inf`` when ``fun`` raised an
    ``Exception`` or returned NaN/inf (a *bad point*, recorded in ``log``). ``BaseException``
    that is not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``) passes through
    untouched. Before each evaluation the budget is charged: once ``maxfev`` evaluations
    were made, or the ``deadline`` (a ``time.monotonic`` value) has passed,
    :class:`BudgetExhausted` is raised instead of calling ``fun``.

    The lowest finite value seen and its point are kept in ``best_f`` / ``best_x``, and
    each improvement is appended to ``history`` as ``(nfev, f)``.

    The optimiser may measure values in a ``unit`` of its own, from an ``offset`` of its
    own (:meth:`set_unit`): the guard then returns ``(f - offset) / unit`` and
    ``g / unit``, and ``best_f`` is in those terms, while ``best_value``, ``best_grad``
    and ``history`` stay in the user's units (so the result's ``fun`` is exactly
    ``f(x)``).

    Parameters
    ----------
    fun : callable
        ``fun(x, *args) -> float``; with ``returns_grad`` it returns ``(f, g)``.
    args : tuple
        Extra arguments passed to ``fun``.
    returns_grad : bool
        ``fun`` returns ``(f, gradient)``, as with scipy's ``jac=True``.
    maxfev : int or None
        Hard limit on the number of calls to ``fun``.
    deadline : float or None
        ``time.monotonic()`` value after which no more calls are made.
    log : EventLog or None
        Where bad points are recorded.

    Examples
    --------
    >>> import numpy as np
    >>> guard = GuardedObjective(lambda x: np.log(x[0]))
    >>> guard(np.array([-1.0])), guard(np.array([1.0])), guard.nfev
    (inf, 0.0, 2)
    >>> guard.best_x, guard.best_f
    (array([1.]), 0.0)
    """

    def __init__(self, fun: Callable, args: tuple = (), *, returns_grad: bool = False,
                 maxfev: int | None = None, deadline: float | None = None,
                 log: EventLog | None = None, stage: str = "start"):
        self.fun = fun
        self.args = tuple(args)
        self.returns_grad = returns_grad
        self.maxfev = maxfev
        self.deadline = deadline
        self.log = log if log is not None else EventLog()
        self.stage = stage
        self.nfev = 0
        self.best_x: np.ndarray | None = None
        # the first point asked for and what fun gave there (NaN where it raised): the
        # result where no finite value is ever found, so that fun is f(x) there too
        self.first: tuple[np.ndarray, float] | None = None
        self.best_f = np.inf
        self.best_value = np.inf
        self.unit = 1.0
        self.offset = 0.0
        self.best_grad: np.ndarray | None = None
        self.history: list[tuple[int, float]] = []
        self.last_grad: np.ndarray | None = None
        self.n_bad = 0

    def set_unit(self, unit: float, offset: float | None = None) -> None:
        """Measure values (and gradients) in ``unit`` from now on, and values from
        ``offset`` where one is given (the last one given otherwise); ``best_f``
        follows."""
        if not (np.isfinite(unit) and unit > 0):
            raise ValueError(f"unit must be positive and finite, got {unit!r}")
        if offset is not None:
            if not np.isfinite(offset):
                raise ValueError(f"offset must be finite, got {offset!r}")
            self.offset = float(offset)
        self.unit = float(unit)
        if np.isfinite(self.best_value):
            self.best_f = self.in_unit(self.best_value)

    def in_unit(self, value: float) -> float:
        """A value of the user's ``fun`` as the optimiser measures it."""
        return (value - self.offset) / self.unit

    def rounding(self, f: float) -> float:
        """The rounding error of a value ``f`` measured by the optimiser: one float64
        spacing of the user's value ``f unit + offset``, in the optimiser's terms (with
        an offset, far above the spacing of ``f`` itself)."""
        return float(np.spacing(abs(f * self.unit + self.offset))) / self.unit

    def charge(self) -> None:
        """Raise :class:`BudgetExhausted` if another evaluation would break the budget."""
        if self.maxfev is not None and self.nfev >= self.maxfev:
            raise BudgetExhausted("maxfev")
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise BudgetExhausted("maxtime")

    def evaluate(self, x: np.ndarray) -> tuple[float, np.ndarray | None]:
        """Return ``(f, g)``; ``g`` is the gradient ``fun`` returned, if it returns one."""
        self.charge()
        x = np.array(x, dtype=float)  # our own copy: fun may modify its argument
        self.nfev += 1
        self.last_grad = None
        try:
            with np.errstate(all="ignore"):
                out = self.fun(x.copy(), *self.args)
                if self.returns_grad:
                    value, grad = out
                    grad = as_real(grad, "fun's gradient").reshape(x.shape)
                else:
                    value, grad = out, None
                f = _as_scalar(value)
        except Exception as exc:  # the user's function failed here: a bad point, not a crash
            self._bad(x, f"{type(exc).__name__}: {exc}"[:200])
            if self.first is None:
                self.first = (x, np.nan)
            return np.inf, None
        if self.first is None:
            self.first = (x, f)
        if not np.isfinite(f):
            self._bad(x, f"non-finite value {f!r}")
            return np.inf, None
        value = f
        if self.unit != 1.0 or self.offset != 0.0:
            f = self.in_unit(value)
            grad_user, grad = grad, None if grad is None else grad / self.unit
        else:
            grad_user = grad
        self.last_grad = grad
        if f < self.best_f or (f == self.best_f and value < self.best_value):
            # (ties in the optimiser's measure go to the lower value of fun: measured
            # from an offset, values an ulp apart round to one; in a unit below 1, every
            # value beyond -1.8e308 times it reads -inf. The first of them had stayed
            # the best point: exp(-|x|^2/2) returned at -0.9999999999999999 after -1.0,
            # an unbounded function at -3.0e306 after -5.0e306)
            self.best_f, self.best_value, self.best_x = f, value, x
            self.best_grad = grad_user
            self.history.append((self.nfev, value))
        return f, grad

    def __call__(self, x: np.ndarray) -> float:
        return self.evaluate(x)[0]

    def _bad(self, x: np.ndarray, reason: str) -> None:
        self.n_bad += 1
        self.log.add(self.stage, "bad_point", nfev=self.nfev, reason=reason,
                     x=x.tolist() if x.size <= 20 else None)
