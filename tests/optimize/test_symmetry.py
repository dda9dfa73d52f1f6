"""Saddles kept by a symmetry of the start: never certified (see robustfit.optimize.symmetry)."""

import numpy as np
import pytest
from scipy.optimize import least_squares, rosen, rosen_der

from robustfit import robust_minimize
from robustfit.optimize.symmetry import (
    MAX_DIRECTIONS,
    lower_across_symmetry,
    symmetry_breaking_steps,
)

T = np.linspace(0.1, 10, 30)


def _two_decays(magnitude, time_scale):
    rng = np.random.default_rng(0)
    y = magnitude * (2 * np.exp(-1.5 * T) + np.exp(-0.2 * T)) * (
        1 + 0.03 * rng.standard_normal(T.size))
    t = time_scale * T

    def residuals(p):
        with np.errstate(all="ignore"):
            return y - (p[0] * np.exp(-p[1] * t) + p[2] * np.exp(-p[3] * t))

    return residuals


@pytest.mark.parametrize("magnitude, time_scale", [(1.0, 1.0), (1.0, 1e-3), (1e6, 1.0)])
def test_two_decays_from_ones_leave_their_symmetric_saddle(magnitude, time_scale):
    # from ones both terms are the same function, their partials equal, and BFGS keeps
    # them equal: it certified the best single exponential (RSS 0.74 at magnitude 1),
    # a saddle 50 times above the two-term minimum that LM finds from there
    residuals = _two_decays(magnitude, time_scale)
    res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), np.ones(4), rng=0)
    ref = least_squares(residuals, res.x, x_scale="jac", xtol=1e-15, ftol=1e-15,
                        gtol=1e-15)
    f_ref = float(np.sum(ref.fun ** 2))
    assert not res.success or res.fun <= f_ref * (1 + 1e-6), (res.fun, f_ref, res.message)
    assert res.success, res.message
    assert abs(res.x[1] - res.x[3]) > 0.1 * max(abs(res.x[1]), abs(res.x[3]))
    assert any(e["kind"] == "symmetric_saddle" for e in res.events)


def test_a_variable_started_at_zero_leaves_the_top_of_a_double_well():
    # f is even in x0, which starts at 0: its partial is 0 all the way (with the exact
    # gradient; forward differences would break the symmetry), and the run minimised
    # Rosenbrock's function in (x1, x2) alone, to the saddle (0, 1, 1), f = 1; the
    # minima are (+-1, 1, 1)
    def f(x):
        return float((x[0] ** 2 - 1) ** 2 + rosen(x[1:]))

    def grad(x):
        return np.concatenate([[4 * x[0] * (x[0] ** 2 - 1)], rosen_der(x[1:])])

    res = robust_minimize(f, [0.0, -1.2, 1.0], jac=grad, rng=0)
    assert res.success, res.message
    assert res.fun < 1e-10
    np.testing.assert_allclose(np.abs(res.x), 1.0, atol=1e-5)


def test_a_symmetric_minimum_keeps_its_pass_at_the_probe_cost():
    # ties that hold at the minimum itself: the moves raise f, and the pass stands
    def f(x):
        x = np.asarray(x)
        return float(np.sum((x[1:] - x[:-1] ** 2) ** 2) * 10 + np.sum((1 - x) ** 2))

    res = robust_minimize(f, [0.5, 0.5, 0.5, 0.5], rng=0)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, 1.0, atol=1e-5)
    assert not any(e["kind"] == "symmetric_saddle" for e in res.events)


def test_steps_pair_only_variables_that_started_equal_and_still_are():
    x0 = np.array([1.0, 1.0, 1.0, 2.0, 2.0, 0.0])
    x = np.array([3.0, 3.0 + 1e-9, 5.0, 4.0, 4.5, 0.0])
    steps = symmetry_breaking_steps(x0, x, np.ones(6))
    assert [pair for pair, _ in steps] == [(0, 1), (5,)]
    pair_step = steps[0][1]
    assert pair_step[0] == -pair_step[1] > 0 and not np.any(pair_step[2:])
    assert symmetry_breaking_steps(np.arange(6.0) + 1, x, np.ones(6)) == []


def test_steps_are_capped():
    x = np.ones(200)
    assert len(symmetry_breaking_steps(x, x, x)) == MAX_DIRECTIONS


def test_nothing_lower_where_every_move_raises_f():
    def bowl(x):
        return float(np.sum((np.asarray(x) - 1) ** 2))

    x = np.ones(3)
    assert lower_across_symmetry(bowl, x, bowl(x), symmetry_breaking_steps(x, x, x)) is None
    # a NaN at a probed point is not lower
    nan_there = lambda x: float("nan") if x[0] > 1 else bowl(x)  # noqa: E731
    assert lower_across_symmetry(nan_there, x, 0.0, symmetry_breaking_steps(x, x, x)) is None


def test_a_tie_counts_only_where_the_first_iterate_had_it_too():
    # variables 0 and 1 kept their tie all along (a symmetry); 2 and 3 met by chance
    x0 = np.zeros(5)
    earlier = np.array([0.3, 0.3, 0.1, 0.7, 0.0])
    x = np.array([0.5, 0.5, 0.4, 0.4 + 1e-9, 0.0])
    assert [pair for pair, _ in symmetry_breaking_steps(x0, x, np.ones(5))] == [
        (2, 3), (0, 1), (4,)]  # (pairs in the order of their values)
    assert [pair for pair, _ in symmetry_breaking_steps(x0, x, np.ones(5), earlier)] == [
        (0, 1), (4,)]
    moved = earlier.copy()
    moved[4] = 0.2  # (left 0 and came back)
    assert [pair for pair, _ in symmetry_breaking_steps(x0, x, np.ones(5), moved)] == [(0, 1)]
