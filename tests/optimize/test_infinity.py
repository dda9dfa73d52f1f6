"""Limits at infinity: a pass of the stopping tests where the variables ran off to a
valley's infimum is withdrawn (robustfit.optimize.infinity)."""

import numpy as np
import pytest

from robustfit import robust_minimize
from robustfit.optimize.infinity import RUN_OFF, falls_further_out, scale_free_run_off
from robustfit.optimize.minimize import EARLY_ITERATIONS
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import ScaledProblem
from tests.optimize.test_components import _run_for


def _ratio(x):
    # NIST's Hahn1 in miniature: as x0 and x1 grow together, the 1 stops counting and f
    # tends to 1 + 0 from the valley a = 2 (1 + b); the minimum (f = 0) is at b = 0.5
    a, b = x
    return float((a / (1.0 + b) - 2.0) ** 2 + (1.0 - 2.0 * b) ** 2 / (1.0 + b * b)) \
        if b > -0.9 else np.inf


FAR = np.array([2e13 + 2.0, 1e13])


def test_only_variables_far_beyond_their_start_where_f_ignores_their_size():
    calls = []

    def counted(x):
        calls.append(x.copy())
        return _ratio(x)

    f = _ratio(FAR)
    assert scale_free_run_off(counted, FAR, f, np.array([1.0, 1.0])) == [0, 1]
    assert len(calls) == 2  # halved and doubled
    # the same point, reached from a start of its own size: not run off, not evaluated
    calls.clear()
    assert scale_free_run_off(counted, FAR, f, FAR) == []
    assert calls == []
    # far out, but f depends on the size there: a minimiser, not a limit
    bowl = lambda x: float(np.sum((x - 3e9) ** 2))  # noqa: E731
    x = np.full(2, 3e9)
    assert 3e9 > RUN_OFF
    assert scale_free_run_off(bowl, x, 0.0, np.zeros(2)) == []
    # a NaN when scaled is no evidence either
    nan_when_doubled = lambda x: 1.0 if x[0] < 3e13 else np.nan  # noqa: E731
    assert scale_free_run_off(nan_when_doubled, FAR, 1.0, np.ones(2)) == []


def test_a_pass_at_a_limit_at_infinity_is_withdrawn():
    run = _run_for(_ratio, [1.0, 1.0])
    # (not a pass within the first iterations of a stage, which the Newton check
    # withdraws first)
    run.stage_iterations = late = EARLY_ITERATIONS + 1
    run.p.value(run.p.to_z(FAR))  # the best point seen: far out in the valley
    verdict = run._final_test()
    assert not verdict.passed
    assert verdict.test.startswith("limit at infinity: x[0, 1]")
    assert [e for e in run.log.as_list() if e["kind"] == "limit_at_infinity"]
    # from a start of that size the same point is a pass of the tests as before
    near = _run_for(_ratio, FAR)
    near.stage_iterations = late
    near.p.value(near.p.to_z(FAR))
    assert near._final_test().passed


def test_the_minimum_off_the_valley_is_still_found_and_certified():
    res = robust_minimize(_ratio, [1.0, 1.0], rng=0)
    assert res.success
    np.testing.assert_allclose(res.x, [3.0, 0.5], rtol=1e-6)


def _beale(x):
    return float((1.5 - x[0] + x[0] * x[1]) ** 2 + (2.25 - x[0] + x[0] * x[1] ** 2) ** 2
                 + (2.625 - x[0] + x[0] * x[1] ** 3) ** 2)


@pytest.mark.parametrize("x0", [(-1.5324145515081704, 2.5958583308556387),
                                (-2.6689028339146534, -2.1391799360233543),
                                (1.1114077998375036, 2.4901480290806814),
                                (-3.1452765262094027, -0.16008850620597137)])
