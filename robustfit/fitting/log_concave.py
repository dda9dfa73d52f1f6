"""Exact MLEs of location-scale families whose standard density is log-concave.

For a density ``g(y) = exp(-psi(y))`` with ``psi`` convex, the negative log-likelihood of
``loc``, ``scale`` written in ``a = 1/scale`` and ``b = -loc/scale``,

    NLL(a, b) = -n log a + sum_i psi(a x_i + b),

is convex (a linear map inside a convex function, plus ``-log a``), and strictly so when
``psi'' > 0``. Its stationary point is therefore the global maximum of the likelihood,
and a damped Newton iteration reaches it from any start. With loc fixed (``b = -a loc``)
or scale fixed (``a`` held) the restriction to a line is convex as well.

scipy solves the logistic score equations with ``fsolve`` from the moments; hypsecant
and moyal have no ``fit`` of their own, and a general optimiser spends tens of
likelihood evaluations on what takes a few Newton steps here.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import numpy as np

MAX_NEWTON_STEPS = 100
# a Newton step below this share of the parameters' size ends the iteration (from the
# quadratic region one more step takes it from 1e-6 to rounding)
STEP_TOL = 1e-12
# a Newton decrement (log-likelihood units) below which full steps are taken
QUADRATIC_REGION = 1e-6
MAX_HALVINGS = 60


class Potential(NamedTuple):
    """``psi = -log g`` of a standard density up to a constant, and two derivatives."""

    psi: Callable[[np.ndarray], np.ndarray]
    d1: Callable[[np.ndarray], np.ndarray]
    d2: Callable[[np.ndarray], np.ndarray]


def _logistic_psi(y):
    return y + 2.0 * np.logaddexp(0.0, -y)


def _logistic_d2(y):
    t = np.tanh(0.5 * y)
    return 0.5 * (1.0 - t * t)


def _hypsecant_psi(y):
    v = np.abs(y)
    return v + np.log1p(np.exp(-2.0 * v))


def _hypsecant_d2(y):
    t = np.tanh(y)
    return 1.0 - t * t


POTENTIALS: dict[str, Potential] = {
    # logistic: g(y) = e^-y / (1 + e^-y)^2
    "logistic": Potential(_logistic_psi, lambda y: np.tanh(0.5 * y), _logistic_d2),
    # hypsecant: g(y) = 1 / (pi cosh y)
    "hypsecant": Potential(_hypsecant_psi, np.tanh, _hypsecant_d2),
    # moyal: g(y) = exp(-(y + e^-y) / 2) / sqrt(2 pi)
    "moyal": Potential(lambda y: 0.5 * (y + np.exp(-y)), lambda y: 0.5 * (1.0 - np.exp(-y)),
                       lambda y: 0.5 * np.exp(-y)),
}


def log_concave_mle(potential: Potential, x: np.ndarray, loc: float | None = None,
                    scale: float | None = None) -> list[float] | None:
    """``[loc, scale]`` maximising the likelihood of ``x``, loc and scale free or fixed.

    Parameters
    ----------
    potential : Potential
        ``psi = -log g`` of the standard density and its first two derivatives.
    x : ndarray
        Observations, best standardised (the start is their median and spread).
    loc, scale : float or None
        Fixed values; ``None`` for a free parameter.

    Returns
    -------
    list of float or None
        The maximiser, or None where the iteration did not converge (data without
        spread, a likelihood that is not finite at the start).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.logistic.rvs(loc=1.0, scale=2.0, size=500, random_state=1)
    >>> loc, scale = log_concave_mle(POTENTIALS["logistic"], x)
    >>> y = (x - loc) / scale  # the score equations: mean tanh(y/2) = 0, mean y tanh(y/2) = 1
    >>> bool(abs(np.mean(np.tanh(y / 2))) < 1e-12 and abs(np.mean(y * np.tanh(y / 2)) - 1) < 1e-12)
    True
    """
    x = np.asarray(x, dtype=float)
    if loc is not None and scale is not None:
        return [float(loc), float(scale)]
    if x.size == 0:
        return None
    centre = float(np.median(x)) if loc is None else float(loc)
    spread = float(np.mean(np.abs(x - centre))) if scale is None else float(scale)
    if not spread > 0 or not np.isfinite(spread):
        return None
    # free coordinates v, with (a, b) = offset + J v: (a, b) itself, a alone with
    # b = -a loc, or b alone with a = 1/scale
    if loc is None and scale is None:
        offset, J = np.zeros(2), np.eye(2)
        v = np.array([1.0 / spread, -centre / spread])
    elif loc is None:
        offset, J = np.array([1.0 / spread, 0.0]), np.array([[0.0], [1.0]])
        v = np.array([-centre / spread])
    else:
        offset, J = np.zeros(2), np.array([[1.0], [-centre]])
        v = np.array([1.0 / spread])
    with np.errstate(all="ignore"):
        v = _newton(potential, x, v, offset, J)
    if v is None:
        return None
    a, b = offset + J @ v
    return [float(-b / a), float(1.0 / a)]


def _newton(potential: Potential, x, v, offset, J):
    """Damped Newton on ``NLL(offset + J v)`` from ``v``; None where it fails."""
    n = x.size

    def value(w):
        a, b = offset + J @ w
        if not a > 0:
            return np.inf
        return float(-n * np.log(a) + np.sum(potential.psi(a * x + b)))

    f = value(v)
    if not np.isfinite(f):
        return None
    for _ in range(MAX_NEWTON_STEPS):
        a, b = offset + J @ v
        y = a * x + b
        d1, d2 = potential.d1(y), potential.d2(y)
        # gradient and Hessian in (a, b), then in the free coordinates
        cross = float(np.dot(d2, x))
        g_ab = np.array([-n / a + float(np.dot(d1, x)), float(np.sum(d1))])
        h_ab = np.array([[n / (a * a) + float(np.dot(d2, x * x)), cross],
                         [cross, float(np.sum(d2))]])
        g, h = J.T @ g_ab, J.T @ h_ab @ J
        if not np.all(np.isfinite(g)) or not np.all(np.isfinite(h)):
            return None
        try:
            step = -np.linalg.solve(h, g)
        except np.linalg.LinAlgError:
            return None
        decrement = float(-np.dot(g, step))
        if not decrement >= 0 or not np.all(np.isfinite(step)):
            return None  # not a descent direction: the Hessian is not positive definite
        if np.all(np.abs(step) <= STEP_TOL * (1.0 + np.abs(v))):
            return v
        if decrement <= QUADRATIC_REGION:
            # near the maximum the full step is right and the values differ by less
            # than their rounding: no line search
            trial = v + step
            f_trial = value(trial)
            if not np.isfinite(f_trial):
                return None
        else:
            t = 1.0
            for _ in range(MAX_HALVINGS):
                trial = v + t * step
                f_trial = value(trial)
                if f_trial <= f - 0.25 * t * decrement:
                    break
                t *= 0.5
            else:
                return None
        v, f = trial, f_trial
    return None
