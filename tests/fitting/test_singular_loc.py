"""A density infinite at loc (dgamma a < 1, dweibull c < 1) with loc on an observation:
the likelihood is unbounded. The fit says so and reports the best point away from the
spikes, with a finite likelihood, instead of an infinite NLL and a message about the
support's edge."""

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks.fit_cases import sample
from robustfit.fitting.singular_loc import (
    on_singular_observation,
    regular_floor,
    singular_at_loc,
)


def test_singular_at_loc_reads_the_density_at_the_centre():
    assert singular_at_loc(stats.dgamma, (0.5,)) and singular_at_loc(stats.dweibull, (0.9,))
    assert not singular_at_loc(stats.dgamma, (1.0,))
    assert not singular_at_loc(stats.norm, ())
    assert not singular_at_loc(stats.gamma, (0.5,))  # infinite at loc, but on its edge


def test_regular_floor_is_where_the_density_at_loc_turns_finite():
    assert regular_floor(stats.dgamma, (0.3,), 0) == pytest.approx(1.0, rel=1e-9)
    assert regular_floor(stats.dgamma, (1.3,), 0) is None  # already finite


def test_on_singular_observation_needs_both_the_shape_and_the_position():
    z = np.array([-1.0, 0.25, 2.0])
    assert on_singular_observation(stats.dgamma, [0.5, 0.25 + 1e-9, 1.0], z)
    assert not on_singular_observation(stats.dgamma, [0.5, 0.3, 1.0], z)
    assert not on_singular_observation(stats.dgamma, [1.5, 0.25, 1.0], z)


@pytest.mark.parametrize("dist, shapes, n, seed, loc, scale", [
    (stats.dgamma, (1.1,), 12, 1, 0.0, 1.0),
    (stats.dweibull, (2.07,), 12, 1, 0.0, 1.0),
    (stats.dweibull, (2.07,), 40, 2, 1e5, 1e-2),
])
def test_small_samples_with_spikes_get_the_best_point_away_from_them(dist, shapes, n, seed,
                                                                    loc, scale):
    # each of these ran a start onto an observation with the shape below 1: the fit
    # reported NLL = inf and "the optimum lies on the edge of the support in float64"
    x = loc + scale * sample(dist, shapes, n, seed=seed)
    res = robustfit.fit(dist, x)
    assert not res.success and "the likelihood is unbounded" in res.message
    # the reason leads (it had read "optimiser did not report convergence (...")
    assert res.message.startswith(("no maximum of the likelihood exists",
                                   "the likelihood is unbounded"))
    assert np.isfinite(res.nll) and np.all(np.isfinite(res))
    assert res.nll == pytest.approx(-np.sum(dist.logpdf(x, *res)), rel=1e-12)
    assert not on_singular_observation(dist, np.array(res), np.sort(x))
    reference = dist.fit(x)  # scipy, from its own start, finds a regular local maximum
    assert res.nll <= dist.nnlf(reference, x) + 1e-6 * abs(dist.nnlf(reference, x))


def test_a_censored_sample_with_spikes_is_reported_unbounded_too():
    # dgamma with a < 1 and loc on an exact observation: before, the censored fit
    # reported success at such a spike, its NLL moving by 0.1 between runs
    x = sample(stats.dgamma, (1.1,), 150, seed=12)
    cut = np.quantile(x, 0.8)
    data = stats.CensoredData.right_censored(np.minimum(x, cut), x > cut)
    res = robustfit.fit(stats.dgamma, data)
    assert not res.success and "the likelihood is unbounded" in res.message
    exact = np.sort(x[x <= cut])
    assert not on_singular_observation(stats.dgamma, np.array(res), exact)
    nll = -(np.sum(stats.dgamma.logpdf(exact, *res))
            + np.sum(x > cut) * stats.dgamma.logsf(cut, *res))
    assert res.nll == pytest.approx(nll, rel=1e-10)


