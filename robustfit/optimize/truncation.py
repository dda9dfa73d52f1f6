"""Finite-difference steps for a function whose features are far smaller than ``|x|``.

Steps relative to a variable's size, ``eps**p max(|x_i|, typical_i)`` (scipy's rule
too), assume that ``f`` changes its slope over distances of the order of ``|x_i|``. A
minimiser far from 0 with structure of scale 1 breaks that: Rosenbrock's function of
``x - 1e4`` gets central steps of 0.06, whose truncation error ``h**2 f''' / 6`` reads a
slope of 1.44 at the minimiser, and the run stalled 1e-10 from it (5,800 evaluations)
without passing a test; a peak at ``t0 = 1.7e9`` (a Unix time) of width 100 gets steps
of 1e4.

Where a stopping test fails on finite differences, :func:`settled_steps` takes each
variable's central difference again with steps shortened tenfold at a time. In the
truncation regime the difference between successive ones falls like ``h**2``; where it
no longer falls (``f``'s rounding, or noise, has taken over), or falls below what the
test needs, the step has settled: of the steps tried, the one whose difference to the
next shorter one is the smallest. Steps stay at least MIN_STEP_SPACINGS float64
spacings of ``x_i``, so the point and its neighbours are distinct numbers (with shorter
ones, two differences that rounding made 0 "agree"). Partials that pass are checked
together first, by one difference along a random direction with a tenth of their
steps (:func:`agrees_with_shorter_steps`): truncation error can bring a partial near 0
as well as away from it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .problem import CENTRAL_STEP, ScaledProblem
from .stencils import slope_at_zero

__all__ = ["SHRINK", "MAX_LEVELS", "SETTLED_NOISE", "SETTLED_FRACTION", "settled_steps",
           "agrees_with_shorter_steps"]

SHRINK = 10.0  # each step is this many times shorter than the one before
MAX_LEVELS = 12  # at most this many shorter steps per variable
# successive differences within this many of their rounding errors have settled
SETTLED_NOISE = 10.0
# ... and so have those within this fraction of the partial: it is known to be far from
# 0, and the test fails on it whatever its last digits (without this, the amplitude of
# MGH's Meyer function from 10 x0, far from the minimum, had its steps shortened at
# every failed test, to 1e-16, and a run later certified f = 100 against 87.9)
SETTLED_FRACTION = 0.1


# an even part of f across the first stencil of agrees_with_shorter_steps (a tenth of
# the central steps, ~6e-7 of the variables' sizes) below this fraction of max(1, |f|)
# is a curvature of at most ~1e5 |f| over a size squared: f's features are not far
# smaller than the variables, and shorter steps are not taken (each level costs two
# evaluations; MGH's catalogue needs none)
SMOOTH_EVEN = 1e-8
# the signs of agrees_with_shorter_steps' direction: fixed, so that a run is reproducible
_SIGNS_SEED = 20261127


class _Difference(NamedTuple):
    slope: float  # the central difference
    noise: float  # its rounding error: the rounding of f over the step
    even: float  # (f(z + h) + f(z - h)) / 2 - f(z): the stencil's even part
    rounding: float  # the rounding error of f's values on the stencil


def settled_steps(p: ScaledProblem, z: np.ndarray, f: float, variables,
                  tolerance: np.ndarray) -> dict[int, float]:
    """The central steps (in ``z``) at which the partials of ``variables`` have
    settled, where that is shorter than the usual step.

    Parameters
    ----------
    p : ScaledProblem
    z : numpy.ndarray
        The point, inside the bounds.
    f : float
        ``f`` at ``z`` (as the optimiser measures it).
    variables : iterable of int
        The variables to look at.
    tolerance : numpy.ndarray
        Per variable, the accuracy of the partial that the caller's test needs: a
        difference that changes by less when the step shrinks has settled.

    Returns
    -------
    dict
        ``{i: step}`` for the variables whose settled step is shorter than the usual
        ``p.step(z, i, CENTRAL_STEP)``. A variable whose stencil leaves the bounds or
        meets a bad point keeps its step.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.optimize import rosen
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> c = 1e4     # Rosenbrock's minimiser moved to (c + 1, c + 1): steps of 0.06
    >>> p = ScaledProblem(GuardedObjective(lambda x: float(rosen(x - c))), np.full(2, c))
    >>> z = p.to_z(np.array([c + 1, c + 1]))
    >>> steps = settled_steps(p, z, p.value(z), [0], np.full(2, 1e-7))
    >>> list(steps), bool(steps[0] * c < 1e-4)
    ([0], True)
    """
    out = {}
    for i in variables:
        step = _settled_step(p, z, f, int(i), float(tolerance[i]))
        if step is not None:
            out[int(i)] = step
    return out


def agrees_with_shorter_steps(p: ScaledProblem, z: np.ndarray, f: float,
                              g: np.ndarray, variables: np.ndarray,
                              tolerance: np.ndarray) -> bool:
    """Whether the central differences ``g`` agree with central differences along a
    direction ``v`` that moves each of ``variables`` by a SHRINK-th of its central
    step, with random signs: ``|D_v f - g . v| <= max_i tolerance_i |v_i|`` (plus
    SETTLED_NOISE rounding errors of ``f``), at that step and at shorter ones until
    ``f`` along ``v`` has settled. Where :func:`settled_steps` takes two evaluations
    per variable and level, this takes two per level: a truncation error ``e`` of
    ``g`` shows in ``e . v`` unless the signs happen to cancel it.

    ``f`` along ``v`` has settled where its even part, ``(f(z + v) + f(z - v)) / 2 -
    f(z)``, shrank with the step at least as a kink's does (by ``SHRINK / 2``; a
    curvature's shrinks by ``SHRINK**2``), or to rounding, or is small from the start
    (:data:`SMOOTH_EVEN`). One level is not enough where the usual steps exceed
    ``f``'s structure a hundredfold or more: with Hartmann's function moved to 1e6
    (wells of width 0.2, central steps of 6) the stencils at 6 and 0.6 both lay off
    the wells, the two differences agreed at 0, and a Newton check passed 1.7e-3 above
    the minimum, where the gradient is 0.75; moved to 1e8, next to the start.

    Variables within such a step of a bound are not moved (True where none is left);
    False where the first stencil meets a bad point (a shorter one that does keeps
    the agreement found so far).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.optimize import rosen
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> c = 1e4
    >>> p = ScaledProblem(GuardedObjective(lambda x: float(rosen(x - c))), np.full(2, c))
    >>> z = p.to_z(np.array([c + 1, c + 1]))
    >>> g = p.finite_difference(z, 0.0, "central")   # 1.44 (times c) in x0, by truncation
    >>> agrees_with_shorter_steps(p, z, 0.0, g, np.arange(2), np.full(2, 1e-7))
    False
    >>> q = ScaledProblem(GuardedObjective(lambda x: float(rosen(x))), np.ones(2))
    >>> z = np.array([1.5, 2.0])          # structure of the variables' own size: agrees
    >>> g = q.finite_difference(z, rosen(z), "central")
    >>> agrees_with_shorter_steps(q, z, rosen(z), g, np.arange(2), np.full(2, 1e-7))
    True
    """
    signs = np.random.default_rng(_SIGNS_SEED).choice((-1.0, 1.0), size=z.size)
    steps = p.fd_steps_of(z, CENTRAL_STEP) / SHRINK
    variables = np.asarray(variables)
    if p.lower is not None:  # (a variable at a bound is not moved: its partial is held)
        variables = variables[(z[variables] - steps[variables] >= p.lower[variables])
                              & (z[variables] + steps[variables] <= p.upper[variables])]
        if variables.size == 0:
            return True
    floors = np.array([p.step_floor(z, int(i)) for i in variables])
    even_before = None
    for level in range(MAX_LEVELS):
        v = np.zeros_like(z)
        v[variables] = signs[variables] * steps[variables] / SHRINK ** level
        if level and np.any(np.abs(v[variables]) < floors):
            return True  # (as short as steps go: the agreement so far stands)
        values = p.values_along(z, v)
        if values is None:
            return level > 0
        f_up, f_down, taken = values
        noise = SETTLED_NOISE * p.guard.rounding(max(abs(f), abs(f_up), abs(f_down)))
        err = abs(0.5 * (f_up - f_down) - float(g @ taken))
        if err > float(np.max(tolerance * np.abs(taken))) + noise:
            return False
        even = 0.5 * (f_up + f_down) - f
        if even_before is not None and _even_part_shrank(even_before, even, noise):
            return True
        if abs(even) <= max(noise, SMOOTH_EVEN * max(1.0, abs(f))):
            # (f along v is linear to rounding, or curves as a function whose features
            # are the variables' size does over such a step: nothing left to settle)
            return True
        even_before = even
    return True


def _settled_step(p: ScaledProblem, z: np.ndarray, f: float, i: int,
                  tolerance: float) -> float | None:
    """The settled central step of variable ``i`` where it is shorter than the usual
    one; None otherwise (see :func:`settled_steps`).

    Differences count only from the first pair of steps over which the even part of
    ``f`` shrinks as a curvature's or a kink's does (:func:`_even_part_shrank`):
    where the usual step lies far beyond ``f``'s structure, differences at it and at a
    tenth of it both read about 0 and "agree" (Hartmann's function moved to 1e8,
    central steps of 600 across wells of width 0.2), and shorter steps, which see a
    slope, would look like rounding taking over. None where no such pair comes before
    the shortest step."""
    h = p.step(z, i, CENTRAL_STEP)
    floor = p.step_floor(z, i)
    previous = _central(p, z, f, i, h)
    if previous is None:
        return None
    best_step, best_change = h, np.inf
    regular = False  # whether the even part of f along x_i shrinks with the step h
    for _ in range(MAX_LEVELS):
        shorter = h / SHRINK
        difference = _central(p, z, f, i, shorter) if shorter >= floor else None
        if difference is None:
            if not regular:
                return None
            best_step = h  # (the shortest step that could be taken: still falling)
            break
        if not regular:
            regular = _even_part_shrank(previous.even, difference.even,
                                        SETTLED_NOISE * difference.rounding)
            if not regular:
                h, previous = shorter, difference
                continue
        change = abs(difference.slope - previous.slope)
        if change >= best_change:
            break  # no longer falling: rounding (or noise) has taken over
        best_step, best_change = h, change
        if change <= max(tolerance, SETTLED_NOISE * difference.noise,
                         SETTLED_FRACTION * abs(difference.slope)):
            break  # settled: the shorter step says the same
        h, previous = shorter, difference
    else:
        best_step = h
    return best_step if best_step < p.step(z, i, CENTRAL_STEP) else None


def _even_part_shrank(longer: float, shorter: float, noise: float) -> bool:
    """Whether the even part of ``f`` across a stencil, ``(f(z + h) + f(z - h)) / 2 -
    f(z)``, shrank from ``longer`` to ``shorter`` over a step SHRINK times shorter at
    least as a kink's does: by ``SHRINK / 2`` or more (a curvature's shrinks by
    ``SHRINK**2``, a kink's by ``SHRINK``), or to within ``noise``. A stencil beyond
    ``f``'s structure has an even part that barely shrinks (``f`` at both ends near the
    same far value)."""
    return bool(abs(shorter) <= 2.0 * abs(longer) / SHRINK + noise)


def _central(p: ScaledProblem, z: np.ndarray, f: float, i: int,
             h: float) -> _Difference | None:
    """The central difference of ``f`` in ``z[i]`` with the step ``h`` as rounding took
    it, its rounding error and the stencil's even part; None where the stencil leaves
    the bounds or meets a bad point."""
    up, down = z.copy(), z.copy()
    up[i] += h
    down[i] -= h
    if not (p.inside(up) and p.inside(down)):
        return None
    taken = (p.taken_step(up, z, i), p.taken_step(down, z, i))
    if not (taken[0] > 0 > taken[1]):
        return None
    f_up, f_down = p.value(up), p.value(down)
    if not (np.isfinite(f_up) and np.isfinite(f_down)):
        return None
    if taken[0] == -taken[1]:
        slope = (f_up - f_down) / (2.0 * taken[0])
    else:  # (steps rounding made uneven: see .stencils)
        slope = slope_at_zero(f, taken, (f_up, f_down))
    rounding = p.guard.rounding(max(abs(f), abs(f_up), abs(f_down)))
    return _Difference(slope, rounding / min(taken[0], -taken[1]),
                       0.5 * (f_up + f_down) - f, rounding)
