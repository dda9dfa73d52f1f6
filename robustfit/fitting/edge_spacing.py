"""A likelihood unbounded at an end of the support that is ``loc`` itself: that end one
float64 spacing beyond the extreme observation.

Where the density is infinite at ``loc`` (powerlaw with ``a < 1``, weibull_max with
``c < 1``) and ``loc`` is free, the likelihood grows without bound as ``loc`` closes on
the extreme observation: no maximum exists, and the fit says ``success=False``. Its
estimate keeps a gap that survives the map back from standardised coordinates; the
supremum float64 can approach lies at the adjacent float, where scipy's own closed forms
put it (``powerlaw.fit`` with ``a < 1``: ``loc = np.nextafter(x.min(), -np.inf)``). Here
``loc`` goes there, the other free parameters are fitted with it held, and the point is
kept where its likelihood is higher.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .likelihood import support


def end_one_spacing_out(dist, theta, free, x_sorted: np.ndarray, nll: Callable,
                        refit: Callable) -> tuple[np.ndarray, float] | None:
    """``(theta, nll)`` with ``loc`` one spacing beyond the extreme observation on the
    side where the support ends at ``loc``, or None where no such end exists or the
    point is no better.

    Parameters
    ----------
    dist : rv_continuous
    theta : array_like
        The fit's estimate (user coordinates), ``loc`` free.
    free : sequence of int
        Indices of the free parameters.
    x_sorted : ndarray
        The exact observations, sorted.
    nll : callable
        ``theta -> negative log-likelihood`` in user coordinates.
    refit : callable
        ``loc -> (theta, nll)``: the fit of the other free parameters with ``loc`` held.

    Examples
    --------
    >>> from scipy import stats
    >>> x = np.sort(stats.powerlaw.rvs(0.5, size=50, random_state=0))
    >>> def nll(theta):
    ...     return float(stats.powerlaw.nnlf(theta, x))
    >>> theta, value = end_one_spacing_out(stats.powerlaw, [0.5, x[0] - 1e-9, 1.0],
    ...                                    [1], x, nll, refit=None)
    >>> theta[1] == np.nextafter(x[0], -np.inf), value < nll([0.5, x[0] - 1e-9, 1.0])
    (np.True_, True)
    """
    theta = np.array(theta, dtype=float)
    n_shapes = theta.size - 2
    loc, scale = theta[-2], theta[-1]
    if n_shapes not in free or x_sorted.size == 0:
        return None
    try:
        lower, upper = support(dist, tuple(theta[:n_shapes]))
    except Exception:
        return None
    ends = []  # (relative gap, the adjacent float beyond the observation)
    shapes = tuple(theta[:n_shapes])
    if lower == 0.0 and _infinite_at(dist, shapes, 0.0, 1.0):
        ends.append(((x_sorted[0] - loc) / scale, np.nextafter(x_sorted[0], -np.inf)))
    if upper == 0.0 and _infinite_at(dist, shapes, 0.0, -1.0):
        ends.append(((loc - x_sorted[-1]) / scale, np.nextafter(x_sorted[-1], np.inf)))
    if not ends:
        return None
    gap, edge = min(ends)
    if not gap >= 0.0 or edge == loc:
        return None
    if [i for i in free if i != n_shapes]:
        moved, value = refit(float(edge))
        moved = np.array(moved, dtype=float)
    else:
        moved = theta.copy()
        moved[-2] = edge
        value = nll(moved)
    current = nll(theta)
    if not (math.isfinite(value) and (value < current or not math.isfinite(current))):
        return None
    return moved, float(value)


def _infinite_at(dist, shapes: tuple, end: float, inward: float) -> bool:
    """Whether the standard density grows towards ``end`` (approached from the
    ``inward`` side): its log 1e-12 from the end exceeds its log 1e-6 from it, as a
    power of the distance with a negative exponent does. The likelihood is unbounded at
    such an end only; at beta's other end (``a = 2.3``, the density vanishing there)
    loc one spacing from the smallest observation only moved the estimate, by 5e-4,
    differently at each magnitude."""
    with np.errstate(all="ignore"):
        near, nearer = dist.logpdf(end + inward * np.array([1e-6, 1e-12]), *shapes)
    return bool(np.isfinite(near) and nearer > near + 1e-3)
