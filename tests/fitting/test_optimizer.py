"""The local optimiser behind robustfit.fit: convergence, polish, races, edges."""

import numpy as np
import pytest
from scipy import stats

from robustfit.fitting.guesses import Candidate
from robustfit.fitting.likelihood import CompleteNLL
from robustfit.fitting.optimizer import (
    Race,
    _BestTracker,
    _hessian,
    _ridge_newton_step,
    minimize_local,
)
from robustfit.fitting.parameterization import Parameterization
from robustfit.fitting.start_choice import distinct


def rosenbrock(t):
    return (1 - t[0]) ** 2 + 100 * (t[1] - t[0] ** 2) ** 2


def test_minimize_local_reaches_the_minimum_to_polish_accuracy():
    res = minimize_local(rosenbrock, np.array([-1.2, 1.0]))
    assert res.success
    np.testing.assert_allclose(res.t, [1.0, 1.0], atol=1e-7)
    assert res.fun == rosenbrock(res.t)


def test_accurate_hessian_has_second_order_mixed_terms():
    # f = exp(a) * b**2 + a**3 b: exact Hessian known; third derivatives are large
    def f(t):
        a, b = t
        return np.exp(a) * b**2 + a**3 * b

    t = np.array([0.7, 1.3])
    a, b = t
    exact = np.array([[np.exp(a) * b**2 + 6 * a * b, 2 * np.exp(a) * b + 3 * a**2],
                      [2 * np.exp(a) * b + 3 * a**2, 2 * np.exp(a)]])
    rough = _hessian(_BestTracker(f, 100), t, rel=1e-3)
    fine = _hessian(_BestTracker(f, 100), t, rel=1e-3, accurate=True)
    err_rough = abs(rough[0, 1] - exact[0, 1])
    err_fine = abs(fine[0, 1] - exact[0, 1])
    assert err_fine < 1e-5
    assert err_fine < err_rough / 50


def double_well(t):
    # minima near x = +1 (value ~ +0.3) and x = -1 (value ~ -0.3); y a plain quadratic
    x, y = t
    return (x**2 - 1) ** 2 + 0.3 * x + (y - 0.5) ** 2


def test_a_racer_heading_for_the_rivals_optimum_stops_early():
    first = minimize_local(rosenbrock, np.array([-1.2, 1.0]))
    full = minimize_local(rosenbrock, np.array([-1.0, 1.1]))
    race = Race(8, first.fun + 2.0, first.fun)
    racer = minimize_local(rosenbrock, np.array([-1.0, 1.1]), race=race)
    assert racer.abandoned and not racer.success
    assert racer.nfev < full.nfev


def test_a_racer_heading_for_a_better_optimum_is_not_stopped():
    worse = minimize_local(double_well, np.array([1.5, 0.0]))
    assert worse.t[0] > 0  # the local minimum near x = +1
    race = Race(8, worse.fun + 2.0, worse.fun)
    racer = minimize_local(double_well, np.array([-1.5, 0.0]), race=race)
    assert not racer.abandoned and racer.success
    assert racer.fun < worse.fun - 0.5
    grad_x = 4 * racer.t[0] * (racer.t[0] ** 2 - 1) + 0.3
    assert abs(grad_x) < 1e-7


def test_creep_towards_an_edge_is_reported():
    # optimum at t0 -> -inf (a gap exp(t0) that wants to vanish); BFGS only creeps there
    def f(t):
        return np.exp(t[0]) + (t[1] - 1.0) ** 2

    res = minimize_local(f, np.array([0.0, 0.0]), edge=([0], np.log(1e-3)))
    assert res.heading_for_edge and not res.success
    assert res.t[0] < np.log(1e-3)
    plain = minimize_local(f, np.array([0.0, 0.0]), edge=([1], np.log(1e-3)))
    assert not plain.heading_for_edge  # only the listed positions are watched


def test_second_start_differs_in_its_shapes():
    c = [Candidate("moments", np.array([3.0, 0.3, 0.0, 1.0])),
         Candidate("quantiles", np.array([3.0, 0.3, 0.1, 1.1])),
         Candidate("moments", np.array([1.0, 0.3, 0.0, 2.0]))]
    picked = distinct(c, 2, n_shapes=2)
    assert [p.theta[0] for p in picked] == [3.0, 1.0]
    # without shapes (or when too few differ) any distinct candidate fills up
    assert len(distinct(c[:2], 2, n_shapes=2)) == 2
    assert len(distinct(c, 3, n_shapes=0)) == 3


