"""Families whose shapes absorb the scale: every fit reports the same member of the
line of identical distributions, so fits of a*x + b agree at every magnitude."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import robustfit
from robustfit.fitting.symmetries import canonical_scale

# (distribution, true shapes) -- scipy's own distcont examples
CASES = [
    (stats.loguniform, (0.01, 1.25)),
    (stats.reciprocal, (0.01, 1.25)),
    (stats.genexpon, (9.1325976465418908, 16.231956600590632, 3.2819552690843983)),
    (stats.dpareto_lognorm, (3.0, 1.2, 1.5, 2.0)),
]
MAGNITUDES = [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)]


@settings(max_examples=30, deadline=None)
@given(scale=st.floats(0.05, 20.0), loc=st.floats(-2.0, 2.0), k=st.integers(0, 3))
def test_the_canonical_member_is_the_same_distribution(scale, loc, k):
    dist, shapes = CASES[k]
    theta = np.array([*shapes, loc, scale])
    canon = canonical_scale(dist, theta, {})
    assert canon[-2] == loc
    if dist.name in ("loguniform", "reciprocal"):  # b = 1: the scale is the upper end
        assert canon[1] == pytest.approx(1.0, rel=1e-15)
        assert canon[-1] == pytest.approx(shapes[1] * scale, rel=1e-15)
    else:
        assert canon[-1] == 1.0
    x = dist.ppf(np.linspace(0.01, 0.99, 25), *shapes, loc=loc, scale=scale)
    np.testing.assert_allclose(dist.logpdf(x, *canon[:-2], loc=loc, scale=canon[-1]),
                               dist.logpdf(x, *shapes, loc=loc, scale=scale),
                               rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize(("dist", "shapes"), CASES, ids=[d.name for d, _ in CASES])
def test_fits_agree_across_magnitudes(dist, shapes):
    x = dist.rvs(*shapes, size=800, random_state=np.random.default_rng(7))
    base = None
    for loc, scale in MAGNITUDES:
        res = robustfit.fit(dist, loc + scale * x)
        assert res.success
        unit = np.array(tuple(res))
        unit[-2] = (unit[-2] - loc) / scale
        unit[-1] /= scale
        if base is None:
            base = unit
            # the NLL is no worse than scipy's own fit at the unit magnitude
            with np.errstate(all="ignore"), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ref = dist.fit(x)
                assert res.nll <= dist.nnlf(ref, x) + 1e-6 * abs(res.nll) + 1e-9
            continue
        # without the canonical member these differed by 1e3-1e4 (relative); 1e-5, not
        # 1e-6: genexpon with a small c has a second, nearly flat direction (b*c)
        np.testing.assert_allclose(unit[:-2], base[:-2], rtol=1e-5, atol=1e-6)
        np.testing.assert_allclose(unit[-2:], base[-2:], rtol=1e-6, atol=1e-6 * base[-1])


def test_a_fixed_scale_or_moving_shape_pins_the_point():
    theta = np.array([0.5, 8.0, -0.2, 1.3])
    assert canonical_scale(stats.loguniform, theta, {3: 1.3}) is None
    assert canonical_scale(stats.loguniform, theta, {0: 0.5}) is None
    # genexpon's loc is not on the ridge: fixing it leaves the ridge free
    assert canonical_scale(stats.loguniform, theta, {})[-1] == 8.0 * 1.3
    assert canonical_scale(stats.genexpon, np.array([1.0, 2.0, 3.0, 0.0, 2.0]),
                           {3: 0.0})[-1] == 1.0


def test_other_families_and_user_subclasses_are_left_alone():
    class loguniform_gen(stats.rv_continuous):  # noqa: N801 -- scipy's naming
        def _pdf(self, x, a, b):
            return 1.0 / (x * np.log(b / a))

    mine = loguniform_gen(name="loguniform", a=0.0)
    assert canonical_scale(mine, np.array([0.5, 8.0, 0.0, 2.0]), {}) is None
    assert canonical_scale(stats.gamma, np.array([2.0, 0.0, 3.0]), {}) is None


def test_fixed_scale_fit_keeps_the_users_scale():
    x = stats.loguniform.rvs(0.5, 8.0, size=500, random_state=1)
    res = robustfit.fit(stats.loguniform, x, fscale=1.0, floc=0.0)
    assert res.params["scale"] == 1.0 and res.params["loc"] == 0.0
    assert res.params["a"] <= x.min() and res.params["b"] >= x.max()


def test_the_method_of_moments_reports_the_canonical_member_too():
    # before, the MM estimate was whichever member the optimiser ended on: (1.32, 170,
    # 0.0003, 0.0073) for data from (0.01, 1.25, 0, 1), outside scipy's acceptance
    # thresholds though it is the same distribution as the truth
    x = stats.loguniform.rvs(0.01, 1.25, size=2000, random_state=np.random.default_rng(3))
    base = None
    for loc, scale in MAGNITUDES:
        res = robustfit.fit(stats.loguniform, loc + scale * x, method="MM")
        unit = np.array(tuple(res))
        unit[-2] = (unit[-2] - loc) / scale
        unit[-1] /= scale
        assert unit[1] == pytest.approx(1.0, rel=1e-12)  # b = 1
        # the same distribution as the truth's canonical member (0.008, 1, 0, 1.25)
        np.testing.assert_allclose(unit, [0.008, 1.0, 0.0, 1.25], rtol=0.1, atol=0.01)
        if base is None:
            base = unit
        else:
            np.testing.assert_allclose(unit, base, rtol=1e-6, atol=1e-9)
