"""``vonmises`` on the circle: the closed-form fit scipy's ``vonmises.fit`` makes.

scipy's ``vonmises`` (not ``vonmises_line``) is a density on the circle: its pdf has
period ``2*pi`` and its scale is not a parameter of the circular model. scipy fits it
as such: the data wrapped to ``[0, 2*pi)``, ``loc`` their circular mean (in
``[-pi, pi)``), ``kappa`` the root of ``I1(kappa) / I0(kappa) = r`` with
``r = mean(cos(x - loc))``, and the scale 1. Fitted on the real line instead, with a
free scale, its likelihood (of a periodic density) has no meaning, and one observation
could not be fitted at all (scipy's own tests fit ``vonmises.fit([0])``).
"""

from __future__ import annotations

import math

import numpy as np
from scipy import optimize, special, stats

from ..errors import InvalidParameterError

# kappa where every observation is at loc (r = 1 in float64): scipy's value, at which
# I1/I0 is 1 to rounding
CONCENTRATED_KAPPA = 1e16


def is_circular(dist) -> bool:
    """Whether ``dist`` is scipy's circular ``vonmises`` (unbounded support: the
    density repeats with period ``2*pi``), not ``vonmises_line``."""
    return isinstance(dist, type(stats.vonmises)) and not math.isfinite(float(dist.a))


def circular_vonmises_fit(x: np.ndarray, kappa: float | None, loc: float | None,
                          scale: float | None) -> tuple[float, float, float]:
    """``(kappa, loc, 1.0)``: the maximum-likelihood estimate on the circle, with
    ``kappa`` or ``loc`` held where given.

    Examples
    --------
    >>> x = stats.vonmises.rvs(4.0, loc=1.0, size=2000, random_state=0)
    >>> k, m, s = circular_vonmises_fit(x, None, None, None)
    >>> bool(abs(k - 4.0) < 0.3 and abs(m - 1.0) < 0.05 and s == 1.0)
    True
    >>> circular_vonmises_fit(np.array([0.0]), None, None, None)
    (1e+16, 0.0, 1.0)
    """
    if scale is not None and scale != 1.0:
        raise InvalidParameterError(
            f"fscale={scale!r}: vonmises is fitted on the circle, where its scale is 1 "
            "(as scipy's vonmises.fit does); leave fscale out, or fit vonmises_line "
            "for a scaled density on one period.")
    wrapped = np.mod(x, 2.0 * np.pi)
    if loc is None:
        loc = float(stats.circmean(wrapped))
    if kappa is None:
        kappa = _concentration(float(np.mean(np.cos(loc - wrapped))))
    loc = float(np.mod(loc + np.pi, 2.0 * np.pi) - np.pi)
    return float(kappa), loc, 1.0


def _concentration(r: float) -> float:
    """The root of ``I1(k) / I0(k) = r``: the ratio rises from 0 at k = 0 to 1 as
    k -> inf. ``r <= 0`` (a fixed loc opposite the data): the likelihood is largest at
    k -> 0, the uniform circle; the least positive float stands for it (kappa > 0)."""
    if r >= 1.0:
        return CONCENTRATED_KAPPA
    if not r > 0.0:
        return float(np.finfo(float).tiny)

    def excess(k: float) -> float:
        return special.i1e(k) / special.i0e(k) - r

    # bracket from Amos (1973)'s bounds on the ratio; where rounding of i1e/i0e puts
    # the root outside them, the violated bound is the better value
    lower = r / (1.0 - r) / (1.0 + r)
    upper = 2.0 * lower
    if excess(lower) >= 0.0:
        return lower
    if excess(upper) <= 0.0:
        return upper
    return float(optimize.brentq(excess, lower, upper, xtol=1e-300, rtol=1e-15))
