"""Checking ``robust_minimize``'s arguments; every error names the argument and the fix."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
from scipy import optimize

from .._validation import as_float_array, check_choice
from ..errors import InvalidInputError

__all__ = ["METHODS", "DEFAULT_OPTIONS", "CheckedInputs", "check_inputs"]

METHODS = ("auto", "bfgs", "l-bfgs-b", "nelder-mead", "powell")

DEFAULT_OPTIONS = {
    "gtol": 1e-6,          # relative stationarity needed for success
    "max_restarts": 4,     # restarts of the BFGS core from the perturbed best point
    "max_iter": None,      # BFGS iterations per stage (None: 200 * n)
    "maxiter": None,       # scipy's name: a hard limit on the run's iterations, over all
                           # its stages (None: none but maxfev / maxtime)
    "polish": True,        # Nelder-Mead / Powell polish when the gradient stages fail
    "scale": None,         # per-variable scale (None: max(1, |x0|))
    "explore": 0,          # local runs from far perturbations of the best point, after
                           # the local stages: a multistart for several minima
    "disp": False,         # print the final message, as scipy's methods do with disp
}
# scipy's names for the evaluation budget, an argument of robust_minimize
SCIPY_BUDGET_OPTIONS = ("maxfev", "maxfun")
# options of scipy's BFGS, L-BFGS-B, CG, Nelder-Mead and Powell that have no counterpart
# here: scipy itself warns about options a method does not take (OptimizeWarning) and
# goes on; so does robust_minimize, naming them
SCIPY_IGNORED_OPTIONS = frozenset({
    "ftol", "xtol", "xatol", "fatol", "xrtol", "eps", "norm", "return_all", "adaptive",
    "initial_simplex", "direc", "maxcor", "maxls", "iprint", "finite_diff_rel_step",
    "c1", "c2", "hess_inv0", "workers"})


@dataclass
class CheckedInputs:
    """``robust_minimize``'s arguments after checking."""

    x0: np.ndarray
    lower: np.ndarray | None
    upper: np.ndarray | None
    method: str
    maxfev: int
    maxtime: float | None
    options: dict
    user_scale: bool = False


def _check_bounds(bounds, n: int):
    if bounds is None:
        return None, None
    if hasattr(bounds, "lb") and hasattr(bounds, "ub"):  # scipy.optimize.Bounds
        try:
            lo = np.broadcast_to(np.asarray(bounds.lb, dtype=float), (n,)).copy()
            hi = np.broadcast_to(np.asarray(bounds.ub, dtype=float), (n,)).copy()
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(
                f"bounds (a scipy.optimize.Bounds) must have lb and ub of one value or "
                f"{n} values, one per variable of x0 ({exc}).") from exc
    else:
        try:
            pairs = [(-np.inf if a is None else float(a), np.inf if b is None else float(b))
                     for a, b in bounds]
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(
                f"bounds must be a sequence of (min, max) pairs, one per variable, or a "
                f"scipy.optimize.Bounds; could not read it ({exc}).") from exc
        if len(pairs) != n:
            raise InvalidInputError(
                f"bounds has {len(pairs)} (min, max) pairs but x0 has {n} variables; "
                f"give one pair per variable (None for no limit).")
        lo, hi = (np.array(v) for v in zip(*pairs, strict=True)) if pairs else (None, None)
    if np.any(np.isnan(lo)) or np.any(np.isnan(hi)) or np.any(lo > hi):
        raise InvalidInputError(
            "bounds must satisfy min <= max with no NaN; use None or +-inf for no limit.")
    if np.any(lo == np.inf) or np.any(hi == -np.inf):
        raise InvalidInputError(
            "bounds must leave each variable a finite value: a lower bound of +inf or an "
            "upper bound of -inf admits none; use None or +-inf on the open side only.")
    return lo, hi


def _positive_number(opts: dict, key: str, integer: bool = False,
                     allow_zero: bool = False) -> None:
    value = opts[key]
    ok = not isinstance(value, bool) and isinstance(
        value, (int, np.integer) if integer else (int, float, np.integer, np.floating))
    if ok:
        ok = bool(value >= 0) if allow_zero else bool(value > 0)
        ok = ok and bool(np.isfinite(value))
    if not ok:
        kind = "integer" if integer else "number"
        sign = "non-negative" if allow_zero else "positive"
        raise InvalidInputError(f"options['{key}']={value!r} must be a {sign} finite "
                                f"{kind} (default {DEFAULT_OPTIONS[key]!r}).")
    opts[key] = int(value) if integer else float(value)


