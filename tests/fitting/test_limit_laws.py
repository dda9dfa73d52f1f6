"""Laws a family reaches only in a limit (robustfit.fitting.limit_laws): Burr XII's
Weibull and Burr III's Frechet law as d runs to infinity."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks import fit_cases
from robustfit.fitting.limit_laws import (
    FAR_SHAPE,
    RISES_TO_LIMIT_LAW,
    burr12_near_weibull,
    burr_near_frechet,
    limit_laws,
)

MAGNITUDES = [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)]


@pytest.mark.parametrize("c", [0.6, 1.7, 6.0])
def test_the_burr_members_have_the_limit_densities(c):
    x = stats.weibull_min.rvs(c, loc=2.0, scale=3.0, size=500,
                              random_state=np.random.default_rng(1))
    theta = burr12_near_weibull((c, 2.0, 3.0), x)
    assert theta[1] == FAR_SHAPE
    np.testing.assert_allclose(stats.burr12.logpdf(x, *theta),
                               stats.weibull_min.logpdf(x, c, 2.0, 3.0), rtol=0, atol=1e-8)
    y = stats.invweibull.rvs(c, loc=2.0, scale=3.0, size=500,
                             random_state=np.random.default_rng(1))
    theta = burr_near_frechet((c, 2.0, 3.0), y)
    np.testing.assert_allclose(stats.burr.logpdf(y, *theta),
                               stats.invweibull.logpdf(y, c, 2.0, 3.0), rtol=0, atol=1e-8)


def test_only_scipys_families_have_limit_laws():
    class MyBurr12(stats.rv_continuous):
        def _pdf(self, x, c, d):
            return stats.burr12.pdf(x, c, d)

    assert limit_laws(MyBurr12(name="burr12", a=0.0)) == ()
    assert len(limit_laws(stats.johnsonsu)) == 2 and limit_laws(stats.norm) == ()


def test_weibull_data_fitted_by_burr12_get_the_weibull_limit_at_every_magnitude():
    # (a sample whose burr12 likelihood has no interior maximum: others, as one drawn
    # from default_rng(3), have one, more likely than the Weibull law)
    z = stats.weibull_min.rvs(1.7, loc=2.0, scale=3.0, size=300, random_state=3)
    fits = []
    for b, a in MAGNITUDES:
        x = b + a * z
        res = robustfit.fit(stats.burr12, x)
        weibull = robustfit.fit(stats.weibull_min, x)
        assert weibull.success
        assert res.nll <= weibull.nll + 1e-10 * abs(weibull.nll)
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (scipy's own fit overflows at 1e6)
            scipy_nll = stats.burr12.nnlf(stats.burr12.fit(x), x)
        assert res.nll <= scipy_nll
        assert res.nll == pytest.approx(stats.burr12.nnlf(tuple(res), x), rel=1e-12)
        assert not res.success and res.start == "limit_law"
        assert res.message.startswith("no maximum of the likelihood exists")
        assert RISES_TO_LIMIT_LAW in res.message and "Weibull" in res.message
        fits.append([res[0], res[1], (res[2] - b) / a, res[3] / a])
    for other in fits[1:]:
        np.testing.assert_allclose(other, fits[0], rtol=1e-6)


def test_burr12_that_had_converged_short_of_the_weibull_limit():
    # 12 points of scipy's acceptance case burr12(10, 4) (the fuzz's first
    # configuration): "converged" at c = 1e5, d = 7.6e10, 8e-5 units below the
    # Weibull fit that the family contains as a limit
    dist, shapes = stats.burr12, dict(fit_cases.distcont)["burr12"]
    x = fit_cases.sample(dist, shapes, 12, seed=1)
    res = robustfit.fit(dist, x)
    weibull = robustfit.fit(stats.weibull_min, x)
    assert res.nll <= weibull.nll + 1e-10 * abs(weibull.nll)
    assert res.nll < -10.10566
    # (the Weibull's own supremum here is its Gumbel limit, c -> inf, more likely than
    # any Weibull: its fit claims no maximum either)
    gumbel = robustfit.fit(stats.gumbel_l, x)
    assert gumbel.nll < weibull.nll and not weibull.success
    assert not res.success


def test_a_burr12_sample_with_an_interior_maximum_is_left_alone():
    dist, shapes = stats.burr12, dict(fit_cases.distcont)["burr12"]
    x = fit_cases.sample(dist, shapes, 1000)
    res = robustfit.fit(dist, x)
    assert res.success and res.start != "limit_law"
    assert not any(a.start == "limit_law" for a in res.attempts)


def test_frechet_data_fitted_by_burr_reach_the_frechet_law():
    x = stats.invweibull.rvs(2.5, loc=1.0, scale=2.0, size=300, random_state=3)
    res = robustfit.fit(stats.burr, x)
    frechet = robustfit.fit(stats.invweibull, x)
    assert frechet.success and res.nll <= frechet.nll + 1e-10 * abs(frechet.nll)
    assert not res.success  # (the law is a limit: no maximum)


def test_a_walk_as_likely_as_the_limit_law_reports_the_laws_member():
    # burr on these Frechet data: the walk of d towards infinity stopped at d = 1e11 at
    # unit scale and ran to 1e12 at (1e6, 1e4), as likely as the Frechet fit to
    # rounding, so the law's member (d = 1e14) had not replaced either: the estimate
    # differed by magnitude. Now the member is reported at every magnitude
    z = stats.invweibull.rvs(2.5, loc=1.0, scale=2.0, size=300, random_state=3)
    fits = [robustfit.fit(stats.burr, b + a * z) for b, a in MAGNITUDES]
    for (b, a), res in zip(MAGNITUDES, fits, strict=True):
        assert not res.success and res.start == "limit_law" and res[1] == FAR_SHAPE
        assert res.nll == pytest.approx(-np.sum(stats.burr.logpdf(b + a * z, *res)),
                                        rel=1e-12)
        standard = [res[0], (res[2] - b) / a, res[3] / a]
        np.testing.assert_allclose(standard, [fits[0][0], fits[0][2], fits[0][3]],
                                   rtol=1e-6, atol=1e-9)


def test_a_censored_fit_does_not_start_from_the_laws_member():
    # burr12 on 60 points, a third interval-censored, at (-1e-3, 1e-6): the censored fit
    # starts from the complete-data fit of its pseudo-observations, whose walk towards
    # the Weibull law stopped unconverged. Reported there, the law's member (d = 1e14)
    # is where the censored likelihood is flat to rounding: that start "converged" at
    # d = 9.8e13 (success=True where no maximum exists); the walk's probe is kept
    from benchmarks import fit_fuzz

    shapes = next(s for name, _, s in fit_cases.cases() if name == "burr12")
    data, _ = fit_fuzz._data(stats.burr12, shapes, "interval", 60, 37, -1e-3, 1e-6, None)
    res = robustfit.fit(stats.burr12, data)
    assert not res.success and res.message.startswith("no maximum")