@pytest.mark.parametrize("name, theta", [("gamma", [2.5, 0.1, 1.3]),
                                         ("burr12", [3.0, 2.0, -0.2, 1.5]),
                                         ("norm", [0.3, 1.7]),
                                         ("truncnorm", [-1.0, 2.0, 0.2, 1.1])])
def test_complete_nll_matches_scipys_nnlf(name, theta):
    dist = getattr(stats, name)
    z = np.sort(dist.rvs(*theta, size=300, random_state=3))
    nll = CompleteNLL(dist, z)
    np.testing.assert_allclose(nll(np.array(theta)), dist.nnlf(theta, z), rtol=1e-12)
    bad = np.array(theta, dtype=float)
    bad[-1] = -1.0
    assert nll(bad) == np.inf


def test_parameterization_maps_huge_coordinates_to_none_not_warnings():
    z = np.sort(stats.gamma.rvs(2.0, size=50, random_state=1))
    par = Parameterization(stats.gamma, {}, 3, z.min(), z.max(), [2.0], gap_floor=1e-10)
    t = par.to_t(np.array([2.0, -0.1, 1.0]))
    np.testing.assert_allclose(par.to_theta(t), [2.0, -0.1, 1.0], rtol=1e-12)
    with np.errstate(all="raise"):
        assert par.to_theta(np.array([1e6, 0.0, 0.0])) is None  # shape overflows
        assert par.to_theta(np.array([0.0, 0.0, 1e6])) is None  # scale overflows


class _MaskedNormal(stats.rv_continuous):
    """N(0, c^2) whose _logpdf indexes the shape like x (fails for a scalar shape)."""

    def _logpdf(self, x, c):
        c = np.asarray(c)
        out = np.empty_like(x)
        m = x > 0
        for part in (m, ~m):
            out[part] = -0.5 * (x[part] / c[part]) ** 2 - np.log(c[part] * np.sqrt(2 * np.pi))
        return out


def test_complete_nll_broadcasts_shapes_for_a_logpdf_that_needs_it():
    dist = _MaskedNormal(name="masked_normal")
    z = np.sort(stats.norm.rvs(scale=2.0, size=200, random_state=5))
    nll = CompleteNLL(dist, z)
    theta = np.array([2.0, 0.1, 1.5])
    expected = -np.sum(stats.norm.logpdf(z, loc=0.1, scale=3.0))
    np.testing.assert_allclose(nll(theta), expected, rtol=1e-12)
    assert nll._private_ok  # the fast private path, with broadcast shapes


class _OverflowingNormal(stats.rv_continuous):
    """N(0, c^2) whose private _logpdf raises for c > 10, as boost's nct density
    overflows at nc = 1e4; counts the calls of the public logpdf."""

    public_calls = 0

    def _logpdf(self, x, c):
        if np.any(np.asarray(c) > 10):
            raise OverflowError("tgamma overflow")
        return -0.5 * (x / c) ** 2 - np.log(c * np.sqrt(2 * np.pi))

    def logpdf(self, x, *args, **kwds):
        type(self).public_calls += 1
        return super().logpdf(x, *args, **kwds)


def test_one_failing_point_keeps_the_private_path_for_the_others():
    dist = _OverflowingNormal(name="overflowing_normal", shapes="c")
    z = np.sort(stats.norm.rvs(scale=2.0, size=100, random_state=5))
    nll = CompleteNLL(dist, z)
    good = np.array([2.0, 0.1, 1.0])
    expected = -np.sum(stats.norm.logpdf(z, loc=0.1, scale=2.0))
    np.testing.assert_allclose(nll(good), expected, rtol=1e-12)
    assert nll(np.array([20.0, 0.1, 1.0])) == np.inf  # the point fails (public too)
    before = _OverflowingNormal.public_calls
    np.testing.assert_allclose(nll(good), expected, rtol=1e-12)
    assert _OverflowingNormal.public_calls == before  # still the private path
    assert nll._private_ok and nll._scalar_ok
    # rows of points in one call: a row that fails leaves the batching in place
    rows = [good, good * [1, 1, 1.01], np.array([20.0, 0.1, 1.0])]
    first = nll.many(rows[:2])
    assert nll._batch_ok and np.isfinite(first).all()
    values = nll.many(rows)
    assert values[2] == np.inf and values[:2] == first
    assert nll._batch_ok


def test_a_start_whose_gradient_is_noise_is_nudged():
    # a likelihood that jitters next to its start, as scipy's kappa4 does next to its
    # special case h = k = 0 (4e-5 over steps of 1e-8): no BFGS step from the start
    def f(t):
        smooth = float((t[0] - 0.3) ** 2 + 2 * (t[1] + 0.2) ** 2)
        if 0 < np.max(np.abs(t)) < 1e-4:
            return smooth + 1e-3 * np.sin(1e9 * t[0]) ** 2 + 1e-3 * np.cos(1e9 * t[1]) ** 2
        return smooth
    res = minimize_local(f, np.zeros(2))
    assert res.success and "nudged" in res.message
    np.testing.assert_allclose(res.t, [0.3, -0.2], atol=1e-6)


