"""Optima on a closed end of a shape's domain are reported on it, exactly.

References are closed forms (the Rayleigh and half-normal scales that rice with b = 0
and foldnorm with c = 0 reduce to) and likelihoods evaluated by scipy."""

import warnings

import numpy as np
import pytest
from scipy import stats

import robustfit
from robustfit.fitting.closed_ends import closed_ends_near


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        yield


def test_which_ends_are_tried():
    # ncf's nc >= 0: closed; dgamma's a > 0: open (scipy encodes it as 5e-324)
    assert closed_ends_near(stats.ncf, [20.6, 30.3, 0.35, 0.0, 1.0], {}, 3) == [(2, 0.0)]
    assert closed_ends_near(stats.dgamma, [0.96, 0.0, 1.0], {}, 1) == []
    # far from the end, already on it, or fixed: nothing to try
    assert closed_ends_near(stats.ncf, [20.6, 30.3, 8.0, 0.0, 1.0], {}, 3) == []
    assert closed_ends_near(stats.ncf, [20.6, 30.3, 0.0, 0.0, 1.0], {}, 3) == []
    assert closed_ends_near(stats.ncf, [20.6, 30.3, 0.3, 0.0, 1.0], {2: 0.3}, 3) == []
    # an integral shape (irwinhall's n >= 1) is chosen among integers elsewhere
    assert closed_ends_near(stats.irwinhall, [1.5, 0.0, 1.0], {}, 1) == []
    # a bounded domain: within a quarter of it from an end
    assert closed_ends_near(stats.triang, [0.1, 0.0, 1.0], {}, 1) == [(0, 0.0)]
    assert closed_ends_near(stats.triang, [0.5, 0.0, 1.0], {}, 1) == []
    assert closed_ends_near(stats.triang, [0.9, 0.0, 1.0], {}, 1) == [(0, 1.0)]


def test_rice_on_rayleigh_data_is_the_rayleigh_fit():
    x = stats.rayleigh.rvs(size=500, random_state=0)
    res = robustfit.fit(stats.rice, x, floc=0)
    assert res.success
    assert res[0] == 0.0  # b exactly on its end: the Rayleigh
    assert res[-1] == pytest.approx(np.sqrt(np.sum(x**2) / (2 * x.size)), rel=1e-9)
    # the end is a maximum: moving b inside, with the scale re-fitted, is less likely
    for b in (1e-3, 0.05, 0.3):
        inside = robustfit.fit(stats.rice, x, floc=0, f0=b)
        assert inside.nll >= res.nll - 1e-9


def test_foldnorm_on_half_normal_data_is_the_half_normal_fit():
    x = stats.halfnorm.rvs(size=500, random_state=2)
    res = robustfit.fit(stats.foldnorm, x, floc=0)
    assert res.success and res[0] == 0.0
    assert res[-1] == pytest.approx(np.sqrt(np.mean(x**2)), rel=1e-9)
    assert res.nll == pytest.approx(stats.halfnorm.nnlf((0, res[-1]), x), rel=1e-12)


@pytest.mark.parametrize("b, a", [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)])
def test_ncf_reaches_its_central_end_at_every_magnitude(b, a):
    # scipy's acceptance sample (test_cont_fit draws with seed 1234): the likelihood rises
    # monotonically towards nc = 0, where BFGS stopped at nc = 0.35, and at nc = 0.068
    # for the same sample with 15 observations made intervals of +-1%
    z = stats.ncf.rvs(27, 27, 0.41578441799226107, size=1000,
                      random_state=np.random.default_rng(1234))
    res = robustfit.fit(stats.ncf, b + a * z)
    assert res.success and res[2] == 0.0
    for nc in (0.068, 0.35):
        held = robustfit.fit(stats.ncf, b + a * z, f2=nc)
        assert held.nll >= res.nll - 1e-9 * abs(res.nll)
    interval = np.column_stack((z, z))
    interval[:15, 0] *= 0.99
    interval[:15, 1] *= 1.01
    interval.sort(axis=1)
    censored = robustfit.fit(stats.ncf, stats.CensoredData(interval=b + a * interval))
    assert censored[2] == 0.0
    # scipy's check: the interval-censored estimate within 5% of the complete one
    np.testing.assert_allclose(tuple(censored), tuple(res), rtol=0.05)


def test_an_interior_optimum_stays_inside():
    # data from rice(b=2): the end b = 0 is far less likely, and is not taken
    x = stats.rice.rvs(2.0, size=800, random_state=3)
    res = robustfit.fit(stats.rice, x, floc=0)
    assert 1.5 < res[0] < 2.5
    assert res.nll <= stats.rice.nnlf(stats.rice.fit(x, floc=0), x) + 1e-6
