r"""Standard errors and confidence intervals from the observed information.

The negative log-likelihood is differentiated numerically in standardised,
unconstrained coordinates ``phi = (shapes, (loc - c)/s, log(scale/s))`` where ``c`` and
``s`` are the sample's median and robust spread: there every coordinate is of order one,
so one finite-difference step suits all of them, whatever the units of the data. The
inverse Hessian is the asymptotic covariance of ``phi``; the delta method carries it to
the user's parameters (``d loc / d phi_loc = s``, ``d scale / d phi_scale = scale``).
Fixed parameters are constants and get no standard error.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .data import read_fit_data
from .likelihood import CensoredNLL, CompleteNLL
from .standardize import Standardizer

__all__ = ["Covariance", "covariance", "wald_confint"]

_STEP = np.finfo(float).eps ** 0.25  # central second differences: error ~ h^2 + eps/h^2


@dataclass(frozen=True)
class Covariance:
    """Asymptotic covariance of the free parameters (user coordinates).

    Attributes
    ----------
    names : tuple of str
        Free parameters, in scipy's order.
    matrix : numpy.ndarray
        Covariance in the user's coordinates (NaN when the information is singular).
    log_scale_se : float
        Standard error of ``log(scale)`` (NaN if the scale is fixed), used for intervals
        that stay positive.
    message : str
        ``"ok"``, or why no covariance could be formed.
    """

    names: tuple
    matrix: np.ndarray
    log_scale_se: float
    message: str

    @property
    def stderr(self) -> dict:
        return {n: float(np.sqrt(v)) if v >= 0 else float("nan")
                for n, v in zip(self.names, np.diag(self.matrix), strict=True)}


def _objective(result):
    """NLL as a function of ``phi`` (free coordinates) and the maps it needs."""
    fd = read_fit_data(result.data, "omit")
    std = Standardizer.from_data(fd.finite_values())
    zd = fd.transformed(std.data_to_z)
    if zd.censored:
        nll = CensoredNLL(result.dist, zd.uncensored, zd.left, zd.right, zd.lo, zd.hi)
    else:
        nll = CompleteNLL(result.dist, zd.uncensored)
    names = tuple(result.params)
    theta_z = std.theta_to_z(np.array(result, dtype=float))
    free = [names.index(n) for n in result.free]
    base = theta_z.copy()
    base[-1] = np.log(theta_z[-1])

    def f(phi_free):
        phi = base.copy()
        phi[free] = phi_free
        theta = phi.copy()
        theta[-1] = np.exp(phi[-1])
        return nll(theta)

    return f, base[free], free, std


def _hessian(f, x0: np.ndarray) -> np.ndarray | None:
    """Central-difference Hessian; halves the step where a probe leaves the support."""
    k = x0.size
    for shrink in (1.0, 0.1, 0.01):
        h = _STEP * shrink * np.maximum(1.0, np.abs(x0))
        f0 = f(x0)
        H = np.empty((k, k))
        ok = np.isfinite(f0)
        for i in range(k):
            for j in range(i, k):
                if not ok:
                    break
                ei, ej = np.zeros(k), np.zeros(k)
                ei[i], ej[j] = h[i], h[j]
                if i == j:
                    vals = (f(x0 + ei), f(x0 - ei))
                    H[i, i] = (vals[0] - 2 * f0 + vals[1]) / h[i] ** 2
                else:
                    vals = (f(x0 + ei + ej), f(x0 + ei - ej), f(x0 - ei + ej),
                            f(x0 - ei - ej))
                    H[i, j] = H[j, i] = (vals[0] - vals[1] - vals[2] + vals[3]) / (
                        4 * h[i] * h[j])
                ok = all(np.isfinite(vals))
        if ok:
            return H
    return None


def covariance(result) -> Covariance:
    """Observed-information covariance of a :class:`~robustfit.FitResult`.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> import robustfit
    >>> x = stats.norm.rvs(loc=5, scale=2, size=4000, random_state=0)
    >>> res = robustfit.fit(stats.norm, x)
    >>> se = res.stderr  # sigma/sqrt(n) and sigma/sqrt(2n)
    >>> bool(np.isclose(se["loc"], res[1] / np.sqrt(x.size), rtol=1e-3))
    True
    >>> bool(np.isclose(se["scale"], res[1] / np.sqrt(2 * x.size), rtol=1e-3))
    True
    """
    names = tuple(result.free)
    nan = np.full((len(names), len(names)), np.nan)
    if not names:
        return Covariance((), np.empty((0, 0)), float("nan"), "no free parameters")
    if result.method != "MLE" or not np.all(np.isfinite(np.array(result, dtype=float))):
        why = ("the observed information applies to maximum-likelihood fits"
               if result.method != "MLE" else "the fit has non-finite parameters")
        return Covariance(names, nan, float("nan"), why)
    f, x0, free, std = _objective(result)
    with np.errstate(all="ignore"):
        H = _hessian(f, x0)
    if H is None:
        return Covariance(names, nan, float("nan"), "the likelihood is not finite around "
                          "the estimate (it sits on an edge of the support); use "
                          "robustfit.bootstrap")
    try:
        eig = np.linalg.eigvalsh(H)
    except np.linalg.LinAlgError:
        eig = np.array([np.nan])
    if not np.all(np.isfinite(eig)) or eig.min() <= 0:
        return Covariance(names, nan, float("nan"), "the observed information is not "
                          "positive definite (the estimate is not a regular maximum); "
                          "use robustfit.bootstrap")
    cov_phi = np.linalg.inv(H)
    n_all = len(result)
    jac = np.ones(len(free))
    for k, idx in enumerate(free):
        if idx == n_all - 2:
            jac[k] = std.spread
        elif idx == n_all - 1:
            jac[k] = result[-1]
    cov = cov_phi * np.outer(jac, jac)
    log_se = float("nan")
    if n_all - 1 in free:
        log_se = float(np.sqrt(cov_phi[free.index(n_all - 1), free.index(n_all - 1)]))
    return Covariance(names, cov, log_se, "ok")


def wald_confint(result, cov: Covariance, level: float = 0.95) -> dict:
    """Wald intervals ``estimate +/- z * stderr``; the scale's is formed on ``log(scale)``
    (where the information was computed) so that it stays positive."""
    z = float(stats.norm.ppf(0.5 + level / 2))
    out = {}
    for name, se in cov.stderr.items():
        est = result.params[name]
        if name == "scale" and np.isfinite(cov.log_scale_se):
            out[name] = (est * float(np.exp(-z * cov.log_scale_se)),
                         est * float(np.exp(z * cov.log_scale_se)))
        else:
            out[name] = (est - z * se, est + z * se)
    return out
