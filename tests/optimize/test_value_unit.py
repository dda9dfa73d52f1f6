"""Small objectives: the stopping tests measure f in a unit of the problem's own.

With an absolute floor (``max(1, |f|)``) an objective multiplied by 1e-8 was called
stationary at its start; these tests pin that f's scale does not decide success.
"""

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy.optimize import rosen, rosen_der

from robustfit import robust_minimize
from robustfit.optimize.events import EventLog
from robustfit.optimize.objective import GuardedObjective


@pytest.mark.parametrize("factor", [1e-4, 1e-8, 1e-12, 1e-30])
@pytest.mark.parametrize("analytic", [False, True])
def test_scaled_rosenbrock_is_solved_not_stopped_at_the_start(factor, analytic):
    jac = (lambda x: factor * rosen_der(x)) if analytic else None
    res = robust_minimize(lambda x: factor * rosen(x), [-1.2, 1.0], jac=jac, rng=0)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, [1.0, 1.0], atol=1e-4)
    assert res.fun == factor * rosen(res.x)  # fun is f(x) in the user's units, exactly
    assert res.best_history[0][1] == factor * rosen(np.array([-1.2, 1.0]))


@settings(max_examples=15, deadline=None, derandomize=True)  # (as the fitting properties
# are: CI's draws the same each run; a failing draw found by chance is pinned below)
@given(log_factor=st.floats(-20, 0), shift=st.floats(-3, 3))
@example(log_factor=-0.0625, shift=0.0)  # a coordinate of the minimiser at 0: the 1%
# probe of a negligible pass lowered f = 7e-44 by 2% there (now not tried below eps**2)
def test_success_does_not_depend_on_the_unit_of_f(log_factor, shift):
    """A quadratic bowl times any factor: success only at the minimum."""
    centre = np.array([shift, 2.0, -1.0])
    weights = np.array([1.0, 30.0, 0.1])
    factor = 10.0 ** log_factor

    def f(x):
        d = np.asarray(x) - centre
        return factor * float(d @ (weights * d))

    x0 = np.array([4.0, -3.0, 5.0])
    res = robust_minimize(f, x0, rng=0)
    assert res.success, res.message
    assert res.fun <= 1e-9 * f(x0)  # (f* = 0: the same relative accuracy at any factor)
    np.testing.assert_allclose(res.x, centre, atol=1e-3)


# found by hypothesis in the thirteenth session: at f = 3.7e-13 the 1% probe withdraws
# the pass, the unit shrinks to f, and at the minimum (f = 8e-62) no test passed again,
# as the central difference in the coordinate at 2 read 5.6e-5 where the gradient is 0:
# the rounding of 2 +- h made the two steps uneven by an ulp (see optimize.stencils)
def test_a_bowl_times_10_to_the_minus_2_5_is_certified():
    centre = np.array([0.0, 2.0, -1.0])
    weights = np.array([1.0, 30.0, 0.1])

    def f(x):
        d = np.asarray(x) - centre
        return 10.0 ** -2.5 * float(d @ (weights * d))

    res = robust_minimize(f, np.array([4.0, -3.0, 5.0]), rng=0)
    assert res.fun < 1e-30
    assert res.success, res.message


def test_events_report_values_in_the_users_units():
    factor = 1e-9
    res = robust_minimize(lambda x: factor * rosen(x), [-1.2, 1.0], rng=0)
    units = [e for e in res.events if e["kind"] == "value_unit"]
    assert len(units) == 1 and 0 < units[0]["unit"] < 1
    ends = [e for e in res.events if e["kind"] == "stage_end"]
    assert ends and ends[-1]["f_best"] == pytest.approx(res.fun, rel=1e-12)
    # each records the evaluations spent so far, in order, within the run's total
    spent = [e["nfev"] for e in ends]
    assert spent == sorted(spent) and 0 < spent[-1] <= res.nfev


def test_a_start_at_a_zero_of_f_keeps_the_unit_one():
    # f is 0 at the start to rounding: its size is no scale (and the forward
    # differences there are truncation error), so no unit is set
    res = robust_minimize(lambda x: float(np.sum((x - 1.0) ** 2)), [1.0, 1.0], rng=0)
    assert res.success
    assert not [e for e in res.events if e["kind"] == "value_unit"]


