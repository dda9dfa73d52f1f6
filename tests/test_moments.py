"""robustfit.moments against independent references.

References: numpy's two-pass ``mean``/``var`` and ``scipy.stats`` (``skew``,
``kurtosis``, ``moment``) on float64 copies of the same values; for data far from the
origin, the exact shifted values ``x - offset`` (exact by Sterbenz's lemma), on which
the statistics are the same and the reference is easy; for extreme scales, the scale
invariance of skewness and kurtosis.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from scipy import stats

import robustfit
from robustfit import moments
from robustfit.moments import Moments


def reference(x) -> dict:
    """Float64 two-pass statistics from numpy / scipy (biased, as robustfit's)."""
    x = np.asarray(x, dtype=np.float64)
    return {
        "mean": np.mean(x),
        "var0": np.var(x),
        "var1": np.var(x, ddof=1),
        "skew": stats.skew(x),
        "kurt": stats.kurtosis(x),
        "kurt_pearson": stats.kurtosis(x, fisher=False),
        "m3": stats.moment(x, 3),
        "m4": stats.moment(x, 4),
    }


def ours(x) -> dict:
    return {
        "mean": moments.mean(x),
        "var0": moments.variance(x),
        "var1": moments.variance(x, ddof=1),
        "skew": moments.skewness(x),
        "kurt": moments.kurtosis(x),
        "kurt_pearson": moments.kurtosis(x, fisher=False),
        "m3": moments.central_moment(x, 3),
        "m4": moments.central_moment(x, 4),
    }


SAMPLES = {
    "normal": lambda rng: rng.normal(3.0, 2.0, 1000),
    "lognormal": lambda rng: rng.lognormal(0.0, 1.0, 2000),
    "exponential": lambda rng: rng.exponential(5.0, 500),
    "student_t3": lambda rng: rng.standard_t(3, 3000),
    "uniform_int": lambda rng: rng.integers(-50, 50, 777),
    "two_points": lambda rng: np.array([-1.0, 4.0]),
}


@pytest.mark.parametrize("name", SAMPLES)
def test_agree_with_numpy_and_scipy(name):
    x = SAMPLES[name](np.random.default_rng(11))
    got, ref = ours(x), reference(x)
    for key in ref:
        np.testing.assert_allclose(got[key], ref[key], rtol=1e-12, atol=1e-13, err_msg=key)
    assert moments.central_moment(x, 0) == 1.0 and moments.central_moment(x, 1) == 0.0
    np.testing.assert_allclose(moments.central_moment(x, 2), ref["var0"], rtol=1e-13)


def test_module_functions_match_the_dataclass():
    x = np.random.default_rng(2).gamma(2.0, size=301)
    m = Moments.from_data(x)
    assert m.n == 301
    assert moments.mean(x) == m.mean
    assert moments.variance(x, ddof=1) == m.variance(ddof=1)
    assert moments.skewness(x) == m.skewness()
    assert moments.kurtosis(x, fisher=False) == m.kurtosis(fisher=False)
    assert moments.central_moment(x, 4) == m.central_moment(4) == m.m4 / 301


def shifted_sample(offset: float, spread: float, n: int = 2000, seed: int = 5):
    """``offset + noise`` in float64 and the exactly representable ``x - offset``."""
    rng = np.random.default_rng(seed)
    x = offset + spread * rng.standard_normal(n) * np.exp(rng.uniform(-0.3, 0.3, n))
    x = x + spread * rng.exponential(1.0, n)  # some skew, so m3 is not ~0
    # exact when offset/2 <= x <= 2*offset (Sterbenz); true for every case below
    return x, x - offset


MAGNITUDES = [(0.0, 1.0), (1e-8, 1e-12), (1.0, 1e-6), (1e4, 1e-2), (1e8, 1.0), (1e8, 1e-2),
              (-1e8, 10.0), (1e-8, 1e-8 / 64), (1e8, 1e6)]


@pytest.mark.parametrize("offset, spread", MAGNITUDES)
def test_stable_for_any_offset_and_spread(offset, spread):
    x, d = shifted_sample(offset, spread)
    if offset:
        assert np.all((x > offset / 2) & (x < 2 * offset)) if offset > 0 else \
            np.all((x < offset / 2) & (x > 2 * offset))
    ref = reference(d)  # same central statistics, computed near the origin
    got = ours(x)
    np.testing.assert_allclose(got["mean"], offset + ref["mean"],
                               rtol=0, atol=4 * np.spacing(abs(offset) + spread))
    # the only error left is the rounding of the mean to float64: (ulp(offset)/spread)^2
    for key in ("var0", "var1", "m4", "kurt", "kurt_pearson"):
        np.testing.assert_allclose(got[key], ref[key], rtol=1e-9, err_msg=key)
    # odd moments move by 3*delta*m2 for a rounding delta of the mean: absolute slack
    delta = np.spacing(abs(offset) + spread) / spread
    np.testing.assert_allclose(got["skew"], ref["skew"], rtol=1e-9, atol=10 * delta)
    np.testing.assert_allclose(got["m3"], ref["m3"], rtol=1e-9,
                               atol=10 * delta * spread ** 3)


@pytest.mark.parametrize("offset, spread", [(1e8, 1e-2), (1e8, 1.0), (1e4, 1e-4)])
def test_naive_one_pass_formula_fails_where_we_do_not(offset, spread):
    # guards the test data: E[x^2] - E[x]^2 must be badly wrong here for the test above
    # to mean anything
    x, d = shifted_sample(offset, spread)
    naive = np.mean(x * x) - np.mean(x) ** 2
    true = np.var(d)
    assert abs(naive - true) > 1e-3 * true  # ours: 1e-12
    np.testing.assert_allclose(moments.variance(x), true, rtol=1e-12)


@pytest.mark.parametrize("dtype", [np.float16, np.float32])
@pytest.mark.parametrize("offset, spread", [(0.0, 1.0), (300.0, 2.0), (1e4, 3.0)])
def test_low_precision_input_accumulated_in_float64(dtype, offset, spread):
    rng = np.random.default_rng(8)
    x = (offset + spread * rng.gamma(2.0, size=5000)).astype(dtype)
    assert np.all(np.isfinite(x))
    got, ref = ours(x), reference(x.astype(np.float64))
    for key in ref:
        np.testing.assert_allclose(got[key], ref[key], rtol=1e-11, atol=1e-12, err_msg=key)
    assert isinstance(got["mean"], float)


def test_float16_sum_overflow_does_not_leak():
    # the float16 sum of these values is inf (65504 is float16's maximum)
    x = np.concatenate([np.full(5000, 100.0), np.full(5000, 102.0)]).astype(np.float16)
    with np.errstate(over="ignore"):
        assert np.isinf(np.sum(x))
    assert moments.mean(x) == 101.0
    assert moments.variance(x) == 1.0
    assert moments.kurtosis(x) == -2.0  # two equal point masses


def test_float32_accumulation_is_not_float32():
    # float32 running sums of 1e4 + small would lose the small part; float64 keeps it
    x = (np.float32(1e4) + np.arange(4, dtype=np.float32) * np.float32(2 ** -10))
    np.testing.assert_allclose(moments.variance(x), np.var(np.arange(4) * 2.0 ** -10),
                               rtol=1e-14)


# -- merging -----------------------------------------------------------------------


def moments_close(got: Moments, ref: Moments, x: np.ndarray) -> None:
    """Compare two summaries of ``x`` with the slack rounding allows.

    Every chunk mean is rounded to float64, an error of ``eps*|mean|`` that the merge
    carries into ``M_k`` as about ``k * n * spread**(k-1) * eps*|mean|``: inherent to
    storing the mean as one float, and far below any error of a wrong update formula.
    """
    assert got.n == ref.n
    spread = float(np.max(np.abs(x - ref.mean))) if x.size else 0.0
    # (at least one subnormal ulp: among subnormals rounding is absolute, and the mean
    # of 2.2e-322 and 0, 22.5 ulps, rounds to 22 one way and 23 the other)
    rounding = (np.finfo(float).eps * (abs(ref.mean) + spread)
                + np.finfo(float).smallest_subnormal)
    n = max(ref.n, 1)
    np.testing.assert_allclose(got.mean, ref.mean, rtol=1e-14, atol=4 * rounding)
    # in the data's units: summaries of the same data may carry different power-of-two
    # scales (a merge of tiny deviations picks one), so the raw fields need not agree
    for k, (a, b) in enumerate(zip(got.power_sums, ref.power_sums, strict=True), start=2):
        atol = 2 * k * n * (spread + rounding) ** (k - 1) * rounding
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=atol, err_msg=f"M{k}")


