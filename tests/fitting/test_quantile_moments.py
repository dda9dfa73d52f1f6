"""Raw moments by tanh-sinh quadrature of the quantile function (quantile_moments)."""

import time

import numpy as np
import pytest
from scipy import integrate, stats
from scipy.stats._distr_params import distcont

import robustfit
from robustfit.fitting.moment_fit import raw_moments
from robustfit.fitting.quantile_moments import quantile_raw_moments


def _served(name, shapes):
    with np.errstate(all="ignore"):
        moments = quantile_raw_moments(getattr(stats, name), shapes, 4)
    return moments is not None and np.isfinite(moments[0])


# (families whose moments exist and the rule settles for; cauchy's and the like are
# NaN: tests/fitting/test_deferred_moments.py)
SERVED = [(name, shapes) for name, shapes in distcont if _served(name, shapes)]


def _quad_moments(dist, shapes, count):
    """E[Y**k] by adaptive quadrature of y**k pdf, at a tolerance of 1e-13."""
    a, b = dist.support(*shapes)
    return np.array([integrate.quad(lambda y, k=k: y ** k * dist.pdf(y, *shapes), a, b,
                                    epsabs=0, epsrel=1e-13, limit=500)[0]
                     for k in range(1, 5)])


def test_the_families_scipy_integrates_are_served():
    names = {name for name, _ in SERVED}
    assert {"exponpow", "gompertz", "halfgennorm", "powernorm", "johnsonsb"} <= names
    assert len(names) >= 10


@pytest.mark.parametrize(("name", "shapes"), SERVED, ids=[n for n, _ in SERVED])
def test_moments_agree_with_tight_quadrature(name, shapes):
    dist = getattr(stats, name)
    with np.errstate(all="ignore"):
        reference = _quad_moments(dist, shapes, 4)
    rtol = 1e-8 if name == "kstwobign" else 1e-11  # (its pdf is a series: quad 1e-9)
    got = quantile_raw_moments(dist, shapes, 4)
    existing = int(np.sum(np.isfinite(got)))
    assert np.all(np.isfinite(got[:existing]))  # (NaN only beyond the moments that exist)
    np.testing.assert_allclose(got[:existing], reference[:existing], rtol=rtol)


def test_location_and_scale_are_applied_as_scipy_does():
    got = raw_moments(stats.gompertz, (0.94,), -3.0, 0.5, 4)
    want = [stats.gompertz.moment(k, 0.94, loc=-3.0, scale=0.5) for k in range(1, 5)]
    np.testing.assert_allclose(got, want, rtol=1e-9)


def test_families_with_their_own_moments_keep_them():
    assert quantile_raw_moments(stats.norm, (), 4) is None
    assert quantile_raw_moments(stats.gamma, (2.0,), 4) is None


def test_shapes_outside_the_domain_give_nan():
    assert np.all(np.isnan(quantile_raw_moments(stats.gompertz, (-1.0,), 3)))


class _ParetoQuantile(stats.rv_continuous):
    """A Pareto tail of index 3 through its quantile function alone: E[Y**3] and
    E[Y**4] are infinite."""

    def _pdf(self, y):
        return 3.0 * y ** -4.0

    def _cdf(self, y):
        return 1.0 - y ** -3.0

    def _ppf(self, u):
        return (1.0 - u) ** (-1.0 / 3.0)


def test_a_moment_that_does_not_exist_is_left_to_scipy():
    # (and so is one whose quantile function rounds to inf before its tail has
    # settled: (1 - u)**(-2/3) still carries 2e-6 at u = 1 - 1e-16)
    dist = _ParetoQuantile(a=1.0, name="pareto_quantile")
    assert quantile_raw_moments(dist, (), 4) is None
    assert quantile_raw_moments(dist, (), 2) is None
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(raw_moments(dist, (), 0.0, 1.0, 2), [1.5, 3.0],
                                   rtol=1e-6)


def test_a_divergent_moment_is_unknown_not_quadpacks_number():
    # QUADPACK "settles" the divergent ∫ (1 - u)**(-4/3) at -3; the adaptive fallback
    # checks that the integrand falls towards the ends first
    from robustfit.fitting.moment_fit import standard_raw_moments
    dist = _ParetoQuantile(a=1.0, name="pareto_quantile")
    got = standard_raw_moments(dist, (), 4)
    np.testing.assert_allclose(got[:2], [1.5, 3.0], rtol=1e-9)
    assert np.all(np.isnan(got[2:]))


def test_a_fit_by_moments_of_halfgennorm_takes_well_under_a_second():
    # scipy integrates its moments (0.1-0.3 s a set): the fit took 17-74 s
    x = stats.halfgennorm.rvs(0.675, size=300, random_state=np.random.default_rng(13))
    started = time.perf_counter()
    res = robustfit.fit(stats.halfgennorm, 1e-3 + 1e-9 * x, method="MM")
    assert time.perf_counter() - started < 5
    assert res.success
    fitted = stats.halfgennorm(*res)
    for k, value in enumerate(fitted.stats(moments="mv")):
        data = np.mean(1e-3 + 1e-9 * x) if k == 0 else np.var(1e-3 + 1e-9 * x)
        assert np.isclose(float(value), data, rtol=1e-6)



def test_a_slow_quantile_function_is_left_to_scipy_after_two_slow_tries(monkeypatch):
    from robustfit.fitting import quantile_moments

    monkeypatch.setattr(quantile_moments, "SLOW_RULE_S", -1.0)  # every rule is slow
    monkeypatch.setattr(quantile_moments, "_SLOW", set())
    monkeypatch.setattr(quantile_moments, "_STRIKES", {})
    assert quantile_raw_moments(stats.gompertz, (0.94,), 2) is None
    # (one slow rule may be a pause of the machine: a user's density had been left to
    # scipy's route, minutes a moment, for the rest of the process)
    assert type(stats.gompertz) not in quantile_moments._SLOW
    assert quantile_raw_moments(stats.gompertz, (0.94,), 2) is None
    assert type(stats.gompertz) in quantile_moments._SLOW


def test_cpu_time_decides_slowness_not_a_pause_of_the_machine(monkeypatch):
    import time

    from robustfit.fitting import quantile_moments

    monkeypatch.setattr(quantile_moments, "_SLOW", set())
    monkeypatch.setattr(quantile_moments, "_STRIKES", {})

    def paused_rule(step):
        time.sleep(2 * quantile_moments.SLOW_RULE_S)  # wall time passes, CPU time not
        return np.array([1.0]), np.array([1.0])

    for _ in range(3):
        assert quantile_moments.settled_rule(stats.gompertz, paused_rule, 0.125,
                                             quantile_moments._SLOW) is not None
    assert type(stats.gompertz) not in quantile_moments._SLOW


class _HoleyQuantile(stats.rv_continuous):
    """An exponential whose quantile function fails (NaN) on a band inside (0, 1)."""

    def _pdf(self, y):
        return np.exp(-y)

    def _cdf(self, y):
        return -np.expm1(-y)

    def _ppf(self, u):
        return np.where((u > 0.25) & (u < 0.45), np.nan, -np.log1p(-u))


def test_a_quantile_function_failing_inside_is_left_to_scipy():
    # dropping the band's nodes would bias every moment; only the tails may round away
    assert quantile_raw_moments(_HoleyQuantile(a=0.0, name="holey"), (), 2) is None
