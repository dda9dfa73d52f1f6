"""robustfit.bootstrap: agrees with the observed information, counts convergence."""

import numpy as np
import pytest
from scipy import stats

import robustfit


@pytest.mark.parametrize("kind", ["parametric", "nonparametric"])
def test_bootstrap_stderr_agrees_with_observed_information(kind):
    x = stats.weibull_min.rvs(2.0, scale=1e4, size=400, random_state=0)
    res = robustfit.fit(stats.weibull_min, x, floc=0)
    boot = robustfit.bootstrap(res, n=150, kind=kind, rng=3)
    assert boot.n == 150 and boot.n_converged == 150 and boot.kind == kind
    assert boot.names == ("c", "scale") and boot.estimates.shape == (150, 2)
    for name in boot.names:
        np.testing.assert_allclose(boot.stderr[name], res.stderr[name], rtol=0.25)
    lo, hi = boot.confint(0.95)["scale"]
    assert lo < res[2] < hi


def test_bootstrap_is_reproducible_and_keeps_fixed_values():
    x = stats.gamma.rvs(2.0, scale=3.0, size=200, random_state=1)
    res = robustfit.fit(stats.gamma, x, floc=0)
    a = robustfit.bootstrap(res, n=20, rng=7)
    b = robustfit.bootstrap(res, n=20, rng=7)
    np.testing.assert_array_equal(a.estimates, b.estimates)
    assert "loc" not in a.names


def test_bootstrap_counts_failed_resamples():
    # two distinct values: many non-parametric resamples have no spread at all
    x = np.array([1.0, 2.0] + [1.0] * 3)
    res = robustfit.fit(stats.norm, x)
    boot = robustfit.bootstrap(res, n=60, kind="nonparametric", rng=0)
    assert boot.n == 60 and boot.n_converged < 60
    assert boot.estimates.shape[0] == boot.n_converged
    assert any("spread" in f for f in boot.failures)


def test_bootstrap_rejects_bad_arguments():
    res = robustfit.fit(stats.norm, stats.norm.rvs(size=50, random_state=0))
    with pytest.raises(robustfit.InvalidInputError, match="kind"):
        robustfit.bootstrap(res, n=5, kind="jackknife")
    with pytest.raises(robustfit.InvalidInputError, match="n=0"):
        robustfit.bootstrap(res, n=0)
