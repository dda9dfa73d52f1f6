"""Repeated censored values are evaluated once and counted (CensoredNLL)."""

import numpy as np
from scipy import stats

import robustfit
from robustfit.fitting.likelihood import CensoredNLL


class _CountedNorm(stats.rv_continuous):
    """The normal distribution, counting the points its sf and cdf are asked for."""

    asked = 0

    def _pdf(self, x):
        return stats.norm.pdf(x)

    def _cdf(self, x):
        _CountedNorm.asked += np.size(x)
        return stats.norm.cdf(x)

    def _sf(self, x):
        _CountedNorm.asked += np.size(x)
        return stats.norm.sf(x)


def _reference(theta, exact, left, right, lo, hi):
    """The censored NLL summed point by point with scipy's norm (float64)."""
    loc, scale = theta
    terms = [stats.norm.logpdf(v, loc, scale) for v in exact]
    terms += [stats.norm.logcdf(v, loc, scale) for v in left]
    terms += [stats.norm.logsf(v, loc, scale) for v in right]
    terms += [np.log(stats.norm.cdf(h, loc, scale) - stats.norm.cdf(lo_, loc, scale))
              for lo_, h in zip(lo, hi, strict=True)]
    return -float(np.sum(terms))


def test_repeated_censoring_values_give_the_pointwise_likelihood():
    rng = np.random.default_rng(0)
    exact = rng.normal(size=40)
    left = np.array([-1.5] * 7 + [-2.0] * 3)
    right = np.array([1.2] * 12 + [0.9, 2.0])
    lo = np.array([0.1, 0.1, 0.1, -0.3])
    hi = np.array([0.4, 0.4, 0.4, 0.2])
    nll = CensoredNLL(stats.norm, exact, left, right, lo, hi)
    assert nll.left.size == 2 and nll.right.size == 3 and nll.lo.size == 2
    for theta in ([0.0, 1.0], [0.3, 1.7], [-0.2, 0.6]):
        assert np.isclose(nll([*theta]), _reference(theta, exact, left, right, lo, hi),
                          rtol=1e-12)


def test_a_censoring_time_shared_by_many_is_evaluated_once():
    dist = _CountedNorm(name="counted_norm")
    x = stats.norm.rvs(size=100, random_state=np.random.default_rng(1))
    cut = np.quantile(x, 0.7)
    empty = np.zeros(0)
    asked = []
    for right in (np.full(30, cut), np.array([cut]), np.linspace(cut, cut + 1, 30)):
        nll = CensoredNLL(dist, x[x <= cut], empty, right, empty, empty)
        _CountedNorm.asked = 0
        nll([0.0, 1.0])
        asked.append(_CountedNorm.asked)
    # 30 equal values cost what one does; 30 distinct ones 30 times that (as all 30
    # equal ones did before). (A point above the median is asked of the cdf, which says
    # so, and of the sf: robustfit.fitting.log_tails)
    assert asked[0] == asked[1] and asked[2] == 30 * asked[1]
    data = stats.CensoredData.right_censored(np.minimum(x, cut), x > cut)
    res = robustfit.fit(stats.norm, data)
    assert res.success
    assert np.isclose(res.nll, _reference(tuple(res), x[x <= cut], [], [cut] * 30, [], []),
                      rtol=1e-10)
