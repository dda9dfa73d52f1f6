"""When one local optimisation is enough: likelihoods with a single maximum.

For a location-scale family whose standard density ``f`` is log-concave, the
log-likelihood ``sum(log f((x - mu) / sigma)) - n log sigma`` is concave in
``(1 / sigma, mu / sigma)`` (Burridge 1981, J. R. Statist. Soc. B 43), and so is its
restriction to a fixed ``mu`` or a fixed ``sigma``. Every local maximum is then the
global one, in any smooth reparameterisation: a converged start needs no rivals. This
holds when no shape parameter is free (families without shapes, or shapes fixed by the
user) and is checked numerically on the density itself.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
from scipy.special import expit

from .quantiles import standard_quantiles
from .spec import FitSpec

# quantiles from ~1e-11 to 1 - 1e-11 (beyond them samples of any practical size are
# empty), each interval between neighbours filled with evenly spaced points: 801 points
# that follow the mass as a grid of 801 quantiles would, for 51 quantile evaluations
# (a numerical ppf -- invgauss, wald -- costs ~10 us a point, 8 ms for the whole grid)
_COARSE = expit(np.linspace(-25.0, 25.0, 51))
_FILL = 16
_SLACK = 1e-6  # relative rise of a slope still taken as rounding (linear pieces)


def single_maximum(spec: FitSpec, fixed_z: dict) -> bool:
    """Whether the likelihood of ``spec`` has one local maximum: no free shape and a
    log-concave standard density at the fixed shapes.

    Examples
    --------
    >>> from scipy import stats
    >>> from robustfit.fitting.spec import parse_fit_arguments
    >>> single_maximum(parse_fit_arguments(stats.gumbel_r, (), {}), {})
    True
    >>> single_maximum(parse_fit_arguments(stats.cauchy, (), {}), {})
    False
    """
    if spec.method != "MLE" or any(j not in fixed_z for j in range(spec.n_shapes)):
        return False
    shapes = tuple(float(fixed_z[j]) for j in range(spec.n_shapes))
    try:
        return _log_concave(spec.dist, shapes)
    except TypeError:  # an unhashable user distribution
        return False


def _grid(dist, shapes: tuple) -> np.ndarray:
    q = np.unique(standard_quantiles(dist, shapes, _COARSE))
    fill = q[:-1, None] + np.diff(q)[:, None] * (np.arange(_FILL) / _FILL)
    return np.unique(np.append(fill.ravel(), q[-1]))


@functools.lru_cache(maxsize=256)
def _log_concave(dist, shapes: tuple) -> bool:
    """Whether ``logpdf`` of the standard distribution is concave over its quantiles
    (slopes between neighbouring grid points never rise)."""
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            x = _grid(dist, shapes)
            logpdf = np.asarray(dist.logpdf(x, *shapes), dtype=float)
    except Exception:
        return False
    if x.size < 10 or not (np.all(np.isfinite(x)) and np.all(np.isfinite(logpdf))):
        return False
    slopes = np.diff(logpdf) / np.diff(x)
    if not np.all(np.isfinite(slopes)):
        return False
    return bool(np.all(np.diff(slopes) <= _SLACK * (1.0 + np.abs(slopes[1:]))))