def check_inputs(x0, bounds, method, maxfev, maxtime, options,
                 tol: float | None = None) -> CheckedInputs:
    """Validate and normalise ``robust_minimize``'s arguments (``tol``, scipy's name
    for the convergence tolerance, becomes ``options["gtol"]``).

    Examples
    --------
    >>> check_inputs([1, 2], None, "auto", None, None, None).x0
    array([1., 2.])
    >>> try:
    ...     check_inputs([float("nan")], None, "auto", None, None, None)
    ... except InvalidInputError as exc:
    ...     print(str(exc).split(";")[0])
    x0 must be finite, got nan at index 0
    """
    x0 = as_float_array(x0, "x0", ndim=1).astype(float)
    if x0.size == 0:
        raise InvalidInputError("x0 is empty; pass at least one starting value.")
    bad = np.flatnonzero(~np.isfinite(x0))
    if bad.size:
        raise InvalidInputError(
            f"x0 must be finite, got {float(x0[bad[0]])} at index {bad[0]}; "
            f"start from a point where the objective is defined.")
    if isinstance(method, str):
        method = method.lower()
    check_choice(method, "method", METHODS)
    lo, hi = _check_bounds(bounds, x0.size)
    if lo is not None and method == "bfgs":
        raise InvalidInputError(
            "method='bfgs' does not handle bounds; use method='auto' or 'l-bfgs-b'.")
    n = x0.size
    options, budget = (None, None) if options is None else _with_own_names(options)
    if budget is not None:
        if maxfev is not None and maxfev != budget:
            raise InvalidInputError(
                f"maxfev={maxfev!r} and options' evaluation budget {budget!r} differ; "
                f"pass one, as the maxfev= argument.")
        maxfev = budget
    if maxfev is None:
        maxfev = 5000 * (n + 1)
    elif isinstance(maxfev, bool) or not isinstance(maxfev, (int, np.integer)) or maxfev < 1:
        raise InvalidInputError(
            f"maxfev must be a positive integer (a number of function evaluations), "
            f"got {maxfev!r}; use None for the default 5000 * (n + 1).")
    if maxtime is not None:
        try:
            maxtime = float(maxtime)
        except (TypeError, ValueError):
            maxtime = float("nan")
        if not maxtime > 0:
            raise InvalidInputError(
                "maxtime must be a positive number of seconds, or None for no limit.")
    opts = dict(DEFAULT_OPTIONS)
    if options is not None or tol is not None:
        options = {} if options is None else options
        if tol is not None:
            if "gtol" in options:
                raise InvalidInputError("both tol= and options['gtol'] were given; they "
                                        "are the same tolerance, keep one.")
            options["gtol"] = tol
        unknown = set(options) - set(DEFAULT_OPTIONS)
        if unknown:
            raise InvalidInputError(
                f"options has unknown key(s) {sorted(unknown)}; known: {sorted(opts)}.")
        opts.update(options)
    explore = opts["explore"]
    if isinstance(explore, bool) or not isinstance(explore, (int, np.integer)) or explore < 0:
        raise InvalidInputError(f"options['explore']={explore!r} must be a non-negative "
                                "integer (the number of exploratory local runs; 0: none).")
    opts["explore"] = int(explore)
    _positive_number(opts, "gtol")
    _positive_number(opts, "max_restarts", integer=True, allow_zero=True)
    for key in ("polish", "disp"):
        if not isinstance(opts[key], (bool, np.bool_)):
            raise InvalidInputError(f"options[{key!r}]={opts[key]!r} must be True or "
                                    "False.")
    if opts["max_iter"] is None:
        opts["max_iter"] = 200 * n
    _positive_number(opts, "max_iter", integer=True)
    if opts["maxiter"] is not None:
        _positive_number(opts, "maxiter", integer=True)
    if opts["scale"] is None:
        # Unit scale unless x0 itself is far from unit size: scaling every start by |x0|
        # made BFGS slower on the MGH 10x starts, where |x0| says little about x*.
        opts["scale"] = np.where(np.abs(x0) > 1e3, np.abs(x0), 1.0)
    else:
        try:
            scale = np.broadcast_to(np.asarray(opts["scale"], dtype=float), (n,)).copy()
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"options['scale'] must be one positive number or {n} "
                                    f"of them, one per variable ({exc}).") from exc
        if not np.all(np.isfinite(scale) & (scale > 0)):
            raise InvalidInputError("options['scale'] must be positive and finite, one "
                                    "value per variable.")
        opts["scale"] = scale
    if lo is not None:
        x0 = np.clip(x0, lo, hi)
    user_scale = options is not None and options.get("scale") is not None
    return CheckedInputs(x0, lo, hi, method, int(maxfev), maxtime, opts, user_scale)


def _same_value(a, b) -> bool:
    try:
        return bool(a == b)
    except (TypeError, ValueError):  # (arrays: not one budget either way)
        return False


def _with_own_names(options) -> tuple[dict, int | None]:
    """``options`` as a dict in robust_minimize's names, and the evaluation budget given
    there under scipy's name (``maxfev``/``maxfun``; None if not).

    scipy's options without a counterpart here are dropped with an ``OptimizeWarning``
    naming them, as scipy warns about options a method does not take.
    """
    try:
        out = dict(options)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"options must be a dict, got {type(options).__name__}."
                                ) from exc
    budgets = {key: out.pop(key) for key in SCIPY_BUDGET_OPTIONS if key in out}
    values = list(budgets.values())
    if any(not _same_value(v, values[0]) for v in values[1:]):
        raise InvalidInputError(f"options {sorted(budgets)} give different evaluation "
                                f"budgets; pass one, as the maxfev= argument.")
    ignored = sorted(SCIPY_IGNORED_OPTIONS & set(out))
    if ignored:
        warnings.warn(f"robust_minimize ignores scipy's option(s) {ignored}: they have no "
                      f"counterpart here (its own are {sorted(DEFAULT_OPTIONS)}).",
                      optimize.OptimizeWarning, stacklevel=4)
        for key in ignored:
            del out[key]
    return out, next(iter(budgets.values()), None)
