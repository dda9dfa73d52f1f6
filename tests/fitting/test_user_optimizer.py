"""``optimizer=`` as ``dist.fit`` takes it: called from robustfit's optimum, its point
polished and kept only where lower, its failures recorded and never raised."""

import importlib

import numpy as np
import pytest
from scipy import optimize, stats

import robustfit
from robustfit.fitting.user_optimizer import USER_OPTIMIZER, run_user_optimizer

# (the package's ``fit`` attribute is the function; the module holds the budget)
fit_module = importlib.import_module("robustfit.fitting.fit")


@pytest.fixture(scope="module")
def gamma_sample():
    # at a magnitude where scipy's own fit from its default start fails
    return stats.gamma.rvs(2.5, loc=1e6, scale=1e4, size=500, random_state=1)


def _user_attempts(result):
    return [a for a in result.attempts if a.start == USER_OPTIMIZER]


def test_called_from_robustfits_optimum_and_recorded(gamma_sample):
    calls = []

    def powell(func, x0, args=(), disp=0):
        calls.append(np.array(x0))
        return optimize.fmin_powell(func, x0, args=args, disp=disp)

    plain = robustfit.fit(stats.gamma, gamma_sample)
    res = robustfit.fit(stats.gamma, gamma_sample, optimizer=powell)
    assert len(calls) == 1
    # started in standardised coordinates: every free parameter O(1), not O(1e6)
    assert np.all(np.abs(calls[0]) < 100)
    assert _user_attempts(res)
    assert res.success
    assert res.nll <= plain.nll + 1e-9 * abs(plain.nll)
    np.testing.assert_allclose(res, plain, rtol=1e-6)


def test_a_lower_point_is_polished_and_kept(gamma_sample, monkeypatch):
    # robustfit's own local runs starved of evaluations: the user's optimizer does the
    # work, and its point (polished) replaces the unconverged one
    monkeypatch.setattr(fit_module, "EVALS_PER_PARAMETER", 3)
    starved = robustfit.fit(stats.gamma, gamma_sample, fa=3.0)

    def nelder_mead(func, x0, args=(), disp=0):
        return optimize.minimize(func, x0, args=args, method="Nelder-Mead",
                                 options=dict(xatol=1e-10, fatol=1e-12, maxfev=4000))

    helped = robustfit.fit(stats.gamma, gamma_sample, fa=3.0, optimizer=nelder_mead)
    assert helped.start == USER_OPTIMIZER
    assert helped.nll < starved.nll - 1e-3
    # the MLE of loc and scale with the shape held at 3: scipy from a start beside it
    reference = stats.gamma.fit(gamma_sample, fa=3.0, loc=helped[1], scale=helped[2])
    ref_nll = -np.sum(stats.gamma.logpdf(gamma_sample, *reference))
    assert helped.nll <= ref_nll + 1e-6 * abs(ref_nll)


def test_an_optimizer_that_raises_is_recorded_not_raised(gamma_sample):
    def broken(func, x0, args=(), disp=0):
        raise RuntimeError("boom")

    plain = robustfit.fit(stats.gamma, gamma_sample)
    res = robustfit.fit(stats.gamma, gamma_sample, optimizer=broken)
    (attempt,) = _user_attempts(res)
    assert not attempt.success and "RuntimeError: boom" in attempt.message
    np.testing.assert_array_equal(res, plain)
    assert res.success


@pytest.mark.parametrize("returned", ["text", [1.0], [np.nan, 1.0, 1.0]])
def test_an_unusable_return_value_is_recorded(gamma_sample, returned):
    res = robustfit.fit(stats.gamma, gamma_sample,
                        optimizer=lambda func, x0, args=(), disp=0: returned)
    (attempt,) = _user_attempts(res)
    assert not attempt.success and "not 3 finite parameter values" in attempt.message
    assert res.success


def test_optimize_result_and_full_output_are_read():
    def objective(theta):
        return (theta[0] - 1.0) ** 2 + 3.0 * (theta[1] + 2.0) ** 2

    start = np.array([0.0, 0.0, 7.0])
    for optimizer in (
        lambda f, x0, args=(), disp=0: optimize.minimize(f, x0, method="BFGS"),
        lambda f, x0, args=(), disp=0: optimize.fmin(f, x0, disp=disp, full_output=True),
    ):
        found = run_user_optimizer(optimizer, start, objective, [0, 1])
        np.testing.assert_allclose(found.theta, [1.0, -2.0, 7.0], atol=1e-4)
        assert found.attempt.success and found.attempt.nfev > 0


def test_not_called_for_a_closed_form_mle():
    x = stats.norm.rvs(3.0, 2.0, size=200, random_state=2)

    def never(func, x0, args=(), disp=0):
        raise AssertionError("called")

    res = robustfit.fit(stats.norm, x, optimizer=never)
    assert "optimizer= not called" in res.attempts[0].message
    np.testing.assert_allclose(res, stats.norm.fit(x), rtol=1e-12)
    # nor on the path of a large sample whose MLE follows from a few sums
    big = stats.maxwell.rvs(scale=3.0, size=200_000, random_state=3)
    res = robustfit.fit(stats.maxwell, big, floc=0, optimizer=never)
    assert "optimizer= not called" in res.attempts[0].message
    assert res[1] == pytest.approx(np.sqrt(np.mean(big**2) / 3), rel=1e-12)


def test_method_of_moments_solves_its_equations_with_the_users_optimizer(gamma_sample):
    seen = []

    def fmin(func, x0, args=(), disp=0):
        out = optimize.fmin(func, x0, args=args, disp=disp)
        seen.append(func(out))
        return out

    plain = robustfit.fit(stats.gamma, gamma_sample, method="MM")
    res = robustfit.fit(stats.gamma, gamma_sample, method="MM", optimizer=fmin)
    # the moment equations put loc above the smallest observation, and the estimate is
    # their root there, as scipy's is: the user's optimizer sees the same equations
    assert res[1] > gamma_sample.min() and res.success and not np.isfinite(res.nll)
    assert "lie outside the support of this estimate" in res.message
    assert np.isfinite(seen[0])
    np.testing.assert_allclose(res, plain, rtol=1e-6)
    model = stats.gamma.stats(*res, moments="mvs")
    sample = [gamma_sample.mean(), gamma_sample.var(), stats.skew(gamma_sample)]
    np.testing.assert_allclose(model, sample, rtol=1e-9)


def test_a_non_callable_optimizer_is_refused():
    with pytest.raises(robustfit.RobustFitError, match="optimizer=3 is not callable"):
        robustfit.fit(stats.gamma, [1.0, 2.0, 3.0, 4.0], optimizer=3)
    with pytest.raises(ValueError):
        robustfit.fit(stats.gamma, [1.0, 2.0, 3.0, 4.0], optimizer="fmin")
