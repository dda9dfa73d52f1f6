"""Log-cdf and log-sf without scipy's per-call median (robustfit.fitting.log_tails)."""

import warnings

import numpy as np
import pytest
from scipy import stats

import robustfit
from robustfit.fitting.likelihood import CensoredNLL
from robustfit.fitting.log_tails import median_free_log_tails
from tests.fitting.user_distributions import SkewNormal

POINTS = np.array([-40.0, -3.0, -0.2, 0.0, 0.4, 2.5, 12.0, 60.0])


@pytest.mark.parametrize("name, shapes", [
    ("norminvgauss", (1.5, 0.5)), ("exponnorm", (1.5,)), ("foldnorm", (1.9,)),
    ("geninvgauss", (2.3, 1.5)), ("vonmises_line", (3.99,)),
])
def test_the_same_values_as_scipys_generic_ones(name, shapes):
    dist = getattr(stats, name)
    logcdf, logsf = median_free_log_tails(dist)
    a, b = dist.support(*shapes)
    u = POINTS[(POINTS > a) & (POINTS < b)]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy's geninvgauss sf is NaN at 60
        expected = dist.logcdf(u, *shapes), dist.logsf(u, *shapes)
        got = logcdf(u, *shapes), logsf(u, *shapes)
    np.testing.assert_allclose(got[0], expected[0], rtol=1e-12)
    np.testing.assert_allclose(got[1], expected[1], rtol=1e-12)


@pytest.mark.parametrize("name", ["norm", "gamma", "skewnorm", "t"])
def test_not_used_where_the_family_has_its_own_ppf(name):
    assert median_free_log_tails(getattr(stats, name)) is None


def _counting_ppf(dist):
    calls = []
    generic = dist._ppf

    def ppf(*args):
        calls.append(args)
        return generic(*args)

    dist._ppf = ppf
    return calls


def _censored_reference(shapes_loc_scale, exact, left, right):
    law = stats.skewnorm(*shapes_loc_scale)
    return -float(np.sum(law.logpdf(exact)) + np.sum(law.logcdf(left))
                  + np.sum(law.logsf(right)))


def test_censored_likelihood_asks_for_no_median():
    dist = SkewNormal(name="no_median", shapes="a")
    calls = _counting_ppf(dist)
    x = np.sort(stats.skewnorm.rvs(-4, size=60, random_state=np.random.default_rng(3)))
    exact, left, right = x[8:-10], x[:8], x[-10:]
    nll = CensoredNLL(dist, exact, left, right, np.zeros(0), np.zeros(0))
    value = nll(np.array([-3.0, 0.1, 1.2]))
    assert value == pytest.approx(_censored_reference((-3.0, 0.1, 1.2), exact, left, right),
                                  rel=1e-12)
    assert not calls


def test_censored_fit_of_a_user_subclass_matches_scipys():
    # 32.6 s before (0.17 s a likelihood, for the median); scipy's own fit took 7 s
    dist = SkewNormal(name="no_median2", shapes="a")
    x = stats.skewnorm.rvs(-4, size=300, random_state=np.random.default_rng(3))
    data = stats.CensoredData(uncensored=x[:250], right=x[250:] + 0.5)
    res = robustfit.fit(dist, data)
    reference = stats.skewnorm.fit(data)
    assert res.success, res.message
    assert res.nll <= _censored_reference(reference, x[:250], [], x[250:] + 0.5) + 1e-6


class _CdfFallsAgain(stats.rv_continuous):
    """The standard normal with a cdf that is wrong far out (1e-20 beyond 30), as a
    numerical integral from -inf can be; its sf is right."""

    def _pdf(self, x):
        return stats.norm._pdf(x)

    def _cdf(self, x):
        return np.where(x < 30, stats.norm._cdf(x), 1e-20)

    def _sf(self, x):
        return stats.norm._sf(x)


def test_interval_probabilities_where_the_cdf_falls_again():
    from robustfit.fitting.likelihood import _log_interval_prob

    d = _CdfFallsAgain(name="cdf_falls_again")
    lo = np.array([-1.0, 0.5, 31.0, 33.0])
    hi = np.array([0.0, 1.0, 32.0, 34.0])
    got = _log_interval_prob(d, lo, hi, (), 0.0, 1.0)
    ref_lower = np.log(stats.norm.cdf(hi[:2]) - stats.norm.cdf(lo[:2]))
    s_lo, s_hi = stats.norm.logsf(lo[2:]), stats.norm.logsf(hi[2:])
    ref_upper = s_lo + np.log1p(-np.exp(s_hi - s_lo))
    np.testing.assert_allclose(got, np.concatenate([ref_lower, ref_upper]), rtol=1e-12)
    # one interval beyond the median with the cdf right there puts those above it on
    # the upper side too, without asking the sf everywhere
    got = _log_interval_prob(d, lo[1:], hi[1:], (), 0.0, 1.0)
    np.testing.assert_allclose(got[1:], ref_upper, rtol=1e-12)
