"""KS / AD / CvM of a fit against scipy's own implementations."""

import numpy as np
from scipy import stats

import robustfit
from robustfit.fitting.gof import anderson_darling, goodness_of_fit


def test_statistics_match_scipy():
    x = stats.norm.rvs(loc=2.0, scale=3.0, size=800, random_state=0)
    ad = stats.anderson(x, "norm", method="interpolate")  # mean, std(ddof=1)
    frozen = stats.norm(np.mean(x), np.std(x, ddof=1))
    np.testing.assert_allclose(anderson_darling(x, frozen), ad.statistic, rtol=1e-10)
    g = goodness_of_fit(x, frozen)
    np.testing.assert_allclose(g.ks, stats.kstest(x, frozen.cdf).statistic)
    np.testing.assert_allclose(g.cvm, stats.cramervonmises(x, frozen.cdf).statistic)
    assert g.n == 800 and set(g.as_dict()) >= {"ks", "ad", "cvm", "ks_pvalue", "cvm_pvalue"}


def test_anderson_darling_in_far_tail_stays_finite():
    # cdf rounds to 1 in the upper tail; logsf keeps the statistic finite and large
    x = np.r_[stats.norm.rvs(size=200, random_state=1), 9.0]
    a2 = anderson_darling(x, stats.norm())
    assert np.isfinite(a2) and a2 > anderson_darling(x[:-1], stats.norm())


def test_result_gof_ranks_right_model_first():
    x = stats.gamma.rvs(1.5, scale=2.0, size=2000, random_state=2)
    good = robustfit.fit(stats.gamma, x).gof()
    bad = robustfit.fit(stats.norm, x).gof()
    assert good.ks < bad.ks and good.ad < bad.ad and good.cvm < bad.cvm
    assert good.ks_pvalue > 0.05 and bad.ks_pvalue < 1e-6
