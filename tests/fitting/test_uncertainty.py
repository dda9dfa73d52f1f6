"""Standard errors and intervals from the observed information, against closed forms."""

import numpy as np
import pytest
from scipy import stats

import robustfit


def test_normal_stderr_matches_closed_form():
    x = stats.norm.rvs(loc=-3e5, scale=40.0, size=3000, random_state=1)
    res = robustfit.fit(stats.norm, x)
    sigma = res[1]  # the MLE; information: n/sigma^2 for loc, 2n/sigma^2 for scale
    np.testing.assert_allclose(res.stderr["loc"], sigma / np.sqrt(x.size), rtol=1e-4)
    np.testing.assert_allclose(res.stderr["scale"], sigma / np.sqrt(2 * x.size), rtol=1e-4)
    cov = res.covariance()
    assert cov.message == "ok"
    assert abs(cov.matrix[0, 1]) < 1e-3 * np.sqrt(cov.matrix[0, 0] * cov.matrix[1, 1])


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1.0455e4, 1e9])
def test_maxwell_floc0_scale_stderr_at_any_magnitude(scale):
    x = stats.maxwell.rvs(scale=scale, size=2000, random_state=2)
    res = robustfit.fit(stats.maxwell, x, floc=0)
    assert set(res.stderr) == {"scale"}  # loc is fixed: no standard error
    # Fisher information of the Maxwell scale a: 6/a^2 per observation
    np.testing.assert_allclose(res.stderr["scale"], res[1] / np.sqrt(6 * x.size), rtol=1e-4)


def test_exponential_and_gamma_shape():
    x = stats.expon.rvs(scale=250.0, size=1000, random_state=3)
    res = robustfit.fit(stats.expon, x, floc=0)
    np.testing.assert_allclose(res.stderr["scale"], res[1] / np.sqrt(x.size), rtol=1e-4)
    g = stats.gamma.rvs(3.0, scale=2.0, size=4000, random_state=4)
    rg = robustfit.fit(stats.gamma, g, floc=0)
    a, s = rg[0], rg[2]
    # inverse of n * [[trigamma(a), 1/s], [1/s, a/s^2]]
    from scipy.special import polygamma

    info = g.size * np.array([[polygamma(1, a), 1 / s], [1 / s, a / s**2]])
    cov = np.linalg.inv(info)
    np.testing.assert_allclose(rg.stderr["a"], np.sqrt(cov[0, 0]), rtol=1e-3)
    np.testing.assert_allclose(rg.stderr["scale"], np.sqrt(cov[1, 1]), rtol=1e-3)


def test_stderr_is_equivariant():
    x = stats.lognorm.rvs(0.6, scale=3.0, size=1500, random_state=5)
    a = robustfit.fit(stats.lognorm, x, floc=0)
    b = robustfit.fit(stats.lognorm, 1000.0 * x, floc=0)
    np.testing.assert_allclose(b.stderr["s"], a.stderr["s"], rtol=1e-3)
    np.testing.assert_allclose(b.stderr["scale"], 1000.0 * a.stderr["scale"], rtol=1e-3)


def test_confint_covers_and_scale_interval_is_positive():
    x = stats.norm.rvs(loc=10.0, scale=0.01, size=30, random_state=6)
    res = robustfit.fit(stats.norm, x)
    ci = res.confint(0.99)
    assert ci["loc"][0] < res[0] < ci["loc"][1]
    assert 0 < ci["scale"][0] < res[1] < ci["scale"][1]
    narrow = res.confint(0.5)
    assert narrow["loc"][1] - narrow["loc"][0] < ci["loc"][1] - ci["loc"][0]
    with pytest.raises(robustfit.InvalidInputError, match="level"):
        res.confint(1.5)


def test_coverage_of_wald_interval_is_near_nominal():
    hits = 0
    for seed in range(200):
        x = stats.expon.rvs(scale=5.0, size=200, random_state=seed)
        lo, hi = robustfit.fit(stats.expon, x, floc=0).confint(0.9)["scale"]
        hits += lo < 5.0 < hi
    assert 0.84 <= hits / 200 <= 0.96


def test_non_regular_estimate_gets_nan_and_a_reason():
    x = stats.uniform.rvs(loc=2.0, scale=3.0, size=500, random_state=7)
    res = robustfit.fit(stats.uniform, x)
    assert all(np.isnan(v) for v in res.stderr.values())
    assert "bootstrap" in res.covariance().message
