"""Variables whose start gave them the wrong size: moves of whole decades of it.

The stopping tests measure each variable in its typical size, ``max(|x_i|, |x0_i|)``
where ``|x0_i| <= 1``: a gradient is small when moving any variable by that size changes
``f`` by less than ``gtol`` of ``|f|``. A start of ones for a curve fitted to data of 1e8
(scipy's ``curve_fit`` starts there by default) gives amplitudes the size 1 where the
minimum puts them at 1e8; ``f`` is then the sum of the squared data, 1e18, moving an
amplitude by 1 changes it by 1e-9 of itself, and the test passes at the start. A
Hessian by finite differences does not see it either: its second differences are
rounding (``eps |f| / h**2`` against a curvature of 4).

The probe moves each variable by its size times 1, 10, 100, ... both ways, until both
moves raise ``f`` by more than RESOLVED of ``|f|`` (``f`` sees the variable at that
scale, and rises: a minimum's moves do) or a move lowers ``f`` by more than ``lowers``
of itself (not a minimum: that point is the better one). A move that lowers ``f`` by
less goes on to the next decade. Two evaluations per decade; at a minimum where the
variables have their sizes, two per variable.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["lower_decades_away"]

RESOLVED = 1e-6  # a move changing f by this much (relative) shows f sees the variable
DECADES = 12  # moves up to 10**(DECADES - 1) times a variable's size


def lower_decades_away(value: Callable[[np.ndarray], float], z: np.ndarray, f: float,
                       sizes: np.ndarray, variables, lowers: float) -> int | None:
    """The first variable whose move by a decade multiple of its size lowers ``f`` by
    more than ``lowers`` of ``|f|`` (the lower point is evaluated, so a guarded
    objective keeps it), or None.

    Parameters
    ----------
    value : callable
        ``value(z) -> float`` (inf at bad points and outside bounds).
    z, f : the point and its value.
    sizes : numpy.ndarray
        Each variable's typical size.
    variables : iterable of int
        The variables moved, in order.
    lowers : float
        The relative decrease that counts.

    Examples
    --------
    >>> import numpy as np
    >>> data = 1e8 * np.array([3.0, 2.0, 1.0])            # an amplitude fitted from 1
    >>> f = lambda z: float(np.sum((data - z[0] * np.array([3.0, 2.0, 1.0])) ** 2))
    >>> lower_decades_away(f, np.ones(1), f(np.ones(1)), np.ones(1), [0], 1e-3)
    0
    >>> lower_decades_away(f, np.array([1e8]), 0.0, np.ones(1), [0], 1e-3) is None
    True
    """
    threshold = f - lowers * abs(f)
    resolved = RESOLVED * abs(f)
    for i in variables:
        for decade in range(DECADES):
            h = float(sizes[i]) * 10.0 ** decade
            further = False  # a larger move may still lower f
            for sign in (1.0, -1.0):
                zi = np.array(z, dtype=float)
                zi[i] += sign * h
                fi = value(zi)
                if not np.isfinite(fi):
                    continue  # (a bad point or a bound: larger moves go beyond it)
                if fi < threshold:
                    return int(i)
                further = further or fi < f + resolved  # lower, or not resolved yet
            if not further:
                break  # f rises by more than RESOLVED both ways: it sees the variable
    return None
