"""The check of an analytic gradient at a pass: along two random directions first (four
evaluations), every variable only where those disagree."""

import numpy as np
import pytest
from scipy.optimize import minimize

from benchmarks.minimize_models import softmax_regression
from robustfit import robust_minimize
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import ScaledProblem


def _logistic(n, seed=0):
    rng = np.random.default_rng(seed)
    m = 3 * n
    X = rng.standard_normal((m, n))
    y = np.where(X @ (rng.standard_normal(n) / np.sqrt(n))
                 + 0.5 * rng.standard_normal(m) > 0, 1.0, -1.0)
    lam = 1e-2

    def f(b):
        return float(np.mean(np.logaddexp(0.0, -y * (X @ b))) + 0.5 * lam * b @ b)

    def g(b):
        return X.T @ (-y / (1.0 + np.exp(y * (X @ b)))) / m + lam * b

    return f, g


def test_a_correct_gradient_of_many_variables_costs_no_differences_in_every_variable():
    # 200 coefficients: the variable-wise check cost 400 evaluations at the pass (438 in
    # all against scipy BFGS's 45); the directional one costs four
    f, g = _logistic(200)
    counted = [0]

    def fun(b):
        counted[0] += 1
        return f(b)

    res = robust_minimize(fun, np.zeros(200), jac=g, rng=0)
    ref = minimize(f, np.zeros(200), jac=g, method="BFGS", options={"gtol": 1e-10})
    assert res.success
    assert res.fun <= ref.fun + 1e-9
    assert counted[0] == res.nfev <= 2 * ref.nfev
    assert not any(e["kind"] == "gradient_fallback" for e in res.events)


def test_one_wrong_partial_among_fifty_is_caught_and_the_minimum_found():
    # the jac leaves out variable 7's term: where it is "zero", x7 is still at its start
    c = np.linspace(1.0, 3.0, 50)

    def fun(x):
        return float(np.sum(c * (x - 1.0) ** 2))

    def jac(x):
        g = 2 * c * (x - 1.0)
        g[7] = 0.0
        return g

    res = robust_minimize(fun, np.zeros(50), jac=jac, rng=0)
    assert any(e["kind"] == "gradient_fallback" for e in res.events)
    assert res.success
    np.testing.assert_allclose(res.x, np.ones(50), atol=1e-5)


@pytest.mark.parametrize("n", [20, 1000])
def test_one_partial_off_by_half_is_seen_along_random_directions(n):
    # the variable-wise test sees it in norms (0.5 / sqrt(1000) = 1.6% > 0.1%); the
    # directional one with the same relative tolerance, measured against |g * v|
    rng = np.random.default_rng(3)
    for _ in range(10):
        a = rng.uniform(0.5, 2.0, n)
        z = rng.uniform(0.5, 1.5, n)
        fun = lambda x, a=a: float(np.sum(a * x ** 3))  # noqa: E731
        p = ScaledProblem(GuardedObjective(fun), np.ones(n))
        g = 3 * a * z ** 2
        assert p._agrees_along_directions(z, fun(z), g)
        wrong = g.copy()
        wrong[rng.integers(n)] *= 1.5
        assert not p._agrees_along_directions(z, fun(z), wrong)


def _softmax_regression(seed):
    # 3 classes, 10 features scaled 1e-2 .. 1e2: at the minimum the coefficients of the
    # large features are ~1e-2, and central steps of their start's size (1) see the
    # third derivative far above the gradient left there
    f, g, _ = softmax_regression(np.random.default_rng(seed), 10, 3, 400)
    return f, g, 30


@pytest.mark.parametrize("seed", [2, 3])
def test_a_correct_gradient_of_a_badly_scaled_model_is_confirmed_by_extrapolation(seed):
    # the plain directional differences disagreed with the gradient by their truncation
    # error, and the check fell to extrapolated differences in every variable: 6 n = 180
    # evaluations of f after ~75 iterations (274 and 282 in all; scipy's BFGS: 75, 79)
    f, g, n = _softmax_regression(seed)
    res = robust_minimize(f, np.zeros(n), jac=g, rng=0)
    ref = minimize(f, res.x, jac=g, method="BFGS", options={"gtol": 1e-12})
    assert res.success
    assert res.fun <= ref.fun + 1e-10
    assert not any(e["kind"] == "gradient_fallback" for e in res.events)
    assert res.nfev - res.njev < 2 * n


def test_extrapolation_does_not_confirm_a_partial_off_by_half(monkeypatch):
    # where the plain differences disagree by truncation, the extrapolated ones confirm
    # the gradient, and still see a partial off by half
    f, g, n = _softmax_regression(2)
    z = robust_minimize(f, np.zeros(n), jac=g, rng=0).x
    plain = []
    for seed in range(6):
        p = ScaledProblem(GuardedObjective(f), np.ones(n))
        p._check_signs = np.random.default_rng(seed)
        assert p._agrees_along_directions(z, f(z), g(z))
        for i in (0, 13, 29):
            wrong = g(z)
            wrong[i] = 1.5 * wrong[i] + 1e-6
            assert not p._agrees_along_directions(z, f(z), wrong)
        with monkeypatch.context() as m:
            m.setattr(ScaledProblem, "_extrapolated_residual", lambda *a: None)
            p._check_signs = np.random.default_rng(seed)
            plain.append(p._agrees_along_directions(z, f(z), g(z)))
    assert not all(plain)  # (the plain differences alone disagree for some signs)