def test_no_pass_on_a_valley_that_runs_off_to_infinity(x0):
    # Beale's function falls towards 0.452009 as x1 -> -inf (x2 -> 1): from these
    # starts (numpy's default_rng(1), uniform in [-4.5, 4.5]**2; the paths depend on
    # every digit) the runs were certified at x1 = -4.6e4 .. -6.8e4, f = 0.45203 to
    # 0.45204, by the Newton decrement or the small gradient (the minimum is 0 at
    # (3, 0.5))
    res = robust_minimize(_beale, np.array(x0), rng=0)
    assert not (res.success and res.fun > 1e-10), (res.x, res.fun, res.message)
    assert res.fun == _beale(res.x)


def test_a_valley_of_minima_that_ran_off_is_not_withdrawn():
    # an over-parametrised model: f = 0.5 all along x0 x1 = 1; from (1, 1) its
    # parameters ran to (1e5, 1e-5), a minimiser as good as any other on that curve
    fun = lambda x: float((x[0] * x[1] - 1.0) ** 2 + 0.5)  # noqa: E731
    p = ScaledProblem(GuardedObjective(fun), np.ones(2))
    z = np.array([1e5, 1e-5 * (1 + 1e-9)])
    assert falls_further_out(p, z, fun(z), np.ones(2), 1e-7) is None


def test_a_far_minimiser_is_certified():
    # Brown's badly scaled function: x* = (1e6, 2e-6) from (1, 1), x0 grows 1e6 times
    def brown(x):
        return float((x[0] - 1e6) ** 2 + (x[1] - 2e-6) ** 2 + (x[0] * x[1] - 2.0) ** 2)

    res = robust_minimize(brown, np.ones(2), rng=0)
    assert res.success
    np.testing.assert_allclose(res.x, [1e6, 2e-6], rtol=1e-6)
    assert not any(e["kind"] == "limit_at_infinity" for e in res.events)


def test_a_bounded_fit_whose_parameters_run_off_is_not_certified():
    # a Michaelis-Menten curve V s / (K + s), V, K >= 0, on data whose best fit is the
    # line through 0 (K -> inf, V / K its slope): certified at K = 1.1e11, f 2e-11 of
    # itself above the line's, while the checks of limits at infinity skipped bounded runs
    s = np.linspace(0.1, 2.0, 12)
    y = 0.8 * s * (1 - 0.01 * s) + 0.01 * np.random.default_rng(3).standard_normal(12)

    def fun(p):
        return float(np.sum((p[0] * s / (p[1] + s) - y) ** 2))

    line = float(np.sum((s @ y / (s @ s) * s - y) ** 2))
    res = robust_minimize(fun, np.ones(2), bounds=[(0, None), (0, None)], rng=0)
    assert not res.success
    assert "limit at infinity" in res.message
    assert res.fun <= line * (1 + 1e-12)
    assert res.x[1] > 1e6


def test_a_point_the_valley_probe_found_lower_is_tested_before_it_is_returned(monkeypatch):
    # a pass at x0 = 1e4 (1e4 times its start): doubling x0 finds f lower by 1e-10 of
    # itself, less than the tolerance and not lower again at 4e4, so the pass is not
    # withdrawn; the point returned is that lower one, and the tests are taken there
    def fun(x):
        return float(0.5 - 5e-11 * np.exp(-(((x[0] - 2e4) / 1e3) ** 2)) + (x[1] - 1.0) ** 2)

    run = _run_for(fun, [1.0, 1.0])
    run.stage_iterations = EARLY_ITERATIONS + 1
    run.p.value(run.p.to_z(np.array([1e4, 1.0])))
    tested = []
    original = type(run)._tests_at_best

    def counted(self):
        tested.append(self.guard.best_x.copy())
        return original(self)

    monkeypatch.setattr(type(run), "_tests_at_best", counted)
    verdict = run._final_test()
    assert run.guard.best_x[0] == 2e4
    assert verdict.passed
    assert [t[0] for t in tested] == [1e4, 2e4]