def test_guard_unit_divides_values_and_gradients_but_not_the_record():
    guard = GuardedObjective(lambda x: (4.0 * float(x @ x), 8.0 * x), returns_grad=True)
    assert guard.evaluate(np.array([1.0, 1.0]))[0] == 8.0
    guard.set_unit(4.0)
    assert guard.best_f == 2.0 and guard.best_value == 8.0
    f, g = guard.evaluate(np.array([0.5, 0.0]))
    assert f == 0.25 and np.array_equal(g, [1.0, 0.0])
    assert guard.best_value == 1.0 and np.array_equal(guard.best_grad, [4.0, 0.0])
    assert guard.history == [(1, 8.0), (2, 1.0)]
    with pytest.raises(ValueError, match="unit"):
        guard.set_unit(0.0)


def test_event_log_converts_value_keys_only():
    log = EventLog()
    log.value_unit = 1e-3
    log.add("s", "stage_end", f_best=2.0, f_start=4.0, measure=5.0)
    (event,) = log.as_list()
    assert event["f_best"] == 2e-3 and event["f_start"] == 4e-3 and event["measure"] == 5.0


@pytest.mark.parametrize("magnitude", [1e-8, 1e-10])
def test_a_fit_to_tiny_data_from_a_far_start_reaches_its_parameters(magnitude):
    # amplitude * exp(-rate t) fitted to data of 1e-8 from (1, 1): f fell from 4 to
    # 4e-16, zero in the start's unit, and success was claimed with the amplitude 60%
    # high and the rate doubled (the minimum is 3.5e-19); a 1% move of a variable
    # lowered f by a third there, and such a pass is now withdrawn
    from scipy.optimize import least_squares

    t = np.linspace(0, 5, 40)
    rng = np.random.default_rng(0)
    y = magnitude * (2 * np.exp(-0.7 * t) + 1e-2 * rng.standard_normal(t.size))

    def residuals(p):
        return y - p[0] * np.exp(-p[1] * t)

    ref = least_squares(residuals, [magnitude, 1.0], xtol=1e-15, ftol=1e-15, gtol=1e-15)
    res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), [1.0, 1.0], rng=0)
    assert not res.success or res.fun <= 1.001 * np.sum(ref.fun ** 2)
    assert res.success
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-5)


def _decay_with_offset(seed: int):
    """Residuals of ``amplitude * exp(-rate t) + offset`` against data of 1e-7."""
    t = np.linspace(0, 10, 50)
    rng = np.random.default_rng(seed)
    y = 1e-7 * (1.5 * np.exp(-0.4 * t) + 0.3) + 1e-10 * rng.standard_normal(t.size)

    def residuals(p):
        return y - (p[0] * np.exp(-p[1] * t) + p[2])

    return residuals


def test_a_model_step_that_lowers_f_by_a_seventh_is_not_a_zero_approached():
    # amplitude * exp(-rate t) + offset on data of 1e-7 from (1, 1, 0), no bounds: at RSS
    # 2.1e-14 (zero in the start's unit) a 1% move lowered f, and BFGS's model step,
    # negligible against the start's sizes, lowered it by a seventh to 1.8e-14; the
    # pass stood with the rate at 1.26 (the minimum, 4.2e-19, has it at 0.40). Near a
    # zero of f the model's point is decades lower; here it was not
    from scipy.optimize import least_squares

    residuals = _decay_with_offset(seed=1)
    ref = least_squares(residuals, [1e-7, 1.0, 0.0], x_scale="jac", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15)
    res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), [1.0, 1.0, 0.0],
                          rng=0)
    assert not res.success or res.fun <= 1.001 * np.sum(ref.fun ** 2), res.fun
    assert res.success
    assert res.x[1] == pytest.approx(ref.x[1], rel=1e-4)


