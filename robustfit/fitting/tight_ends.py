"""Shapes that are ends of the support, held tight against the data when loc or scale is
fixed.

truncnorm's ``a`` and ``b`` *are* the ends of its standardised support, so the support
in data units is ``[loc + a scale, loc + b scale]``. For any loc and scale, the
likelihood grows as the ends close in on the extreme observations: the normalisation
``Phi(b) - Phi(a)`` shrinks. With loc and scale both free, the parameterisation puts the
ends at gaps beyond the extreme observations (:mod:`.parameterization`), and the gaps go
to their floor. With the scale fixed it cannot: loc is then held between the two limits
the shapes allow, and the optimum is the corner where that interval closes. BFGS and
Nelder-Mead stopped short of it. truncnorm with ``fscale``, seed 13, n = 500 ended 0.78
log-likelihood units above scipy's fit, with ``success=True``.

Here the ends sit at the extreme observations (less a floor gap), and the one free
parameter left (loc with the scale fixed, the scale with loc fixed) is optimised on its
own: a one-dimensional profile, done by Brent's method. This is only tried where the end
shapes are the only free shapes. With loc and scale both fixed, the ends are held at the
extreme observations and any other free shapes are optimised by Nelder-Mead
(truncweibull_min with ``floc`` and ``fscale``: BFGS stopped 0.08 units short of that
corner).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy.optimize import minimize, minimize_scalar

from .likelihood import support

__all__ = ["shape_ends", "tighten_shape_ends"]

# the ends are this far (standardised units, at least the fit's gap floor) beyond the
# extreme observations
TIGHT_GAP = 1e-12
PROFILE_REACH = 20.0  # loc within this many scales of the data; log-scale within +-this


def shape_ends(dist, shapes, free: list[int]) -> tuple[int | None, int | None]:
    """The free shapes that are the lower and upper end of the standardised support
    (each end moves one for one with its shape), or None.

    Examples
    --------
    >>> from scipy import stats
    >>> shape_ends(stats.truncnorm, [-1.0, 2.0], [0, 1])
    (0, 1)
    >>> shape_ends(stats.gamma, [2.0], [0])
    (None, None)
    """
    try:
        lo, hi = support(dist, tuple(shapes))
    except Exception:
        return None, None
    lower = upper = None
    for j in free:
        probe = np.array(shapes, dtype=float)
        delta = 1e-6 * max(1.0, abs(probe[j]))
        probe[j] += delta
        try:
            lo2, hi2 = support(dist, tuple(probe))
        except Exception:
            continue
        if math.isfinite(lo) and math.isfinite(lo2) and abs((lo2 - lo) / delta - 1) < 1e-6:
            lower = j
        elif math.isfinite(hi) and math.isfinite(hi2) and abs((hi2 - hi) / delta - 1) < 1e-6:
            upper = j
    return lower, upper


def tighten_shape_ends(dist, theta, nll: Callable, fixed: dict, n_shapes: int,
                       zmin: float, zmax: float, gap_floor: float
                       ) -> tuple[np.ndarray, float, bool] | None:
    """``(theta, value, converged)`` of the profile with the end shapes tight against
    ``[zmin, zmax]`` (standardised), or None where it does not apply: loc and scale
    both free, or (one of them free) a free shape that is not an end. With both fixed
    the other free shapes are optimised with the ends held (:func:`_with_both_fixed`).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> z = stats.truncnorm.rvs(-1, 2, size=400, random_state=1)
    >>> nll = lambda th: -np.sum(stats.truncnorm.logpdf(z, *th))
    >>> theta, value, ok = tighten_shape_ends(stats.truncnorm, [-1.5, 2.5, 0.0, 1.0], nll,
    ...                                       {3: 1.0}, 2, z.min(), z.max(), 0.0)
    >>> bool(ok and value < nll([-1.0, 2.0, 0.0, 1.0]))   # below the truth's
    True
    """
    loc_i, scale_i = n_shapes, n_shapes + 1
    if loc_i not in fixed and scale_i not in fixed:
        return None
    free_shapes = [j for j in range(n_shapes) if j not in fixed]
    lower, upper = shape_ends(dist, theta[:n_shapes], free_shapes)
    ends = [j for j in (lower, upper) if j is not None]
    gap = max(TIGHT_GAP, gap_floor)
    lo_end, hi_end = zmin - gap, zmax + gap
    if loc_i in fixed and scale_i in fixed:
        return _with_both_fixed(theta, nll, lower, upper, lo_end, hi_end,
                                [j for j in free_shapes if j not in ends], loc_i, scale_i)
    if not ends or sorted(ends) != sorted(free_shapes):
        return None

    def at(u: float) -> np.ndarray:
        th = np.array(theta, dtype=float)
        if scale_i in fixed:
            th[loc_i] = u
        else:
            th[scale_i] = math.exp(u)
        return _ends_at(th, lower, upper, lo_end, hi_end, loc_i, scale_i)

    def objective(u: float) -> float:
        value = nll(at(u))
        return value if np.isfinite(value) else np.inf

    if scale_i in fixed:
        scale = float(theta[scale_i])
        bounds = (zmin - PROFILE_REACH * scale, zmax + PROFILE_REACH * scale)
    else:
        u0 = math.log(float(theta[scale_i]))
        bounds = (u0 - PROFILE_REACH, u0 + PROFILE_REACH)
    with np.errstate(all="ignore"):
        res = minimize_scalar(objective, bounds=bounds, method="bounded",
                              options={"xatol": 1e-12 * max(1.0, max(map(abs, bounds)))})
    if not np.isfinite(res.fun):
        return None
    return at(float(res.x)), float(res.fun), bool(res.success)


def _with_both_fixed(theta, nll: Callable, lower: int | None, upper: int | None,
                     lo_end: float, hi_end: float, others: list[int], loc_i: int,
                     scale_i: int) -> tuple[np.ndarray, float, bool] | None:
    """The end shapes at the extreme observations with loc and scale both fixed, and
    the other free shapes optimised by Nelder-Mead from their values in ``theta``
    (truncweibull_min with ``floc`` and ``fscale``: ``c``); None without an end shape.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.truncweibull_min.rvs(2.5, 0.25, 1.75, size=300, random_state=7)
    >>> nll = lambda th: stats.truncweibull_min.nnlf(th, x)
    >>> theta, value, ok = _with_both_fixed([2.0, 0.2, 1.8, 0.0, 1.0], nll, 1, 2,
    ...                                     x.min(), x.max(), [0], 3, 4)
    >>> bool(ok and value < nll([2.0, x.min(), x.max(), 0.0, 1.0]))
    True
    """
    if lower is None and upper is None:
        return None
    th = _ends_at(np.array(theta, dtype=float), lower, upper, lo_end, hi_end, loc_i,
                  scale_i)

    def objective(values: np.ndarray) -> float:
        trial = th.copy()
        trial[others] = values
        value = nll(trial)
        return value if np.isfinite(value) else np.inf

    with np.errstate(all="ignore"):
        if not others:
            value = objective(np.zeros(0))
            return (th, value, True) if np.isfinite(value) else None
        res = minimize(objective, th[others], method="Nelder-Mead",
                       options={"xatol": 1e-10, "fatol": 1e-12, "maxiter": 2000})
    if not np.isfinite(res.fun):
        return None
    th[others] = res.x
    return th, float(res.fun), bool(res.success)


def _ends_at(th: np.ndarray, lower: int | None, upper: int | None, lo_end: float,
             hi_end: float, loc_i: int, scale_i: int) -> np.ndarray:
    """``th`` with its end shapes (indices ``lower``, ``upper``; None: no such shape)
    putting the support's ends at ``lo_end`` and ``hi_end`` for its loc and scale."""
    loc, scale = th[loc_i], th[scale_i]
    if lower is not None:
        th[lower] = (lo_end - loc) / scale
    if upper is not None:
        th[upper] = (hi_end - loc) / scale
    return th
