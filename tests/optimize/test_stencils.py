"""Finite differences through the points actually evaluated (optimize.stencils)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import CENTRAL_STEP, ScaledProblem
from robustfit.optimize.stencils import slope_at_zero


def _steep_bowl(curvature, centre):
    return lambda x: float(curvature * np.sum((np.asarray(x) - centre) ** 2))


def test_slope_at_zero_is_exact_for_polynomials_of_the_stencils_degree():
    rng = np.random.default_rng(3)
    for degree in (2, 4):
        coefficients = rng.normal(size=degree + 1)
        poly = np.polynomial.Polynomial(coefficients)
        offsets = rng.uniform(0.5, 1.5, size=degree) * np.resize([1e-2, -1e-2], degree)
        offsets *= np.arange(1, degree + 1)  # distinct
        slope = slope_at_zero(poly(0.0), offsets, poly(offsets))
        assert slope == pytest.approx(coefficients[1], rel=1e-9)


def test_slope_at_zero_matches_the_central_and_richardson_formulas_on_even_steps():
    f = np.exp
    h = 1e-3
    central = (f(h) - f(-h)) / (2 * h)
    assert slope_at_zero(f(0.0), [h, -h], [f(h), f(-h)]) == pytest.approx(central, rel=1e-12)
    richardson = (8 * (f(h / 2) - f(-h / 2)) - (f(h) - f(-h))) / (6 * h)
    four = slope_at_zero(f(0.0), [h, -h, h / 2, -h / 2], [f(h), f(-h), f(h / 2), f(-h / 2)])
    assert four == pytest.approx(richardson, rel=1e-10)
    assert abs(four - 1.0) < 1e-11  # fourth order: exp'(0) = 1


@settings(max_examples=60, deadline=None, derandomize=True)
@given(st.floats(1.0, 1e6), st.floats(1e8, 1e14))
def test_central_differences_at_a_steep_minimiser_are_rounding_small(centre, curvature):
    # at the minimiser the gradient is 0; fl(c + h) - c and fl(c - h) - c differ by up
    # to an ulp of c, and the plain formula then reads curvature * ulp(c) instead
    fun = _steep_bowl(curvature, centre)
    p = ScaledProblem(GuardedObjective(fun), np.ones(1))
    z = np.array([centre])
    f0 = p.value(z)
    h = p.step(z, 0, CENTRAL_STEP)
    noise = 4 * np.finfo(float).eps * fun(z + h) / h  # rounding of the values themselves
    assert abs(p.finite_difference(z, f0, "central")[0]) <= noise
    assert abs(p.extrapolated_gradient(z, f0)[0]) <= 8 * noise


def test_the_plain_formula_fails_where_the_stencil_succeeds():
    # the case the bowl times 10**-2.5 met: a coordinate at 2, f'' = 1.5e12
    centre, curvature = 2.0, 7.6e11
    fun = _steep_bowl(curvature, centre)
    h = CENTRAL_STEP * centre
    up, down = (centre + h) - centre, (centre - h) - centre
    assert up != -down  # (uneven by an ulp)
    plain = (fun([centre + h]) - fun([centre - h])) / (2 * h)
    assert abs(plain) > 1e-5
    assert abs(slope_at_zero(0.0, [up, down], [fun([centre + h]), fun([centre - h])])) < 1e-9