finite = st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False)


@st.composite
def data_and_cuts(draw, min_size=1, max_size=60):
    offset = draw(st.sampled_from([0.0, 1.0, -3e3, 1e6]))
    scale = draw(st.sampled_from([1.0, 1e-3, 1e3]))
    base = draw(st.lists(finite, min_size=min_size, max_size=max_size))
    x = offset + scale * np.array(base) / 1e6
    cuts = draw(st.lists(st.integers(0, x.size), max_size=8))
    return x, sorted(cuts)


def chunks_of(x, cuts):
    edges = [0, *cuts, x.size]
    return [x[i:j] for i, j in zip(edges[:-1], edges[1:], strict=True)]


@settings(max_examples=150, deadline=None)
@given(data_and_cuts())
@example((np.array([0.0, 0.0, 2.24340073e-158]), []))  # a subnormal variance (CI, 13th session)
@example((np.array([2.2e-322, 0.0]), [1]))  # a subnormal mean (24th session)
def test_merge_of_chunks_equals_whole(case):
    x, cuts = case
    parts = [Moments.from_data(c) for c in chunks_of(x, cuts)]  # empty chunks included
    merged = functools.reduce(Moments.merge, parts)
    moments_close(merged, Moments.from_data(x), x)
    # and the statistics derived from it, against numpy's two-pass variance (whose own
    # mean may be off by an ulp: equal values can give it a variance of ulp**2)
    rounding = np.finfo(float).eps * (abs(np.mean(x)) + np.ptp(x))
    # (plus a few subnormal ulps: data spread by 2e-158 have a variance of 1e-316,
    # where rounding is absolute, and the bound above underflows to 0)
    np.testing.assert_allclose(merged.variance(), np.var(x), rtol=1e-9,
                               atol=4 * (np.ptp(x) + rounding) * rounding
                               + 4 * np.finfo(float).smallest_subnormal)


