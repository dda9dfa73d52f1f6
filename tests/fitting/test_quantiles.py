"""standard_quantiles: scipy's ppf values, at a fraction of its cost, for distributions
without an explicit ppf; scipy's own ppf wherever the private cdf cannot be used."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats
from scipy.stats._distr_params import distcont

from robustfit.fitting import quantiles
from robustfit.fitting.quantiles import standard_quantiles

PROBS = np.array([0.001, 0.25, 0.5, 0.75, 0.999])
# the generic ppf of these costs seconds (studentized_range) or is itself unreliable
SKIP = {"studentized_range", "levy_stable"}
NO_PPF = [(name, tuple(shapes)) for name, shapes in distcont if name not in SKIP
          and type(getattr(stats, name))._ppf is stats.rv_continuous._ppf]


def test_the_catalogue_has_distributions_without_an_explicit_ppf():
    assert len(NO_PPF) >= 10


@pytest.mark.parametrize(("name", "shapes"), NO_PPF, ids=[n for n, _ in NO_PPF])
def test_matches_scipy_ppf_without_an_explicit_ppf(name, shapes):
    dist = getattr(stats, name)
    ref = dist.ppf(PROBS, *shapes)
    got = standard_quantiles(dist, shapes, PROBS)
    np.testing.assert_allclose(got, ref, rtol=1e-9, atol=1e-11)


class _HalfLogisticByCdf(stats.rv_continuous):
    """A user distribution with only a pdf and a cdf (support [0, inf))."""

    def _pdf(self, x):
        return 2 * np.exp(-x) / (1 + np.exp(-x)) ** 2

    def _cdf(self, x):
        return (1 - np.exp(-x)) / (1 + np.exp(-x))


def test_user_distribution_with_a_half_line_support():
    dist = _HalfLogisticByCdf(a=0.0, name="half_logistic_by_cdf")
    got = standard_quantiles(dist, (), PROBS)
    np.testing.assert_allclose(got, stats.halflogistic.ppf(PROBS), rtol=1e-10)


class _CdfNeedsArrayShape(stats.rv_continuous):
    """A cdf that indexes its shape like x (scalar shapes raise): a logistic in c*x."""

    def _pdf(self, x, c):
        return c * np.exp(-c * x) / (1 + np.exp(-c * x)) ** 2

    def _cdf(self, x, c):
        return 1 / (1 + np.exp(-c[...] * x))


def test_private_cdf_that_wants_shapes_shaped_like_x():
    dist = _CdfNeedsArrayShape(name="cdf_needs_array_shape")
    got = standard_quantiles(dist, (2.0,), PROBS)
    np.testing.assert_allclose(got, stats.logistic.ppf(PROBS) / 2.0, rtol=1e-10, atol=1e-12)


class _BrokenCdf(stats.rv_continuous):
    """A private cdf that cannot run: scipy's ppf (through the pdf) still answers."""

    def _pdf(self, x):
        return np.exp(-x * x / 2) / np.sqrt(2 * np.pi)

    def _cdf(self, x):
        raise RuntimeError("no cdf here")


def test_falls_back_to_scipy_where_the_private_cdf_fails(monkeypatch):
    dist = _BrokenCdf(name="broken_cdf")
    calls = []
    monkeypatch.setattr(quantiles, "_scipy_ppf",
                        lambda d, s, p: calls.append(s) or stats.norm.ppf(p))
    got = standard_quantiles(dist, (), PROBS)
    assert calls == [()]
    np.testing.assert_allclose(got, stats.norm.ppf(PROBS))


def test_explicit_ppf_is_used_as_is():
    got = standard_quantiles(stats.gamma, (2.5,), PROBS)
    np.testing.assert_array_equal(got, stats.gamma.ppf(PROBS, 2.5))


def test_probabilities_outside_the_open_interval_go_to_scipy():
    got = standard_quantiles(stats.foldnorm, (1.0,), [0.0, 0.5, 1.0])
    np.testing.assert_allclose(got, stats.foldnorm.ppf([0.0, 0.5, 1.0], 1.0))


@settings(max_examples=40, deadline=None)
@given(c=st.floats(0.05, 20.0), p=st.floats(1e-6, 1 - 1e-6))
def test_foldnorm_quantile_inverts_the_cdf(c, p):
    (x,) = standard_quantiles(stats.foldnorm, (c,), [p])
    assert stats.foldnorm.cdf(x, c) == pytest.approx(p, rel=1e-9, abs=1e-12)
