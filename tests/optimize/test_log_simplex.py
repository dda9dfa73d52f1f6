"""The Nelder-Mead stage in log coordinates: which variables it logs, that it moves
them multiplicatively from the best point, and the problem it was built for."""

import numpy as np
import pytest

from benchmarks.minimize_problems import by_name
from robustfit import robust_minimize
from robustfit.optimize.fallbacks import (
    log_coordinates,
    moved_by_decades,
    run_log_nelder_mead,
)
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import ScaledProblem


def test_only_variables_that_kept_their_sign_are_logged():
    start = np.array([1e-13, -2.0, 3.0, 0.0, 5.0])
    origin = np.array([0.2, -1.0, -3.0, 1.0, 0.0])
    np.testing.assert_array_equal(log_coordinates(start, origin),
                                  [True, True, False, False, False])


def test_the_stage_needs_a_move_by_two_decades_of_a_logged_variable():
    origin = np.array([1.0, -1.0, 0.0])
    assert not moved_by_decades(np.array([0.02, -50.0, 1e6]), origin)  # (0 is never logged)
    assert moved_by_decades(np.array([0.01, -1.0, 0.0]), origin)
    assert moved_by_decades(np.array([1.0, -100.0, 0.0]), origin)
    assert not moved_by_decades(np.array([-1e-9, 1e9, 3.0]), origin)  # signs changed


def test_a_valley_straight_in_log_a_is_followed_over_decades():
    # a exp(-b t) fitted to a decay: the data fix log a - b t, so from a = 1e-6 the
    # valley runs six decades in a; the unlogged variable b moves linearly
    t = np.linspace(0.0, 2.0, 12)
    y = 3.0 * np.exp(-1.5 * t)

    def fun(x):
        return float(np.sum((x[0] * np.exp(-x[1] * t) - y) ** 2))

    guard = GuardedObjective(fun)
    p = ScaledProblem(guard, np.ones(2))
    start = np.array([1e-6, 0.5])
    run_log_nelder_mead(p, start, np.array([True, False]), maxfev=3000)
    np.testing.assert_allclose(guard.best_x, [3.0, 1.5], rtol=1e-5)
    assert guard.best_f <= 1e-9
    assert guard.nfev <= 3000 + 1


def test_a_minimum_three_decades_away_is_reached_through_nan_beyond_it():
    # f = -log x + x / 1000 (minimum at 1000), NaN beyond 5000: a simplex step that
    # overshoots is a bad point, the stage goes on
    def fun(x):
        return float(-np.log(x[0]) + 1e-3 * x[0]) if 0 < x[0] < 5000 else np.nan

    p = ScaledProblem(GuardedObjective(fun), np.ones(1))
    run_log_nelder_mead(p, np.array([1.0]), np.array([True]), maxfev=400)
    np.testing.assert_allclose(p.guard.best_x, [1000.0], rtol=1e-4)


@pytest.mark.slow
@pytest.mark.parametrize("seed", [0, 1])
def test_meyer_from_ten_times_its_start_is_solved(seed):
    # before the stage every seed ended at maxfev (20000) with Haswell kernels, f >= 5e4
    # against 87.95 (with AVX-512 ones an exploring run solved rng=0 by luck):
    # BFGS's line searches failed along the valley x1 -> 1e-13 (straight in log x1)
    p = by_name("meyer_x10")
    res = robust_minimize(p.fun, p.x0, jac=p.jac, rng=seed)
    assert res.success and p.solved(res.fun), (res.fun, res.message)
    stages = [e["stage"] for e in res.events if e["kind"] == "stage_end"]
    assert "Nelder-Mead in log coordinates" in stages