@settings(max_examples=100, deadline=None)
@given(data_and_cuts(min_size=2), st.randoms(use_true_random=False))
def test_merge_is_order_and_grouping_invariant(case, rnd):
    x, cuts = case
    parts = [Moments.from_data(c) for c in chunks_of(x, cuts)]
    left = functools.reduce(Moments.merge, parts)
    shuffled = parts[:]
    rnd.shuffle(shuffled)
    right_fold = functools.reduce(lambda acc, p: p.merge(acc), reversed(shuffled))
    tree = shuffled
    while len(tree) > 1:  # pairwise, as statistics from devices are combined
        tree = [tree[i] + tree[i + 1] if i + 1 < len(tree) else tree[i]
                for i in range(0, len(tree), 2)]
    for other in (right_fold, tree[0]):
        moments_close(other, left, x)


def test_merge_with_empty_is_identity_and_operator_is_merge():
    a = Moments.from_data([1.0, 2.0, 4.0])
    b = Moments.from_data([10.0, -1.0])
    empty = Moments.from_data([])
    assert empty == Moments(0, 0.0, 0.0, 0.0, 0.0)
    assert a.merge(empty) == a and empty.merge(a) == a
    assert a + b == a.merge(b)
    whole = Moments.from_data([1.0, 2.0, 4.0, 10.0, -1.0])
    np.testing.assert_allclose([(a + b).mean, (a + b).m2, (a + b).m3, (a + b).m4],
                               [whole.mean, whole.m2, whole.m3, whole.m4], rtol=1e-14)


def test_merge_of_single_points_builds_the_moments():
    # n = 1 summaries everywhere: the streaming (Welford) case
    x = 1e8 + np.random.default_rng(4).standard_normal(500)
    acc = Moments.from_data(x[:1])
    for v in x[1:]:
        acc = acc.merge(Moments.from_data([v]))
    d = x - 1e8
    # each step rounds the running mean (ulp(1e8) = 1.5e-8 against a spread of 1)
    np.testing.assert_allclose(acc.variance(ddof=1), np.var(d, ddof=1), rtol=1e-7)
    np.testing.assert_allclose(acc.skewness(), stats.skew(d), atol=1e-6)
    np.testing.assert_allclose(acc.kurtosis(), stats.kurtosis(d), atol=1e-6)


# -- small and degenerate samples -------------------------------------------------------