def test_a_bounded_fit_to_tiny_data_gets_its_second_order_check():
    # amplitude * exp(-rate t) + offset on data of 1e-7, amplitude >= 0: the amplitude
    # sat at 1.7e-7 (started at 1), within the Hessian's step of its bound at 0, so the
    # Newton check was not tried and success was claimed at 4e4 times the minimum with
    # the rate at 1.23 against 0.40; steps of the variable's own size fit inside
    from scipy.optimize import least_squares

    residuals = _decay_with_offset(seed=5)
    bounds = [(0, np.inf), (0, 10), (-1, 1)]
    lo, hi = np.array(bounds).T
    ref = least_squares(residuals, [1.0, 1.0, 0.0], bounds=(lo, hi), x_scale="jac",
                        xtol=1e-15, ftol=1e-15, gtol=1e-15)
    f_ref = float(np.sum(ref.fun ** 2))
    res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), [1.0, 1.0, 0.0],
                          bounds=bounds, rng=0)
    assert not res.success or res.fun <= f_ref * (1 + 1e-3), (res.fun, f_ref, res.message)
    assert res.fun <= f_ref * (1 + 1e-3)


@pytest.mark.parametrize("scale", [1.0, 10.0])
def test_a_minimiser_coordinate_at_zero_keeps_the_first_pass(scale):
    # MGH's helical valley, minimiser (1, 0, 0): the first descent reaches f = 2e-16,
    # negligible in the start's unit, where moving x2 or x3 by 1% of itself (towards 0)
    # lowers f by 1% to 6%, as a 1% move of the tiny fit's amplitude above does (3%);
    # the Newton point, 2e-9 away here and half the rate away there, tells them apart.
    # Before, the pass was withdrawn and four restarts, gradient sampling, Nelder-Mead
    # and Powell followed (1,110 evaluations, where the first descent took 164)
    from benchmarks.minimize_problems import catalogue

    name = "helical_valley" if scale == 1.0 else "helical_valley_x10"
    (problem,) = [p for p in catalogue() if p.name == name]
    res = robust_minimize(problem.fun, problem.x0, rng=0)
    assert res.success, res.message
    assert res.restarts == 0
    assert res.fun <= 1e-12
    np.testing.assert_allclose(res.x, [1.0, 0.0, 0.0], atol=1e-6)


@pytest.mark.parametrize("bounded", [False, True])
def test_a_saturating_fit_to_tiny_data_does_not_stop_on_its_linear_asymptote(bounded):
    # Michaelis-Menten v = a s / (b + s) on data of 1e-9 from (1, 1e-6): the first
    # descent ran both parameters 1e4 times too large, where b >> s and the model is
    # the line (a / b) s, and success was claimed at RSS 3.2e-17 against 9.2e-21 (a 1%
    # move changed f by 0.4%: zero in the start's unit). Such a withheld pass now sets
    # the unit to f's own size, and the restarts go on down the valley
    from scipy.optimize import least_squares

    s = np.logspace(-10, -6, 25)
    rng = np.random.default_rng(1)
    v = 1e-9 * (3.0 * s / (2e-8 + s)) * (1 + 0.02 * rng.standard_normal(s.size))

    def residuals(p):
        return v - p[0] * s / (p[1] + s)

    ref = least_squares(residuals, [1e-9, 1e-8], x_scale="jac", xtol=1e-15, ftol=1e-15,
                        gtol=1e-15)
    f_ref = float(np.sum(ref.fun ** 2))
    bounds = [(0, np.inf), (0, np.inf)] if bounded else None
    res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), [1.0, 1e-6],
                          bounds=bounds, rng=0)
    assert not res.success or res.fun <= f_ref * (1 + 1e-6), (res.fun, f_ref, res.message)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, ref.x, rtol=1e-3)
    shrunk = [e for e in res.events if e["kind"] == "value_unit" and e["stage"] != "start"]
    assert shrunk and shrunk[0]["unit"] < 1e-12


