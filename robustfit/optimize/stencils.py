"""Derivatives from finite-difference stencils whose steps rounding made uneven.

A step ``h`` taken from ``z`` lands at ``fl(z + h)``; the step actually taken is
``fl(z + h) - z``, and the two sides of a central difference differ by up to an ulp of
``z``. The usual ``(f(z + h) - f(z - h)) / (2 h)`` then carries an error
``f''(z) (h_+ + h_-) / 2`` (``h_-`` negative): on a quadratic whose values are large
against the unit of ``f`` that error alone is far above any stopping tolerance. A bowl
``10**-2.5 |x - c|^2`` measured in a unit of 4e-13 had ``f'' = 1.5e12`` in it, and at its
minimiser the central difference in the coordinate at 2 (ulp 4.4e-16) read 5.6e-5 where
the gradient is 0. The derivative at 0 of the polynomial through the points actually
evaluated, ``f(z)`` included, removes the term exactly.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["slope_at_zero"]


def slope_at_zero(f0: float, offsets: Sequence[float], values: Sequence[float]) -> float:
    """Derivative at 0 of the polynomial through ``(0, f0)`` and ``(t_k, v_k)``.

    ``offsets`` are the nonzero, distinct steps actually taken. With two symmetric steps
    ``±h`` this is the central difference ``(v_+ - v_-) / (2 h)`` (``f0``'s weight,
    ``-sum(1 / t_k)``, is 0); with ``±h, ±h/2`` it is the fourth-order (Richardson) one.
    With uneven steps the weight of ``f0`` makes it exact for polynomials of degree
    ``len(offsets)``.

    Examples
    --------
    >>> f = lambda t: 3.0 + 2.0 * t + 5.0 * t * t
    >>> round(slope_at_zero(f(0.0), [1e-3, -0.9e-3], [f(1e-3), f(-0.9e-3)]), 10)
    2.0
    >>> round((f(1e-3) - f(-0.9e-3)) / 1.9e-3, 10)   # the plain one: off by f'' (h+ + h-) / 2
    2.0005
    >>> slope_at_zero(7.0, [1e-3, -0.9e-3], [7.0, 7.0])    # flat: exactly 0
    0.0
    """
    t = [float(step) for step in offsets]
    slope = 0.0
    for k, (tk, vk) in enumerate(zip(t, values, strict=True)):
        weight = 1.0 / tk
        for j, tj in enumerate(t):
            if j != k:
                weight *= -tj / (tk - tj)
        # (the weights sum to minus f0's: in differences from f0, a constant gives
        # exactly 0, as the plateau tests need, and f0's size does not round them)
        slope += weight * (vk - f0)
    return slope
