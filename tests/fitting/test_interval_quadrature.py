"""Interval probabilities by quadrature of the density agree with scipy's cdf where the
density is smooth across the interval, and are left to the cdf elsewhere."""

import numpy as np
import pytest
from scipy import stats

from robustfit.fitting.interval_quadrature import log_interval_probabilities
from robustfit.fitting.likelihood import CensoredNLL


def _exact(dist, shapes, lo, hi):
    # on whichever tail the difference does not cancel
    upper = lo > dist.median(*shapes)
    return np.where(upper, np.log(dist.sf(lo, *shapes) - dist.sf(hi, *shapes)),
                    np.log(dist.cdf(hi, *shapes) - dist.cdf(lo, *shapes)))


@pytest.mark.parametrize("dist, shapes, centres", [
    (stats.norm, (), [-3.0, -0.4, 0.0, 1.5, 6.0]),
    (stats.gamma, (2.5,), [0.3, 1.0, 2.5, 9.0]),
    (stats.beta, (2.3, 0.63), [0.05, 0.4, 0.9]),
    (stats.gausshyper, (13.76, 3.12, 2.51, 5.18), [0.3, 0.6, 0.85]),
])
def test_narrow_intervals_agree_with_the_cdf(dist, shapes, centres):
    c = np.asarray(centres)
    lo, hi = c - 0.01 * np.abs(c) - 1e-3, c + 0.01 * np.abs(c) + 1e-3
    values, ok = log_interval_probabilities(lambda u: dist.logpdf(u, *shapes), lo, hi,
                                            dist.support(*shapes))
    assert ok.all()
    np.testing.assert_allclose(values, _exact(dist, shapes, lo, hi), rtol=0, atol=1e-9)


def test_an_interval_far_in_the_tail_keeps_its_digits():
    # P(40 < Z <= 40.01) is 1e-351: the cdf's difference is 0, its log -inf; the
    # quadrature works on log-densities
    values, ok = log_interval_probabilities(stats.norm.logpdf, np.array([40.0]),
                                            np.array([40.01]), (-np.inf, np.inf))
    reference = stats.norm.logsf(40.0) + np.log1p(-np.exp(stats.norm.logsf(40.01)
                                                          - stats.norm.logsf(40.0)))
    assert ok[0] and values[0] == pytest.approx(reference, rel=1e-12)


def test_a_kink_inside_or_an_end_beyond_is_left_to_the_cdf():
    lo = np.array([-0.5, 0.5, -0.5, 0.2])
    hi = np.array([0.5, 0.6, 0.1, 0.3])
    # laplace's cusp at 0 lies inside the first and third intervals
    _, ok = log_interval_probabilities(stats.laplace.logpdf, lo, hi, (-np.inf, np.inf))
    assert ok.tolist() == [False, True, False, True]
    # on (0, inf) the first and third reach below the support
    _, ok = log_interval_probabilities(lambda u: stats.gamma.logpdf(u, 2.0), lo, hi,
                                       (0.0, np.inf))
    assert ok.tolist() == [False, True, False, True]


def test_a_wide_interval_over_a_singular_edge_is_left_to_the_cdf():
    # beta(0.5, 0.5) is infinite at 0: the two rules disagree on (0, 0.5)
    _, ok = log_interval_probabilities(lambda u: stats.beta.logpdf(u, 0.5, 0.5),
                                       np.array([0.0, 0.4]), np.array([0.5, 0.41]),
                                       (0.0, 1.0))
    assert ok.tolist() == [False, True]


def test_censored_likelihood_with_intervals_matches_scipy():
    # gausshyper has no accurate tails here, so its intervals go through the quadrature
    # (and a kinked one, of laplace, through the cdf); the NLL is scipy's own formula
    rng = np.random.default_rng(5)
    for dist, shapes in ((stats.gausshyper, (13.76, 3.12, 2.51, 5.18)),
                         (stats.laplace, ())):
        x = np.sort(dist.rvs(*shapes, size=60, random_state=rng))
        lo, hi = x[:10] - 0.01, x[:10] + 0.01
        if dist is stats.laplace:
            lo[0], hi[0] = -0.3, 0.3  # across the cusp
        exact = x[10:]
        empty = np.empty(0)
        nll = CensoredNLL(dist, exact, empty, empty, lo, hi)
        theta = np.array([*shapes, 0.01, 1.02])
        loc, scale = 0.01, 1.02
        expected = -(np.sum(dist.logpdf(exact, *shapes, loc=loc, scale=scale))
                     + np.sum(np.log(dist.cdf(hi, *shapes, loc=loc, scale=scale)
                                     - dist.cdf(lo, *shapes, loc=loc, scale=scale))))
        assert nll(theta) == pytest.approx(expected, rel=1e-10)
