"""Three-parameter MLEs (shape, loc, scale free) as the root of the profile score in loc.

Where the MLE at a fixed ``loc`` is closed-form (lognorm: :mod:`.closed_form`), the
profile negative log-likelihood ``P(loc)`` and, by the envelope theorem, its slope (the
partial derivative of the NLL in ``loc`` at the conditional MLE) cost a few passes over
the data. The maximum over all
three parameters is the minimum of ``P`` over ``loc``: found on the grid of the gap
between ``loc`` and the smallest observation that :mod:`.loc_profile` uses (log scale,
in units of the data's spread, so the estimate is equivariant), then as the root of the
slope inside the bracket around the grid's minimum, to rounding. Where the grid's
minimum is at an end -- the likelihood rising towards the singularity at
``loc -> min(x)`` or towards a limit of the family (the normal) -- there is no interior
maximum to solve for: None, and the general path (profile start, local runs, edge
checks) takes over and says which; so it does where the root lies beyond FLAT_BEYOND.

(gamma and weibull_min, whose conditional MLEs are 1-D roots, were tried the same way:
the grid of those roots cost as much as the general path at n <= 5000, gamma's near-normal
roots were no better determined than lognormal's, and weibull_min's optimum at n = 1e6
lay nearer the data than the grid reaches. Not used.)
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
from scipy import optimize

__all__ = ["FLAT_BEYOND", "LOCATION_GRID", "profile_root_mle"]

# log(gap / spread), from 5e-5 to 3e3 spreads: also :mod:`.loc_profile`'s grid (see there
# why these ends)
LOCATION_GRID = np.arange(-10.0, 8.0 + 1e-9, 0.5)
# a root farther out than e**3 = 20 spreads is declined: there the family is within a
# few per cent of its normal limit and the profile is flat to rounding (lognormal fits
# of nearly symmetric samples, roots at 77 to 1400 spreads, moved by 1e-8 to 2e-3 from
# one magnitude of the data to another, and at 1400 spreads ended 7e-9 units less
# likely than the general path's polish)
FLAT_BEYOND = 3.0

# conditional(y) for y = x - loc > 0: (the other parameters at their MLE, the profile
# NLL up to a constant, d NLL / d loc there), or None where it cannot be solved
Conditional = Callable[[np.ndarray], "tuple[tuple, float, float] | None"]


def profile_root_mle(x: np.ndarray, conditional: Conditional
                     ) -> tuple[float, tuple] | None:
    """``(loc, others)`` at the interior minimum of the profile NLL over ``loc < min(x)``,
    or None where the grid finds none (see the module's docstring).

    Examples
    --------
    >>> import numpy as np
    >>> x = np.exp(np.random.default_rng(0).normal(0.0, 0.8, 300)) - 3.0
    >>> def shifted_lognormal(y):       # the lognormal's conditional MLE
    ...     logs = np.log(y)
    ...     dev = logs - logs.mean()
    ...     var = float(dev @ dev) / y.size
    ...     nll = float(logs.sum()) + 0.5 * y.size * np.log(var)
    ...     return (np.sqrt(var), np.exp(logs.mean())), nll, -float(np.sum((1 + dev / var) / y))
    >>> loc, (s, scale) = profile_root_mle(x, shifted_lognormal)
    >>> bool(-3.5 < loc < x.min()), abs(shifted_lognormal(x - loc)[2]) < 1e-6
    (True, True)
    """
    x = np.asarray(x, dtype=float)
    n = x.size
    if n < 3:
        return None
    xmin = float(np.min(x))
    q75, q25 = np.percentile(x, [75.0, 25.0])
    spread = float(q75 - q25) / 1.349
    if not (spread > 0 and math.isfinite(spread)):
        return None

    def at(u):
        gap = math.exp(u) * spread
        loc = xmin - gap
        y = x - loc
        if not (loc < xmin and np.all(y > 0)):
            return None
        out = conditional(y)
        if out is None or not (math.isfinite(out[1]) and math.isfinite(out[2])):
            return None
        return loc, out

    def value(u):
        found = at(u)
        return math.inf if found is None else found[1][1]

    def slope(u):  # d NLL / du = d NLL / d loc * d loc / du, with d loc / du = -gap
        found = at(u)
        return math.nan if found is None else -found[1][2] * (xmin - found[0])

    values = np.array([value(u) for u in LOCATION_GRID])
    if not np.isfinite(values).any():
        return None
    i = int(np.argmin(values))
    if not 0 < i < LOCATION_GRID.size - 1:
        return None
    lo, hi = float(LOCATION_GRID[i - 1]), float(LOCATION_GRID[i + 1])
    if slope(lo) < 0 < slope(hi):
        u = optimize.brentq(slope, lo, hi, xtol=1e-14, rtol=4 * np.finfo(float).eps)
    else:  # (a wiggle on the grid: the bracket's ends do not straddle a root)
        u = optimize.minimize_scalar(value, bounds=(lo, hi), method="bounded",
                                     options={"xatol": 1e-10}).x
    if not value(u) <= values[i]:
        u = float(LOCATION_GRID[i])
    if u > FLAT_BEYOND:
        return None
    found = at(u)
    return None if found is None else (found[0], found[1][0])
