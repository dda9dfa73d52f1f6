"""Exact MLEs by Newton on convex likelihoods (logistic, hypsecant, moyal) and by loc at
the sample minimum plus a 1-D score root (halfcauchy, halflogistic).

References nobody here wrote: the score equations differentiated numerically from
scipy's own ``logpdf``, scipy's ``fit`` (its override where there is one, else its
generic optimiser), and a Nelder-Mead search at tight tolerances.
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy import optimize, stats

import robustfit
from robustfit.fitting.log_concave import POTENTIALS, log_concave_mle

FIXED_SETS = [{}, {"floc": 0.5}, {"fscale": 2.0}]


def draw(dist, size=400, seed=3, loc=0.5, scale=2.0):
    return dist.rvs(loc=loc, scale=scale, size=size, random_state=np.random.default_rng(seed))


def nll(dist, x, loc, scale) -> float:
    return float(-np.sum(dist.logpdf(x, loc=loc, scale=scale)))


def score(dist, x, loc, scale, h=1e-5):
    """Central differences of the log-likelihood in (loc, log scale)."""
    d_loc = (nll(dist, x, loc + h * scale, scale) - nll(dist, x, loc - h * scale, scale))
    d_log = (nll(dist, x, loc, scale * np.exp(h)) - nll(dist, x, loc, scale * np.exp(-h)))
    return np.array([d_loc, d_log]) / (2 * h)


@pytest.mark.parametrize("fixed", FIXED_SETS, ids=lambda f: "-".join(f) or "free")
@pytest.mark.parametrize("name", sorted(POTENTIALS))
def test_newton_solves_the_score_equations(name, fixed):
    dist = getattr(stats, name)
    x = draw(dist)
    res = robustfit.fit(dist, x, **fixed)
    assert res.start == "closed_form" and res.success
    loc, scale = res
    g = score(dist, x, loc, scale)
    free = [i for i, key in enumerate(("floc", "fscale")) if key not in fixed]
    assert np.all(np.abs(g[free]) < 1e-5 * x.size), g
    for key, value in fixed.items():
        assert res[{"floc": 0, "fscale": 1}[key]] == value


@pytest.mark.parametrize("name", sorted(POTENTIALS))
def test_newton_is_not_beaten_by_scipy_or_a_simplex(name):
    dist = getattr(stats, name)
    x = draw(dist, seed=11)
    res = robustfit.fit(dist, x)
    ref = dist.fit(x)
    assert res.nll <= nll(dist, x, *ref) + 1e-9 * abs(res.nll)
    simplex = optimize.minimize(lambda p: nll(dist, x, p[0], np.exp(p[1])),
                                [ref[0], np.log(ref[1])], method="Nelder-Mead",
                                options={"xatol": 1e-12, "fatol": 1e-13, "maxfev": 4000})
    assert res.nll <= simplex.fun + 1e-9 * abs(res.nll)
    np.testing.assert_allclose(res, [simplex.x[0], np.exp(simplex.x[1])], rtol=1e-5,
                               atol=1e-5)


@pytest.mark.parametrize("name", sorted(POTENTIALS))
def test_newton_from_far_data_is_equivariant(name):
    dist = getattr(stats, name)
    x = draw(dist, size=300, seed=5)
    base = robustfit.fit(dist, x)
    far = robustfit.fit(dist, 1e7 + 1e5 * x)
    np.testing.assert_allclose(far, [1e7 + 1e5 * base[0], 1e5 * base[1]], rtol=1e-9)


def test_log_concave_mle_edge_cases():
    logistic = POTENTIALS["logistic"]
    assert log_concave_mle(logistic, np.full(5, 2.0)) is None  # no spread
    assert log_concave_mle(logistic, np.array([1.0, 2.0]), 0.5, 3.0) == [0.5, 3.0]
    # moyal's potential overflows far below the data: no finite start, no answer
    assert log_concave_mle(POTENTIALS["moyal"], np.array([-1e3, 0.0, 1.0]), scale=1e-3) is None


@pytest.mark.parametrize("fixed", [{}, {"fscale": 2.0}, {"floc": 0.0}],
                         ids=lambda f: "-".join(f) or "free")
@pytest.mark.parametrize("name", ["halfcauchy", "halflogistic"])
def test_decreasing_densities_put_loc_at_the_minimum(name, fixed):
    dist = getattr(stats, name)
    x = draw(dist, loc=0.0 if "floc" in fixed else 0.5)
    res = robustfit.fit(dist, x, **fixed)
    assert res.start == "closed_form" and res.success
    loc, scale = res
    if "floc" in fixed:
        assert loc == fixed["floc"]
    else:  # the minimum, up to the rounding of mapping back from standard coordinates
        assert np.min(x) - 1e-14 * (abs(np.min(x)) + scale) <= loc <= np.min(x)
        assert np.isfinite(dist.logpdf(x, loc, scale)).all()
    if "fscale" not in fixed:
        h = 1e-5  # the score in log scale (loc cannot move up: the minimum would leave)
        d_log = nll(dist, x, loc, scale * np.exp(h)) - nll(dist, x, loc, scale * np.exp(-h))
        assert abs(d_log / (2 * h)) < 1e-5 * x.size
    ref = dist.fit(x, **fixed)  # scipy overrides both: loc at the minimum, a scale root
    assert res.nll <= nll(dist, x, *ref) + 1e-10 * abs(res.nll)
    np.testing.assert_allclose(res, ref, rtol=1e-7)


def test_halfcauchy_with_most_points_tied_at_the_minimum_still_fits():
    # the scale root needs more than half the points above the minimum: without it the
    # general optimiser takes over
    x = np.concatenate([np.zeros(30), draw(stats.halfcauchy, size=20, loc=0.0)])
    res = robustfit.fit(stats.halfcauchy, x)
    assert res.start != "closed_form"
    assert np.all(np.isfinite(res)) and res[0] <= 0.0
