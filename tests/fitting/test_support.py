"""Supports scipy does not declare (pearson3's edge at -2/skew)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks.fit_cases import sample
from robustfit.fitting.likelihood import support, valid_shapes


@pytest.mark.parametrize("skew", [0.3, 1.5, -0.3, -2.0])
def test_pearson3_support_is_where_its_density_lives(skew):
    a, b = support(stats.pearson3, (skew,))
    edge = -2.0 / skew
    assert (a, b) == ((edge, math.inf) if skew > 0 else (-math.inf, edge))
    inside = edge + (1e-6 if skew > 0 else -1e-6)
    outside = edge - (1e-6 if skew > 0 else -1e-6)
    assert stats.pearson3.pdf(inside, skew) > 0 and stats.pearson3.pdf(outside, skew) == 0


def test_pearson3_without_skew_is_unbounded():
    assert support(stats.pearson3, (0.0,)) == (-math.inf, math.inf)


def test_pearson3_at_skew_minus_two_reaches_the_truths_likelihood():
    # scipy's acceptance case pearson3(-2) at n = 5000: with the edge unknown the
    # optimiser hit a wall of zero density and stopped 10 NLL units above the truth
    x = sample(stats.pearson3, (-2.0,), 5000)  # drawn as scipy's test_cont_fit draws
    res = robustfit.fit(stats.pearson3, x)
    assert res.nll <= stats.pearson3.nnlf((-2.0, 0.0, 1.0), x)


def test_no_success_claimed_at_a_singular_edge():
    # the fitted skew is below -2: a gamma shape below 1, whose density is infinite at
    # the edge, so the likelihood has no maximum; a polish that stops next to the edge
    # (Nelder-Mead "terminated successfully") must not turn that into a success
    res = robustfit.fit(stats.pearson3, sample(stats.pearson3, (-2.0,), 1000))
    assert res[0] < -2.0
    assert not res.success and "unbounded at the support's edge" in res.message


@pytest.mark.parametrize("name, shapes", [("powerlaw", (0.5,)), ("pearson3", (-2.0,)),
                                          ("rdist", (1.6,)), ("beta", (2.3, 0.63))])
@pytest.mark.parametrize("b, a", [(1e6, 1e-3), (1e300, 1e290)])
def test_a_singular_edge_is_seen_on_data_far_from_zero(name, shapes, b, a):
    # on data of 1e6 + 1e-3 x the gap between the edge and the extreme observation can
    # shrink only to ~1e-6 of the spread (float64's spacing at 1e6): ten thousand times
    # that reaches past the next observations, and the likelihood's rise no longer
    # looked like a log; these fits were reported converged where at unit scale no
    # maximum exists. The density at the end decides then
    dist = getattr(stats, name)
    z = sample(dist, shapes, 200)
    unit = robustfit.fit(dist, z)
    far = robustfit.fit(dist, b + a * z)
    assert not unit.success and "unbounded at the support's edge" in unit.message
    assert not far.success and "unbounded at the support's edge" in far.message


def test_the_density_at_an_end_is_read_as_singular_only_where_it_is():
    from robustfit.fitting.edges import singular_density_at_end

    assert singular_density_at_end(stats.beta, (0.5, 2.0), 0)
    assert not singular_density_at_end(stats.beta, (0.5, 2.0), 1)  # zero at 1
    assert singular_density_at_end(stats.beta, (2.0, 0.9), 1)
    assert not singular_density_at_end(stats.beta, (1.0, 1.0), 0)  # uniform: finite
    assert singular_density_at_end(stats.gamma, (0.3,), 0)
    assert not singular_density_at_end(stats.gamma, (0.3,), 1)  # no upper end
    assert not singular_density_at_end(stats.expon, (), 0)


class _ArgcheckWantsArrays(stats.rv_continuous):
    """An exponential in c*x whose _argcheck indexes its argument (floats raise)."""

    def _argcheck(self, c):
        return c[...] > 0

    def _pdf(self, x, c):
        return c * np.exp(-c * x)


class _ArgcheckAlwaysFails(stats.rv_continuous):
    def _argcheck(self, c):
        raise RuntimeError("cannot check")

    def _pdf(self, x, c):
        return c * np.exp(-c * x)


def test_shape_check_falls_back_to_arrays_and_refuses_what_it_cannot_check():
    wants_arrays = _ArgcheckWantsArrays(a=0.0, name="argcheck_wants_arrays")
    assert valid_shapes(wants_arrays, (2.0,))
    assert not valid_shapes(wants_arrays, (-2.0,))
    assert not valid_shapes(_ArgcheckAlwaysFails(a=0.0, name="argcheck_fails"), (2.0,))
    x = stats.expon.rvs(scale=0.5, size=400, random_state=3)
    res = robustfit.fit(wants_arrays, x, floc=0, fscale=1)
    assert res.success and res.params["c"] == pytest.approx(1 / x.mean(), rel=1e-4)


@pytest.mark.parametrize("n, seed, b, a", [(50, 4, 1e6, 1e-3), (200, 2, 0.0, 1.0),
                                           (200, 2, 1e6, 1e-3), (200, 1, 1e6, 1e-3)])
def test_no_success_at_a_local_maximum_whose_density_is_infinite_at_an_end(n, seed, b, a):
    # skew below -2 (a gamma shape below 1): the density is infinite at the end, loc
    # can move that end onto the largest observation, and the likelihood has no
    # maximum. These fits said "converged" at skew -2.18, -2.13, -2.12 and -2.05, the
    # end on the largest observation or 2e-7 scales from it
    from robustfit.fitting.edges import UNBOUNDED_AT_EDGE

    res = robustfit.fit(stats.pearson3, b + a * sample(stats.pearson3, (-1.95,), n, seed))
    assert res[0] < -2.0
    # (reported: that point, or -- since a run that ended on the edge is polished too
    # where no maximum exists -- the edge's polish, where more likely)
    assert not res.success and res.message.startswith((UNBOUNDED_AT_EDGE, "no maximum"))
    assert math.isfinite(res.nll)
    # with loc fixed nothing moves the end onto the data: not this reason
    fixed = robustfit.fit(stats.pearson3, b + a * sample(stats.pearson3, (-1.95,), n, seed),
                          floc=res[1])
    assert "loc moves onto the extreme observation" not in fixed.message


def test_where_no_maximum_exists_a_run_that_ended_on_the_edge_is_polished_too():
    # pearson3(-2) on 1000 values of spread 10 rounded to whole units (many tied at the
    # largest): the interior point with skew -2.36 beat the run that ended on the edge
    # before the polish and was polished alone, 2806.7, where the edge's polish reaches
    # 2438.7 (the density is infinite at the end: no maximum either way)
    x = np.round(10.0 * sample(stats.pearson3, (-2.0,), 1000, seed=42))
    res = robustfit.fit(stats.pearson3, x)
    assert not res.success and res[0] < -2.0
    assert res.nll == pytest.approx(-np.sum(stats.pearson3.logpdf(x, *res)), rel=1e-12)
    assert res.nll < 2500.0
