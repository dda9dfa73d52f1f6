"""Where ``|f|`` does not say how ``f`` varies: an offset for the relative tests.

The stopping tests are relative to ``max(1, |f|)`` (:mod:`.stationarity`, :mod:`.newton`),
which keeps them invariant when ``f`` is multiplied by a constant, but not when one is
added. An objective with a large constant term -- ``q(x) + c`` with ``|c|`` far above the
changes of ``q`` over the variables' sizes: an energy of -76.4 whose geometry changes it
by 1e-3, a likelihood's constant, a shifted test function -- passes them anywhere in
``q``'s basin: Rosenbrock plus 1e6 was certified 0.48 from its minimiser (scipy's BFGS,
with its absolute gradient tolerance, stopped 7e-3 from it), ``1e-2 rosen - 1e4`` 0.74
(``benchmarks/minimize_offsets.py`` before the offsets).

A pass is therefore checked against what ``f`` does: each variable is moved, either way,
by PROBE (1%) of its size (``max(1, |z_i|)``, the unit of the small-gradient test), and
the change of ``f`` over the whole size is estimated from the two (first-order part over
PROBE, second-order part over ``PROBE**2``). Where the largest is below
VACUOUS_RATIO of ``|f|``, the tests could not tell the point from others a sizeable
fraction of that box away: the pass is withdrawn, and from the next stage on ``f`` is
measured from an offset, so that it is worth the estimated change at the point tested
(:func:`offset_for`): the tests are then relative to how ``f`` varies, whatever constant
it carries. What still depends on the constant is ``f``'s rounding, ``eps |f|``, far
above that of ``f`` measured from the offset: the offset records the ratio, and finite
differences take steps for it (:meth:`.ScaledProblem.set_noise`). A probe that finds
``f`` lower says the pass was no minimum: the lower point is tested instead. (Moves of
whole sizes, tried first, jumped between the basins of multimodal functions: Ackley's,
at 30.)
"""

from __future__ import annotations

import numpy as np

from .limited_memory import LimitedMemoryInverse
from .problem import CENTRAL_STEP, NOISY_STEP_CAP, ScaledProblem

__all__ = ["PROBE", "VACUOUS_RATIO", "MAX_OFFSETS", "RESOLVED", "change_over_sizes",
           "offset_for", "resolved_gradient"]

# the probes move each variable by this fraction of its size
PROBE = 1e-2
# a pass is withdrawn where the change of f over the variables' sizes (estimated from
# the probes) is below this fraction of |f| (and |f| is above the tests' floor of 1):
# there the relative tests allow a slope that moves the minimiser by 1e-3 of a size or
# more (gtol / ratio)
VACUOUS_RATIO = 1e-2
# with the BFGS model's order, at most this many variables are moved
MODEL_PROBES = 200
# a partial counts where f across its step changes by this many of its rounding errors
RESOLVED = 100.0
# at most this many offsets per run (each one costs a withdrawn pass)
MAX_OFFSETS = 2


