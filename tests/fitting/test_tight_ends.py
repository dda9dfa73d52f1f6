"""Shapes that are ends of the support (truncnorm's a and b) with loc or scale fixed: the
ends held at the extreme observations and the free location or scale profiled."""

import numpy as np
import pytest
from scipy import stats

import robustfit
from robustfit.fitting.tight_ends import shape_ends, tighten_shape_ends


def _sample(shapes, seed, n=500):
    from benchmarks.fit_cases import sample  # drawn as scipy's test_cont_fit draws

    return sample(stats.truncnorm, shapes, n, seed=seed)


@pytest.mark.parametrize("loc, scale", [(0.0, 1.0), (7e3, 3e-2), (-2e-9, 5e-11)])
def test_truncnorm_with_fixed_scale_beats_the_truth_and_scipy(loc, scale):
    # seed 13: the fit used to stop 0.07 above the truth and 0.78 above scipy's fit,
    # saying success=True (the corner where both ends meet the data was not reached)
    z = _sample((-1.0978730080013919, 2.730675410903198), 13)
    x = loc + scale * z
    res = robustfit.fit(stats.truncnorm, x, fscale=scale)
    truth = -np.sum(stats.truncnorm.logpdf(x, -1.0978730080013919, 2.730675410903198,
                                           loc, scale))
    assert res.success and res.nll <= truth
    # scipy's own fit, on the unit-scale sample where it works
    ref = stats.truncnorm.fit(z, fscale=1.0)
    assert res.nll - len(x) * np.log(scale) <= -np.sum(stats.truncnorm.logpdf(z, *ref)) + 1e-6
    a, b, fitted_loc, _ = tuple(res)
    # the ends sit at the extreme observations
    assert fitted_loc + a * scale <= x.min() <= fitted_loc + a * scale + 1e-9 * scale
    assert fitted_loc + b * scale >= x.max() >= fitted_loc + b * scale - 1e-9 * scale


@pytest.mark.parametrize("loc, scale", [(0.0, 1.0), (7e3, 3e-2)])
def test_truncnorm_with_fixed_loc_is_the_same_fit_at_every_magnitude(loc, scale):
    # truncnorm(0.1, 2) with floc: 7.2 units above the truth at (7e3, 3e-2), success=False
    z = _sample((0.1, 2.0), 13)
    res = robustfit.fit(stats.truncnorm, loc + scale * z, floc=loc)
    unit = robustfit.fit(stats.truncnorm, z, floc=0.0)
    truth = -np.sum(stats.truncnorm.logpdf(loc + scale * z, 0.1, 2.0, loc, scale))
    assert res.success and unit.success and res.nll <= truth
    np.testing.assert_allclose(tuple(res)[:2], tuple(unit)[:2], rtol=1e-6)
    assert tuple(res)[3] == pytest.approx(scale * tuple(unit)[3], rel=1e-6)


def test_shape_ends_and_where_the_profile_does_not_apply():
    assert shape_ends(stats.truncexpon, [2.0], [0]) == (None, 0)
    assert shape_ends(stats.norm, [], []) == (None, None)
    z = _sample((-1.0, 2.0), 1)

    def nll(theta):
        return -np.sum(stats.truncnorm.logpdf(z, *theta))

    theta = [-1.5, 2.5, 0.0, 1.0]
    # loc and scale both free: the parameterisation handles the ends
    assert tighten_shape_ends(stats.truncnorm, theta, nll, {}, 2, z.min(), z.max(), 0) is None
    # both fixed: the ends at the extreme observations (nothing else free: the MLE)
    out = tighten_shape_ends(stats.truncnorm, theta, nll, {2: 0.0, 3: 1.0}, 2,
                             z.min(), z.max(), 0)
    assert out is not None and out[2]
    np.testing.assert_allclose(out[0][:2], [z.min(), z.max()], rtol=1e-9)
    assert out[1] == nll(out[0]) < nll(theta)
    # a free shape that is not an end (truncweibull_min's c): not a one-dimensional profile
    assert tighten_shape_ends(stats.truncweibull_min, [2.0, 0.1, 3.0, 0.0, 1.0], nll,
                              {4: 1.0}, 3, 0.2, 2.5, 0) is None


@pytest.mark.parametrize("name, shapes", [("foldnorm", (1.95,)), ("rice", (0.775,)),
                                          ("triang", (0.158,))])
def test_loc_and_scale_fixed_with_the_shape_on_a_closed_end(name, shapes):
    # with floc and fscale, a shape held at a closed end of its domain leaves nothing
    # free, and the refit raised ValueError on the empty gradient (an exception out of
    # robustfit.fit); the fit now matches scipy's
    from benchmarks.fit_cases import sample

    dist = getattr(stats, name)
    x = sample(dist, shapes, 300, seed=7)
    res = robustfit.fit(dist, x, floc=0, fscale=1)
    assert res.success and tuple(res)[-2:] == (0, 1)
    assert dist.nnlf(tuple(res), x) <= dist.nnlf(dist.fit(x, floc=0, fscale=1), x) + 1e-6


def test_loc_and_scale_fixed_the_end_shapes_make_room_for_the_data():
    # truncweibull_min's a and b are the ends of its support: with floc=0 and fscale=1
    # no start covered the data ("no starting point gave a finite likelihood",
    # success=False); the starts now put the end shapes beyond the extreme observations
    from benchmarks.fit_cases import sample

    dist = stats.truncweibull_min
    x = sample(dist, (2.5, 0.25, 1.75), 300, seed=7)
    res = robustfit.fit(dist, x, floc=0, fscale=1)
    c, a, b = tuple(res)[:3]
    assert np.isfinite(res.nll) and a <= x.min() and b >= x.max()
    assert dist.nnlf(tuple(res), x) <= dist.nnlf(dist.fit(x, floc=0, fscale=1), x)
    assert dist.nnlf(tuple(res), x) <= dist.nnlf((2.5, 0.25, 1.75, 0, 1), x)
    # ... and the ends meet the data, where the likelihood is largest (BFGS from the
    # starts stopped 0.08 units short of that corner), c the profile's optimum there
    assert a == pytest.approx(x.min(), rel=1e-9) and b == pytest.approx(x.max(), rel=1e-9)
    from scipy.optimize import minimize_scalar

    corner = minimize_scalar(lambda c: dist.nnlf((c, x.min(), x.max(), 0, 1), x),
                             bounds=(0.5, 10), method="bounded", options={"xatol": 1e-10})
    assert res.success and dist.nnlf(tuple(res), x) <= corner.fun + 1e-8


@pytest.mark.parametrize("loc, scale", [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)])
def test_both_ends_of_the_support_close_on_the_extreme_observations(loc, scale):
    # bradford with c fixed, loc and scale free: the maximum has both ends on the data
    # (a finite density there). The lower end reached its floor, the upper one stayed
    # 1.6e-7 from the largest observation, 5.8e-5 units short, with success=True: the
    # snap to the floor skipped an end whose partner was on the data too
    c = 0.29891359763170633
    from benchmarks.fit_cases import sample

    x = loc + scale * sample(stats.bradford, (c,), 400, seed=3032)
    res = robustfit.fit(stats.bradford, x, f0=c)
    tight = -np.sum(stats.bradford.logpdf(x, c, x.min(), x.max() - x.min()))
    assert res.success
    assert res.nll <= tight + 1e-9 * abs(tight) + 1e-9
    assert res.nll == pytest.approx(-np.sum(stats.bradford.logpdf(x, *res)), rel=1e-12)
