"""Knots of triang and trapezoid held on observations (robustfit.fitting.knots)."""

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks.fit_cases import MAGNITUDES, sample
from robustfit.fitting.knots import knot_shapes

CASES = [(stats.triang, (0.15785029824528218,)), (stats.trapezoid, (0.2, 0.8)),
         (stats.triang, (0.9,)), (stats.trapezoid, (0.3, 0.35))]
IDS = ["triang", "trapezoid", "triang_right", "trapezoid_narrow"]


@pytest.mark.parametrize("dist, shapes", CASES, ids=IDS)
def test_knots_sit_exactly_on_observations(dist, shapes):
    x = sample(dist, shapes, 1000)
    res = robustfit.fit(dist, x)
    assert res.success, res.message
    loc, scale = res[-2], res[-1]
    for c in res[:-2]:
        assert np.min(np.abs(x - (loc + c * scale))) <= 1e-12 * scale
    # no better optimum next to it: scipy's own fit from ours, and from the truth
    for start in (tuple(res), (*shapes, 0.0, 1.0)):
        ref = dist.fit(x, *start[:-2], loc=start[-2], scale=start[-1])
        assert res.nll <= -dist.logpdf(x, *ref).sum() + 1e-9 * abs(res.nll)


@pytest.mark.parametrize("dist, shapes", CASES, ids=IDS)
def test_same_fit_at_every_magnitude(dist, shapes):
    # before: triang 5e-6 apart at (-1e-3, 1e-6) (the ends, with the mode on the same
    # observation), trapezoid 3.5e-3 apart at (1e6, 1e4) (corners on other observations)
    z = sample(dist, shapes, 1000)
    unit = np.array(robustfit.fit(dist, z))
    k = len(shapes)
    for b, a in MAGNITUDES[1:]:
        got = np.array(robustfit.fit(dist, b + a * z))
        mapped = np.concatenate([unit[:k], [b + a * unit[k], a * unit[k + 1]]])
        err = np.abs(got - mapped) / np.concatenate([np.ones(k), [a * unit[-1]] * 2])
        assert np.max(err) < 1e-8, (b, a, got, mapped)


def test_knots_held_only_for_scipys_families_with_loc_and_scale_free():
    assert knot_shapes(stats.triang, {}, 1) == (0,)
    assert knot_shapes(stats.trapezoid, {1: 0.8}, 2) == (0,)
    assert knot_shapes(stats.triang, {1: 0.0}, 1) == ()  # floc
    assert knot_shapes(stats.norm, {}, 0) == ()

    class MyTriang(stats.rv_continuous):
        def _pdf(self, x, c):
            return np.where(x < c, 2 * x / c, 2 * (1 - x) / (1 - c))

    assert knot_shapes(MyTriang(a=0, b=1, name="triang"), {}, 1) == ()


@pytest.mark.parametrize("shapes, seed, n", [((0.0, 0.5), 4, 50), ((0.0, 0.5), 3, 500),
                                             ((0.02,), 4, 50)])
def test_knot_far_from_where_the_optimiser_left_it(shapes, seed, n):
    # the likelihood is multimodal in a knot's position: before the scan, trapezoid
    # (0, 0.5) ended with a corner at the 13th of 50 observations, 1.2 units above the
    # truth's likelihood (the optimum has it on the support's lower end), and 0.6 units
    # above with 500; triang (0.02) at (1e6, 1e4), 0.46 above
    dist = stats.trapezoid if len(shapes) == 2 else stats.triang
    z = sample(dist, shapes, n, seed)
    for b, a in MAGNITUDES:
        x = b + a * z
        res = robustfit.fit(dist, x)
        truth = -dist.logpdf(x, *shapes, loc=b, scale=a).sum()
        assert res.nll <= truth + 1e-9 * abs(truth), (b, a, tuple(res))


@pytest.mark.parametrize("fixed", [{"f0": 0.2}, {"fd": 0.8}, {"fc": 0.2, "fd": 0.8}])
def test_a_fixed_corner_stays_fixed_and_the_other_is_held_on_an_observation(fixed):
    # the knots' fit must not move a fixed shape (it did, with f0: the corner that is
    # not a knot was among the coordinates)
    x = sample(stats.trapezoid, (0.2, 0.8), 500, 1)
    res = robustfit.fit(stats.trapezoid, x, **fixed)
    assert res.success, res.message
    for name, j in (("f0", 0), ("fc", 0), ("fd", 1)):
        if name in fixed:
            assert res[j] == fixed[name]
    np.testing.assert_allclose(res.nll, -stats.trapezoid.logpdf(x, *res).sum(), rtol=1e-12)
    ref = stats.trapezoid.fit(x, *res[:2], loc=res[2], scale=res[3], **fixed)
    assert res.nll <= -stats.trapezoid.logpdf(x, *ref).sum() + 1e-9 * abs(res.nll)
