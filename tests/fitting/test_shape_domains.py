"""Shape domains probed through a user's _argcheck (robustfit.fitting.shape_domains)."""

import math

import numpy as np
import pytest
from scipy import stats

from robustfit.fitting.shape_domains import probed_shape_domain
from robustfit.fitting.spec import shape_domain


class _Default(stats.rv_continuous):
    def _pdf(self, x, a):
        return np.exp(-x)


class _AboveMinusOne(stats.rv_continuous):
    def _argcheck(self, k):
        return k > -1


class _NeverValid(stats.rv_continuous):
    def _argcheck(self, k):
        return k != k


class _Weight(stats.rv_continuous):
    def _argcheck(self, w, s):
        return (w > 0) & (w <= 0.25) & np.isfinite(s)


@pytest.mark.parametrize("dist, j, domain", [
    (_Default(name="d", shapes="a"), 0, (0.0, math.inf)),  # scipy's own check: a > 0
    (_AboveMinusOne(name="m", shapes="k"), 0, (-1.0, math.inf)),
    (_NeverValid(name="n", shapes="k"), 0, (0.0, math.inf)),
    (_Weight(name="w", shapes="w, s"), 0, (0.0, 0.25)),
    (_Weight(name="w", shapes="w, s"), 1, (-math.inf, math.inf)),
])
def test_probed_domains(dist, j, domain):
    assert probed_shape_domain(dist, j) == domain
    assert shape_domain(dist, j) == domain


@pytest.mark.parametrize("name", ["skewnorm", "genextreme", "beta", "truncpareto"])
def test_scipy_families_keep_their_declared_domains(name):
    dist = getattr(stats, name)
    for j, info in enumerate(dist._shape_info()):
        assert shape_domain(dist, j) == tuple(float(v) for v in info.domain)