def change_over_sizes(p: ScaledProblem, z: np.ndarray, f: float,
                      enough: float,
                      inverse_hessian: np.ndarray | LimitedMemoryInverse | None = None
                      ) -> float | None:
    """The largest change of ``f`` over a variable's size ``s_i = max(1, |z_i|)``,
    estimated from moves of ``PROBE s_i`` either way (clipped into the bounds): the
    parabola ``f + a t + c t**2`` through the two gives ``|a| s_i + |c| s_i**2`` (with
    one move only, its change times ``s_i`` over the move). It stops at the first
    variable whose estimate is at least ``enough``. None where no move gave a finite
    value.

    With an ``inverse_hessian`` (the BFGS model's, dense or limited-memory), the
    variables are moved in the order of the change it predicts, ``s_i**2 / H_ii``,
    largest first, so that where one suffices it is usually the first: in index order,
    a 2,000-variable problem whose stiff variables come last spent 2,848 of its 3,120
    evaluations here (274 in all now). Where none suffices (the pass is vacuous), every
    variable is moved -- with the model, its first MODEL_PROBES: the rest are predicted
    to change ``f`` less, and a wrong guess only makes the tests stricter (the pass is
    withdrawn, or the offset is worth a smaller change). A logistic loss summed over
    6000 samples of 3000 features (``|f|`` 3300, no variable changing it by 1%) spent
    6,000 of its 6,436 evaluations here.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(np.sum((x - 1) ** 2) + 1e6)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> float(np.round(change_over_sizes(p, np.ones(2), fun(np.ones(2)), np.inf), 4))
    1.0
    >>> z = np.array([1.5, 1.0])   # a slope of 1, a size of 1.5: 1.5 + 1.5**2
    >>> float(np.round(change_over_sizes(p, z, fun(z), np.inf), 4))
    3.75
    """
    sizes = np.maximum(1.0, np.abs(z))
    order = range(z.size)
    if inverse_hessian is not None and np.shape(inverse_hessian) == (z.size, z.size):
        diagonal = inverse_hessian.diagonal()  # (dense, or limited memory)
        if np.all(np.isfinite(diagonal)) and np.all(diagonal > 0):
            order = np.argsort(-(sizes ** 2 / diagonal), kind="stable")[:MODEL_PROBES]
    largest = None
    for i in order:
        moves = []  # (distance moved, change of f)
        for sign in (1.0, -1.0):
            moved = z.copy()
            moved[i] += sign * PROBE * sizes[i]
            if p.lower is not None:
                moved[i] = min(max(moved[i], p.lower[i]), p.upper[i])
            distance = abs(moved[i] - z[i])
            if distance == 0:
                continue
            value = p.value(moved)
            if np.isfinite(value):
                moves.append((distance, value - f))
        if len(moves) == 2:
            # the parabola f + s t + c t**2 through both moves (t = -b, a)
            (a, up), (b, down) = moves
            c = (up / a + down / b) / (a + b)
            slope = up / a - c * a
            estimate = abs(slope) * sizes[i] + abs(c) * sizes[i] ** 2
        elif moves:  # (one side only: first order)
            (a, change), = moves
            estimate = abs(change) / a * sizes[i]
        else:
            continue
        largest = estimate if largest is None else max(largest, estimate)
        if largest >= enough:
            break
    return None if largest is None else float(largest)


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
    return float(value - change), float(new_unit)


def resolved_gradient(p: ScaledProblem, z: np.ndarray, f: float) -> np.ndarray | None:
    """Central differences with steps that resolve ``f``: each starts at the usual
    central step and grows tenfold until ``f`` on the two sides differs from ``f`` by
    RESOLVED of its rounding errors (:meth:`.GuardedObjective.rounding`) in all, up to
    NOISY_STEP_CAP (10%) of the variable's size. None where a value was not finite, or
    where ``f`` does not show within that (flat in the variable, to float64). A partial
    of 0 from steps that show ``f`` says it rises alike on both sides: a minimum in that
    variable, to the precision of ``f``.

    Where a constant term dwarfs the rest of ``f``, the usual steps do not change ``f``
    at all near the minimiser (a bowl times 1e-2 plus 1e6: steps of 1.5e-8 change it by
    1e-18, its spacing is 1e-10), and every finite difference there reads 0: a "flat
    region", not a minimum, until the steps are long enough for ``f`` to show.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(1e-2 * np.sum((x - 1) ** 2) + 1e6)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z = np.array([1.001, 1.0])
    >>> np.round(resolved_gradient(p, z, fun(z)), 6)     # the slope, 2e-2 (z - 1)
    array([2.e-05, 0.e+00])
    """
    rounding = p.guard.rounding(f)
    g = np.zeros(z.size)
    for i in range(z.size):
        cap = NOISY_STEP_CAP * max(1.0, abs(float(z[i])))
        h = min(p.step(z, i, CENTRAL_STEP), cap)
        while True:
            up, down = z.copy(), z.copy()
            up[i] += h
            down[i] -= h
            f_up, f_down = p.value(up), p.value(down)
            if not (np.isfinite(f_up) and np.isfinite(f_down)):
                return None
            g[i] = (f_up - f_down) / (up[i] - down[i])
            if abs(f_up - f) + abs(f_down - f) >= RESOLVED * rounding:
                break
            if h >= cap:
                return None
            h = min(10.0 * h, cap)
    return g
