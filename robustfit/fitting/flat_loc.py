"""A location the likelihood leaves free between two observations: the centre of it.

Where the log-density falls linearly on both sides of its centre -- the Laplace density,
which dgamma is at ``a = 1`` and dweibull at ``c = 1`` (and :mod:`.singular_loc` holds
dgamma's shape there where smaller shapes make the likelihood unbounded) -- the
likelihood is piecewise linear in ``loc`` between neighbouring observations, and with an
even count of them it is maximal on the whole stretch between the middle two. An
optimiser stops anywhere on that stretch, and where it stops depends on rounding: on
scipy's acceptance sample of dgamma it stopped at loc 0.01086 at unit scale and at
0.01123 for the same data at 1e6 + 1e4 x, and at another point again with 15
observations made interval-censored (scipy's check asks 5%).

The point reported is the stretch's centre, the convention of the sample median, found
from the likelihood alone (no family is named): the stretch between the observations
around ``loc`` counts as flat where the likelihood just inside both of its ends equals
the one at ``loc`` to rounding. Where the likelihood is smooth it is not flat there (on
1000 observations its maximum lies ~1e-4 below the values one stretch away), and
nothing moves.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

__all__ = ["centre_of_flat_stretch"]

# the likelihood's values that count as equal: this share of its size (the sum of
# 1e3 - 1e6 rounded terms is good to ~1e-14 of it)
FLAT_RELATIVE = 1e-12
# the points just inside the stretch's ends, as a share of its length (at the ends
# themselves a density with a kink or a spike at loc may not be finite)
INSIDE = 1e-6


def centre_of_flat_stretch(theta, loc_index: int, points: np.ndarray,
                           nll: Callable[[np.ndarray], float]) -> np.ndarray | None:
    """``theta`` with ``loc`` moved to the centre of the stretch between the two
    neighbouring ``points`` it lies between, where ``nll`` is constant over that stretch
    to rounding; None where it is not (or ``loc`` is not strictly inside a stretch).

    Parameters
    ----------
    theta : array_like
        Parameters at an optimum of ``nll``.
    loc_index : int
        The index of ``loc`` in ``theta``.
    points : ndarray
        Where the likelihood may have kinks in ``loc``: the observations (and the
        finite ends of censored ones).
    nll : callable
        The negative log-likelihood of a parameter vector.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> z = np.array([-2.0, -0.5, 0.5, 3.0])
    >>> nll = lambda t: -stats.laplace.logpdf(z, t[0], t[1]).sum()
    >>> centre_of_flat_stretch([0.2, 1.5], 0, z, nll)
    array([0. , 1.5])
    >>> centre_of_flat_stretch([0.2, 1.5], 0, z, lambda t: -stats.norm.logpdf(
    ...     z, t[0], t[1]).sum()) is None
    True
    """
    theta = np.array(theta, dtype=float)
    loc = float(theta[loc_index])
    points = np.asarray(points, dtype=float)
    points = points[np.isfinite(points)]
    below, above = points[points < loc], points[points > loc]
    if not (below.size and above.size and math.isfinite(loc)):
        return None
    left, right = float(below.max()), float(above.min())

    def at(value: float) -> float:
        moved = theta.copy()
        moved[loc_index] = value
        return float(nll(moved))

    value = float(nll(theta))
    if not math.isfinite(value):
        return None
    tolerance = FLAT_RELATIVE * max(1.0, abs(value))
    gap = right - left
    for inside in (left + INSIDE * gap, right - INSIDE * gap):
        if not abs(at(inside) - value) <= tolerance:
            return None
    centre = 0.5 * (left + right)
    if not at(centre) <= value + tolerance:
        return None
    theta[loc_index] = centre
    return theta
