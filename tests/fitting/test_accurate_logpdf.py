"""Accurate replacements of scipy log-densities that cancel, and the optimiser's check
that its best point is not a spike of rounding error."""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks.fit_cases import MAGNITUDES, sample
from robustfit.fitting.accurate_logpdf import accurate_logpdf
from robustfit.fitting.likelihood import CompleteNLL
from robustfit.fitting.optimizer import _BestTracker, _neighbour_of_spike, minimize_local

KAPPA4_CASES = [(0.0, 0.0), (-0.1, 0.1), (0.0, 0.1), (0.1, 0.0)]  # scipy's distcont


def _inside_support(h, k, size):
    """Points spread over the support (scipy's kappa4 ppf, hence rvs, returns NaN for
    some h < 0)."""
    a, b = (float(v) for v in stats.kappa4._get_support(h, k))
    lo, hi = max(a, -4.0), min(b, 8.0)
    pad = 1e-3 * (hi - lo)
    return np.linspace(lo + pad, hi - pad, size)


@pytest.mark.parametrize("h", [-2.0, -0.5, 0.0, 0.18, 1.0, 2.0])
@pytest.mark.parametrize("k", [-1.0, -0.3, -1e-3, 0.0, 1e-3, 0.3, 1.0])
def test_kappa4_agrees_with_scipy_away_from_its_cancellation(h, k):
    # |k| >= 1e-3 (scipy keeps ~13 digits there) and k = 0 exactly (its own formula)
    x = _inside_support(h, k, 300)
    ours = accurate_logpdf(stats.kappa4)(x, h, k)
    ref = stats.kappa4._logpdf(x, h, k)
    np.testing.assert_array_equal(np.isfinite(ours), np.isfinite(ref))
    finite = np.isfinite(ref)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("h", [-0.5, 0.0, 0.18])
def test_kappa4_is_continuous_through_k_zero(h):
    # scipy's (1 - k*x)**(1/k) is off by 0.1 units of the total at k = -1.5e-14
    x = _inside_support(h, 0.0, 1000)
    logpdf = accurate_logpdf(stats.kappa4)
    at_zero = logpdf(x, h, 0.0).sum()
    for k in (-1.5e-14, 1e-14, -1e-10, 1e-10):
        # the total moves with k at its slope (~1e3 per unit k), nothing more
        assert abs(logpdf(x, h, k).sum() - at_zero) < 1e-9 * abs(at_zero) + 1e4 * abs(k)
    assert np.all(np.isfinite(logpdf(x, h, np.array([0.0, 1e-14])[:, None])))


def test_user_subclass_keeps_its_own_density():
    class MyKappa4(stats.rv_continuous):
        def _pdf(self, x):
            return np.exp(-x - np.exp(-x))

    assert accurate_logpdf(MyKappa4(name="kappa4")) is None
    assert accurate_logpdf(stats.norm) is None
    assert CompleteNLL(stats.kappa4, np.array([0.1, 0.2]))._logpdf is not \
        stats.kappa4._logpdf


@pytest.mark.parametrize("shapes", KAPPA4_CASES)
def test_kappa4_fit_reaches_scipys_fit_from_the_truth(shapes):
    # before: kappa4 (0, 0) ended at a local optimum 0.39 units worse at unit scale,
    # and kappa4 (0, 0.1) 2.2 units worse at every magnitude (starts at h = 0 or k = 0
    # could not leave their kind of support)
    x = sample(stats.kappa4, shapes, 1000)
    res = robustfit.fit(stats.kappa4, x)
    ref = stats.kappa4.fit(x, *shapes, loc=0.0, scale=1.0)
    ref_nll = -stats.kappa4.logpdf(x, *ref).sum()
    assert res.success, res.message
    assert res.nll <= ref_nll + 1e-6 * abs(ref_nll), (tuple(res), ref)


