"""Moments of families whose own ``_stats`` computes nothing itself (scipy's kappa3 and
kappa4: None for "integrate", NaN for "does not exist"): the quadrature rules serve
them, in milliseconds, where scipy's route integrated for seconds."""

import time
import warnings

import numpy as np
import pytest
from scipy import integrate, special, stats

import robustfit
from robustfit.fitting.density_moments import density_raw_moments
from robustfit.fitting.moment_fit import standard_raw_moments
from robustfit.fitting.quantile_moments import moments_left_to_integration


def _quad(dist, shapes, count):
    a, b = dist.support(*shapes)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", integrate.IntegrationWarning)
        return np.array([integrate.quad(lambda y, k=k: y ** k * dist.pdf(y, *shapes), a, b,
                                        epsabs=0, epsrel=1e-13, limit=500)[0]
                         for k in range(1, count + 1)])


@pytest.mark.parametrize("k", [-0.2, -0.05, -0.03, 0.05, 0.3])  # (|k| >= 0.03: below,
# genextreme's closed form, the reference, cancels as 1/k**4)
def test_kappa4_at_h_0_has_the_moments_of_the_generalised_extreme_value(k):
    # kappa4(0, k) is genextreme(k), whose moments scipy has in closed form
    got = standard_raw_moments(stats.kappa4, (0.0, k), 4)
    want = [stats.genextreme.moment(j, k) for j in range(1, 5)]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_kappa4_gumbel_member():
    got = standard_raw_moments(stats.kappa4, (0.0, 0.0), 2)
    gamma = np.euler_gamma
    np.testing.assert_allclose(got, [gamma, gamma ** 2 + np.pi ** 2 / 6], rtol=1e-11)


def test_moments_that_do_not_exist_are_nan():
    assert np.all(np.isnan(standard_raw_moments(stats.cauchy, (), 4)))
    assert np.all(np.isnan(standard_raw_moments(stats.skewcauchy, (0.5,), 4)))
    assert np.all(np.isnan(standard_raw_moments(stats.kappa3, (1.0,), 4)))
    # kappa3's tail falls as y**-(a + 1): moments of order below a exist
    got = standard_raw_moments(stats.kappa3, (2.5,), 4)
    np.testing.assert_allclose(got[:2], _quad(stats.kappa3, (2.5,), 2), rtol=1e-10)
    assert np.all(np.isnan(got[2:]))


@pytest.mark.parametrize(("shapes", "existing"), [((-0.1, 0.1), 4), ((-0.5, 0.3), 4),
                                                  ((0.0, -0.3), 3), ((-0.1, 0.0), 4),
                                                  ((0.2, -0.5), 1), ((-2.0, 0.4), 1)])
def test_kappa4_moments_that_exist_though_scipy_counts_them_missing(shapes, existing):
    # scipy's kappa4 counts int(-k/h) moments for h < 0 <= k (its lower tail falls as
    # |y|**(1/(h k)): 99 at h = -0.1, k = 0.1; all at k = 0, an exponential tail) and
    # those below int(-1/k) for k < 0 (two at k = -0.3, where three exist)
    with np.errstate(all="ignore"):
        told = np.isfinite(stats.kappa4.stats(*shapes, moments="mvsk"))
    assert moments_left_to_integration(stats.kappa4, shapes, 4) == existing
    got = standard_raw_moments(stats.kappa4, shapes, 4)
    np.testing.assert_allclose(got[:existing], _quad(stats.kappa4, shapes, existing),
                               rtol=1e-9)
    assert np.all(np.isnan(got[existing:]))
    if existing > 1:
        assert not told[existing - 1]  # (one scipy calls missing)


def test_moments_that_do_not_exist_stay_nan_where_float64_cannot_see_it():
    # alpha's mean is infinite at every shape, but at a = 8.27 its Cauchy-like tail
    # carries 1e-16 of the mass, beyond what a quantile function in float64 reaches
    assert np.all(np.isnan(standard_raw_moments(stats.alpha, (8.27,), 3)))


def test_kappa3_heavy_moment_by_adaptive_quadrature():
    # the third moment of kappa3(3.135) barely exists (Q**3 ~ (1-u)**-0.96 at 1)
    got = standard_raw_moments(stats.kappa3, (3.135,), 3)
    a = 3.135  # E[Y**r] = a**(r/a) B(r/a + 1/a, 1 - r/a) / a  (Y**a / a is a beta prime)
    want = [a ** (r / a) * special.beta((r + 1) / a, 1 - r / a) / a for r in (1, 2, 3)]
    np.testing.assert_allclose(got, want, rtol=1e-7)


def test_kappa4_fit_by_moments_is_quick():
    z = stats.kappa4.rvs(0.1, 0.1, size=1000, random_state=np.random.default_rng(1234))
    started = time.perf_counter()
    res = robustfit.fit(stats.kappa4, z, method="MM")
    assert time.perf_counter() - started < 60  # (past 120 s before)
    assert res.success
    model = standard_raw_moments(stats.kappa4, tuple(res[:2]), 4)
    assert np.all(np.isfinite(model))


def test_density_rule_finds_mass_far_from_the_support_end():
    # kappa4(0, 0.02) puts its mass, of width 1.3, 50 below the end of (-inf, 50): the
    # rule fitted to the support does not settle; split at the median it does.
    # (genextreme's closed form cancels as 1/c**4: at c = 0.001 it is 6e-5 off in the
    # fourth moment, where this rule agrees with 50-digit quadrature to 1e-15)
    from robustfit.fitting.density_moments import COARSE_STEP, _nodes, _rule
    from robustfit.fitting.quantile_moments import settled_rule
    shapes = (0.0, 0.02)
    support = tuple(float(v) for v in stats.kappa4.support(*shapes))
    assert settled_rule(stats.kappa4, lambda step: _rule(
        stats.kappa4, shapes, 4, step, lambda s: _nodes(*support, s)), COARSE_STEP,
        set()) is None
    got = density_raw_moments(stats.kappa4, shapes, 4)
    want = [stats.genextreme.moment(j, 0.02) for j in range(1, 5)]
    np.testing.assert_allclose(got, want, rtol=1e-9)


@pytest.mark.parametrize("chi", [0.1, 1.0, 8.0])
def test_argus_statistics_left_to_integration_come_from_the_rule(chi):
    # argus's _stats gives its mean and variance and leaves skewness and kurtosis
    got = standard_raw_moments(stats.argus, (chi,), 4)
    mean, variance = stats.argus._stats(chi)[:2]
    np.testing.assert_allclose(got[:2], [mean, variance + mean ** 2], rtol=1e-13)
    np.testing.assert_allclose(got[2:], _quad(stats.argus, (chi,), 4)[2:], rtol=1e-9)
