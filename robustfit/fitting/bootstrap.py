"""Bootstrap uncertainty of a fit: parametric or non-parametric, warm-started resamples."""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np

from .._validation import check_choice
from ..errors import InvalidInputError

__all__ = ["BootstrapResult", "bootstrap"]


@dataclass(frozen=True)
class BootstrapResult:
    """Resampled estimates of the free parameters.

    Attributes
    ----------
    names : tuple of str
        Free parameters (columns of ``estimates``).
    estimates : numpy.ndarray
        One row per resample whose fit converged, shape ``(n_converged, len(names))``.
    n : int
        Resamples drawn.
    n_converged : int
        Resamples whose fit reported success (the others are left out).
    kind : str
        ``"parametric"`` or ``"nonparametric"``.
    failures : tuple of str
        Distinct messages of the resamples that did not converge.
    """

    names: tuple
    estimates: np.ndarray
    n: int
    n_converged: int
    kind: str
    failures: tuple = ()

    @property
    def stderr(self) -> dict:
        """Standard deviation of each parameter over the converged resamples."""
        if self.n_converged < 2:
            return {k: float("nan") for k in self.names}
        sd = np.std(self.estimates, axis=0, ddof=1)
        return dict(zip(self.names, map(float, sd), strict=True))

    def confint(self, level: float = 0.95) -> dict:
        """Percentile intervals (name -> (low, high))."""
        if not 0 < level < 1:
            raise InvalidInputError(f"level={level!r} must lie strictly between 0 and 1.")
        if self.n_converged == 0:
            return {k: (float("nan"), float("nan")) for k in self.names}
        lo, hi = np.quantile(self.estimates, [(1 - level) / 2, (1 + level) / 2], axis=0)
        return {k: (float(a), float(b)) for k, a, b in zip(self.names, lo, hi, strict=True)}


def _fixed_kwds(result) -> dict:
    names = tuple(result.params)
    kw = {}
    for j, name in enumerate(names):
        if name in result.free:
            continue
        key = "floc" if name == "loc" else "fscale" if name == "scale" else f"f{j}"
        kw[key] = result.params[name]
    return kw


def _warm_start(result) -> tuple[tuple, dict]:
    names = tuple(result.params)
    shapes = tuple(result.params[n] for n in names[:-2])
    kw = {}
    if "loc" in result.free:
        kw["loc"] = result.params["loc"]
    if "scale" in result.free:
        kw["scale"] = result.params["scale"]
    return shapes, kw


def bootstrap(result, n: int = 1000, *, kind: str = "parametric", rng=None
              ) -> BootstrapResult:
    """Bootstrap the estimates of a :class:`~robustfit.FitResult`.

    Each resample is refitted with :func:`robustfit.fit`, warm-started at the original
    estimate (given as the shape, ``loc`` and ``scale`` guesses) and with the same fixed
    parameters.

    Parameters
    ----------
    result : FitResult
        A maximum-likelihood fit of uncensored data.
    n : int
        Number of resamples.
    kind : {"parametric", "nonparametric"}
        Draw resamples from the fitted distribution, or with replacement from the data.
    rng : None, int or numpy.random.Generator
        Seeds the resampling (and each refit).

    Returns
    -------
    BootstrapResult
        Estimates of the resamples that converged, how many did, their standard
        deviations (``stderr``) and percentile intervals (``confint``).

    Examples
    --------
    >>> from scipy import stats
    >>> import robustfit
    >>> x = stats.weibull_min.rvs(1.5, scale=300, size=300, random_state=0)
    >>> res = robustfit.fit(stats.weibull_min, x, floc=0)
    >>> boot = robustfit.bootstrap(res, n=40, rng=1)
    >>> boot.n, boot.names
    (40, ('c', 'scale'))
    >>> boot.n_converged >= 38
    True
    """
    from .fit import fit

    check_choice(kind, "kind", ("parametric", "nonparametric"))
    if not isinstance(n, (int, np.integer)) or n < 1:
        raise InvalidInputError(f"n={n!r} must be a positive integer (number of resamples).")
    data = result._complete_data("bootstrap")
    if not np.all(np.isfinite(np.array(result, dtype=float))):
        raise InvalidInputError("bootstrap needs a fit with finite parameters; this one has "
                                "none (see result.message).")
    gen = np.random.default_rng(rng)
    frozen = result.frozen()
    fixed = _fixed_kwds(result)
    shapes, guesses = _warm_start(result)
    names = tuple(result.free)
    rows, failures = [], []
    for _ in range(n):
        if kind == "parametric":
            sample = np.asarray(frozen.rvs(size=data.size, random_state=gen), dtype=float)
        else:
            sample = gen.choice(data, size=data.size, replace=True)
        try:
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                refit = fit(result.dist, sample, *shapes, rng=gen, **guesses, **fixed)
        except Exception as exc:  # e.g. a resample with no spread: counted, not raised
            failures.append(f"{type(exc).__name__}: {exc}")
            continue
        if refit.success:
            rows.append([refit.params[k] for k in names])
        else:
            failures.append(refit.message)
    est = np.array(rows, dtype=float).reshape(len(rows), len(names))
    return BootstrapResult(names, est, n, len(rows), kind, tuple(dict.fromkeys(failures)))