@pytest.mark.parametrize("shapes", KAPPA4_CASES)
def test_kappa4_same_fit_at_every_magnitude(shapes):
    # before: kappa4 (0.1, 0) at (-1e-3, 1e-6): one start converged into scipy's
    # cancellation at k = -1.5e-14, 0.42 units "better" than the optimum, 4e-3 away
    # from the unit fit; kappa4 (0, 0) there: a local optimum 0.39 units worse
    z = sample(stats.kappa4, shapes, 1000)
    unit = np.array(robustfit.fit(stats.kappa4, z))
    for b, a in MAGNITUDES[1:]:
        got = np.array(robustfit.fit(stats.kappa4, b + a * z))
        mapped = np.concatenate([unit[:2], [b + a * unit[2], a * unit[3]]])
        err = np.abs(got - mapped) / np.array([1.0, 1.0, a, a * unit[3]])
        assert np.max(err) < 1e-6, (b, a, got, mapped)


def _spiky(t):
    # a quadratic with a spike of -0.5 at exactly t = 0.3 (a formula that cancels)
    t0 = float(t[0])
    return (t0 - 0.3) ** 2 + float(t[1]) ** 2 - (0.5 if t0 == 0.3 else 0.0)


def _tracker_at(f, t):
    tracker = _BestTracker(f, 100)
    tracker(np.asarray(t, dtype=float))
    return tracker


def test_spike_is_found_and_its_neighbour_stands_in():
    out = _neighbour_of_spike(_tracker_at(_spiky, [0.3, 0.0]))
    assert out is not None
    point, value = out
    assert abs(point[0] - 0.3) == pytest.approx(1e-8) and point[1] == 0.0
    assert value == pytest.approx(1e-16, abs=1e-15)


def test_spike_with_one_infeasible_side_is_found():
    def f(t):
        return np.inf if t[0] > 0.3 else _spiky(t)

    out = _neighbour_of_spike(_tracker_at(f, [0.3, 0.0]))
    assert out is not None and out[0][0] < 0.3


@pytest.mark.parametrize("f, t", [
    (lambda t: (t[0] - 0.3) ** 2 + t[1] ** 2, [0.3, 0.0]),  # a smooth minimum
    (lambda t: 1e3 * abs(t[0] - 0.3) + t[1] ** 2, [0.3, 0.0]),  # a kink
    # unbounded at an edge (a log-gap), one side infeasible: it rises like a logarithm
    (lambda t: 0.4 * np.log(t[0]) + t[1] ** 2 if t[0] > 0 else np.inf, [1e-13, 0.0]),
], ids=["smooth", "kink", "log-edge"])
def test_no_spike_where_the_function_is_what_it_says(f, t):
    assert _neighbour_of_spike(_tracker_at(f, t)) is None


def test_minimize_local_does_not_report_a_spike_as_converged():
    res = minimize_local(_spiky, np.array([0.3, 0.0]), maxfev=300)
    assert not res.success
    assert res.fun > -0.1  # the honest value next to the spike, not -0.5
    assert "spike" in res.message


@pytest.mark.parametrize("h", [-0.5, 0.0, 0.18, 1.0])
@pytest.mark.parametrize("k", [-0.3, -1e-3, 0.0, 1e-3, 0.3])
def test_kappa4_tails_agree_with_scipy_away_from_its_cancellation(h, k):
    from robustfit.fitting.accurate_logpdf import accurate_log_tails

    logcdf, logsf = accurate_log_tails(stats.kappa4)
    x = _inside_support(h, k, 200)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # (scipy's own warns at some h < 0)
        refs = stats.kappa4.logcdf(x, h, k), stats.kappa4.logsf(x, h, k)
    for ours, ref in zip((logcdf(x, h, k), logsf(x, h, k)), refs, strict=True):
        finite = np.isfinite(ref)
        # (scipy's logsf loses ~4e-9 deep in the upper tail; ours is exact there)
        np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-8, atol=1e-12)


def test_kappa4_tails_are_continuous_through_k_zero():
    from robustfit.fitting.accurate_logpdf import accurate_log_tails

    logcdf, logsf = accurate_log_tails(stats.kappa4)
    x = _inside_support(0.18, 0.0, 500)
    for tail in (logcdf, logsf):
        at_zero = tail(x, 0.18, 0.0)
        for k in (-1.5e-14, 1e-14):  # scipy: off by up to 1e-2 there
            np.testing.assert_allclose(tail(x, 0.18, k), at_zero, rtol=1e-9, atol=1e-11)


