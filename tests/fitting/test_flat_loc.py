"""A location the likelihood leaves free between two observations is reported at the
centre of that stretch (robustfit.fitting.flat_loc): the sample median's convention,
the same point at every magnitude, with or without censoring."""

import numpy as np
import pytest
from scipy import stats
from scipy.stats._distr_params import distcont

import robustfit
from robustfit.fitting.flat_loc import centre_of_flat_stretch

MAGNITUDES = [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6), (0.0, 1e12)]


def _laplace_nll(z):
    return lambda t: -np.sum(stats.laplace.logpdf(z, t[0], t[1]))


def test_centre_of_a_flat_stretch_between_the_middle_observations():
    z = np.array([-2.0, -0.5, 0.25, 0.5, 3.0, 7.0])
    theta = centre_of_flat_stretch([0.3, 2.0], 0, z, _laplace_nll(z))
    np.testing.assert_array_equal(theta, [0.375, 2.0])


@pytest.mark.parametrize("theta, why", [
    ([0.25, 2.0], "on an observation (odd count: the kink is the maximum)"),
    ([-0.3, 2.0], "a stretch where the likelihood slopes"),
    ([9.0, 2.0], "beyond the observations"),
    ([-3.0, 2.0], "below the observations"),
])
def test_nothing_moves_where_the_likelihood_is_not_flat(theta, why):
    z = np.array([-2.0, -0.5, 0.25, 0.5, 3.0])
    assert centre_of_flat_stretch(theta, 0, z, _laplace_nll(z)) is None, why


def test_nothing_moves_on_a_smooth_likelihood_or_a_non_finite_one():
    z = np.array([-2.0, -0.5, 0.5, 3.0])
    normal = lambda t: -np.sum(stats.norm.logpdf(z, t[0], t[1]))  # noqa: E731
    assert centre_of_flat_stretch([0.25, 1.9], 0, z, normal) is None
    assert centre_of_flat_stretch([0.1, 1.0], 0, z, lambda t: np.nan) is None


@pytest.mark.parametrize("family", ["dweibull", "dgamma"])
@pytest.mark.parametrize("n", [10, 200, 1000])
@pytest.mark.parametrize("b, a", MAGNITUDES[:2])
def test_laplace_members_match_scipys_closed_form_laplace_fit(family, n, b, a):
    # dweibull at c = 1 and dgamma at a = 1 are the Laplace density; scipy's
    # laplace.fit is the closed form (median, mean absolute deviation from it). With an
    # even count the likelihood is flat between the middle two observations, where
    # BFGS stopped anywhere (loc up to 3e-4 scales from the median at n = 10)
    rng = np.random.default_rng(n)
    x = b + a * (2.0 + 3.0 * stats.laplace.rvs(size=n, random_state=rng))
    res = robustfit.fit(getattr(stats, family), x, f0=1)
    loc, scale = stats.laplace.fit(x)
    assert res.success, res.message
    shape, fitted_loc, fitted_scale = res
    assert shape == 1
    np.testing.assert_allclose([fitted_loc, fitted_scale], [loc, scale], rtol=0,
                               atol=1e-7 * scale)


def test_dgamma_acceptance_sample_same_point_at_every_magnitude_and_censored():
    # scipy's test_cont_fit sample of dgamma(1.10): loc is held off the observations'
    # spikes at a = 1 (robustfit.fitting.singular_loc), where n = 1000 leaves it free
    # between the middle two; it ended at 0.01086 and 0.01123 of the same stretch at
    # two magnitudes, and 26% away with 15 observations interval-censored by +-1%
    (shape,) = dict(distcont)["dgamma"]
    z = stats.dgamma.rvs(shape, size=1000, random_state=np.random.default_rng(1234))
    ordered = np.sort(z)
    centre = 0.5 * (ordered[499] + ordered[500])
    interval = np.column_stack((z, z))
    interval[:15, 0] *= 0.99
    interval[:15, 1] *= 1.01
    interval.sort(axis=1)
    standard = []
    for b, a in MAGNITUDES:
        est = np.array(tuple(robustfit.fit(stats.dgamma, b + a * z)), dtype=float)
        censored = np.array(tuple(robustfit.fit(
            stats.dgamma, stats.CensoredData(interval=b + a * interval))), dtype=float)
        np.testing.assert_allclose(censored, est, rtol=1e-4)  # scipy's check asks 5%
        standard.append([est[0], (est[1] - b) / a, est[2] / a])
    np.testing.assert_allclose(standard, [[1.0, centre, standard[0][2]]] * len(MAGNITUDES),
                               rtol=1e-8, atol=1e-12)
