"""Where ``|f|`` does not say how ``f`` varies: an offset for the relative tests.

The stopping tests are relative to ``max(1, |f|)`` (:mod:`.stationarity`, :mod:`.newton`),
which keeps them invariant when ``f`` is multiplied by a constant, but not when one is
added. An objective with a large constant term -- ``q(x) + c`` with ``|c|`` far above the
changes of ``q`` over the variables' sizes: an energy of -76.4 whose geometry changes it
by 1e-3, a likelihood's constant, a shifted test function -- passes them anywhere in
``q``'s basin: Rosenbrock plus 1e6 was certified 0.48 from its minimiser (scipy's BFGS,
with its absolute gradient tolerance, stopped 7e-3 from it), ``1e-2 rosen - 1e4`` 0.77.

A pass is therefore checked against what ``f`` does: each variable is moved, either way,
by PROBE (1%) of its size (``max(1, |z_i|)``, the unit of the small-gradient test).
Near a minimum the changes grow with the square of the move, so a change over the whole
size is estimated as the largest one found over ``PROBE**2``. Where that is below
VACUOUS_RATIO of ``|f|``, the tests could not tell the point from others a sizeable
fraction of that box away: the pass is withdrawn, and from the next stage on ``f`` is
measured from an offset, so that it is worth the estimated change at the point tested
(:func:`offset_for`): the tests are then relative to how ``f`` varies, whatever constant
it carries. Only ``f``'s rounding, ``eps |f|``, still depends on the constant, and with
it how close finite differences can get. A probe that finds ``f`` lower says the pass
was no minimum: the lower point is tested instead. (Moves of whole sizes, tried first,
jumped between the basins of multimodal functions: Ackley's, at 30.)
"""

from __future__ import annotations

import numpy as np

from .problem import ScaledProblem

__all__ = ["PROBE", "VACUOUS_RATIO", "MAX_OFFSETS", "largest_change", "offset_for"]

# the probes move each variable by this fraction of its size
PROBE = 1e-2
# a pass is withdrawn where the change of f over the variables' sizes (estimated from
# the probes) is below this fraction of |f| (and |f| is above the tests' floor of 1):
# there the relative tests allow a slope that moves the minimiser by 1e-3 of a size or
# more (gtol / ratio)
VACUOUS_RATIO = 1e-2
# at most this many offsets per run (each one costs a withdrawn pass)
MAX_OFFSETS = 2


def largest_change(p: ScaledProblem, z: np.ndarray, f: float, enough: float) -> float | None:
    """The largest ``|f(z ± PROBE s_i e_i) - f|`` over the variables ``i``, with ``s_i =
    max(1, |z_i|)`` (moves clipped into the bounds); it stops at the first change of at
    least ``enough``. None where no move gave a finite value.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(np.sum((x - 1) ** 2) + 1e6)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z = np.array([1.0, 1.0])
    >>> float(np.round(largest_change(p, z, fun(z), enough=1.0), 10))   # (1e-2)**2
    0.0001
    """
    steps = PROBE * np.maximum(1.0, np.abs(z))
    largest = None
    for i in range(z.size):
        for sign in (1.0, -1.0):
            moved = z.copy()
            moved[i] += sign * steps[i]
            if p.lower is not None:
                moved[i] = min(max(moved[i], p.lower[i]), p.upper[i])
                if moved[i] == z[i]:
                    continue
            value = p.value(moved)
            if not np.isfinite(value):
                continue
            change = abs(value - f)
            largest = change if largest is None else max(largest, change)
            if largest >= enough:
                return largest
    return largest


def offset_for(value: float, change: float, unit: float) -> tuple[float, float]:
    """``(offset, unit)`` in the user's terms that make ``value`` (the user's ``f`` at
    the point tested) worth ``max(1, change / unit)`` of the new unit: the unit is the
    old one, or ``change`` where that is smaller, so the tests' floor (one unit) is no
    coarser than the change either.

    Examples
    --------
    >>> offset_for(1e6 + 0.5, 3.0, 1.0)      # f measured from 1e6 - 2.5, in its own unit
    (999997.5, 1.0)
    >>> offset_for(-76.4, 5e-3, 1.0)         # f measured in units of 5e-3
    (-76.405, 0.005)
    """
    new_unit = min(unit, change)
    return value - change, new_unit