def test_censored_kappa4_likelihood_matches_scipy_and_its_support():
    from robustfit.fitting.likelihood import CensoredNLL

    z = np.sort(stats.kappa4.rvs(0.1, 0.1, size=300, random_state=3))
    exact, left, right = z[21:-30], np.full(20, z[20]), np.full(30, z[-30])
    lo, hi = np.array([z[100], z[200]]), np.array([z[110], z[250]])
    nll = CensoredNLL(stats.kappa4, exact, left, right, lo, hi)
    theta = np.array([0.1, 0.1, 0.0, 1.0])
    d = stats.kappa4
    ref = -(d.logpdf(exact, 0.1, 0.1).sum() + d.logcdf(left, 0.1, 0.1).sum()
            + d.logsf(right, 0.1, 0.1).sum()
            + np.log(d.cdf(hi, 0.1, 0.1) - d.cdf(lo, 0.1, 0.1)).sum())
    assert nll(theta) == pytest.approx(ref, rel=1e-12)
    # a right-censoring point beyond the support's upper end (1/k = 10) has sf 0
    beyond = CensoredNLL(d, exact, left, np.array([11.0]), lo[:0], hi[:0])
    assert beyond(theta) == np.inf


@pytest.mark.parametrize("n", [1, 2, 3, 5, 10, 22, 50, 120])
def test_irwinhall_recursion_is_scipys_density(n):
    """The cardinal B-spline recursion against scipy's B-spline objects, over the
    support, at its ends and outside it."""
    rng = np.random.default_rng(n)
    x = np.concatenate([rng.uniform(-0.5, n + 0.5, 300), [0.0, 1e-9, 0.5, 1.0, n - 1e-9, n]])
    ours = accurate_logpdf(stats.irwinhall)(x, float(n))
    ref = stats.irwinhall.logpdf(x, n)
    assert np.array_equal(np.isfinite(ours), np.isfinite(ref))
    shown = np.isfinite(ref) & (ref > -600)
    np.testing.assert_allclose(ours[shown], ref[shown], rtol=1e-12, atol=1e-12)


def test_irwinhall_takes_rows_of_shapes_and_non_integers():
    x = np.array([[0.5, 2.5, 4.0], [0.5, 2.5, 4.0]])
    n = np.array([[5.0], [7.5]]) * np.ones((2, 3))  # 7.5 lies outside the family
    ours = accurate_logpdf(stats.irwinhall)(x, n)
    np.testing.assert_allclose(ours[0], stats.irwinhall.logpdf(x[0], 5), rtol=1e-12)
    np.testing.assert_array_equal(ours[1], stats.irwinhall._logpdf(x[1], 7.5))


def test_irwinhall_fit_is_the_same_optimum():
    # (the fit went through scipy's density at 0.05-0.15 ms a point: 13-33 s here)
    x = stats.irwinhall.rvs(3, size=1000, random_state=np.random.default_rng(1))
    res = robustfit.fit(stats.irwinhall, x)
    assert res.success and res[0] == 3.0
    assert res.nll == pytest.approx(float(-np.sum(stats.irwinhall.logpdf(x, *res))), rel=1e-12)
    assert res.nll <= float(-np.sum(stats.irwinhall.logpdf(x, 3, 0.0, 1.0)))


_UNIT_POINTS = np.r_[0.0, 1.0, 0.25, 0.5, 0.75, 0.3, 0.3000001,
                     np.random.default_rng(5).uniform(size=500)]


@pytest.mark.parametrize("c", [0.0, 1e-300, 0.25, 0.5, 1 - 1e-16, 1.0, 0.977])
def test_triang_density_is_scipys_to_the_bit(c):
    # every piece and edge case of scipy's _lazyselect (c = 0, x < c, x >= c, c = 1)
    ours = accurate_logpdf(stats.triang)(_UNIT_POINTS, c)
    np.testing.assert_array_equal(ours, stats.triang.logpdf(_UNIT_POINTS, c))


