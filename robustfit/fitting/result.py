"""FitResult: the parameters as a tuple in scipy's order, with diagnostics attached."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class Attempt:
    """One optimisation attempt made by :func:`robustfit.fit`.

    Attributes
    ----------
    start : str
        The start strategy that produced the initial point (``"closed_form"``,
        ``"moments"``, ``"quantiles"``, ``"scipy_fitstart"``, ``"user"``, ...;
        ``"closed_form_limit"``: a closed form proved that no maximum exists and
        gave the limit of the family that the likelihood rises to; ``"limit_law"``:
        the member standing for a law the family reaches only in a limit, more
        likely than the fit, see :mod:`robustfit.fitting.limit_laws`).
    stage : str
        ``"start"`` for a scored candidate, ``"optimize"`` for a local optimisation,
        ``"polish"`` for the final polish on the full data.
    initial : tuple of float
        Parameters the attempt started from (scipy's order).
    params : tuple of float
        Parameters it ended at.
    nll : float
        Negative log-likelihood at ``params`` on the full data (``inf`` if invalid).
    success : bool
        Whether the attempt's own convergence test passed.
    message : str
        How the attempt ended.
    nfev : int
        Objective evaluations it used.
    warnings : tuple of str
        Floating-point or other warnings caught while it ran.
    """

    start: str
    stage: str
    initial: tuple
    params: tuple
    nll: float
    success: bool
    message: str
    nfev: int = 0
    warnings: tuple = field(default_factory=tuple)


class FitResult(tuple):
    """Result of :func:`robustfit.fit`: a tuple of the parameters in scipy's order.

    Unpacks like the tuple ``dist.fit`` returns (``loc, scale = fit(maxwell, x, floc=0)``)
    and carries the diagnostics as attributes.

    Attributes
    ----------
    params : dict
        Parameter name -> value, shapes first, then ``loc`` and ``scale``.
    nll : float
        Negative log-likelihood at the parameters (full data; for censored data the
        censored likelihood). For a large sample fitted from sufficient statistics it is
        computed on first access (one more pass over the data).
    loglik : float
        ``-nll``.
    aic, bic : float
        Akaike and Bayesian information criteria, counting only free parameters.
    success : bool
        ``True`` when the parameters are finite, pass the distribution's argument check,
        give a finite likelihood, and the optimiser's convergence test passed.
    message : str
        What happened, in words.
    method : str
        ``"MLE"`` or ``"MM"``.
    start : str
        The start strategy whose candidate led to the returned optimum.
    attempts : tuple of Attempt
        Everything that was tried, in order, with how it ended.
    n_obs : int
        Number of observations used.
    n_omitted : int
        Non-finite observations dropped under ``nan_policy='omit'``.
    free : tuple of str
        Names of the parameters that were estimated (the rest were fixed).
    dist : scipy.stats.rv_continuous
        The distribution that was fitted.
    """

    def __new__(cls, values, **info: Any):
        return super().__new__(cls, tuple(float(v) for v in values))

    def __init__(self, values, *, dist, names, nll, success, message, method="MLE",
                 start="", attempts=(), n_obs=0, n_omitted=0, free=(), data=None):
        self.dist = dist
        self.params = dict(zip(names, self, strict=False))
        # a callable defers the likelihood pass over a big sample until it is asked for
        self._nll = nll if callable(nll) else float(nll)
        self.success = bool(success)
        self.message = str(message)
        self.method = method
        self.start = start
        self.attempts = tuple(attempts)
        self.n_obs = int(n_obs)
        self.n_omitted = int(n_omitted)
        self.free = tuple(free)
        self.data = data

    @property
    def nll(self) -> float:
        if callable(self._nll):
            self._nll = float(self._nll())
        return self._nll

    @property
    def loglik(self) -> float:
        return -self.nll

    @property
    def aic(self) -> float:
        return 2.0 * len(self.free) + 2.0 * self.nll

    @property
    def bic(self) -> float:
        return len(self.free) * float(np.log(max(self.n_obs, 1))) + 2.0 * self.nll

    def frozen(self):
        """The fitted distribution, frozen at the estimated parameters."""
        return self.dist(*self)

    def covariance(self):
        """Asymptotic covariance of the free parameters from the observed information.

        Returns
        -------
        robustfit.fitting.uncertainty.Covariance
            ``names``, ``matrix`` (user coordinates) and ``message`` (``"ok"`` or why
            the matrix is NaN: an estimate on the edge of the support, a non-MLE fit).
        """
        cache = self.__dict__.setdefault("_cache", {})
        if "cov" not in cache:
            from .uncertainty import covariance

            cache["cov"] = covariance(self)
        return cache["cov"]

    @property
    def stderr(self) -> dict:
        """Standard errors of the free parameters (name -> float; fixed ones are absent).

        From the inverse Hessian of the negative log-likelihood at the estimate
        (observed information), with the delta method for ``loc`` and ``scale``. NaN
        where the information is singular; see :meth:`covariance` for why.

        Examples
        --------
        >>> from scipy import stats
        >>> import robustfit
        >>> x = stats.maxwell.rvs(scale=1e4, size=1000, random_state=0)
        >>> res = robustfit.fit(stats.maxwell, x, floc=0)
        >>> sorted(res.stderr)  # loc is fixed, so only the scale has one
        ['scale']
        """
        return self.covariance().stderr

    def confint(self, level: float = 0.95) -> dict:
        """Wald confidence intervals of the free parameters (name -> (low, high)).

        The scale's interval is formed on ``log(scale)`` so it stays positive.

        Examples
        --------
        >>> from scipy import stats
        >>> import robustfit
        >>> x = stats.norm.rvs(loc=3, size=2000, random_state=0)
        >>> lo, hi = robustfit.fit(stats.norm, x).confint(0.95)["loc"]
        >>> bool(lo < 3 < hi)
        True
        """
        from .uncertainty import wald_confint

        if not 0 < level < 1:
            from ..errors import InvalidInputError

            raise InvalidInputError(f"level={level!r} must lie strictly between 0 and 1.")
        return wald_confint(self, self.covariance(), level)

    def gof(self):
        """Kolmogorov-Smirnov, Anderson-Darling and Cramer-von Mises statistics.

        Returns
        -------
        robustfit.fitting.gof.GofResult

        Examples
        --------
        >>> from scipy import stats
        >>> import robustfit
        >>> x = stats.gamma.rvs(2.0, size=1000, random_state=0)
        >>> g = robustfit.fit(stats.gamma, x).gof()
        >>> bool(g.ks < 0.05)
        True
        """
        cache = self.__dict__.setdefault("_cache", {})
        if "gof" not in cache:
            from .gof import goodness_of_fit

            cache["gof"] = goodness_of_fit(self._complete_data("gof()"), self.frozen())
        return cache["gof"]

    def plot(self, path=None, **kwargs):
        """Diagnostic figure: histogram + density, Q-Q, P-P and CDF panels.

        Needs matplotlib (``pip install "robustfit[plot]"``). ``path`` saves a PNG;
        other keywords go to :func:`robustfit.plotting.plot_fit`. Returns the figure.
        """
        from ..plotting import plot_fit

        return plot_fit(self, path=path, **kwargs)

    def _complete_data(self, what: str) -> np.ndarray:
        from ..errors import InvalidInputError

        if self.data is None or not isinstance(self.data, np.ndarray):
            raise InvalidInputError(
                f"{what} needs the uncensored sample; this result was fitted to censored "
                "data (or built without data)."
            )
        return self.data

    def __repr__(self) -> str:
        body = ", ".join(f"{k}={v:.6g}" for k, v in self.params.items())
        return (f"FitResult({body}; nll={self.nll:.6g}, success={self.success}, "
                f"start={self.start!r})")

    def __reduce__(self):
        info = dict(dist=self.dist, names=tuple(self.params), nll=self.nll,
                    success=self.success, message=self.message, method=self.method,
                    start=self.start, attempts=self.attempts, n_obs=self.n_obs,
                    n_omitted=self.n_omitted, free=self.free, data=self.data)
        return (_rebuild, (tuple(self), info))


def _rebuild(values, info):
    return FitResult(values, **info)
