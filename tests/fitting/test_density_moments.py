"""Raw moments by quadrature of the density (density_moments), and the method of
moments for a user's subclass that defines only its density."""

import numpy as np
import pytest
from scipy import integrate, special, stats

import robustfit
from robustfit.fitting.density_moments import density_raw_moments
from robustfit.fitting.moment_fit import raw_moments


class WeibullDensity(stats.rv_continuous):
    """Weibull written as a user would: the density alone (E[Y**k] = Γ(1 + k/c))."""

    def _pdf(self, x, c):
        return c * x ** (c - 1) * np.exp(-x ** c)


class TriangleDensity(stats.rv_continuous):
    """The symmetric triangle on [0, 1]: a kink at its peak, which the
    double-exponential rule does not resolve to 1e-10 (mean 1/2, E[Y**2] = 7/24)."""

    def _pdf(self, x):
        return np.where(x < 0.5, 4 * x, 4 - 4 * x)


class StudentDensity(stats.rv_continuous):
    """Student's t with 3 degrees of freedom through its density: E[Y**2] = 3, and
    E[Y**4] does not exist."""

    def _pdf(self, x):
        return stats.t.pdf(x, 3)


WEIBULL = WeibullDensity(a=0.0, name="weibull_density")


def _weibull_moments(c, count):
    return np.array([special.gamma(1 + k / c) for k in range(1, count + 1)])


@pytest.mark.parametrize("c", [0.3, 0.5, 1.0, 2.5, 10.0, 30.0, 100.0])
def test_a_user_density_gets_its_moments(c):
    # (0.3: mass down to 1e-30 of the end; 30 and 100: a peak narrower than the rule's
    # nodes, left to adaptive quadrature)
    np.testing.assert_allclose(density_raw_moments(WEIBULL, (c,), 4),
                               _weibull_moments(c, 4), rtol=1e-11)


def test_a_kinked_density_falls_back_to_adaptive_quadrature():
    m = density_raw_moments(TriangleDensity(a=0.0, b=1.0, name="triangle"), (), 2)
    np.testing.assert_allclose(m, [0.5, 7 / 24], rtol=1e-12)


def test_a_moment_that_does_not_exist_is_not_finite():
    m = density_raw_moments(StudentDensity(name="t3_density"), (), 4)
    assert m[0] == pytest.approx(0.0, abs=1e-12)
    assert m[1] == pytest.approx(3.0, rel=1e-9)
    assert not np.isfinite(m[3])


def test_moments_out_of_reach_count_as_unknown_not_wrong():
    # (Weibull 0.1: 8e-4 of its mass lies below 1e-31, and E[Y**4] = Γ(41); scipy's
    # route would take minutes of nested integration)
    m = density_raw_moments(WEIBULL, (0.1,), 4)
    assert np.all(np.isnan(m)) or np.allclose(m, _weibull_moments(0.1, 4), rtol=1e-8)


@pytest.mark.filterwarnings("ignore::scipy.integrate.IntegrationWarning")  # (reference)
@pytest.mark.parametrize(("name", "shapes"), [("recipinvgauss", (0.63,)),
                                              ("recipinvgauss", (0.05,)),
                                              ("vonmises_line", (3.99,)),
                                              ("vonmises_line", (0.01,))])
def test_scipy_families_without_moments_agree_with_tight_quadrature(name, shapes):
    dist = getattr(stats, name)
    a, b = dist.support(*shapes)
    reference = [integrate.quad(lambda y, k=k: y ** k * dist.pdf(y, *shapes), a, b,
                                epsabs=1e-14, epsrel=1e-13, limit=500)[0]
                 for k in range(1, 5)]
    np.testing.assert_allclose(density_raw_moments(dist, shapes, 4), reference,
                               rtol=1e-11, atol=1e-13)


def test_a_density_periodic_on_the_line_is_left_to_scipy():
    # vonmises: support the whole line, density periodic; scipy's moments are over one
    # period (from its own cdf), and 1 - 2 integrated over the line would diverge
    assert density_raw_moments(stats.vonmises, (3.99,), 2) is None


def test_families_with_moments_of_their_own_keep_them():
    assert density_raw_moments(stats.norm, (), 4) is None
    assert density_raw_moments(stats.gamma, (2.0,), 4) is None


def test_shapes_outside_the_domain_give_nan():
    assert np.all(np.isnan(density_raw_moments(stats.recipinvgauss, (-1.0,), 3)))


def test_raw_moments_apply_loc_and_scale_to_the_density_rule():
    got = raw_moments(WEIBULL, (2.5,), -3.0, 0.5, 3)
    y = _weibull_moments(2.5, 3)
    want = [-3 + 0.5 * y[0], 9 - 3 * y[0] + 0.25 * y[1],
            -27 + 3 * 9 * 0.5 * y[0] - 3 * 3 * 0.25 * y[1] + 0.125 * y[2]]
    np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)])
def test_method_of_moments_for_a_user_density_solves_its_equations(loc, scale):
    x = WEIBULL.rvs(2.5, size=300, random_state=np.random.default_rng(3))
    res = robustfit.fit(WEIBULL, loc + scale * x, method="MM")
    assert res.success, res.message
    c, fitted_loc, fitted_scale = res
    # the equations at unit scale, by the closed-form moments: mean, variance, skewness
    y = _weibull_moments(c, 3)
    mean = (fitted_loc - loc) / scale + (fitted_scale / scale) * y[0]
    variance = (fitted_scale / scale) ** 2 * (y[1] - y[0] ** 2)
    skew = (y[2] - 3 * y[0] * y[1] + 2 * y[0] ** 3) / (y[1] - y[0] ** 2) ** 1.5
    np.testing.assert_allclose([mean, variance, skew],
                               [x.mean(), x.var(), stats.skew(x)], rtol=1e-8)
