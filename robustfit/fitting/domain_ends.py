"""Optima on an end of a shape's domain: a boundary maximum may hide a better interior one.

A shape with a finite end is optimised through ``lo + exp(t)`` (or a logistic map), so
its end is reachable only as ``t -> -inf``. Where every start drifts there, the fit
reports a maximum *on the boundary* of the parameter space -- a genuine constrained
local maximum, but not necessarily the best: truncweibull_min (scipy's acceptance case
c = 2.5, a = 0.25, b = 1.75) ended with ``a = 1e-303`` at n = 1e4, 65 log-likelihood units
below the interior maximum at ``a ~ 0.3``, and 0.9 units below the truth at n = 500. Moving
``a`` alone off the end makes things worse there; re-fitting the other parameters at a
few interior values of the shape (a coarse profile) finds the way in. This module says
which shapes sit on an end and which interior values to profile; the driver re-fits.
"""

from __future__ import annotations

import math

from .spec import shape_domain

AT_END = 1e-10  # a shape this close (relative to max(1, |end|)) to an end of its domain
# distances from the end profiled, relative to max(1, |end|) (at most half the domain)
LADDER = (0.01, 0.1, 0.3, 1.0, 3.0)


def shapes_on_domain_end(dist, theta, fixed: dict, n_shapes: int
                         ) -> list[tuple[int, float, float]]:
    """``(shape index, end, direction into the domain)`` for every free shape of
    ``theta`` that sits on a finite end of its domain.

    Examples
    --------
    >>> from scipy import stats
    >>> shapes_on_domain_end(stats.truncweibull_min, [1.9, 1e-303, 1.9, 0.2, 0.8], {}, 3)
    [(1, 0.0, 1.0)]
    >>> shapes_on_domain_end(stats.truncweibull_min, [1.9, 1e-303, 1.9, 0.2, 0.8], {1: 0.0}, 3)
    []
    """
    out = []
    for j in range(n_shapes):
        if j in fixed:
            continue
        lo, hi = shape_domain(dist, j)
        v = float(theta[j])
        if math.isfinite(lo) and v - lo <= AT_END * max(1.0, abs(lo)):
            out.append((j, lo, 1.0))
        elif math.isfinite(hi) and hi - v <= AT_END * max(1.0, abs(hi)):
            out.append((j, hi, -1.0))
    return out


def interior_values(dist, j: int, end: float, direction: float) -> list[float]:
    """Values of shape ``j`` at the ladder's distances from ``end`` into its domain.

    Examples
    --------
    >>> from scipy import stats
    >>> interior_values(stats.truncweibull_min, 1, 0.0, 1.0)
    [0.01, 0.1, 0.3, 1.0, 3.0]
    """
    lo, hi = shape_domain(dist, j)
    unit = max(1.0, abs(end))
    if math.isfinite(lo) and math.isfinite(hi):
        unit = min(unit, 0.5 * (hi - lo))
    values = [end + direction * step * unit for step in LADDER]
    return [v for v in values if lo < v < hi]
