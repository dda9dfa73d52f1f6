"""johnsonsu at its lognormal boundary, Johnson's SL (robustfit.fitting.johnson_limits)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks import fit_cases
from robustfit.fitting.johnson_limits import SL_GAP_FRACTION, su_near_sl
from robustfit.fitting.limit_laws import RISES_TO_LIMIT_LAW

MAGNITUDES = [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)]


@pytest.mark.parametrize("side", [1, -1])
@pytest.mark.parametrize("gap", [1e-6, 0.3, 40.0])
def test_the_su_member_has_the_lognormal_density(side, gap):
    x = side * (2.0 + gap + stats.lognorm.rvs(0.6, scale=1.7, size=300,
                                              random_state=np.random.default_rng(4)))
    theta = su_near_sl(0.6, 2.0, 1.7, side, x)
    np.testing.assert_allclose(stats.johnsonsu.logpdf(x, *theta),
                               stats.lognorm.logpdf(side * x, 0.6, 2.0, 1.7),
                               rtol=0, atol=1e-9)
    assert theta[3] == pytest.approx(SL_GAP_FRACTION * np.min(np.abs(x - theta[2])))


def test_no_member_where_an_observation_is_not_beyond_loc():
    x = np.array([0.5, 1.0, 3.0])
    assert su_near_sl(0.5, 1.0, 1.0, 1, x) is None  # 0.5 and 1.0 not above loc
    assert su_near_sl(0.5, -0.5, 1.0, -1, x) is None  # (loc 0.5: x not all below)


@pytest.mark.parametrize("side", [1, -1])
def test_lognormal_data_get_the_sl_limit_at_every_magnitude(side):
    # the likelihood of SU rises towards SL: the fit had crawled for its 2000
    # evaluations and stopped short, at a different point per magnitude
    z = side * stats.lognorm.rvs(0.5, loc=-1.0, size=500,
                                 random_state=np.random.default_rng(2))
    fits = []
    for b, a in MAGNITUDES:
        x = b + a * z
        res = robustfit.fit(stats.johnsonsu, x)
        sl = robustfit.fit(stats.lognorm, side * x)
        assert not res.success and res.start == "limit_law"
        assert res.message.startswith("no maximum of the likelihood exists")
        assert RISES_TO_LIMIT_LAW in res.message and "Johnson's SL" in res.message
        assert res.nll == pytest.approx(sl.nll, rel=1e-10)
        assert res.nll == pytest.approx(-np.sum(stats.johnsonsu.logpdf(x, *res)),
                                        rel=1e-12)
        assert res.nll <= stats.johnsonsu.nnlf(stats.johnsonsu.fit(x), x)
        fits.append([res[0], res[1], (res[2] - b) / a, res[3] / a])
    for other in fits[1:]:
        np.testing.assert_allclose(other, fits[0], rtol=1e-6)


def test_a_sample_with_an_interior_maximum_is_left_alone():
    dist, shapes = stats.johnsonsu, dict(fit_cases.distcont)["johnsonsu"]
    x = fit_cases.sample(dist, shapes, 1000)
    res = robustfit.fit(dist, x)
    assert res.success and res.start != "limit_law"


def test_the_fuzz_sample_that_crawled():
    # 40 points of johnsonsu(2.55, 2.25) at (1e5, 1e-2): stopped after 2000 evaluations
    # 7e-5 units below the reflected lognormal fit (NLL -147.44042)
    dist, shapes = stats.johnsonsu, dict(fit_cases.distcont)["johnsonsu"]
    x = 1e5 + 1e-2 * fit_cases.sample(dist, shapes, 40, seed=2)
    res = robustfit.fit(dist, x)
    sl = robustfit.fit(stats.lognorm, -x)
    assert sl.success and res.nll <= sl.nll + 1e-9 * abs(sl.nll)
    assert res.nll < -147.44048
