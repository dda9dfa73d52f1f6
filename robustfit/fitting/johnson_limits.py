"""Johnson's SU family at its lognormal boundary (Johnson's SL).

scipy's ``johnsonsu(a, b, loc, scale)`` makes ``z = a + b asinh((x - loc) / scale)``
standard normal. As the scale runs to 0, ``asinh(u) = log(2u) + O(u^-2)`` turns
``z`` into ``a + b log(2 / scale) + b log(x - loc)``: with ``a + b log(2 / scale)``
held (``a -> -inf``), the law of ``x`` tends to the lognormal law of ``x - loc`` with
shape ``1 / b``; with ``a -> +inf`` and every observation below ``loc``, to the
lognormal law of ``loc - x`` (the reflected one). Neither belongs to the SU family (it
is Johnson's SL family, its boundary), so where a sample asks for one the likelihood
rises all the way towards it, the optimiser crawls along ``a`` and ``log scale``
together, and it stops wherever its evaluations run out: on 40 points of
johnsonsu(2.55, 2.25) the fit stopped after 2000 evaluations, 7e-5 log-likelihood
units below the reflected lognormal fit, with ``a = 14.2`` and a different point at
every magnitude.

The lognormal fits of ``x`` or of ``-x`` (robustfit's own, loc free; see
:mod:`.limit_laws`) give that boundary's best member directly, and :func:`su_near_sl`
the SU member that stands for it: the scale :data:`SL_GAP_FRACTION` of the gap between
loc and the nearest observation, where the two densities agree to rounding on every
observation (the next term of ``asinh`` is ``1 / (4u^2)``, ``u >= 1e8``), the same
member at every magnitude of the data.
"""

from __future__ import annotations

import math

import numpy as np

__all__ = ["SL_GAP_FRACTION", "su_near_sl"]

# the SU scale that stands for the SL limit, relative to the gap between loc and the
# observation nearest to it
SL_GAP_FRACTION = 1e-8


def su_near_sl(s: float, loc: float, scale: float, side: int, x: np.ndarray
               ) -> np.ndarray | None:
    """johnsonsu's ``(a, b, loc, scale)`` whose density on ``x`` is, to rounding, the
    lognormal law ``lognorm(s, loc, scale)`` of ``x`` (``side = 1``) or of ``-x``
    (``side = -1``: ``lognorm(s, loc, scale)`` fitted to the reflected data, so that
    the SU member's loc is ``-loc``); None where an observation is not beyond loc.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = np.array([1.3, 1.9, 2.2, 3.5, 6.0])
    >>> theta = su_near_sl(0.7, 1.0, 1.5, 1, x)
    >>> a = stats.johnsonsu.logpdf(x, *theta)
    >>> b = stats.lognorm.logpdf(x, 0.7, 1.0, 1.5)
    >>> bool(np.allclose(a, b, rtol=0, atol=1e-10))
    True
    >>> theta = su_near_sl(0.7, -7.0, 1.5, -1, x)  # lognormal of 7 - x
    >>> bool(np.allclose(stats.johnsonsu.logpdf(x, *theta),
    ...                  stats.lognorm.logpdf(-x, 0.7, -7.0, 1.5), rtol=0, atol=1e-10))
    True
    """
    if not (s > 0 and scale > 0 and math.isfinite(s) and math.isfinite(scale)):
        return None
    centre = side * loc
    gap = float(np.min(side * (x - centre))) if x.size else math.nan
    if not (gap > 0 and math.isfinite(gap)):
        return None
    width = SL_GAP_FRACTION * gap
    b = 1.0 / s
    # z = a + b asinh(u) ~ a + side * b log(2 |x - loc| / width) must equal
    # side * (log|x - loc| - log scale) / s, up to the sign the normal law ignores
    a = -side * b * math.log(2.0 * scale / width)
    theta = np.array([a, b, centre, width])
    return theta if np.all(np.isfinite(theta)) else None
