"""The method of moments' model moments: raw moments from scipy's closed-form
statistics, equal to scipy's ``moment`` where that is right, and fast where scipy
integrates."""

import numpy as np
import pytest
from scipy import stats

import robustfit
from robustfit.fitting.moment_fit import raw_moments


@pytest.mark.parametrize("dist, shapes", [
    (stats.norm, ()), (stats.gamma, (2.5,)), (stats.beta, (2.3, 0.6)),
    (stats.t, (7.0,)), (stats.johnsonsu, (2.55, 2.25)), (stats.weibull_min, (1.8,)),
    (stats.genextreme, (-0.1,)),
])
def test_raw_moments_agree_with_scipy(dist, shapes):
    count = len(shapes) + 2
    expected = [dist.moment(k, *shapes, loc=0.3, scale=1.7) for k in range(1, count + 1)]
    got = raw_moments(dist, shapes, 0.3, 1.7, count)
    # (johnsonsu's second and third by scipy's quadrature: 2e-9)
    np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-12)


def test_raw_moments_beyond_the_fourth_come_from_scipy():
    got = raw_moments(stats.norm, (), 0.0, 1.0, 6)
    np.testing.assert_allclose(got, [0.0, 1.0, 0.0, 3.0, 0.0, 15.0], atol=1e-12)


def test_an_infinite_moment_is_not_finite():
    # pareto with b = 2.6 has no third moment; scipy's moment(3) integrates to -22.3
    got = raw_moments(stats.pareto, (2.6,), 0.0, 1.0, 3)
    assert np.all(np.isfinite(got[:2])) and not np.isfinite(got[2])


def test_johnsonsu_by_the_method_of_moments_matches_the_data_moments():
    # scipy's moment(k) integrates ppf for k = 2, 3 here (40 ms a moment); the fit of
    # 1000 points ran past 300 s before the moments came from the closed-form stats.
    # (A sample whose skewness and kurtosis lie below the lognormal line, seed 1, has
    # no Johnson SU with its moments: the fit then ends with success=False.)
    x = stats.johnsonsu.rvs(2.55, 2.25, size=1000, random_state=np.random.default_rng(2))
    res = robustfit.fit(stats.johnsonsu, x, method="MM")
    assert res.success
    model = stats.johnsonsu.stats(*tuple(res), moments="mvsk")
    data = (np.mean(x), np.var(x), stats.skew(x), stats.kurtosis(x))
    np.testing.assert_allclose(model, data, rtol=1e-4)


def test_one_start_suffices_once_the_moment_equations_are_solved():
    # each further start costs what the first did (a minute on 300 points where scipy
    # integrates the moments, argus and halfgennorm); once the weighted moment errors
    # are at MOMENTS_MATCHED no start can do better
    from robustfit.fitting.fit import MOMENTS_MATCHED

    x = stats.gamma.rvs(2.5, loc=3.0, scale=2.0, size=500, random_state=4)
    res = robustfit.fit(stats.gamma, x, method="MM")
    runs = [a for a in res.attempts if a.stage == "optimize"]
    assert len(runs) == 1 and runs[0].success and runs[0].nll <= MOMENTS_MATCHED
    model = stats.gamma.stats(*res, moments="mvs")
    np.testing.assert_allclose(model, [x.mean(), x.var(), stats.skew(x)], rtol=1e-6)


@pytest.mark.parametrize("dist, shapes", [(stats.dweibull, (2.07,)), (stats.gennorm, (1.3,)),
                                          (stats.dgamma, (1.1,))])
def test_symmetric_families_match_the_fourth_moment_not_the_third(dist, shapes):
    # symmetric about loc at every shape: no member has the sample's skewness, and the
    # first three moments (scipy's generic choice) have no root; mean, variance and the
    # fourth moment do
    x = 1e-3 + 1e-9 * dist.rvs(*shapes, size=300, random_state=13)
    res = robustfit.fit(dist, x, method="MM")
    assert res.success, res.message
    model = dist(*res)
    np.testing.assert_allclose([model.mean(), model.var()], [x.mean(), x.var()], rtol=1e-8)
    assert model.stats(moments="k") == pytest.approx(stats.kurtosis(x), rel=1e-6)
