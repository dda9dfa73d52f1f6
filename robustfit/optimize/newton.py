"""A second-order stopping test: the Newton decrement of a finite-difference Hessian.

The small-gradient test measures ``g`` in units of ``max(1, |x|)``: a variable of size
1e-4 with a steep curvature (a decay rate multiplying ``x`` up to 800, NIST's Misra and
MGH10 problems) needs ``|x - x*|`` below 1e-18 before its partial falls under ``gtol``,
out of reach in float64, so a run that found the minimum could not say so. The Newton
decrement ``δ = g·H⁻¹g / 2`` -- the decrease the local quadratic model still promises --
does not depend on how the variables are scaled (it is affine invariant), and it is in
the units of ``f``. The test passes when ``H`` (from finite differences) is positive
definite, ``δ`` is at most ``0.1 gtol |f|``, and ``f`` at the Newton point is not lower
by more than that: the model is checked where it points. The tolerance is relative to
``|f|`` alone, with no absolute floor: NIST's MGH17 stopped 0.3% above its minimum of
5.5e-5 with ``δ = 2.5e-8``, which an absolute ``1e-7`` would have passed. (A minimum at
``f = 0`` is certified by the gradient test, which is absolute there.)

Coordinate steps do not resolve a Hessian whose curvatures span more than about five
orders of magnitude; such a Hessian is measured again along its own eigenvectors, each
with a step that changes ``f`` by ``REFINE_CHANGE |f|``, and the gradient with it.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from .offset import RESOLVED
from .problem import CENTRAL_STEP, FORWARD_STEP, SHRUNK, ScaledProblem
from .smoothness import kinked_directions

__all__ = ["newton_decrement_test", "NewtonCheck", "finite_difference_hessian",
           "hessian_cost", "HESSIAN_STEP", "late_newton_dimension", "newton_move",
           "valley_floor_point", "refine_steps"]

HESSIAN_STEP = np.finfo(float).eps ** 0.25  # second differences: rounding ~ eps / h**2
# largest dimension for which the test is tried: it costs 2 n**2 + 2 evaluations with
# finite differences (at most 1% of the default budget), n + 1 gradients with an
# analytic one
MAX_DIMENSION = 20
# beyond MAX_DIMENSION, where the small-gradient test failed, the test is still tried
# up to this many variables when the Hessian costs at most LATE_HESSIAN_SHARE of the
# evaluations already spent (see :func:`late_newton_dimension`); a dense Hessian of
# 400 variables is 1.3 MB and its eigen-decomposition takes milliseconds
LATE_MAX_DIMENSION = 400
LATE_HESSIAN_SHARE = 1.0
# a Hessian whose smallest |eigenvalue| is below this fraction of its largest is
# measured again along its eigenvectors, with steps that change f by REFINE_CHANGE |f|
ILL_CONDITIONED = 1e-5
REFINE_CHANGE = 1e-6
# a Newton step of at most this many float64 spacings of every x_i leads to no other
# representable point: the minimiser to the precision of x, whatever the decrement's
# size relative to f (which the relative test cannot judge where f is 0 at the minimum)
RESOLUTION_SPACINGS = 4.0


class _BadStep(Exception):
    """A finite-difference step of the Hessian hit a NaN/inf or raising point."""


class NewtonCheck(NamedTuple):
    """Outcome: ``passed``; ``measure`` (``δ / |f|``, or ``δ`` where f is 0; inf
    without a positive definite Hessian); ``improved`` (f at the Newton point was lower
    than at ``z``); ``hessian``: the coordinate Hessian measured at ``z`` over the
    tested variables (set by :func:`newton_decrement_test`, for later probes to
    reuse)."""

    passed: bool
    measure: float
    improved: bool
    hessian: np.ndarray | None = None
    #: the pass rests on the Newton step being below float64's resolution of ``x``
    #: (the model's decrease itself above the tolerance: see :func:`_below_resolution`)
    at_resolution: bool = False


def refine_steps(change: float, curvatures: np.ndarray, z: np.ndarray) -> np.ndarray:
    """Steps along directions of the given ``curvatures`` that change ``f`` by about
    ``REFINE_CHANGE * change`` (``change`` is ``|f|`` or a floor of it), none longer
    than ``max(1, |z|)``."""
    return np.minimum(np.sqrt(REFINE_CHANGE * change / curvatures),
                      max(1.0, float(np.max(np.abs(z)))))


def finite_difference_hessian(p: ScaledProblem, z: np.ndarray, f: float,
                              g: np.ndarray | None = None,
                              coords: np.ndarray | None = None,
                              steps: np.ndarray | None = None) -> np.ndarray | None:
    """Symmetric finite-difference Hessian in ``z`` (over the variables ``coords``, all by
    default); None where a step hit a bad point.

    With an analytic gradient: forward differences of the gradient, symmetrised.
    Otherwise second differences of ``f`` with steps ``eps**0.25`` relative to each
    variable's size (``max(|z_i|, typical_i)``), so small variables get small steps; the
    mixed ones from the four corners ``(±h_i, ±h_j)``, second-order accurate: with one
    corner (``n (n + 3) / 2`` evaluations instead of ``2 n**2 + 1``) the error of order
    ``h`` hid NIST's Kirby2 minimum, whose Hessian spans 15 orders of magnitude.
    ``steps`` (per variable of ``coords``) replaces those of the second differences.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(x[0] ** 2 + 3 * x[0] * x[1] + 5e8 * x[1] ** 2)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> p.set_typical(np.array([1.0, 1e-4]))
    >>> z = np.array([0.5, 1e-4])
    >>> np.round(finite_difference_hessian(p, z, fun(z)) / [[1, 1], [1, 1e8]], 2)
    array([[ 2.,  3.],
           [ 3., 10.]])
    """
    measured = measured_hessian(p, z, f, g, coords, steps)
    return None if measured is None else measured[0]


def measured_hessian(p: ScaledProblem, z: np.ndarray, f: float,
                     g: np.ndarray | None = None, coords: np.ndarray | None = None,
                     steps: np.ndarray | None = None
                     ) -> tuple[np.ndarray, np.ndarray] | None:
    """:func:`finite_difference_hessian` and the steps it took, per variable of
    ``coords`` (those of the gradient's differences with an analytic one)."""
    coords = np.arange(z.size) if coords is None else np.asarray(coords)
    m = coords.size
    if p.analytic:
        g0 = p.analytic_gradient(z) if g is None or g.size != z.size else g
        if g0 is None:
            return None
        H = np.empty((m, m))
        taken = np.empty(m)
        for col, j in enumerate(coords):
            h = p.own_step(z, j, FORWARD_STEP)
            zj = z.copy()
            zj[j] += h
            gj = p.analytic_gradient(zj)
            if gj is None:
                return None
            taken[col] = zj[j] - z[j]
            H[:, col] = (gj[coords] - g0[coords]) / taken[col]
        return 0.5 * (H + H.T), taken
    h = (np.array([p.own_step(z, i, HESSIAN_STEP) for i in coords]) if steps is None
         else np.asarray(steps, dtype=float))
    out = _second_differences(p, z, f, np.eye(z.size)[:, coords], h)
    if out is None:
        # a step hit a bad point: where a variable shrank far below its typical size,
        # steps of that size can cross a singularity at 0 (a 4PL midpoint at 1e-4,
        # started at 1, got steps of 1.2e-4, and its pass at 2.7 times the minimum
        # stood untested); once more with such variables stepped by their own size
        sizes = np.abs(z[coords])
        shrunk = (sizes > 0) & (sizes < SHRUNK * p.typical[coords])
        if np.any(shrunk):
            h = np.where(shrunk, HESSIAN_STEP * sizes, h)
            out = _second_differences(p, z, f, np.eye(z.size)[:, coords], h)
    elif not np.any(out[0]):
        # f the same at every point of the stencil: with bounds, a variable that shrank
        # below a tenth of its typical size is stepped by its own size, which near a
        # minimum at 0 changes f by less than its rounding (-exp(-|x|**2) in
        # [-10, 10]**3 at x ~ 1e-9: steps of 1e-13, a Hessian of zeros, and the check
        # failed at the minimum); once more with the usual steps where they keep inside
        usual = np.array([p.step(z, i, HESSIAN_STEP) for i in coords])
        reach = np.zeros_like(z)
        reach[coords] = usual
        if np.any(usual > h) and _inside(p, z, reach):
            retry = _second_differences(p, z, f, np.eye(z.size)[:, coords], usual)
            out, h = (out, h) if retry is None else (retry, usual)
    return None if out is None else (out[0], h)


def _second_differences(p: ScaledProblem, z: np.ndarray, f: float, V: np.ndarray,
                        steps: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """Hessian and gradient of ``f`` in the basis of the columns of ``V`` (unit
    vectors), by central second differences with ``steps[k]`` along column ``k`` and
    mixed ones from the four corners; None where a step hit a bad point."""
    n = V.shape[1]
    H = np.empty((n, n))

    def at(*moves):
        zs = z.copy()
        for k, sign in moves:
            zs = zs + sign * steps[k] * V[:, k]
        value = p.value(zs)
        if not np.isfinite(value):
            raise _BadStep
        return value

    try:
        f_plus = [at((k, 1.0)) for k in range(n)]
        f_minus = [at((k, -1.0)) for k in range(n)]
        for i in range(n):
            H[i, i] = (f_plus[i] + f_minus[i] - 2.0 * f) / steps[i] ** 2
            for j in range(i + 1, n):
                corners = (at((i, 1.0), (j, 1.0)) - at((i, 1.0), (j, -1.0))
                           - at((i, -1.0), (j, 1.0)) + at((i, -1.0), (j, -1.0)))
                H[i, j] = H[j, i] = corners / (4.0 * steps[i] * steps[j])
    except _BadStep:
        return None
    g = (np.array(f_plus) - np.array(f_minus)) / (2.0 * steps)
    return H, g


def hessian_cost(p: ScaledProblem, n: int) -> int:
    """Evaluations a Hessian over ``n`` variables costs: ``n + 1`` gradients with an
    analytic one, ``2 n**2 + 2`` values with second differences."""
    return n + 1 if p.analytic else 2 * n * n + 2


def refine_cost(n: int) -> int:
    """Evaluations the Hessian's measurement along its ``n`` eigenvectors costs (see
    :func:`newton_decrement_test`): ``2 n**2 + 4 n + 2``."""
    return 2 * n * n + 4 * n + 2


def late_newton_dimension(p: ScaledProblem, n: int, spent: int) -> int:
    """The largest dimension for which :func:`newton_decrement_test` is tried once the
    small-gradient test has failed at a point: MAX_DIMENSION, or ``n`` up to
    LATE_MAX_DIMENSION where the Hessian (its refinement along the eigenvectors
    included) costs at most LATE_HESSIAN_SHARE of ``spent``, the evaluations spent
    since the last such check ended (so that together they cost at most about half the
    run).

    The small-gradient test asks ``|g_i| max(1, |x_i|)`` to be small against ``|f|``:
    a variable below 1 in size with a steep curvature cannot meet it in float64. A
    logistic regression of 30 features scaled 1e-3 to 1e3 (finite differences) reached
    its minimum to 2e-16 of f after 4,580 evaluations, where the partial of a
    coefficient of size 5e-4 and curvature 3e7 still read 9e-3 (``x`` off by 3e-10,
    ``f`` above its minimum by 1e-12); with no Newton check beyond 20 variables, the
    run spent its whole budget of 155,000 evaluations and ended ``success=False``.
    With 150 features (2,000 samples) it spent 755,000 (certified now in 141,775).
    Where the point is not a minimum the check fails and its cost is lost: Andrei's
    cube function of 30 variables, at f = 3e-7 (minimum 0), failed it three times
    within 9,000 evaluations before the spacing by ``spent``.

    Examples
    --------
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> p = ScaledProblem(GuardedObjective(lambda x: float(x @ x)), np.ones(30))
    >>> late_newton_dimension(p, 30, spent=0)
    20
    >>> late_newton_dimension(p, 30, spent=4000)   # (2 n**2 + 2) + (2 n**2 + 4 n + 2)
    30
    """
    if n <= MAX_DIMENSION or n > LATE_MAX_DIMENSION:
        return MAX_DIMENSION
    cost = hessian_cost(p, n) + refine_cost(n)
    return n if cost <= LATE_HESSIAN_SHARE * spent else MAX_DIMENSION


def newton_decrement_test(p: ScaledProblem, z: np.ndarray, f: float, g: np.ndarray,
                          gtol: float, free: np.ndarray | None = None,
                          max_dimension: int = MAX_DIMENSION) -> NewtonCheck | None:
    """The Newton-decrement test at ``z``; None when not tried.

    Not tried above ``max_dimension`` variables, within two central-difference steps
    of a bound (an active constraint: the unconstrained model does not apply), or
    without the budget for the Hessian; a bound farther than that but within the
    Hessian's steps shortens them to half the room left. With bounds, no evaluation
    leaves them: a Newton point beyond one fails the test, and stencils or probes that
    would cross one are skipped. ``free`` (a mask) restricts the test to those
    variables, the others held: the minimum over the face of the box where the rest
    sit on their bounds. A Hessian whose curvatures span more than ILL_CONDITIONED is
    measured again along its eigenvectors before the test may pass (without bounds,
    with the gradient extrapolated to fourth order), and that measurement decides.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(1 + (x[0] - 1) ** 2 + 1e8 * (x[1] - 2e-4) ** 2)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> p.set_typical(np.array([1.0, 1e-4]))
    >>> z = np.array([1.0, 2e-4 + 1e-9])     # the partial in x1 is still 0.2 > gtol
    >>> check = newton_decrement_test(p, z, fun(z), np.array([0.0, 0.2]), gtol=1e-6)
    >>> check.passed, float(np.round(check.measure, 12))    # δ = 1e-10 of f = 1
    (True, 1e-10)
    """
    coords = np.arange(z.size) if free is None else np.flatnonzero(free)
    n = coords.size
    if not _hessian_affordable(p, n, max_dimension=max_dimension):
        return None
    base = FORWARD_STEP if p.analytic else HESSIAN_STEP
    reach = np.zeros_like(z)
    reach[coords] = [p.own_step(z, i, base) for i in coords]
    steps = None
    if not _inside(p, z, reach):
        near = np.zeros_like(z)
        near[coords] = [p.own_step(z, i, CENTRAL_STEP) for i in coords]
        if p.analytic or not _inside(p, z, 2.0 * near):
            return None  # a bound within two central steps: an active constraint
        # a bound beyond them but within the Hessian's steps (1.2e-4 of |x|, 1,200 at
        # 1e7, where Rosenbrock's function of x - 1e7 in a box of +-100 was never
        # checked): those steps are shortened to half the room left
        room = np.minimum(z - p.lower, p.upper - z)
        reach[coords] = np.minimum(reach[coords], 0.5 * room[coords])
        steps = reach[coords]
    measured = measured_hessian(p, z, f, g, coords, steps=steps)
    if measured is None or not np.all(np.isfinite(measured[0])):
        return None
    H, taken = measured
    if not p.analytic and np.any(H) and float(np.max(np.abs(np.diag(H)) * reach[coords] ** 2)) \
            < RESOLVED * p.guard.rounding(f):
        # no second difference of the stencil is above f's rounding (f measured from
        # the offset of a large constant term: 1e-3 times the chained Rosenbrock
        # function plus 1e6 "passed" on such a Hessian 1.9e-6 above a local minimum);
        # a Hessian of exact zeros (a piecewise linear f) fails the test as before
        return None
    check = _decrement_check(p, z, f, g, gtol, coords, H, taken)
    return None if check is None else check._replace(hessian=H)


def _decrement_check(p: ScaledProblem, z: np.ndarray, f: float, g_all: np.ndarray,
                     gtol: float, coords: np.ndarray, H: np.ndarray, taken: np.ndarray
                     ) -> NewtonCheck | None:
    """:func:`newton_decrement_test` once the Hessian ``H`` over ``coords`` is measured
    with the steps ``taken`` (``g_all`` the gradient over every variable)."""
    g = g_all[coords]
    n = coords.size
    basis = np.eye(z.size)[:, coords]  # the free variables
    tol = 0.1 * gtol * abs(f)
    try:
        vals, vecs = np.linalg.eigh(H)
    except np.linalg.LinAlgError:
        return None
    check = _model_check(p, z, f, g, H, basis, tol)
    if check.improved:
        return check
    span = float(np.max(np.abs(vals)))
    if span > 0 and float(np.min(np.abs(vals))) <= ILL_CONDITIONED * span \
            and (p.guard.maxfev is None or p.guard.nfev + refine_cost(n)
                 <= p.guard.maxfev):
        # a spread of curvatures beyond what coordinate steps resolve (NIST's MGH10:
        # 3e5 to 2.5e14 at its minimum, where the coordinate Hessian has an eigenvalue
        # of -4e6): measured again along its eigenvectors, each with a step that
        # changes f by about REFINE_CHANGE |f|
        if not p.analytic and p.lower is None:
            # the partials to fourth order (ScaledProblem.extrapolated_gradient): along
            # the flattest eigenvector the gradient left is tiny, and the truncation
            # error of central differences is not (1.4e-4 above NIST's Lanczos2
            # minimum, where the model then promised 1.6e-12 of f). Not with bounds:
            # there it certified Lanczos3 with its last rate capped 270x above the
            # minimum in the box, a case not understood yet
            g_fine = p.extrapolated_gradient(z, f)
            if g_fine is not None and np.all(np.isfinite(g_fine)):
                g = g_fine[coords]
        steps = refine_steps(abs(f), np.maximum(np.abs(vals), 1e-300), z)
        directions = basis @ vecs
        reach = np.abs(directions) @ steps  # how far the stencil's corners go, per variable
        out = (_second_differences(p, z, f, directions, steps) if _inside(p, z, reach)
               else None)
        if out is not None and np.all(np.isfinite(out[0])):
            # the gradient along the eigenvectors: the extrapolated one projected (the
            # stencil's own central differences err by s**2 f'(3) / 6 along them too)
            g_along = out[1] if p.analytic or p.lower is not None else vecs.T @ g
            refined = _model_check(p, z, f, g_along, out[0], directions, tol)
            local = steps < max(1.0, float(np.max(np.abs(z))))
            if refined.passed:
                # (not along a direction whose step reached the cap, the variables'
                # size: a saturated logistic, flat at its infimum, then showed its whole
                # step over one step, and the doubled step no more)
                refined = _unless_kinked(p, z, f, refined, directions[:, local],
                                         np.diag(out[0])[local], steps[local],
                                         along="eigenvectors of the Hessian")
                if not refined.passed:
                    return refined  # (the finer measurement decides)
            if refined.passed:
                return _unless_lower_along_flat_valley(p, z, f, out[0], directions,
                                                       tol, refined)
            if refined.improved or refined.measure < np.inf:
                return refined
    if check.passed:
        check = _unless_kinked(p, z, f, check, basis, np.diag(H), taken,
                               g_all if p.analytic else None,
                               along=f"variables {[int(i) for i in coords]}")
        if not check.passed:
            return check
        return _unless_lower_along_flat_valley(p, z, f, H, basis, tol, check)
    if check.measure == np.inf:  # indefinite: probe along the negative curvature
        return NewtonCheck(False, np.inf,
                           _descends_along_least_curvature(p, z, f, g, H, basis))
    return check


def _unless_kinked(p: ScaledProblem, z: np.ndarray, f: float, check: NewtonCheck,
                   V: np.ndarray, curvatures: np.ndarray, steps: np.ndarray,
                   g: np.ndarray | None = None, *, along: str) -> NewtonCheck:
    """The passing ``check``, unless a curvature along a column of ``V`` measured a kink
    (:func:`.smoothness.kinked_directions`): then a failure (measure inf), logged with
    the columns (``along`` says what they are)."""
    kinked = kinked_directions(p, z, f, V, curvatures, steps, g)
    if not kinked:
        return check
    p.log.add(p.guard.stage, "kink", along=along, kinked=kinked, f=f,
              reason="a second difference did not grow fourfold with twice the step: "
              "f has a kink there, and the Newton test does not apply")
    return NewtonCheck(False, np.inf, check.improved)


def newton_move(p: ScaledProblem, z: np.ndarray, f: float,
                g: np.ndarray) -> float | None:
    """The largest move of a variable to the Newton point, relative to the variable's
    size (``max(|z_i|, typical_i)``, as finite-difference steps are); the Newton point
    is evaluated. None where it is not tried (beyond :data:`MAX_DIMENSION` variables,
    with bounds, without the budget) or the Hessian is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float((x[0] - 1) ** 2 + 3 * x[1] ** 2)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z = np.array([1.0, 1e-9])             # the minimiser is (1, 0)
    >>> move = newton_move(p, z, fun(z), np.array([0.0, 6e-9]))
    >>> bool(move < 1e-8)
    True
    """
    if p.lower is not None or not _hessian_affordable(p, z.size, extra=1):
        return None
    H = finite_difference_hessian(p, z, f, g)
    if H is None or not np.all(np.isfinite(H)):
        return None
    model = _newton_step(H, g)
    if model is None:
        return None
    return model_move(p, z, model[0])


def model_move(p: ScaledProblem, z: np.ndarray, step: np.ndarray) -> float:
    """The largest move of a variable by ``step`` (a model's step to its minimum),
    relative to the variable's size; ``z + step`` is evaluated (and kept as the best
    point where it is lower)."""
    p.value(z + step)
    return float(np.max(np.abs(step) / p.fd_steps_of(z, 1.0)))


def _newton_step(H: np.ndarray, g: np.ndarray) -> tuple[np.ndarray, float] | None:
    """The quadratic model's step ``-H^-1 g`` and decrement ``g·H^-1 g / 2``; None where
    ``H`` is not positive definite."""
    try:
        L = np.linalg.cholesky(H)
    except np.linalg.LinAlgError:
        return None
    w = np.linalg.solve(L, g)
    return -np.linalg.solve(L.T, w), 0.5 * float(w @ w)


def _hessian_affordable(p: ScaledProblem, n: int, extra: int = 0,
                        max_dimension: int = MAX_DIMENSION) -> bool:
    """Whether a Hessian over ``n`` variables (0 < n <= max_dimension) and ``extra``
    evaluations fit in the budget left."""
    if n == 0 or n > max_dimension:
        return False
    return p.guard.maxfev is None or p.guard.nfev + hessian_cost(p, n) + extra <= p.guard.maxfev


def _model_check(p: ScaledProblem, z: np.ndarray, f: float, g: np.ndarray,
                 H: np.ndarray, V: np.ndarray, tol: float) -> NewtonCheck:
    """The decrement of the quadratic model with gradient ``g`` and Hessian ``H`` in
    the basis ``V``, and ``f`` at its minimum (measure inf where ``H`` is not positive
    definite)."""
    model = _newton_step(H, g)
    if model is None:
        return NewtonCheck(False, np.inf, False)
    step, decrement = V @ model[0], model[1]
    if not _inside(p, z + step, np.zeros_like(z)):
        # the model's minimum lies beyond a bound: not an interior minimum
        return NewtonCheck(False, _relative(decrement, f), False)
    f_newton = p.value(z + step)
    improved = bool(np.isfinite(f_newton) and f_newton < f)
    resolved = decrement <= tol
    passed = ((resolved or _below_resolution(p, z, step))
              and not (np.isfinite(f_newton) and f_newton < f - tol))
    return NewtonCheck(passed, _relative(decrement, f), improved,
                       at_resolution=passed and not resolved)


def _relative(decrement: float, f: float) -> float:
    """The check's measure: ``δ / |f|``, or ``δ`` itself where f is 0."""
    return decrement / abs(f) if f != 0 else decrement


def _below_resolution(p: ScaledProblem, z: np.ndarray, step: np.ndarray) -> bool:
    """Whether the step moves every variable by at most RESOLUTION_SPACINGS float64
    spacings of its value in ``x``: ``f = sum((x - 1e8)**2)`` is minimised at x = 1e8,
    where central differences leave a gradient of ~1e-8 (the spacing of 1e8 times the
    curvature), a slope that moving x by its size would turn into a change of 1 while
    f is 0 -- yet the Newton step, 7e-9, rounds back to the same point.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> p = ScaledProblem(GuardedObjective(lambda x: 0.0), np.ones(2))
    >>> z = np.array([1e8, 0.5])
    >>> _below_resolution(p, z, np.array([7e-9, 0.0])), _below_resolution(
    ...     p, z, np.array([7e-9, 1e-15]))
    (True, False)
    """
    x = p.to_x(z)
    moved = np.abs(p.to_x(z + step) - x)
    return bool(np.all(moved <= RESOLUTION_SPACINGS * np.spacing(np.abs(x))))


def _unless_lower_along_flat_valley(p: ScaledProblem, z: np.ndarray, f: float,
                                    H: np.ndarray, V: np.ndarray, tol: float,
                                    check: NewtonCheck) -> NewtonCheck:
    """``check`` (a pass), or a failure with ``improved`` where ``H`` is nearly singular
    and a point lower than ``f - tol`` lies along its flat direction, the
    others re-minimised (:func:`_lower_along_flat_valley`)."""
    if _lower_along_flat_valley(p, z, f, H, V, tol):
        return NewtonCheck(False, check.measure, True)
    return check


# a Hessian whose correlation matrix (H scaled by its diagonal, so that the units of
# the variables do not count) has eigenvalues spanning beyond this is nearly singular:
# along the flattest direction the quadratic model holds only within a sliver. At
# MGH17's false stop the span was 1.4e-10 to 7.4e-10 from one measurement to the next;
# at true minima, 1e-7 to 7e-10 (MGH10, Lanczos3, Bennett5, Watson 9: probed, nothing
# lower) and 2.4e-5 to 6e-4 (Kirby2, Misra1a-d: not probed)
SINGULAR = 1e-6
# lengths of the probes along a flat valley, relative to max(1, |z|), and the Newton
# steps that re-minimise the other directions at each
_VALLEY_PROBES = (1e-3, 1e-2, 1e-1)
_VALLEY_NEWTON_STEPS = 2


def _lower_along_flat_valley(p: ScaledProblem, z: np.ndarray, f: float, H: np.ndarray,
                             V: np.ndarray, tol: float) -> bool:
    """Whether a point lower than ``f - tol`` lies along the flattest eigenvector of a
    Hessian ``H`` (in the basis ``V``) that is nearly singular (:data:`SINGULAR`).

    A passing Newton decrement says nothing along a direction of zero curvature: there
    ``f`` may still fall along a *curved* valley, which straight moves (and the model)
    miss because the other variables must follow. NIST's MGH17 (two decaying
    exponentials) has such a valley where the two rates merge and the amplitudes run to
    +-324 with opposite signs: the Hessian's eigenvalues spanned 5e-9 to 6e9, the
    decrement passed at f = 7.98e-5, 46% above the minimum, and so did Levenberg-
    Marquardt. Here the point is moved along that eigenvector, both ways, so that no
    variable moves by more than :data:`_VALLEY_PROBES` of its size, and the other
    directions re-minimised by
    :data:`_VALLEY_NEWTON_STEPS` Newton steps on the measured curvatures, each halved
    until it lowers ``f``. At a degenerate minimum (``(x + y)**4 + (x - y)**2``) or along
    a line of minima (an over-parametrised model) nothing is lower. Flatness along one
    variable alone does not trigger the probes (the diagonal scaling hides it): a valley
    that curves involves several. Each probe costs a few slopes; none is tried where the
    bounds are within reach.
    """
    try:
        if _correlation_spread(H, V) > SINGULAR:  # (H passed the test: positive definite)
            return False
        vals, vecs = np.linalg.eigh(H)
    except np.linalg.LinAlgError:
        return False
    flat = V @ vecs[:, 0]
    rest, curvatures = V @ vecs[:, 1:], vals[1:]
    # the probe of length t moves no variable by more than t of its size (max(|z_i|,
    # typical_i), as finite-difference steps are): after a rescale to an earlier
    # point's magnitudes MGH17's amplitudes sat at z ~ 3e-3, and probes of 1e-3 of
    # max(1, |z|) moved them by a third of themselves, far out of the valley, which
    # fell by 1e-8 of f within a hundredth of their size
    sizes = np.maximum(np.abs(z), p.typical)
    size = 1.0 / float(np.max(np.abs(flat) / sizes))
    # the slopes along the other eigenvectors by central differences, each with a step
    # that changes f by about REFINE_CHANGE |f| (coordinate differences mix the stiff
    # curvature's truncation error into the soft directions' slopes)
    steps = refine_steps(abs(f), curvatures, z)
    for t in _VALLEY_PROBES:
        for sign in (1.0, -1.0):
            zt = z + sign * t * size * flat
            if not _inside(p, zt, np.zeros_like(z)):
                continue
            _, ft = valley_floor_point(p, zt, rest, curvatures, steps)
            if np.isfinite(ft) and ft < f - tol:
                return True
    return False


def valley_floor_point(p: ScaledProblem, z: np.ndarray, rest: np.ndarray,
                       curvatures: np.ndarray, steps: np.ndarray,
                       newton_steps: int = _VALLEY_NEWTON_STEPS
                       ) -> tuple[np.ndarray, float]:
    """``z`` moved back down to a valley's floor, and ``f`` there: the directions
    ``rest`` (columns, with positive ``curvatures``) re-minimised by up to
    ``newton_steps`` Newton steps on those curvatures, each slope measured by central
    differences with ``steps`` and each step halved until it lowers ``f`` (none after
    one that does not). ``f`` is inf where ``z`` itself is a bad point.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.optimize.objective import GuardedObjective
    >>> fun = lambda x: float(1e-3 * x[0] ** 2 + 1e4 * (x[1] - x[0] ** 2) ** 2)
    >>> p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    >>> z, f = valley_floor_point(p, np.array([1.0, 0.0]), np.array([[0.0], [1.0]]),
    ...                           np.array([2e4]), np.array([1e-3]))
    >>> np.round(z, 6), round(f, 6)      # back on the parabola x1 = x0**2
    (array([1., 1.]), 0.001)
    """
    f = p.value(z)
    for _ in range(newton_steps):
        slopes = _directional_slopes(p, z, rest, steps) if np.isfinite(f) else None
        if slopes is None:
            break
        z_next, f = _halved_until_lower(p, z, f, -rest @ (slopes / curvatures))
        if z_next is z:
            break  # (no halving of the step was lower: that is the floor, as measured)
        z = z_next
    return z, f


def _correlation_spread(H: np.ndarray, V: np.ndarray) -> float:
    """Smallest over largest eigenvalue of the Hessian ``V H V^T`` (in the variables)
    scaled to unit diagonal: how nearly singular it is, whatever the variables' units
    (1 where a diagonal entry is not positive: not a minimum's Hessian)."""
    Hx = V @ H @ V.T
    used = np.flatnonzero(np.any(V != 0, axis=1))
    Hx = Hx[np.ix_(used, used)]
    diagonal = np.diag(Hx)
    if np.any(diagonal <= 0):
        return 1.0
    d = np.sqrt(diagonal)
    vals = np.linalg.eigvalsh(Hx / np.outer(d, d))
    return float(vals[0] / vals[-1])


def _directional_slopes(p: ScaledProblem, z: np.ndarray, V: np.ndarray,
                        steps: np.ndarray) -> np.ndarray | None:
    """Central differences of ``f`` along the columns of ``V`` with ``steps``; None
    where a stencil leaves the bounds or hits a bad point."""
    slopes = np.empty(V.shape[1])
    for k in range(V.shape[1]):
        move = steps[k] * V[:, k]
        if not _inside(p, z, np.abs(move)):
            return None
        ahead, behind = p.value(z + move), p.value(z - move)
        if not (np.isfinite(ahead) and np.isfinite(behind)):
            return None
        slopes[k] = (ahead - behind) / (2.0 * steps[k])
    return slopes


def _halved_until_lower(p: ScaledProblem, z: np.ndarray, f: float, step: np.ndarray,
                        halvings: int = 6) -> tuple[np.ndarray, float]:
    """``z + step`` halved until ``f`` is lower there (at most ``halvings`` times), or
    ``(z, f)`` where no such step is lower."""
    for _ in range(halvings):
        if _inside(p, z + step, np.zeros_like(z)):
            value = p.value(z + step)
            if np.isfinite(value) and value < f:
                return z + step, value
        step = 0.5 * step
    return z, f


# lengths of the probes along the direction of least curvature, relative to max(1, |z|)
_PROBE_LENGTHS = (1e-3, 1e-2, 1e-1, 1.0)


def _descends_along_least_curvature(p: ScaledProblem, z: np.ndarray, f: float,
                                    g: np.ndarray, H: np.ndarray, basis: np.ndarray) -> bool:
    """Probe ``f`` along the eigenvector of ``H``'s smallest eigenvalue (downhill by
    ``g``) at lengthening steps; True when one is lower than ``f``.

    A point where the Hessian is indefinite is no minimum if ``f`` goes down along the
    negative curvature: NIST's MGH17 (the Osborne 1 model) has a stretch where one decay
    rate has run to 0.004 and ``f`` is flat to 1e-8 over a unit step, and gradients
    sampled there were short enough to pass the non-smooth test at no minimum. The probes
    stop at the first step that is higher than the one before.
    """
    try:
        vals, vecs = np.linalg.eigh(H)
    except np.linalg.LinAlgError:
        return False
    slope = float(g @ vecs[:, 0])
    v = basis @ vecs[:, 0]
    size = max(1.0, float(np.max(np.abs(z))))
    # downhill by the gradient; both ways where it is flat along v (a plateau's edge)
    for direction in ((-v,) if slope > 0 else (v,) if slope < 0 else (v, -v)):
        previous = f
        for t in _PROBE_LENGTHS:
            if not _inside(p, z + t * size * direction, np.zeros_like(z)):
                break
            value = p.value(z + t * size * direction)
            if not np.isfinite(value) or value > previous:
                break
            previous = value
        if previous < f:
            return True
    return False


def _inside(p: ScaledProblem, z: np.ndarray, reach: np.ndarray) -> bool:
    """Whether every point within ``reach`` (per variable) of ``z`` is inside the bounds
    (always, without bounds)."""
    if p.lower is None:
        return True
    return bool(np.all(z - reach >= p.lower) and np.all(z + reach <= p.upper))