@pytest.mark.parametrize("c, d", [(0.0, 0.0), (0.0, 1.0), (1.0, 1.0), (0.25, 0.25),
                                  (0.25, 0.75), (0.5, 1.0), (0.0, 0.5), (0.3, 0.3000001)])
def test_trapezoid_density_is_scipys_to_the_bit(c, d):
    ours = accurate_logpdf(stats.trapezoid)(_UNIT_POINTS, c, d)
    np.testing.assert_array_equal(ours, stats.trapezoid.logpdf(_UNIT_POINTS, c, d))


def test_knotted_densities_take_rows_of_shapes():
    # a gradient evaluates neighbouring parameter vectors in one call, shapes as columns
    rows = np.vstack([_UNIT_POINTS, _UNIT_POINTS])
    c, d = np.array([[0.2], [0.6]]), np.array([[0.3], [0.9]])
    np.testing.assert_array_equal(
        accurate_logpdf(stats.triang)(rows, c),
        np.vstack([stats.triang.logpdf(_UNIT_POINTS, v) for v in (0.2, 0.6)]))
    np.testing.assert_array_equal(
        accurate_logpdf(stats.trapezoid)(rows, c, d),
        np.vstack([stats.trapezoid.logpdf(_UNIT_POINTS, a, b)
                   for a, b in ((0.2, 0.3), (0.6, 0.9))]))


@pytest.mark.parametrize("c", [1e-3, 0.3, 0.7, 1.0, 1.5, 4.0])
def test_genhalflogistic_agrees_with_scipy_where_scipy_is_accurate(c):
    x = np.r_[0.0, np.linspace(0.0, 1.0 / c, 202)[1:-1], 1.0 / c]
    ours = accurate_logpdf(stats.genhalflogistic)(x, c)
    with np.errstate(all="ignore"):  # (scipy's power of 0 at the upper end)
        ref = stats.genhalflogistic._logpdf(x, c)
    # the same at the upper end (-inf, log 2, or NaN as c < 1, = 1, > 1); finite
    # wherever scipy's is (and where scipy's density underflows far in the tail)
    np.testing.assert_array_equal(ours[-1], ref[-1])
    finite = np.isfinite(ref)
    assert np.all(np.isfinite(ours[:-1]))
    finite &= ref > np.log(np.finfo(float).tiny)  # (scipy's subnormal densities round)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("c", [1e-14, 1e-11, 1e-8])
def test_genhalflogistic_tends_to_the_half_logistic(c):
    # log pdf = halflogistic's + O(c x^2); scipy's power of the rounded 1 - c x is off
    # by ~1e-16 x / c there (2e-5 at c = 1e-12)
    x = np.linspace(0.0, 6.0, 61)
    ours = accurate_logpdf(stats.genhalflogistic)(x, c)
    np.testing.assert_allclose(ours, stats.halflogistic.logpdf(x), rtol=0, atol=40 * c)


@pytest.mark.parametrize("K", [1e-8, 1e-5, 0.01, 0.09, 0.1, 0.5, 3.0])
def test_exponnorm_matches_the_normal_cdf_form_without_cancelling(K):
    # the density is exp(-x^2/2) erfcx((1/K - x)/sqrt 2) / (2K), which at K = 0.1 and
    # above is scipy's to 13 digits, and tends to the normal's as K -> 0
    x = np.r_[np.linspace(-6.0, 6.0, 49), 1.0 / K + np.array([-1.0, 0.0, 2.0])]
    ours = accurate_logpdf(stats.exponnorm)(x, K)
    assert np.all(np.isfinite(ours))
    if K >= 0.1:
        np.testing.assert_allclose(ours, stats.exponnorm.logpdf(x, K), rtol=1e-12)
    else:
        inner = x < 0.5 / K
        # log pdf - normal's = log(u K) + log(erfcx(u/sqrt 2) u sqrt(pi/2)), u = 1/K - x:
        # O(K x) + O(K^2) away from the tail
        np.testing.assert_allclose(ours[inner], stats.norm.logpdf(x[inner]),
                                   atol=10 * K * (1 + np.max(np.abs(x[inner]))))
    # the same pdf mass (integrates to 1), by quadrature, whatever K
    from scipy import integrate
    mass = integrate.quad(lambda t: np.exp(accurate_logpdf(stats.exponnorm)(t, K)),
                          -np.inf, np.inf, limit=200)[0]
    assert mass == pytest.approx(1.0, abs=1e-8)


