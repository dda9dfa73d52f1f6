"""A minimiser far from 0 with structure of size 1: steps for f's fine structure.

Finite-difference steps relative to a variable's size are ``|x|`` times too long where
``f`` changes its slope over distances of 1: Rosenbrock's function of ``x - 1e4`` read a
slope of 1.44 at its minimiser (truncation error), and runs at shifts of 1e4 to 1e8
ended ``success=False`` at it; at 1e2 one was certified 1.5e-4 away, at the zero of its
central differences.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import rosen, rosen_der

from robustfit import robust_minimize
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import CENTRAL_STEP, MIN_STEP_SPACINGS, ScaledProblem
from robustfit.optimize.restarts import restart_point
from robustfit.optimize.truncation import agrees_with_shorter_steps, settled_steps


def _shifted(shift):
    return lambda x: float(rosen(np.asarray(x) - shift))


def _close_to(x, shift):
    """Within 100 float64 spacings of the minimiser (and 1e-7 of 1)."""
    target = np.full(2, shift + 1.0)
    return np.max(np.abs(x - target)) <= max(1e-7, 100 * float(np.spacing(shift + 1.0)))


@pytest.mark.parametrize("shift", [1e2, 1e4, 1e6, 1e8])
def test_a_far_minimiser_is_certified_where_it_is(shift):
    res = robust_minimize(_shifted(shift), [shift - 1.2, shift + 1.0], rng=0)
    assert res.success, res.message
    assert _close_to(res.x, shift), res.x - shift - 1.0
    assert res.fun == rosen(res.x - shift)


@pytest.mark.parametrize("method", ["nelder-mead", "l-bfgs-b"])
def test_the_other_methods_are_certified_there_too(method):
    """Nelder-Mead ends at the minimiser of Rosenbrock moved by 1e6; its one test
    settles the steps and takes the Newton point at the same pass (the tests' retests
    are not spent on the shorter steps)."""
    shift = 1e6
    res = robust_minimize(_shifted(shift), [shift - 1.2, shift + 1.0], rng=0,
                          method=method)
    assert res.success, res.message
    assert _close_to(res.x, shift), res.x - shift - 1.0


def test_the_shortened_steps_are_reported():
    res = robust_minimize(_shifted(1e6), [1e6 - 1.2, 1e6 + 1.0], rng=0)
    events = [e for e in res.events if e["kind"] == "fine_structure"]
    assert events, [e["kind"] for e in res.events]
    # steps in the user's x, far below the usual 6e-6 * 1e6 = 6
    assert all(0 < step < 0.1 for e in events for step in e["steps"])


@pytest.mark.parametrize("shift, room", [(1e5, 5.0), (1e7, 100.0)])
def test_with_bounds_around_a_far_minimiser(shift, room):
    """Bounds within the Newton check's Hessian steps (1.2e-4 of |x|: 12 at 1e5, 1,200
    at 1e7) but beyond two central steps shorten them; before, the check was not tried
    and both runs ended uncertified at the minimiser."""
    res = robust_minimize(_shifted(shift), [shift - 1.2, shift + 1.0], rng=0,
                          bounds=[(shift - room, shift + room)] * 2)
    assert res.success, res.message
    assert _close_to(res.x, shift), res.x - shift - 1.0


@settings(max_examples=8, deadline=None, derandomize=True)
@given(log_shift=st.floats(1.0, 7.0), sign=st.sampled_from([-1.0, 1.0]))
def test_success_does_not_depend_on_a_shift(log_shift, sign):
    """Rosenbrock moved by any shift from 10 to 1e7 either way: certified, at the
    minimiser (the function and the path are the same; only the variables' sizes
    change)."""
    shift = sign * 10.0 ** log_shift
    res = robust_minimize(_shifted(shift), [shift - 1.2, shift + 1.0], rng=1)
    assert res.success, res.message
    assert _close_to(res.x, shift), res.x - shift - 1.0


def _problem(fun, scale):
    return ScaledProblem(GuardedObjective(fun), np.asarray(scale, dtype=float))


def test_settled_steps_read_the_gradient_far_from_zero():
    shift = 1e4
    p = _problem(_shifted(shift), [shift, shift])
    x = np.array([shift + 1.001, shift + 1.002])  # (near the minimiser: a slope of 2e-3)
    z = p.to_z(x)
    f = p.value(z)
    usual = p.finite_difference(z, f, "central") / p.scale
    true = rosen_der(x - shift)
    assert abs(usual[0] - true[0]) > 1.0  # truncation error h**2 f''' / 6 at h = 0.06
    steps = settled_steps(p, z, f, [0, 1], np.full(2, 1e-9))
    assert 0 in steps and steps[0] < p.step(z, 0, CENTRAL_STEP) / 10
    for i, step in steps.items():
        p.set_structure(i, step)
    settled = p.finite_difference(z, f, "central") / p.scale
    # to SETTLED_FRACTION of the partial: enough to tell it from 0 (nearer the
    # minimiser, where the partials are smaller, the steps shrink further)
    np.testing.assert_allclose(settled, true, rtol=0.1)
    np.testing.assert_allclose(settled[1], true[1], rtol=1e-9)  # (exact: quadratic in x1)


def test_no_shorter_steps_where_the_usual_ones_have_settled():
    p = _problem(rosen, [1.0, 1.0])
    z = np.array([-1.2, 1.0])
    assert settled_steps(p, z, p.value(z), [0, 1], np.full(2, 1e-9)) == {}


def test_only_partials_that_did_not_settle_get_shorter_steps():
    shift = 1e4
    p = _problem(_shifted(shift), [shift, shift])
    z = p.to_z(np.array([shift + 1.0, shift + 1.0]))
    f = p.value(z)
    # x1 enters Rosenbrock's function quadratically: its central difference is exact
    assert settled_steps(p, z, f, [1], np.full(2, 1e-9)) == {}
    assert list(settled_steps(p, z, f, [1, 0], np.full(2, 1e-9))) == [0]


def test_steps_stop_where_rounding_takes_over():
    """A constant of 1e9 rounds f to 1e-7: shorter steps stop before its noise."""
    shift = 1e4
    p = _problem(lambda x: float(rosen(np.asarray(x) - shift)) + 1e9, [shift, shift])
    z = p.to_z(np.array([shift + 1.001, shift + 1.002]))
    steps = settled_steps(p, z, p.value(z), [0], np.full(2, 1e-12))
    rounding = float(np.spacing(1e9))
    # (the step where truncation h**2 f''' / 6 meets rounding / h is about 1e-4)
    assert steps and 1e-6 < steps[0] * shift < 1e-2
    assert rounding / (steps[0] * shift) < 1.0


def test_steps_keep_above_the_spacing_of_x():
    shift = 1e12
    p = _problem(_shifted(shift), [shift, shift])
    z = p.to_z(np.array([shift + 1.0, shift + 1.0]))
    steps = settled_steps(p, z, p.value(z), [0], np.full(2, 1e-30))
    floor = MIN_STEP_SPACINGS * float(np.spacing(shift))
    assert steps[0] * shift >= floor * (1 - 1e-12)
    p.set_structure(0, steps[0])
    assert p.step(z, 0, 1e-8) * shift >= floor * (1 - 1e-12)  # (forward steps too)


def test_a_bad_point_in_the_stencil_keeps_the_step():
    shift = 1e4

    def fun(x):
        if x[0] < shift + 1.0 - 1e-3:
            return np.nan
        return float(rosen(np.asarray(x) - shift))

    p = _problem(fun, [shift, shift])
    z = p.to_z(np.array([shift + 1.0, shift + 1.0]))
    assert settled_steps(p, z, p.value(z), [0], np.full(2, 1e-9)) == {}


def test_the_directional_check_costs_two_evaluations():
    shift = 1e4
    guard = GuardedObjective(_shifted(shift))
    p = ScaledProblem(guard, np.full(2, shift))
    z = p.to_z(np.array([shift + 1.0, shift + 1.0]))
    f = p.value(z)
    g = p.finite_difference(z, f, "central")
    before = guard.nfev
    assert not agrees_with_shorter_steps(p, z, f, g, np.arange(2), np.full(2, 1e-7))
    assert guard.nfev - before == 2
    # where a tenth of the steps is in the truncation regime too, the exact gradient
    # disagrees as well: the check only says when the full search is worth its cost
    assert not agrees_with_shorter_steps(p, z, f, np.zeros(2), np.arange(2),
                                         np.full(2, 1e-7))
    near = _problem(rosen, [1.0, 1.0])  # (structure of the variables' own size)
    z = np.array([1.5, 2.0])
    assert agrees_with_shorter_steps(near, z, rosen(z), rosen_der(z), np.arange(2),
                                     np.full(2, 1e-7))


def test_restarts_keep_to_the_structure():
    z = np.array([1.0, 1.0])
    rng = np.random.default_rng(0)
    near = restart_point(z, [1e-3], 4, rng, structure=np.full(2, 1e-6))
    assert np.max(np.abs(near - z)) < 1e-5
    far = restart_point(z, [1e-3], 4, np.random.default_rng(0))
    assert np.max(np.abs(far - z)) > 1e-3


def test_taken_steps_are_those_f_sees():
    """At x ~ 1e6 with a scale that is not a power of two, z + h and z - h land on x's
    that are not symmetric about x: the step is measured in x."""
    scale = 1e6 + 1.0
    p = _problem(lambda x: 0.0, [scale])
    z = np.array([1.0 - 3e-7])
    up = z + 6.0 / scale
    taken = p.taken_step(up, z, 0)
    assert taken * scale == pytest.approx(6.0, rel=1e-9)
    assert taken == (up[0] * scale - z[0] * scale) / scale


def test_the_shifted_benchmark_counts_a_run():
    from benchmarks.minimize_shifted import run_case, shifted_problems, summarise

    problem = next(p for p in shifted_problems() if p.name == "rosenbrock")
    rows = [run_case(problem, 1e6, method) for method in ("robust", "BFGS")]
    robust, bfgs = rows
    assert robust["solved"] and robust["success"] and not robust["false_success"]
    assert robust["f"] <= problem.fstar + problem.tol and robust["shift"] == 1e6
    assert bfgs["nfev"] > 0 and bfgs["escaped"] is None
    summary = summarise(rows)
    assert summary["robust, shift 1e+06"]["solved"] == 1


def test_the_directional_check_holds_variables_at_a_bound():
    """A variable at its bound is not moved (its partial is held by the bound, not
    measured): with no other variable, there is nothing to disagree with."""
    shift = 1e4
    guard = GuardedObjective(_shifted(shift))
    p = ScaledProblem(guard, np.full(2, shift), lower=np.array([shift + 1.0, shift - 5]),
                      upper=np.array([shift + 5, shift + 5]))
    z = p.to_z(np.array([shift + 1.0, shift + 1.0]))
    f = p.value(z)
    before = guard.nfev
    assert agrees_with_shorter_steps(p, z, f, np.array([123.0, 0.0]), np.array([0]),
                                     np.full(2, 1e-7))
    assert guard.nfev == before  # (nothing evaluated)
    # the free variable is checked as without bounds: a wrong partial disagrees
    assert not agrees_with_shorter_steps(p, z, f, np.array([0.0, 5.0]), np.arange(2),
                                         np.full(2, 1e-7))
