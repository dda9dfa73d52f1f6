"""The objective as the optimiser sees it: scaled variables and a guarded gradient.

The core works in ``z = x / scale`` where ``scale_i = max(1, |x0_i|)``: a start at 1e8 or
variables of very different magnitude then look like unit-sized variables, and finite
difference steps ``sqrt(eps) * max(1, |z_i|)`` are scaled to ``|x_i|`` automatically
(or to the size of ``f``'s structure where it proved far smaller, see
:meth:`ScaledProblem.set_structure`).

Gradient guard: an analytic (or JAX) gradient that raises or is non-finite at a point is
replaced there by finite differences; after three such points, or when
:meth:`ScaledProblem.check_gradient` finds it disagrees with central differences, the
analytic gradient is dropped for the rest of the run. Both are recorded in the log.

With bounds the box is the domain: :meth:`ScaledProblem.value` answers inf outside it
without calling ``f`` (and counts such points, see ``outside_limit``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from .events import EventLog
from .objective import GuardedObjective, as_real
from .stencils import slope_at_zero

__all__ = ["ScaledProblem", "OutsideLimit", "FORWARD_STEP", "CENTRAL_STEP", "SHRUNK",
           "MIN_STEP_SPACINGS"]

EPS = np.finfo(float).eps
FORWARD_STEP = np.sqrt(EPS)
# the longest relative step of values rounded far above eps (ScaledProblem.set_noise)
NOISY_STEP_CAP = 0.1
CENTRAL_STEP = EPS ** (1 / 3)
_MAX_BAD_GRADIENTS = 3
SHRUNK = 0.1  # a variable below this fraction of its typical size gets steps of its own
# a step shortened for f's fine structure (set_structure) moves x_i by at least this
# many float64 spacings of its value: the point and its neighbours stay distinct
MIN_STEP_SPACINGS = 100.0
# an analytic gradient is dropped only where it disagrees with finite differences by
# more than this many times their own uncertainty (see ScaledProblem.check_gradient)
FD_TRUST = 10.0
# random directions along which an analytic gradient is first compared with a central
# difference (two evaluations each), before every variable is (2 n evaluations)
CHECK_DIRECTIONS = 2
# agreement of a directional central difference with the gradient: to this fraction of
# |g * v| (the spread of g . v over the random signs of v), as _disagrees asks of norms
DIRECTIONAL_AGREEMENT = 1e-3
# ... give or take this many times the rounding of the values it is made of (the noise
# level times eps times the larger |f|): a difference cannot tell slopes apart below it
DIRECTIONAL_ROUNDING = 8.0
# ... four times that for the one-sided stencil at bounds (its weights 3, 4, 1 over 2,
# against the central difference's 1, 1 over 2)
ONE_SIDED_ROUNDING = 4.0
# ... and (8 + 1) / 3 times it where the difference was extrapolated from two steps
EXTRAPOLATED_ROUNDING = 3.0


def _spacings_floor(z, scale):
    """MIN_STEP_SPACINGS float64 spacings of ``x = z * scale``, in ``z`` (elementwise)."""
    return MIN_STEP_SPACINGS * np.spacing(np.abs(z * scale)) / scale


class OutsideLimit(Exception):  # noqa: N818
    """More points outside the bounds were asked for than ``outside_limit`` allows."""


class ScaledProblem:
    """``f`` and its gradient in scaled variables ``z = x / scale``.

    Parameters
    ----------
    guard : GuardedObjective
        The guarded user function (in ``x``).
    scale : numpy.ndarray
        Positive per-variable scale.
    jac_x : callable or None
        ``jac_x(x) -> gradient in x`` (an analytic or JAX gradient), or None.
    lower, upper : numpy.ndarray or None
        Bounds in ``x``; finite-difference steps stay inside them.
    log : EventLog

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> guard = GuardedObjective(lambda x: float(x @ x))
    >>> p = ScaledProblem(guard, np.array([10.0, 1.0]))
    >>> z = p.to_z(np.array([10.0, 1.0]))
    >>> np.round(p.grad(z, p.value(z)), 4)   # d/dz of (10 z0)^2 + z1^2 at z = (1, 1)
    array([200.,   2.])
    """

    def __init__(self, guard: GuardedObjective, scale: np.ndarray, *,
                 jac_x: Callable | None = None, lower: np.ndarray | None = None,
                 upper: np.ndarray | None = None, log: EventLog | None = None):
        self.guard = guard
        self.scale = np.asarray(scale, dtype=float)
        self.jac_x = jac_x
        self.analytic = jac_x is not None or guard.returns_grad
        self.lower = None if lower is None else lower / self.scale
        self.upper = None if upper is None else upper / self.scale
        # the user's bounds as given: z * scale may round an ulp beyond them, and every
        # point fun sees is clipped to them (fun may be undefined an ulp outside)
        self.x_lower = None if lower is None else np.array(lower, dtype=float)
        self.x_upper = None if upper is None else np.array(upper, dtype=float)
        self.log = log if log is not None else guard.log
        self.fd_scheme = "forward"
        self.njev = 0
        self.outside = 0  # points asked for outside the bounds (answered inf)
        self.outside_limit: int | None = None  # beyond it, OutsideLimit is raised
        self._bad_gradients = 0
        self._cached: tuple[np.ndarray, np.ndarray] | None = None
        self._typical_x = np.ones_like(self.scale)
        self.noise = 1.0  # values rounded to this many times eps (see set_noise)
        self.typical = self._typical_x / self.scale
        # per variable, the size (in z) of f's structure where it proved far smaller
        # than the variable's own (set_structure); inf elsewhere
        self.structure = np.full(self.scale.shape, np.inf)
        # the signs of the directional gradient checks: fixed, so that a run is
        # reproducible from its own rng seed
        self._check_signs = np.random.default_rng(20261125)

    def step(self, z: np.ndarray, i: int, base: float) -> float:
        """Finite-difference step for ``z[i]``: ``base * max(|z_i|, typical_i)``.

        ``typical`` is the size of the start (``|x0|`` capped at 1, and 1 where ``x0`` is
        0), so a variable of size 0.01 gets steps relative to 0.01, not to 1: with
        ``max(1, |x|)`` the truncation error swamps the gradient of sensitive small
        parameters (decay rates, for example). Where :meth:`set_structure` found
        ``f``'s structure far smaller, steps are relative to that size instead (and
        move ``x_i`` by at least MIN_STEP_SPACINGS of its spacings).
        """
        size = max(abs(z[i]), self.typical[i])
        if not size > self.structure[i]:
            return self.relative_step(base) * size
        return max(self.relative_step(base) * self.structure[i], self.step_floor(z, i))

    def step_floor(self, z: np.ndarray, i: int) -> float:
        """MIN_STEP_SPACINGS float64 spacings of ``x_i``, in ``z``: the shortest step a
        variable with a structure of its own takes."""
        return float(_spacings_floor(z[i], self.scale[i]))

    def set_structure(self, i: int, central_step: float) -> None:
        """Steps for variable ``i`` from now on as if its size were the one at which
        the central step is ``central_step`` (in ``z``; see :mod:`.truncation`): ``f``
        changes its slope over distances far below ``|x_i|`` (Rosenbrock's function of
        ``x - 1e4``)."""
        self.structure[i] = central_step / self.relative_step(CENTRAL_STEP)

    def relative_step(self, base: float) -> float:
        """``base`` (a power ``eps**p`` of float64's epsilon, the step for values
        rounded to ``eps``) for values rounded to ``noise`` times that: ``(noise
        eps)**p``, at most NOISY_STEP_CAP. With ``f`` measured from the offset of a
        large constant term its rounding is that of the constant, not of ``f``
        (:meth:`set_noise`)."""
        if self.noise == 1.0:
            return base
        power = np.log(base) / np.log(EPS)
        return float(min(base * self.noise ** power, max(base, NOISY_STEP_CAP)))

    def set_noise(self, noise: float) -> None:
        """Finite-difference steps from now on for values rounded to ``noise`` (at
        least 1) times float64's epsilon, relative to their size."""
        self.noise = max(1.0, float(noise))
        self._cached = None

    def own_step(self, z: np.ndarray, i: int, base: float) -> float:
        """:meth:`step`, but with bounds relative to ``|z_i|`` alone where the variable
        shrank below a tenth of its typical size: a positive amplitude fitted to data of
        1e-7, started at 1, sits at 1.7e-7, where a step of 1.2e-4 crosses its lower
        bound at 0 and the second-order check was not tried. (Without bounds the usual
        step: there is nothing to cross.)"""
        size = abs(float(z[i]))
        if self.lower is not None and 0.0 < size < SHRUNK * self.typical[i]:
            return self.relative_step(base) * size
        return self.step(z, i, base)

    def set_typical(self, x0: np.ndarray) -> None:
        """Typical variable sizes from the start point (see :meth:`step`)."""
        ax = np.abs(np.asarray(x0, dtype=float))
        self._typical_x = np.where(ax > 0, np.clip(ax, 1e-8, 1.0), 1.0)
        self.typical = self._typical_x / self.scale

    def shrink_typical(self, x: np.ndarray) -> list[int]:
        """Take ``|x_i|`` as the typical size of the variables that shrank below
        SHRUNK of theirs (not below 1e-8); returns their indices. For when the start's
        sizes proved wrong for the problem: an amplitude fitted to data of 1e-12 from
        1, at 2e-12, had finite-difference steps of 1.5e-8."""
        ax = np.abs(np.asarray(x, dtype=float))
        shrunk = (ax > 0) & (ax < SHRUNK * self._typical_x)
        self._typical_x = np.where(shrunk, np.maximum(ax, 1e-8), self._typical_x)
        self.typical = self._typical_x / self.scale
        self._cached = None
        return [int(i) for i in np.flatnonzero(shrunk)]

    def set_scale(self, scale: np.ndarray) -> None:
        """Change the scaling (points in ``z`` computed before are no longer valid)."""
        old = self.scale
        self.scale = np.asarray(scale, dtype=float)
        self.typical = self._typical_x / self.scale
        self.structure = self.structure * old / self.scale
        self.lower = None if self.x_lower is None else self.x_lower / self.scale
        self.upper = None if self.x_upper is None else self.x_upper / self.scale
        self._cached = None

    def set_unit(self, unit: float, offset: float | None = None) -> None:
        """Measure values and gradients in ``unit`` (of the user's values) from now on,
        and values from ``offset`` where one is given."""
        self.guard.set_unit(unit, offset)
        self._cached = None

    def is_flat(self, z: np.ndarray, f: float) -> bool:
        """True when no forward finite-difference step changes ``f`` at all."""
        for i in range(z.size):
            zi = z.copy()
            zi[i] += self.step(z, i, FORWARD_STEP)
            if self.upper is not None and zi[i] > self.upper[i]:
                zi[i] = z[i] - self.step(z, i, FORWARD_STEP)
            if self.value(zi) != f:
                return False
        return True

    def to_x(self, z: np.ndarray) -> np.ndarray:
        x = z * self.scale
        if self.x_lower is not None:
            # (x0 = -1129 with bounds of +-500 returned x1 = -500 - 5.7e-14, and 6 of 10
            # points fun saw were that far outside)
            x = np.minimum(np.maximum(x, self.x_lower), self.x_upper)
        return x

    def to_z(self, x: np.ndarray) -> np.ndarray:
        return x / self.scale

    def value(self, z: np.ndarray) -> float:
        """``f`` at ``z``; inf, without calling ``f``, outside the bounds (a line search
        that runs past one then shortens its step, as it does at a bad point)."""
        if not self.inside(z):
            self.outside += 1
            if self.outside_limit is not None and self.outside > self.outside_limit:
                raise OutsideLimit()
            return np.inf
        f, g = self.guard.evaluate(self.to_x(z))
        if g is not None:
            self._cached = (np.array(z), g)
        return f

    def grad(self, z: np.ndarray, f: float) -> np.ndarray | None:
        """Gradient in ``z`` at a point whose value ``f`` is known; None if unobtainable."""
        if self.analytic:
            g = self.analytic_gradient(z)
            if g is not None:
                return g
        return self.finite_difference(z, f)

    def analytic_gradient(self, z: np.ndarray) -> np.ndarray | None:
        """The analytic (or JAX) gradient in ``z``; None where it failed (recorded)."""
        x = self.to_x(z)
        if self.guard.returns_grad:
            if self._cached is not None and np.array_equal(self._cached[0], z):
                g = self._cached[1]
            else:
                g = self.guard.evaluate(x)[1]
        else:
            self.guard.charge()
            self.njev += 1
            try:
                with np.errstate(all="ignore"):
                    g = as_real(self.jac_x(x), "jac").reshape(x.shape)
            except Exception as exc:  # a failing jac is a bad gradient, not a crash
                return self._bad_gradient(f"{type(exc).__name__}: {exc}"[:200])
        if g is None or not np.all(np.isfinite(g)):
            return self._bad_gradient("non-finite gradient")
        if not self.guard.returns_grad:
            g = g / self.guard.unit  # (the guard divides the gradients it returns)
        if self.lower is not None and np.any(self.lower == self.upper):
            # no slope in a variable fixed by equal bounds, as with finite differences:
            # kept, it coupled the variable into BFGS's model, whose steps then left
            # the box (a 30-feature logistic regression with one coefficient fixed:
            # 37,283 evaluations, where the same fit with finite differences took 6,629)
            g = np.where(self.lower == self.upper, 0.0, g)
        return g * self.scale

    def _agrees_along_directions(self, z: np.ndarray, f: float, g: np.ndarray) -> bool:
        """Whether ``g`` agrees with central differences of ``f`` along CHECK_DIRECTIONS
        random directions ``v`` (each variable moved by its central step, with a random
        sign, over ``sqrt(n)``): ``|D_v f - g . v| <= DIRECTIONAL_AGREEMENT |g * v|``
        (``|g * v|`` is the spread of ``g . v`` over the signs), with the floor of
        :meth:`_disagrees`, give or take DIRECTIONAL_ROUNDING times the rounding of the
        two values. Where a step leaves the bounds, the one-sided stencil of
        :meth:`_inward_difference` replaces the central difference. False (check every
        variable) where neither can be taken (a bad point, a box too narrow).

        An error ``e`` of the gradient shows in ``e . v`` unless the signs happen to
        cancel it, to the relative size the variable-wise test sees in norms: one
        partial off by 50% among 1000 variables is ~16 times the tolerance. Where either
        direction disagrees the variable-wise check decides, so a disagreement never
        drops a gradient by itself. Central differences in every variable cost ``2 n``
        evaluations at each tested pass: a logistic regression of 1000 features with its
        gradient, solved by 42 gradients, spent 2,000.

        Near a minimiser ``g . v`` can be far below the rounding of ``f``: a logistic
        regression of 3000 features, converged to a relative gradient of 3e-8, had
        ``|g * v|`` of 5e-14 at ``f = 0.69``, where the difference errs by about
        ``eps |f|`` (measured: 2e-17 to 2e-16) and the relative test alone asked for
        5e-17. The check then fell to every variable, by chance of the signs, and
        spent 18,000 evaluations after 6 (in 83 s; at 5000 features, 32,000 and 500 s).
        The allowance keeps a wrong gradient in sight: a partial off by the stationarity
        test's tolerance, ``1e-6 |f|`` over the variable's size, moves ``D_v f`` by
        ``6e-12 |f| / sqrt(n)``, above the allowance (``2e-15 |f|``) up to ten million
        variables.

        Examples
        --------
        >>> import numpy as np
        >>> from robustfit.optimize.objective import GuardedObjective
        >>> fun = lambda x: float(np.sum(np.arange(1, 7) * x ** 2))
        >>> p = ScaledProblem(GuardedObjective(fun), np.ones(6))
        >>> z = np.linspace(0.5, 1.0, 6)
        >>> p._agrees_along_directions(z, fun(z), 2 * np.arange(1, 7) * z)
        True
        >>> p._agrees_along_directions(z, fun(z), 2 * np.arange(1, 7) * z * 1.01)
        False
        """
        n = z.size
        steps = self.fd_steps_of(z, CENTRAL_STEP) / np.sqrt(n)
        if self.lower is not None:
            steps = np.where(self.lower == self.upper, 0.0, steps)  # (fixed by its bounds)
        floor = 1e-8 * max(1.0, abs(f))
        for _ in range(CHECK_DIRECTIONS):
            v = steps * self._check_signs.choice((-1.0, 1.0), size=n)
            along, one_sided = self.directional_difference(z, v), False
            if along is None and self.lower is not None:
                along, one_sided = self._inward_difference(z, f, v), True
            weight = ONE_SIDED_ROUNDING if one_sided else 1.0
            if along is None:
                return False
            change, taken, f_side = along
            residual = change - float(g @ taken)
            size = max(float(np.linalg.norm(g * taken)), floor * float(np.linalg.norm(taken)))
            rounding = weight * DIRECTIONAL_ROUNDING * self.noise * EPS * f_side
            if abs(residual) <= DIRECTIONAL_AGREEMENT * size + rounding:
                continue
            if one_sided:
                return False  # (the variable-wise check decides there)
            extrapolated = self._extrapolated_residual(z, g, v, residual)
            if extrapolated is None or abs(extrapolated) > (
                    DIRECTIONAL_AGREEMENT * size + EXTRAPOLATED_ROUNDING * rounding):
                return False
        return True

    def _extrapolated_residual(self, z: np.ndarray, g: np.ndarray, v: np.ndarray,
                               residual: float) -> float | None:
        """The residual ``D_v f - g . v`` of the central difference along ``v``,
        extrapolated (Richardson) with the one along ``v / 2``: ``(8 r(v/2) - r(v)) / 3``
        cancels the truncation term (the third derivative along ``v`` over 6) and keeps
        an error ``e . v`` of ``g``. None where the half step leaves the bounds or
        meets a bad point.

        Where a variable's curvature changes over a step of its start's size (a
        softmax regression with features scaled 1e-2 to 1e2, the largest ones'
        coefficients ~1e-2 from a start at 0), the plain difference errs by far more
        than the gradient left at a minimum, and the check fell to differences of
        every variable, extrapolated: ``6 n`` evaluations (180 of 272 at 30
        coefficients, where scipy's BFGS spent 75 in all)."""
        half = self.directional_difference(z, 0.5 * v)
        if half is None:
            return None
        change, taken, _ = half
        return (8.0 * (change - float(g @ taken)) - residual) / 3.0

    def _inward_difference(self, z: np.ndarray, f: float, v: np.ndarray
                           ) -> tuple[float, np.ndarray, float] | None:
        """``g . v`` from the one-sided stencil ``(4 (f(z + v) - f) - (f(z + 2 v) - f)) / 2``
        (second order, like a central difference), with the coordinates whose step
        would leave the box turned inward; as :meth:`directional_difference` returns
        it, the half-step (here ``(4 v1 - v2) / 2`` of the steps as rounding took them)
        and the largest ``|f|``. None where the box is too narrow for ``2 v`` or a
        point is bad.

        At a pass with most variables on their bounds a central step leaves the box in
        some of them, and the check fell to central differences in every variable: a
        logistic regression of 1000 features boxed in ``[-0.02, 0.02]`` (91% of them
        on a bound) spent 2,000 of its 2,026 evaluations there."""
        doubled = self.inward_steps(z, 2.0 * v)
        if np.any((doubled == 0.0) & (v != 0.0)):
            return None
        v = 0.5 * doubled
        near, far = z + v, z + doubled
        f_near, f_far = self.value(near), self.value(far)
        if not (np.isfinite(f_near) and np.isfinite(f_far) and np.isfinite(f)):
            return None
        x = z * self.scale
        taken = (4.0 * (near * self.scale - x) - (far * self.scale - x)) / (2.0 * self.scale)
        change = (4.0 * (f_near - f) - (f_far - f)) / 2.0
        return change, taken, max(abs(f), abs(f_near), abs(f_far))

    @staticmethod
    def _disagrees(g: np.ndarray, g_fd: np.ndarray, f: float) -> bool:
        err = np.linalg.norm(g - g_fd)
        size = max(np.linalg.norm(g_fd), np.linalg.norm(g), 1e-8 * max(1.0, abs(f)))
        return bool(err > 1e-3 * size)

    def _bad_gradient(self, reason: str) -> None:
        self._bad_gradients += 1
        self.log.add(self.guard.stage, "bad_gradient", reason=reason,
                     action="finite differences at this point")
        if self._bad_gradients >= _MAX_BAD_GRADIENTS:
            self.drop_analytic(f"{self._bad_gradients} bad gradients")
        return None

    def drop_analytic(self, why: str) -> None:
        """Use finite differences from now on."""
        if self.analytic:
            self.analytic = False
            self.log.add(self.guard.stage, "gradient_fallback", reason=why,
                         action="finite differences for the rest of the run")

    def fd_steps(self, z: np.ndarray) -> np.ndarray:
        """The steps :meth:`finite_difference` takes at ``z`` with the current scheme."""
        base = CENTRAL_STEP if self.fd_scheme == "central" else FORWARD_STEP
        return self.fd_steps_of(z, base)

    def fd_steps_of(self, z: np.ndarray, base: float) -> np.ndarray:
        """The steps of differences with relative step ``base`` at ``z`` (see
        :meth:`step`)."""
        size = np.maximum(np.abs(z), self.typical)
        steps = self.relative_step(base) * size
        fine = size > self.structure
        if np.any(fine):
            steps = np.where(fine, np.maximum(self.relative_step(base) * self.structure,
                                              _spacings_floor(z, self.scale)), steps)
        return steps

    def finite_difference(self, z: np.ndarray, f: float,
                          scheme: str | None = None) -> np.ndarray | None:
        """Forward or central differences, stepping inward at bounds and around bad points."""
        scheme = scheme or self.fd_scheme
        base = CENTRAL_STEP if scheme == "central" else FORWARD_STEP
        g = np.empty_like(z)
        for i in range(z.size):
            if self.lower is not None and self.lower[i] == self.upper[i]:
                g[i] = 0.0  # a variable fixed by equal bounds: no step, and no slope
                continue
            h = self.step(z, i, base)
            g_i = self._partial(z, f, i, h, scheme)
            if g_i is None:
                return None
            g[i] = g_i
        return g

    def extrapolated_gradient(self, z: np.ndarray, f: float) -> np.ndarray | None:
        """Central differences with steps ``h`` and ``h / 2`` combined by Richardson
        extrapolation, ``(4 D(h/2) - D(h)) / 3``: truncation error of order ``h**4``
        instead of ``h**2``, at twice the cost, for the tests that certify a minimum.

        Near a small-residual minimum the third derivative is large against the
        gradient left: 1.4e-4 above NIST's Lanczos2 minimum (a Hessian of condition
        5e8), the truncation error of plain central differences, ``h**2 f''' / 6``, was
        ten times the gradient along the flattest direction, and the Newton model said
        the point was the minimum. A partial whose stencil leaves the bounds or hits a
        bad point is plain central (or one-sided) there.

        Examples
        --------
        >>> import numpy as np
        >>> from robustfit.optimize.objective import GuardedObjective
        >>> p = ScaledProblem(GuardedObjective(lambda x: float(np.exp(3 * x[0]))), np.ones(1))
        >>> z = np.array([0.5])
        >>> g = p.extrapolated_gradient(z, p.value(z))
        >>> bool(abs(g[0] / (3 * np.exp(1.5)) - 1) < 1e-9)
        True
        """
        out = self._two_step_differences(z, f)
        return None if out is None else out[1]

    def _two_step_differences(self, z: np.ndarray, f: float
                              ) -> tuple[np.ndarray, np.ndarray] | None:
        """Central differences with the step ``h`` and their Richardson extrapolation
        from ``h`` and ``h / 2`` (both plain central or one-sided where a stencil leaves
        the bounds or hits a bad point); None where no difference could be taken."""
        wide = np.empty_like(z)
        fine = np.empty_like(z)
        for i in range(z.size):
            if self.lower is not None and self.lower[i] == self.upper[i]:
                wide[i] = fine[i] = 0.0
                continue
            h = self.step(z, i, CENTRAL_STEP)
            values, taken = [], []
            for step in (h, -h, 0.5 * h, -0.5 * h):
                zi = z.copy()
                zi[i] += step
                values.append(self.value(zi) if self.inside(zi) else np.nan)
                taken.append(self.taken_step(zi, z, i))
            if np.all(np.isfinite(values)) and taken[0] == -taken[1] \
                    and taken[2] == -taken[3]:
                wide[i] = (values[0] - values[1]) / (2.0 * h)
                narrow = (values[2] - values[3]) / h
                fine[i] = (4.0 * narrow - wide[i]) / 3.0
                continue
            if np.all(np.isfinite(values)) and np.isfinite(f) and len(set(taken)) == 4 \
                    and 0.0 not in taken:
                # steps rounding made uneven (see .stencils): the same stencils through
                # the points actually evaluated
                wide[i] = slope_at_zero(f, taken[:2], values[:2])
                fine[i] = slope_at_zero(f, taken, values)
                continue
            g_i = self._partial(z, f, i, h, "central")
            if g_i is None:
                return None
            wide[i] = fine[i] = g_i
        return wide, fine

    def directional_difference(self, z: np.ndarray, v: np.ndarray
                               ) -> tuple[float, np.ndarray, float] | None:
        """``(f(z + v) - f(z - v)) / 2``, the half-step ``v`` as rounding took it
        (measured in ``x``, as ``f`` sees it), and the larger ``|f|`` of the two; None
        where a side leaves the bounds or is a bad point."""
        values = self.values_along(z, v)
        if values is None:
            return None
        f_up, f_down, taken = values
        return (f_up - f_down) / 2.0, taken, max(abs(f_up), abs(f_down))

    def values_along(self, z: np.ndarray, v: np.ndarray
                     ) -> tuple[float, float, np.ndarray] | None:
        """``(f(z + v), f(z - v), half step)``, the half-step ``v`` as rounding took it
        (measured in ``x``); None where a side leaves the bounds or is a bad point."""
        up, down = z + v, z - v
        if not (self.inside(up) and self.inside(down)):
            return None
        f_up, f_down = self.value(up), self.value(down)
        if not (np.isfinite(f_up) and np.isfinite(f_down)):
            return None
        return f_up, f_down, (up * self.scale - down * self.scale) / (2.0 * self.scale)

    def taken_step(self, moved: np.ndarray, z: np.ndarray, i: int) -> float:
        """The step from ``z`` to ``moved`` in variable ``i`` (in ``z``) as ``f`` sees
        it: the difference of the two points in ``x``. Far from 0 both round to
        spacings of ``x_i``, which need not be the step's in ``z``: at ``x ~ 1e6`` a
        central step of 6 came out uneven by 1e-10, and on Rosenbrock's function of
        ``x - 1e6`` (``f`` of 3600 at the stencil's ends) its partial read 1e-8 where
        the gradient was 0."""
        return float(moved[i] * self.scale[i] - z[i] * self.scale[i]) / float(self.scale[i])

    def inward_steps(self, z: np.ndarray, steps: np.ndarray) -> np.ndarray:
        """``steps`` (one per variable, taken together from ``z``) with each one that
        would leave the bounds reversed, and 0 where neither way fits."""
        if self.lower is None:
            return steps
        fits = (z + steps >= self.lower) & (z + steps <= self.upper)
        steps = np.where(fits, steps, -steps)
        fits = (z + steps >= self.lower) & (z + steps <= self.upper)
        return np.where(fits, steps, 0.0)

    def inside(self, z: np.ndarray) -> bool:
        """Whether ``z`` is within the bounds (always, without bounds)."""
        return self.lower is None or bool(np.all(z >= self.lower) and np.all(z <= self.upper))

    def partial(self, z: np.ndarray, f: float, i: int, h: float) -> float | None:
        """Central difference in ``z[i]`` with the step ``h`` (one side where the other
        is outside the bounds or a bad point)."""
        return self._partial(z, f, i, h, "central")

    def _partial(self, z, f, i, h, scheme):
        def at(step, in_x=True):
            # (a central stencil's steps are measured in x, where their two sides can
            # come out uneven; a forward step's own size is uncertain by a spacing of
            # x either way, as the base point's x need not be to_x(z) exactly)
            zi = z.copy()
            zi[i] += step
            if (self.upper is not None and zi[i] > self.upper[i]) or (
                    self.lower is not None and zi[i] < self.lower[i]):
                return None, step
            return self.value(zi), self.taken_step(zi, z, i) if in_x else zi[i] - z[i]

        if scheme == "central":
            fp, hp = at(h)
            fm, hm = at(-h)
            if (fp is not None and fm is not None and np.isfinite(fp) and np.isfinite(fm)
                    and hp != hm):
                if hp == -hm or hp == 0 or hm == 0 or not np.isfinite(f):
                    return (fp - fm) / (hp - hm)
                # steps rounding made uneven: exact for a quadratic (see .stencils)
                return slope_at_zero(f, (hp, hm), (fp, fm))
            for fv, hv in ((fp, hp), (fm, hm)):
                if fv is not None and np.isfinite(fv) and hv != 0:
                    # one side only (a bound, a bad point): second order from two steps
                    # on this side, as central differences are. A first-order one had
                    # an error of h f'' / 2, which flipped the sign of a partial of
                    # 5e-7 at a bound of NIST's Lanczos3 (a bound "held" that did not)
                    f2, h2 = at(2 * hv)
                    if f2 is not None and np.isfinite(f2) and h2 != 0 and h2 != hv:
                        return ((f2 - f) * hv * hv - (fv - f) * h2 * h2) / (
                            hv * h2 * (hv - h2))
                    return (fv - f) / hv
            return None
        for step in (h, -h):
            fv, hv = at(step, in_x=False)
            if fv is not None and np.isfinite(fv) and hv != 0:
                return (fv - f) / hv
        return None

    def check_gradient(self, z: np.ndarray, f: float) -> bool:
        """Compare the analytic gradient with finite differences; drop it if they
        disagree by more than the differences' own uncertainty.

        Along random directions first (:meth:`_agrees_along_directions`, four
        evaluations); where they agree the check ends there, otherwise central
        differences in every variable decide, as follows.

        Where plain central differences disagree, they are taken again with the step
        ``h / 2`` and extrapolated (Richardson); how much the extrapolation corrects
        them bounds their error.
        A logistic regression with features scaled from 1e-3 to 1e3 had its correct
        gradient dropped at the optimum: there the gradient is 1e-6, and the central
        difference in a feature of scale 1e3 errs by ``h**2 f'(3) / 6``, 0.3. Returns
        True when the analytic gradient was dropped.
        """
        if not self.analytic:
            return False
        g = self.analytic_gradient(z)
        if g is None:
            return not self.analytic
        if z.size > 2 * CHECK_DIRECTIONS and self._agrees_along_directions(z, f, g):
            return False  # (the common case, at 2 CHECK_DIRECTIONS evaluations, not 2 n)
        g_fd = self.finite_difference(z, f, "central")
        if g_fd is None:
            return not self.analytic
        if not self._disagrees(g, g_fd, f):
            return False  # (the common case: plain central differences agree)
        out = self._two_step_differences(z, f)
        if out is None:
            return False
        wide, g_fd = out
        uncertainty = np.linalg.norm(wide - g_fd)  # (the extrapolation's correction)
        err = np.linalg.norm(g - g_fd)
        size = max(np.linalg.norm(g_fd), np.linalg.norm(g), 1e-8 * max(1.0, abs(f)))
        if self._disagrees(g, g_fd, f) and err > FD_TRUST * uncertainty:
            self.log.add(self.guard.stage, "gradient_mismatch", relative_error=float(err / size))
            self.drop_analytic("gradient disagrees with finite differences")
            return True
        return False