def test_a_sum_of_two_exponentials_on_tiny_data_claims_nothing_short_of_its_minimum():
    # two decays on data of 1e-12 from ones (both terms identical there): the first
    # descent stopped at RSS 7e-17 (the trivial fit x = 0 gives 3e-23) with both
    # amplitudes at -3.7e-9, zero in the start's unit; moving an amplitude 1% towards
    # 0 lowered f by just under 1%, so the pass stood. A 1% move that lowers f by
    # 0.1% now withdraws it
    from scipy.optimize import least_squares

    t = np.linspace(0.1, 10, 30)
    rng = np.random.default_rng(0)
    y = 1e-12 * (2 * np.exp(-1.5 * t) + np.exp(-0.2 * t)) * (1 + 0.03 * rng.standard_normal(30))

    def residuals(p):
        return y - (p[0] * np.exp(-p[1] * t) + p[2] * np.exp(-p[3] * t))

    ref = least_squares(residuals, [2e-12, 1.5, 1e-12, 0.2], x_scale="jac", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15)
    f_ref = float(np.sum(ref.fun ** 2))
    with np.errstate(all="ignore"):
        res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), np.ones(4),
                              rng=0, maxfev=20000)
    assert not res.success or res.fun <= f_ref * (1 + 1e-6), (res.fun, f_ref, res.message)
    assert res.fun < 1e-24  # (far below the first descent's 7e-17)


@pytest.mark.parametrize("model", ["gompertz", "logistic"])
def test_a_fit_whose_amplitude_shrank_far_below_its_start_claims_nothing_short(model):
    # curves on data of 1e-12 over times of 1e2 to 1e4, from ones: exp(-t) underflows
    # there, so the model is its amplitude, and the first descent ran the amplitude
    # from 1 to 1e-16 (Gompertz, RSS 1.7e-22) or to exactly 0 (logistic, 3.9e-22),
    # where the best constant, at 2e-12 to 3e-12, gives 3e-23 and 1.2e-22. f was
    # negligible in the start's unit and a 1% move of the amplitude changed it by a
    # millionth, so the pass stood. The parabola through those moves now points at
    # 2e-12, and the variables that shrank get steps of their own size
    from scipy.optimize import least_squares

    t = np.linspace(0.1, 10, 30)
    rng = np.random.default_rng(0)
    noise = 1 + 0.03 * rng.standard_normal(30)
    if model == "gompertz":
        def curve(p, t):
            return p[0] * np.exp(-p[1] * np.exp(-p[2] * t))
        y = 1e-12 * curve([3.0, 4.0, 0.7], t) * noise
    else:
        def curve(p, t):
            return p[0] / (1 + np.exp(-p[1] * (t - p[2])))
        y = 1e-12 * curve([5.0, 1.2, 4.0], t) * noise

    def residuals(p):
        with np.errstate(all="ignore"):
            return y - curve(p, 1e3 * t)

    res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), np.ones(3), rng=0,
                          maxfev=20000)
    refs = [least_squares(residuals, start, x_scale="jac", xtol=1e-15, ftol=1e-15,
                          gtol=1e-15) for start in (np.ones(3), res.x)]
    f_ref = min(float(np.sum(r.fun ** 2)) for r in refs)
    assert not res.success or res.fun <= f_ref * (1 + 1e-6), (res.fun, f_ref, res.message)
    assert res.fun <= 0.5 * float(np.sum(y ** 2))  # (not the trivial fit, amplitude 0)


@pytest.mark.parametrize("analytic", [False, True])
def test_zero_minimum_beyond_the_hessian_dimension_is_certified(analytic):
    """Andrei's perturbed quadratic (30 variables, minimum 0 at 0, from 0.5): f becomes
    negligible in the start's unit, and a 1% move of a variable lowers it, as at any
    point short of 0. Beyond MAX_DIMENSION no finite-difference Hessian says how far
    the minimum is; BFGS's own model does. Without it the pass was withdrawn and eight
    more stages took 98,000 evaluations without passing again."""
    weights = np.arange(1.0, 31.0)

    def f(x):
        return float(np.sum(weights * x ** 2) + np.sum(x) ** 2 / 100)

    def grad(x):
        return 2 * weights * x + np.sum(x) / 50

    res = robust_minimize(f, np.full(30, 0.5), jac=grad if analytic else None, rng=0)
    assert res.success, res.message
    assert res.fun <= 1e-12
    assert res.nfev <= 4000  # scipy's BFGS with differences: 1364