# scipy's formulas without apply_where: the same values over finite points inside and
# outside the support (a fit evaluates no others), the ends and zeros, and rows of
# shapes -- to the bit where numpy's SIMD loops do not round a transcendental function
# differently for an element depending on its position in the array (apply_where
# evaluates a subset; one ulp then: 3 of 217 points of burr on an AVX-512 machine)
_SPECIAL_POINTS = np.r_[-1e200, -7.0, -1.0, -0.5, -1e-300, 0.0, 1e-300, 0.3, 0.5,
                        1.0, 1.0 + 1e-15, 2.0, 10.0, 1e200,
                        np.random.default_rng(11).normal(0.0, 3.0, 200)]


def _same_values(ours, ref):
    np.testing.assert_array_equal(np.isnan(ours), np.isnan(ref))
    np.testing.assert_array_equal(ours[np.isinf(ref)], ref[np.isinf(ref)])
    finite = np.isfinite(ref)
    np.testing.assert_allclose(ours[finite], ref[finite], rtol=4 * np.finfo(float).eps,
                               atol=0)
_FORMULA_CASES = [("t", [(0.5,), (2.74,), (30.0,), (1e12,), (np.inf,)]),
                  ("cauchy", [()]),
                  ("skewnorm", [(0.0,), (4.0,), (-30.0,), (1e-300,)]),
                  ("burr", [(10.5, 4.3), (0.5, 2.0), (1.0, 1.0)]),
                  ("fisk", [(3.09,), (0.4,)]),
                  ("gengamma", [(4.42, -3.12), (4.42, 3.12), (0.5, 1.0), (2.0, 0.5)]),
                  ("genpareto", [(0.1,), (0.0,), (-0.5,), (-1.0,), (2.0,)]),
                  ("genextreme", [(-0.1,), (0.0,), (0.5,), (1.0,), (-2.0,)]),
                  ("crystalball", [(2.0, 3.0), (0.5, 1.5), (10.0, 200.0)]),
                  ("recipinvgauss", [(0.63,), (1e-3,), (40.0,)]),
                  ("cosine", [()])]


@pytest.mark.parametrize("name, shape_sets", _FORMULA_CASES, ids=[c[0] for c in _FORMULA_CASES])
def test_formulas_without_apply_where_are_scipys(name, shape_sets):
    dist = getattr(stats, name)
    ours = accurate_logpdf(dist)
    for shapes in shape_sets:
        with np.errstate(all="ignore"):
            ref = dist._logpdf(_SPECIAL_POINTS, *shapes)
        _same_values(ours(_SPECIAL_POINTS, *shapes), ref)
    if shape_sets[0]:  # rows of shapes, as a finite-difference gradient passes them
        rows = np.vstack([_SPECIAL_POINTS] * len(shape_sets))
        columns = [np.array([[s[j]] for s in shape_sets]) for j in range(len(shape_sets[0]))]
        with np.errstate(all="ignore"):
            ref = dist._logpdf(rows, *columns)
        _same_values(ours(rows, *columns), ref)


@pytest.mark.parametrize("dfn, dfd", [(0.5, 3.0), (3.0, 0.5), (29.0, 18.0), (300.0, 7.0),
                                      (5e3, 5e3)])
def test_f_density_is_scipys_where_scipy_is_accurate(dfn, dfd):
    x = np.r_[0.0, 1e-8, np.linspace(0.01, 8.0, 60), 1e3]
    ours = accurate_logpdf(stats.f)(x, dfn, dfd)
    np.testing.assert_allclose(ours, stats.f.logpdf(x, dfn, dfd), rtol=1e-11, atol=1e-12)
    rows = accurate_logpdf(stats.f)(np.vstack([x, x]), np.array([[dfn], [2 * dfn]]),
                                    np.array([[dfd], [dfd]]))
    np.testing.assert_array_equal(rows[0], ours)


