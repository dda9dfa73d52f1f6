"""Minima that only rounding separates from a certificate: a zero minimum at a huge x
(robustfit.optimize.newton._below_resolution), and a kink approached a little further
at every test (robustfit.optimize.minimize._Run._tests_at_best)."""

import numpy as np
import pytest

from robustfit import robust_minimize
from robustfit.optimize.newton import newton_decrement_test
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import ScaledProblem


def shifted_quadratic(x):
    return float(np.sum((x - 1e8) ** 2))


@pytest.mark.parametrize("x0", [[1e8 + 5, -1e8], [1e8 + 5, 1e8 - 3], [3e8, 0.5e8]])
def test_zero_minimum_at_1e8_is_certified(x0):
    # at x = 1e8 central differences leave a gradient of ~1e-8 (the spacing of 1e8 times
    # the curvature), which the relative test scales by |x| against f = 0; the Newton
    # step rounds back to the same point. It ran 1,050-1,300 evaluations through every
    # stage and ended success=False at the exact minimum
    res = robust_minimize(shifted_quadratic, x0, rng=0)
    assert res.success, res.message
    assert res.fun == 0.0 == shifted_quadratic(res.x)
    np.testing.assert_array_equal(res.x, [1e8, 1e8])
    assert res.nfev < 300


@pytest.mark.parametrize("offset", [3e-8, 1e-6, 1e-3])
def test_newton_test_does_not_pass_where_a_representable_point_is_lower(offset):
    # 1e8 + 3e-8 is two float64 spacings from the minimiser, which is representable:
    # the Newton point is that lower point, to be tested instead (f = 9e-16 and 1e-12
    # here, with a decrement that is all of f)
    p = ScaledProblem(GuardedObjective(shifted_quadratic), np.ones(2))
    z = np.array([1e8 + offset, 1e8])
    f = shifted_quadratic(z)
    g = p.finite_difference(z, f, "central")
    check = newton_decrement_test(p, z, f, g, gtol=1e-5)
    assert check is not None and not check.passed and check.improved


@pytest.mark.parametrize("seed", range(8))
def test_l1_norm_kink_is_certified_from_every_seed(seed):
    # the tests at the best point found f lower by 1e-5 of itself at each of their three
    # tries (steps towards the kink at 0) and so never computed the gradient-sampling
    # certificate: half the seeds ended success=False after 3,400-4,300 evaluations at f
    # between 1e-15 and 1e-31
    res = robust_minimize(lambda x: float(np.abs(x).sum()), [1.0, -2.0], rng=seed)
    assert res.success, res.message
    assert res.fun <= 1e-9
    assert "shortest convex combination" in res.message or res.fun == 0.0
    assert res.nfev < 2000
