"""Limits at infinity: a pass of the stopping tests where the variables ran off to a
valley's infimum is withdrawn (robustfit.optimize.infinity)."""

import numpy as np

from robustfit import robust_minimize
from robustfit.optimize.infinity import RUN_OFF, scale_free_run_off
from robustfit.optimize.minimize import EARLY_ITERATIONS
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