@pytest.mark.parametrize("dfd", [0.7, 18.6, 300.0])
def test_f_density_tends_to_the_inverse_gamma_as_dfn_grows(dfd):
    # F(n, m) -> m / chi2_m = invgamma(m/2, scale=m/2) as n -> inf, the difference
    # O((m^2 + (m/x)^2) / n); scipy's own formula is 1e-3 off at n = 1e12 wherever x is
    x = np.linspace(0.05, 10.0, 50)
    limit = stats.invgamma.logpdf(x, dfd / 2, scale=dfd / 2)
    for dfn in (1e8, 1e12):
        ours = accurate_logpdf(stats.f)(x, dfn, dfd)
        bound = ((dfd / x) ** 2 + dfd ** 2 + 1) / dfn + 1e-12 * (1 + np.abs(limit))
        assert np.all(np.abs(ours - limit) <= bound)


@pytest.mark.parametrize("dfn", [0.7, 5.0, 40.0])
def test_f_density_tends_to_the_scaled_chi_square_as_dfd_grows(dfn):
    # F(n, m) -> chi2_n / n as m -> inf: log pdf(x) -> log n + chi2.logpdf(n x, n)
    x = np.linspace(0.05, 10.0, 50)
    limit = np.log(dfn) + stats.chi2.logpdf(dfn * x, dfn)
    ours = accurate_logpdf(stats.f)(x, dfn, 1e12)
    np.testing.assert_allclose(ours, limit, rtol=0, atol=1e-9 * (1 + dfn) * (1 + x.max()))


@pytest.mark.parametrize("a", [1e4, 3.3e5, 1e6, 5e6, 1e9, 1e13])
@pytest.mark.parametrize("b", [1, 2, 9, 40])
def test_betaln_for_one_large_argument_is_the_exact_product(a, b):
    # for an integer b, B(a, b) = (b-1)! / (a (a+1) ... (a+b-1)): a sum of logs with
    # nothing to cancel (scipy's betaln is 3.6e-9 off at a = 5e6, b = 9.3)
    from robustfit.fitting.accurate_logpdf import _betaln

    exact = math.lgamma(b) - math.fsum(math.log(a + k) for k in range(b))
    assert _betaln(a, b) == pytest.approx(exact, rel=2e-15, abs=2e-15)
    assert _betaln(b, a) == _betaln(a, b)


def test_f_density_at_an_extreme_shape_integrates_to_one():
    # the fit's check that a density at an extreme shape is normalised integrates the
    # density the likelihood uses (scipy's F at dfn = 1e12 is 0.1% off)
    from robustfit.fitting.normalization import density_mass

    assert density_mass(stats.f, (1e12, 18.6)) == pytest.approx(1.0, abs=1e-9)
    assert density_mass(stats.f, (2.5, 1e12)) == pytest.approx(1.0, abs=1e-9)


# gamma-type densities: scipy's formula to the bit below LARGE_SHAPE; above, checked by
# what pins a density down without 50-digit arithmetic -- differences between points
# (exact from the kernel: (a-1) log(x/y) - (x - y) for gamma) and a total mass of 1
_GAMMA_KERNELS = {
    # name: (shape of the family at which it is large, log kernel ratio f(x)/f(y))
    "gamma": (1e6, lambda x, y, a: (a - 1) * np.log1p((x - y) / y) - (x - y)),
    "erlang": (1e6, lambda x, y, a: (a - 1) * np.log1p((x - y) / y) - (x - y)),
    "chi2": (2e6, lambda x, y, k: (k / 2 - 1) * np.log1p((x - y) / y) - (x - y) / 2),
    "invgamma": (1e6, lambda x, y, a: -(a + 1) * np.log1p((x - y) / y) - (y - x) / (x * y)),
    "chi": (2e6, lambda x, y, k: (k - 1) * np.log1p((x - y) / y) - (x - y) * (x + y) / 2),
    "nakagami": (1e6, lambda x, y, nu: (2 * nu - 1) * np.log1p((x - y) / y)
                 - nu * (x - y) * (x + y)),
    "loggamma": (1e6, lambda x, y, c: c * (x - y) - np.exp(y) * np.expm1(x - y)),
}