@pytest.mark.parametrize("dist, shapes", [(stats.dgamma, (1.1,)), (stats.dweibull, (2.07,))])
def test_spikes_within_reach_are_reported_at_every_magnitude(dist, shapes):
    # with the shape and loc free every sample's likelihood is unbounded (a shape below
    # 1 and loc on an observation); the fit had said so only where a run met a spike,
    # and the same point came back success=True at some magnitudes of the data (the
    # catalogue's dgamma on 200 points: False at unit scale, True at (1e6, 1e-3))
    from benchmarks.fit_cases import MAGNITUDES

    z = sample(dist, shapes, 200)
    fits = [robustfit.fit(dist, b + a * z) for b, a in [*MAGNITUDES, (1e6, 1e-3)]]
    for res in fits:
        assert not res.success and "the likelihood is unbounded" in res.message
        assert np.all(np.isfinite(res)) and np.isfinite(res.nll)
    np.testing.assert_allclose([res[0] for res in fits], fits[0][0], rtol=1e-6)
    # the shape or loc fixed: no spike can be reached, a converged fit is a maximum
    assert robustfit.fit(dist, z, f0=shapes[0]).success
    assert robustfit.fit(dist, z, floc=float(np.median(z))).success


@pytest.mark.parametrize("n, seed", [(300, 2026), (500, 8)])
def test_the_likeliest_gap_between_observations_is_found(n, seed):
    # dgamma's density vanishes at loc (a > 1): one local maximum in each gap between
    # neighbouring observations. Ten starts at fixed shifts of loc had ended 0.54 and
    # 0.16 units short of the best gap; the reference runs Nelder-Mead from each of the
    # 30 gaps nearest the fit's loc
    from scipy import optimize

    x = sample(stats.dgamma, (1.1023326088288166,), n, seed=seed)  # distcont's shape
    res = robustfit.fit(stats.dgamma, x)
    a0, loc0, scale0 = res
    assert res.nll == pytest.approx(stats.dgamma.nnlf(tuple(res), x), rel=1e-12)

    def nll(p):
        value = stats.dgamma.nnlf((p[0], p[1], np.exp(p[2])), x) if p[0] > 0 else np.inf
        return value if np.isfinite(value) else np.inf

    xs = np.unique(x)
    i = int(np.searchsorted(xs, loc0))
    reference = min(
        optimize.minimize(nll, [a0, 0.5 * (xs[k] + xs[k + 1]), np.log(scale0)],
                          method="Nelder-Mead",
                          options=dict(xatol=1e-9, fatol=1e-9, maxiter=3000)).fun
        for k in range(max(0, i - 15), min(xs.size - 1, i + 15)))
    assert res.nll <= reference + 1e-6


def test_every_gap_of_a_small_sample_is_scanned():
    # dgamma with a fixed on 8 points: the gaps within 0.3 scales of loc held one
    # observation's neighbours only, and the scan missed a gap 0.07 units more likely
    # (which ten fixed shifts of loc had found); the reference: Nelder-Mead from every gap
    from scipy import optimize

    a = 1.1023326088288166
    x = sample(stats.dgamma, (a,), 8, seed=38)
    res = robustfit.fit(stats.dgamma, x, f0=a)
    assert res.success and res[0] == a

    def nll(p):
        value = stats.dgamma.nnlf((a, p[0], np.exp(p[1])), x)
        return value if np.isfinite(value) else np.inf

    xs = np.unique(x)
    reference = min(optimize.minimize(nll, [0.5 * (xs[k] + xs[k + 1]), np.log(res[2])],
                                      method="Nelder-Mead",
                                      options=dict(xatol=1e-10, fatol=1e-10)).fun
                    for k in range(xs.size - 1))
    assert res.nll <= reference + 1e-8


def test_a_large_sample_reaches_beyond_the_nearest_gaps():
    # dgamma on 50,000 points (fitted on a 20,000-point subsample, then polished): the
    # 64 gaps nearest loc span a few thousandths of a scale, and starts there alone ended
    # 17 units less likely than the truth's parameters; the fixed shifts reach farther
    from benchmarks import fit_fuzz

    data, truth = fit_fuzz._data(stats.dgamma, (1.1023326088288166,), "complete", 50000,
                                 41, 2e3, 7.0, None)
    res = robustfit.fit(stats.dgamma, data)
    assert not res.success and np.isfinite(res.nll)
    assert res.nll <= truth