def test_newton_step_below_rounding_is_taken_on_a_ridge():
    # chi with df = 78 (scipy's acceptance case): df, loc and scale trade off along a
    # ridge of curvature 8e-4 per observation. The Newton step from where BFGS stopped
    # promised 2.5e-16 per observation, below the value's rounding, and was refused;
    # the fits at three magnitudes then ended 1.2e-6 apart
    import robustfit
    from benchmarks.fit_cases import MAGNITUDES, sample

    z = sample(stats.chi, (78,), 1000)
    unit = np.array(robustfit.fit(stats.chi, z))
    for b, a in MAGNITUDES[1:]:
        got = np.array(robustfit.fit(stats.chi, b + a * z))
        mapped = np.array([unit[0], b + a * unit[1], a * unit[2]])
        err = np.abs(got - mapped) / np.array([unit[0], a * unit[2], a * unit[2]])
        assert np.max(err) < 5e-7, (b, a, got, mapped)


def test_below_rounding_needs_a_promise_and_a_value_within_rounding():
    from robustfit.fitting.optimizer import ROUNDING, _below_rounding

    f = 1.3929365293742300
    assert _below_rounding(f, f + 2e-16, 2.5e-16)
    assert not _below_rounding(f, f + 2e-16, 1e-9)  # the model promised a real decrease
    assert not _below_rounding(f, f + 100 * ROUNDING * f, 2.5e-16)  # the value rose
    assert not _below_rounding(f, np.inf, 2.5e-16)


def test_ridge_newton_step_reads_slopes_along_eigenvectors_exactly_on_a_cubic():
    # f = 5e-4 u**2 + 1e-3 u**3 + 50 w**2 in coordinates rotated by 30 degrees: along
    # u the curvature is 1e-3 and the cubic term is as large as the slope at the
    # steps that see it; Richardson's extrapolation removes it, the central second
    # difference has no error on a cubic, so the step is exact
    c, s = np.cos(np.pi / 6), np.sin(np.pi / 6)
    rotation = np.array([[c, -s], [s, c]])

    def f(t):
        u, w = rotation.T @ t
        return 5e-4 * u**2 + 1e-3 * u**3 + 50 * w**2 + 1.0

    u0, w0 = 0.02, 1e-4
    t = rotation @ np.array([u0, w0])
    hess = rotation @ np.diag([1e-3 + 6e-3 * u0, 100.0]) @ rotation.T
    step, promised = _ridge_newton_step(_BestTracker(f, 100), t, f(t), hess)
    slope_u, curv_u = 1e-3 * u0 + 3e-3 * u0**2, 1e-3 + 6e-3 * u0
    exact = rotation @ np.array([slope_u / curv_u, 100 * w0 / 100.0])
    np.testing.assert_allclose(step, exact, rtol=1e-6)
    assert promised == pytest.approx(slope_u**2 / curv_u / 2 + (100 * w0) ** 2 / 200,
                                     rel=1e-6)


def test_ridge_newton_step_refuses_a_hessian_that_is_not_positive_definite():
    t = np.array([0.0, 1.0])
    assert _ridge_newton_step(_BestTracker(rosenbrock, 100), t, rosenbrock(t),
                              np.diag([1.0, -1.0])) is None


def test_chi2_on_its_ridge_is_equivariant_across_magnitudes():
    # chi2 with loc and scale free on scipy's sample (seed 11): df at 238 against 55,
    # a ridge of curvature 8e-4 where the likelihood jitters by 1e-13 per observation;
    # the three magnitudes' fits were 1e-5 apart before the polish measured its slope
    # along the ridge's eigenvector (and polished the profile's optimum too)
    import robustfit

    np.random.seed(11)  # noqa: NPY002 - scipy's test_cont_fit draws it this way
    x = stats.chi2.rvs(55, size=1000)
    fits = []
    for loc, scale in ((0.0, 1.0), (-2e7, 5e5), (1e-5, 1e-9)):
        p = np.array(tuple(robustfit.fit(stats.chi2, loc + scale * x)), dtype=float)
        fits.append([p[0], (p[1] - loc) / scale, p[2] / scale])
    fits = np.array(fits)
    np.testing.assert_allclose(fits[1:], np.broadcast_to(fits[0], (2, 3)), rtol=1e-6,
                               atol=1e-6)