@pytest.mark.parametrize("name", sorted(_GAMMA_KERNELS))
def test_gamma_type_densities_are_scipys_below_large_shapes(name):
    dist = getattr(stats, name)
    ours = accurate_logpdf(dist)
    x = np.r_[0.0, 1e-300, np.linspace(0.01, 30.0, 80), 1e3]
    if name == "loggamma":  # (on the real line)
        x = np.r_[-1e3, -30.0, x[:-1]]
    for shape in (0.3, 1.0, 4.7, 9999.0):
        with np.errstate(all="ignore"):
            _same_values(ours(x, shape), dist._logpdf(x, shape))


@pytest.mark.parametrize("name", sorted(_GAMMA_KERNELS))
@pytest.mark.parametrize("factor", [1.0, 1e3, 1e6])
def test_gamma_type_densities_at_large_shapes_have_the_kernel_and_mass_one(name, factor):
    from scipy import integrate

    dist = getattr(stats, name)
    shape = _GAMMA_KERNELS[name][0] * factor
    ratio = _GAMMA_KERNELS[name][1]
    ours = accurate_logpdf(dist)
    mean, sd = (float(v) for v in dist.stats(shape, moments="mv"))
    sd = np.sqrt(sd)
    x = mean + sd * np.linspace(-5.0, 5.0, 41)
    y = np.full_like(x, mean + 0.3 * sd)
    np.testing.assert_allclose(ours(x, shape) - ours(y, shape), ratio(x, y, shape),
                               rtol=0, atol=1e-9 * np.sqrt(factor))
    mass = integrate.quad(lambda t: np.exp(ours(t, shape)), mean - 12 * sd,
                          mean + 12 * sd, points=[mean], limit=200, epsabs=0)[0]
    assert mass == pytest.approx(1.0, abs=1e-9 * np.sqrt(factor))


@pytest.mark.parametrize("a, b, c", [(1.2, 3.0, 0.9), (9.13, 16.2, 3.28), (0.5, 2.0, 0.3)])
def test_genexpon_density_is_scipys_where_its_terms_do_not_cancel(a, b, c):
    x = np.linspace(0.0, 30.0, 61)  # b x <= 1e3 or c x >= 0.1: scipy's formula, to the bit
    _same_values(accurate_logpdf(stats.genexpon)(x, a, b, c), stats.genexpon._logpdf(x, a, b, c))


@pytest.mark.parametrize("c", [1e-3, 1e-6, 1e-9, 1e-12])
def test_genexpon_density_keeps_its_linear_hazard_limit(c):
    # b -> inf, c -> 0 with k = b c held: the law of hazard a + k x, density
    # (a + k x) exp(-a x - k x^2 / 2) up to O(c x); scipy's formula cancels there (its
    # two terms of size b x differ by k x^2 / 2: 2.7e-5 off at b = 1e12)
    a, k = 0.54, 49.9
    x = np.linspace(0.0, 0.6, 31)
    limit = np.log(a + k * x) - a * x - k * x**2 / 2
    ours = accurate_logpdf(stats.genexpon)(x, a, k / c, c)
    # (the density differs from the limit by + k c x^3 / 6 in the exponent and by
    # log1p(-k c x^2 / 2 / (a + k x)) in the log, to first order in c)
    first_order = k * c * x**3 / 6 + np.log1p(-(k * c * x**2 / 2) / (a + k * x))
    np.testing.assert_allclose(ours, limit + first_order, rtol=0,
                               atol=1e-13 + 10 * k * c**2)
    # continuous across the switch to scipy's formula at c x = 0.1
    edge = accurate_logpdf(stats.genexpon)(np.array([0.1 * (1 - 1e-12), 0.1]), 0.54,
                                            49.9, 1.0)
    assert abs(edge[0] - edge[1]) < 1e-12


