"""The likelihood refuses densities no distribution has (rounding garbage in logpdf)."""

import math

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks.fit_cases import sample
from robustfit.fitting.likelihood import PLAUSIBLE_MARGIN, CompleteNLL, plausible_ceiling


def test_betaprime_does_not_run_into_logpdf_garbage():
    # scipy's acceptance case betaprime(5, 6), drawn with seed 7: the likelihood rises
    # along a ridge towards the inverse-gamma limit (a -> inf, scale -> 0), and at
    # a = 8e27, scale = 7e-28 scipy's logpdf returns 342.8 at every point; the fit used
    # to stop there, "better" than the truth by 343,000 nats
    x = sample(stats.betaprime, (5, 6), 1000, seed=7)
    res = robustfit.fit(stats.betaprime, x)
    a, b, loc, scale = res
    assert a < 1e8 and scale > 1e-8
    logpdf = stats.betaprime.logpdf(x, a, b, loc=loc, scale=scale)
    assert np.all(logpdf < 5)  # the density is sane at every observation ...
    truth = -np.sum(stats.betaprime.logpdf(x, 5, 6))
    assert res.nll == pytest.approx(-np.sum(logpdf)) and res.nll <= truth  # ... and wins


def test_ceiling_from_spacings():
    z = np.linspace(0.0, 1.0, 101)  # spacings 1/100 everywhere: log-density 0 typical
    assert plausible_ceiling(z) == pytest.approx(101 * (math.log(100 / 101) + PLAUSIBLE_MARGIN))
    assert plausible_ceiling(np.array([1.0, 2.0])) == math.inf  # too few points
    assert plausible_ceiling(np.array([0.0, 0.0, 0.0, 1.0])) == math.inf  # mostly ties


def test_nll_refuses_an_impossible_density_and_keeps_a_sharp_one():
    rng = np.random.default_rng(0)
    z = rng.standard_normal(500)
    nll = CompleteNLL(stats.norm, z)
    assert math.isfinite(nll([0.0, 1.0]))
    assert math.isfinite(nll([0.0, 0.05]))  # narrow (poor) but a real density
    assert plausible_ceiling(np.round(z, 1)) == math.inf  # rounded data: ties, no ceiling
    # a stand-in for garbage: a "density" of e^40 everywhere
    class Garbage(stats.rv_continuous):
        def _logpdf(self, x):
            return np.full_like(x, 40.0)
    assert CompleteNLL(Garbage(name="garbage"), z)([0.0, 1.0]) == math.inf


def test_a_fit_whose_density_does_not_integrate_to_one_is_not_a_success():
    # scipy's acceptance case dpareto_lognorm(3, 1.2, 1.5, 2), seed 21, at 2e12 + 5e7 x:
    # the fit ran b to 1.4e22, where scipy's density has total mass 3.55, and said
    # success=True 238 units "better" than the truth
    from robustfit.fitting.normalization import density_mass, mass_is_off

    u = sample(stats.dpareto_lognorm, (3, 1.2, 1.5, 2), 300, seed=21)
    res = robustfit.fit(stats.dpareto_lognorm, 2e12 + 5e7 * u)
    mass = density_mass(stats.dpareto_lognorm, tuple(res)[:4])
    if mass_is_off(mass):
        assert not res.success and "integrates to" in res.message
    else:
        assert res.nll <= -np.sum(stats.dpareto_lognorm.logpdf(
            2e12 + 5e7 * u, 3, 1.2, 1.5, 2, loc=2e12, scale=5e7)) + 1e-6 * abs(res.nll)
    assert density_mass(stats.dpareto_lognorm, (3, 1.2, 1.5, 2)) is None  # not extreme
    assert not mass_is_off(density_mass(stats.burr12, (6.0, 5e9)))  # extreme, but fine