@pytest.mark.parametrize("value", [0.0, 5.0, -1e8, 1e-300, np.float16(3.5)])
def test_one_point(value):
    m = Moments.from_data([value])
    assert m.n == 1 and m.mean == float(value)
    assert m.variance(ddof=0) == 0.0
    assert moments.variance([value]) == 0.0
    for call in (lambda: m.variance(ddof=1), lambda: moments.variance([value], ddof=1)):
        with pytest.raises(robustfit.InsufficientDataError, match="ddof=1.*n=1"):
            call()
        with pytest.raises(ValueError):
            call()
    values = [moments.mean([value]), moments.skewness([value]), moments.kurtosis([value]),
              *(moments.central_moment([value], k) for k in range(5))]
    assert not np.any(np.isnan(values))
    assert moments.skewness([value]) == 0.0
    assert moments.kurtosis([value]) == -3.0 and moments.kurtosis([value], False) == 0.0


def test_constant_sample_gives_limits_not_nan():
    x = np.full(7, 1e8 + 0.5)
    assert moments.variance(x, ddof=1) == 0.0
    assert moments.skewness(x) == 0.0
    assert moments.kurtosis(x) == -3.0


def test_ddof_equal_to_n_raises():
    with pytest.raises(robustfit.InsufficientDataError, match="ddof=3"):
        moments.variance([1.0, 2.0, 3.0], ddof=3)
    assert moments.variance([1.0, 2.0, 3.0], ddof=2) == 2.0


def test_empty_input_raises():
    for fn in (moments.mean, moments.variance, moments.skewness, moments.kurtosis,
               lambda x: moments.central_moment(x, 2)):
        with pytest.raises(robustfit.InsufficientDataError, match="empty"):
            fn([])
        with pytest.raises(ValueError):
            fn(np.array([], dtype=np.float32))
    empty = Moments.from_data([])
    with pytest.raises(robustfit.InsufficientDataError):
        empty.variance()
    with pytest.raises(robustfit.InsufficientDataError):
        empty.central_moment(2)


def test_invalid_order_and_dtype():
    with pytest.raises(robustfit.InvalidInputError, match="order=5"):
        moments.central_moment([1.0, 2.0], 5)
    with pytest.raises(robustfit.InvalidInputError, match="real numbers"):
        moments.mean(["a", "b"])
    with pytest.raises(robustfit.InvalidInputError, match="real numbers"):
        moments.variance(np.array([1 + 1j, 2.0]))


def test_integer_and_nd_input():
    x = np.arange(12).reshape(3, 4)
    assert moments.mean(x) == 5.5
    np.testing.assert_allclose(moments.variance(x), np.var(np.arange(12.0)), rtol=1e-15)
    assert Moments.from_data(np.array([True, False, True])).n == 3


def test_nan_propagates():
    # as implemented: moments do not filter non-finite values (the caller decides, as in
    # numpy); a NaN anywhere makes every statistic NaN rather than a wrong number
    x = np.array([1.0, 2.0, np.nan, 4.0])
    assert np.isnan(moments.mean(x))
    assert np.isnan(moments.variance(x))
    assert np.isnan(moments.skewness(x))
    merged = Moments.from_data(x[:2]).merge(Moments.from_data(x[2:]))
    assert np.isnan(merged.mean) and np.isnan(merged.m2)


def test_inf_input_without_runtime_warning():
    x = np.array([1.0, np.inf, 2.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        m = moments.mean(x)
    assert m == np.inf


@pytest.mark.parametrize("scale", [1e-100, 1e100, 1e-160, 1e150])
def test_skewness_and_kurtosis_scale_invariant_at_extreme_scales(scale):
    z = np.random.default_rng(0).standard_normal(1000)
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        got = (moments.skewness(scale * z), moments.kurtosis(scale * z))
    np.testing.assert_allclose(got, (stats.skew(z), stats.kurtosis(z)), rtol=1e-10)


@pytest.mark.parametrize("scale", [1e-60, 1e-20, 1e20, 1e60])
def test_skewness_and_kurtosis_scale_invariant(scale):
    z = np.random.default_rng(0).standard_normal(1000)
    got = (moments.skewness(scale * z), moments.kurtosis(scale * z))
    np.testing.assert_allclose(got, (stats.skew(z), stats.kurtosis(z)), rtol=1e-10)
    np.testing.assert_allclose(moments.variance(scale * z) / scale ** 2, np.var(z),
                               rtol=1e-13)