def _pearson3_logpdf_decimal(x: float, skew: float) -> float:
    """pearson3's log-density at 40 digits, scipy's formula (a gamma of shape
    ``4 / skew^2``) with ``lgamma`` from Stirling's series (``a >= 64``: seven terms leave
    an error below 1e-40)."""
    from decimal import Decimal, localcontext

    with localcontext() as ctx:
        ctx.prec = 40
        s, xd = Decimal(skew), Decimal(x)
        a, beta = 4 / (s * s), 2 / s
        t = beta * (xd + 2 / s)
        if t <= 0:
            return -math.inf
        two_pi = 2 * Decimal("3.141592653589793238462643383279502884197")
        bernoulli = [Decimal(1) / 6, Decimal(-1) / 30, Decimal(1) / 42, Decimal(-1) / 30,
                     Decimal(5) / 66, Decimal(-691) / 2730, Decimal(7) / 6]
        lgamma = (a - Decimal("0.5")) * a.ln() - a + two_pi.ln() / 2
        for k, b in enumerate(bernoulli, start=1):
            lgamma += b / (2 * k * (2 * k - 1) * a ** (2 * k - 1))
        return float(abs(beta).ln() + (a - 1) * t.ln() - t - lgamma)


@pytest.mark.parametrize("skew", [1e-9, 2.4e-5, -3e-4, 5e-3, -0.0199, 0.1, -0.2])
def test_pearson3_near_zero_skew_agrees_with_40_digits(skew):
    # scipy's gamma terms of size a log a cancel: 2.3e-5 off per point at skew 2.4e-5
    x = np.linspace(-4.0, 4.0, 17)
    ours = accurate_logpdf(stats.pearson3)(x, skew)
    ref = np.array([_pearson3_logpdf_decimal(v, skew) for v in x])
    np.testing.assert_allclose(ours, ref, rtol=0, atol=1e-13)


def test_pearson3_is_the_normal_at_zero_skew_and_continuous_through_it():
    x = np.linspace(-5.0, 5.0, 1001)
    logpdf = accurate_logpdf(stats.pearson3)
    np.testing.assert_allclose(logpdf(x, 0.0), stats.norm.logpdf(x), rtol=1e-15)
    at_zero = logpdf(x, 0.0).sum()
    for skew in (-1e-12, 1e-12, 1.6e-5, -1.6e-5):  # (scipy switches to the normal at 1.6e-5)
        assert abs(logpdf(x, skew).sum() - at_zero) < 1e-9 + 1e3 * abs(skew)
    rows = logpdf(np.tile(x, (3, 1)), np.array([[0.0], [1e-3], [0.7]]))
    np.testing.assert_array_equal(rows[2], stats.pearson3._logpdf(x, 0.7))
    assert np.all(np.isfinite(rows[:2]))  # (skew 0.7: nothing below -2/0.7)


def test_pearson3_fit_near_zero_skew_reaches_the_maximum():
    # 500 points of skew 0.1 with floc=0: the fit "converged" at skew 2.4e-5 on scipy's
    # noise, 0.0195 units short of the maximum near -0.0208 (found by scipy's own fit)
    x = sample(stats.pearson3, (0.1,), 500, seed=2029)
    fits = [robustfit.fit(stats.pearson3, loc + scale * x, floc=loc)
            for loc, scale in MAGNITUDES]
    scipy_fit = stats.pearson3.fit(x, floc=0)

    def nll(params):
        return -sum(_pearson3_logpdf_decimal((v - params[1]) / params[2], params[0])
                    - math.log(params[2]) for v in x)

    ours = fits[0]
    assert ours.success
    assert nll(tuple(ours)) <= nll(scipy_fit) + 1e-9
    assert abs(ours[0] + 0.0208) < 1e-3
    for (loc, scale), fitted in zip(MAGNITUDES, fits, strict=True):
        assert fitted.success and fitted[1] == loc
        assert abs(fitted[0] - ours[0]) < 1e-6
        assert abs(fitted[2] / scale - ours[2]) < 1e-6 * ours[2]
