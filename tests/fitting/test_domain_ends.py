"""A best start that ends on an end of a shape's domain is checked against a coarse
profile of that shape from inside: truncweibull_min, scipy's acceptance case."""

import numpy as np
import pytest
from scipy import stats

import robustfit
from benchmarks.fit_cases import sample, true_nll
from robustfit.fitting.domain_ends import interior_values, shapes_on_domain_end

SHAPES = (2.5, 0.25, 1.75)  # scipy's distcont example for truncweibull_min


@pytest.mark.parametrize(("loc", "scale"), [(0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6)])
def test_truncweibull_min_is_fitted_from_inside_the_domain_of_a(loc, scale):
    # seed 3, n = 500: every start drifted to a = 0 (a boundary maximum 0.9
    # log-likelihood units below the truth's); the profile over a finds the interior
    # maximum. (Since the edge's gap floor follows the magnitudes near the edge, at
    # unit scale the start from the moments reaches it itself.)
    x = loc + scale * sample(stats.truncweibull_min, SHAPES, 500, seed=3)
    res = robustfit.fit(stats.truncweibull_min, x)
    truth = true_nll(stats.truncweibull_min, SHAPES, loc, scale, x)
    assert res.success and (res.start == "domain_end" or loc == 0.0)
    assert res.nll <= truth - 1.0
    assert res.params["a"] == pytest.approx(0.216, abs=0.01)
    assert np.isfinite(stats.truncweibull_min.logpdf(x, *res).sum())


@pytest.mark.parametrize(("loc", "scale"), [(1e6, 1e4), (-1e-3, 1e-6)])
def test_truncweibull_min_large_sample_at_other_magnitudes(loc, scale):
    # n = 1e4, scipy's seed: the run freed from the held shape started on the support's
    # edge, and at these magnitudes rounding left an observation outside: it was refused
    # and the fit ended at a = 1e-302, 64.6 units above the truth (1.26 below at (0, 1))
    z = sample(stats.truncweibull_min, SHAPES, 10000)
    unit = robustfit.fit(stats.truncweibull_min, z)
    x = loc + scale * z
    res = robustfit.fit(stats.truncweibull_min, x)
    truth = true_nll(stats.truncweibull_min, SHAPES, loc, scale, x)
    assert res.nll <= truth - 1.0
    assert res[:3] == pytest.approx(unit[:3], rel=1e-6)


def test_a_fixed_shape_is_never_profiled():
    theta = [1.9, 1e-303, 1.9, 0.2, 0.8]
    assert shapes_on_domain_end(stats.truncweibull_min, theta, {1: 1e-303}, 3) == []
    assert shapes_on_domain_end(stats.truncweibull_min, [1.9, 0.3, 1.9, 0.2, 0.8], {}, 3) == []


def test_interior_values_stay_inside_a_bounded_domain():
    # wrapcauchy's c lives on (0, 1): from its upper end the ladder is measured in half
    # the domain's width and stops at the other end
    vals = interior_values(stats.wrapcauchy, 0, 1.0, -1.0)
    assert vals == pytest.approx([0.995, 0.95, 0.85, 0.5])
    assert interior_values(stats.truncweibull_min, 1, 0.0, 1.0) == [0.01, 0.1, 0.3, 1.0, 3.0]
