"""The limited-memory inverse Hessian beyond DENSE_LIMIT variables, and the stopping
tests' cost at thousands of variables with an analytic gradient."""

import numpy as np
import pytest
from scipy.optimize import minimize

from benchmarks.nist_problems import nist_problems
from benchmarks.nist_strd_data import PROBLEMS
from robustfit import robust_minimize
from robustfit.optimize import bfgs
from robustfit.optimize.bfgs import Bundle, _update, guarded_bfgs
from robustfit.optimize.events import EventLog
from robustfit.optimize.limited_memory import LimitedMemoryInverse, snapshot
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import ScaledProblem


def _pairs(n, count, seed=1):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((n, n))
    A = A @ A.T + np.eye(n)
    return [(s, A @ s) for s in rng.standard_normal((count, n))]


def _dense(gamma, pairs):
    H = gamma * np.eye(pairs[0][0].size)
    for s, y in pairs:
        H = _update(H, s, y, float(s @ y))
    return H


@pytest.mark.parametrize("count", [1, 5, 9])
def test_two_loop_and_compact_forms_equal_the_dense_updates(count):
    # the last `memory` pairs applied to gamma I (gamma of the newest pair) in the
    # dense textbook update: H v, v H, diag(H) and H^-1 v
    n, memory = 12, 5
    pairs = _pairs(n, count)
    H = LimitedMemoryInverse(n, memory=memory)
    for s, y in pairs:
        H.update(s, y)
    s, y = pairs[-1]
    assert H.gamma == pytest.approx(float(s @ y) / float(y @ y), rel=1e-15)
    D = _dense(H.gamma, pairs[-memory:])
    v = np.random.default_rng(2).standard_normal(n)
    scale = np.max(np.abs(D @ v))
    assert np.max(np.abs(H @ v - D @ v)) <= 1e-13 * scale
    assert np.max(np.abs(v @ H - D @ v)) <= 1e-13 * scale
    assert float(v @ H @ v) == pytest.approx(float(v @ D @ v), rel=1e-13)
    np.testing.assert_allclose(H.diagonal(), np.diag(D), rtol=1e-12)
    np.testing.assert_allclose(H.solve(v), np.linalg.solve(D, v), rtol=1e-9, atol=1e-12)


def _three_term(H, s, y, sy):
    rho = 1.0 / sy
    Hy = H @ y
    return (H - rho * (np.outer(Hy, s) + np.outer(s, Hy))
            + (rho * rho * float(y @ Hy) + rho) * np.outer(s, s))


@pytest.mark.parametrize("n", [bfgs.RANK_TWO_FORM - 1, bfgs.RANK_TWO_FORM, 400])
def test_the_rank_two_form_is_the_textbook_update(n):
    # from RANK_TWO_FORM variables the update is one rank-2 term added in place; it is
    # the textbook formula up to rounding and meets the secant condition H y = s
    pairs = _pairs(n, 6, seed=3)
    H = np.eye(n)
    for s, y in pairs:
        reference = _three_term(H, s, y, float(s @ y))
        before = H
        H = _update(H, s, y, float(s @ y))
        scale = np.max(np.abs(reference))
        assert np.max(np.abs(H - reference)) <= 1e-13 * scale
        assert np.max(np.abs(H - H.T)) <= 1e-14 * scale
        np.testing.assert_allclose(H @ y, s, rtol=1e-9, atol=1e-9 * np.max(np.abs(s)))
        assert (H is before) == (n >= bfgs.RANK_TWO_FORM)
        if n < bfgs.RANK_TWO_FORM:  # the three-term form, bit for bit, into a new array
            np.testing.assert_array_equal(H, reference)


def test_an_in_place_update_leaves_the_callers_start_model_alone():
    # guarded_bfgs owns the matrix it updates in place: an H0 passed in is copied
    n = bfgs.RANK_TWO_FORM + 10
    rng = np.random.default_rng(4)
    curvatures = rng.uniform(1.0, 10.0, n)
    H0 = 0.5 * np.eye(n)  # not the inverse Hessian: every iteration updates it
    kept = H0.copy()
    z0 = rng.standard_normal(n)
    out = guarded_bfgs(lambda z: 0.5 * float(z @ (curvatures * z)),
                       lambda z, f: curvatures * z, z0,
                       0.5 * float(z0 @ (curvatures * z0)), curvatures * z0,
                       converged=lambda z, f, g, H: float(np.max(np.abs(g))) < 1e-6,
                       max_iter=50, bundle=Bundle(5), log=EventLog(), stage="test", H0=H0)
    assert out.reason == "converged" and out.iterations > 2
    np.testing.assert_array_equal(H0, kept)


def test_reset_copy_and_empty_memory():
    n = 4
    H = LimitedMemoryInverse(n, gamma=2.0)
    v = np.arange(1.0, 5.0)
    np.testing.assert_array_equal(H @ v, 2.0 * v)
    np.testing.assert_array_equal(H.diagonal(), np.full(n, 2.0))
    np.testing.assert_array_equal(H.solve(v), 0.5 * v)
    for s, y in _pairs(n, 3):
        H.update(s, y)
    kept = snapshot(H)
    gamma = H.gamma
    H.reset()
    assert H.gamma == gamma and not H.s
    np.testing.assert_allclose(H @ v, gamma * v)
    assert len(kept.s) == 3  # (the snapshot is not affected)
    assert H.shape == (n, n)
    dense = np.eye(2)
    copied = snapshot(dense)
    copied[0, 0] = 5.0
    assert dense[0, 0] == 1.0


def test_core_keeps_pairs_beyond_the_dense_limit(monkeypatch):
    # extended Rosenbrock in 40 variables with the limit at 10: the stage converges
    # and its model is the limited-memory one
    monkeypatch.setattr(bfgs, "DENSE_LIMIT", 10)
    n = 40

    def f(z):
        return float(np.sum(100 * (z[1::2] - z[::2] ** 2) ** 2 + (1 - z[::2]) ** 2))

    def g(z, _f=None):
        out = np.zeros_like(z)
        d = z[1::2] - z[::2] ** 2
        out[::2] = -400 * z[::2] * d - 2 * (1 - z[::2])
        out[1::2] = 200 * d
        return out

    z0 = np.tile([-1.2, 1.0], n // 2)
    out = guarded_bfgs(f, g, z0, f(z0), g(z0), converged=lambda z, fz, gz, H:
                       np.max(np.abs(gz)) < 1e-8, max_iter=2000, bundle=Bundle(5),
                       log=EventLog(), stage="test")
    assert out.reason == "converged", out.reason
    assert isinstance(out.H, LimitedMemoryInverse)
    np.testing.assert_allclose(out.z, 1.0, atol=1e-7)


def _logistic(n, seed=0):
    m = 2 * n
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((m, n)) / np.sqrt(n)
    labels = np.sign(A @ rng.standard_normal(n) + 0.5 * rng.standard_normal(m))

    def f(x):
        return float(np.logaddexp(0, -labels * (A @ x)).sum() / m + 0.005 * x @ x)

    def jac(x):
        z = labels * (A @ x)
        return A.T @ (-labels * 0.5 * (1 - np.tanh(z / 2))) / m + 0.01 * x

    return f, jac


def test_a_logistic_regression_of_3000_features_costs_what_its_descent_does():
    # converged after 6 evaluations: the gradient check along random directions failed
    # by rounding (18,000 evaluations on central differences), then the plateau probes
    # took one or two per feature; now a few dozen in all
    f, jac = _logistic(3000)
    res = robust_minimize(f, np.zeros(3000), jac=jac, rng=0)
    ref = minimize(f, np.zeros(3000), jac=jac, method="L-BFGS-B", options={"gtol": 1e-10})
    assert res.success, res.message
    assert res.fun == pytest.approx(ref.fun, rel=1e-9)
    assert res.nfev < 500, res.nfev
    assert not any(e["kind"] == "gradient_fallback" for e in res.events)


def test_the_rounding_allowance_keeps_a_wrong_partial_in_sight():
    # at the minimiser of 3000 features, where g . v is far below f's rounding: the
    # right gradient agrees along random directions, and one partial off by the
    # stationarity test's tolerance (1e-6 |f|) does not
    f, jac = _logistic(3000)
    x = minimize(f, np.zeros(3000), jac=jac, method="L-BFGS-B",
                 options={"gtol": 1e-12, "ftol": 1e-15}).x
    p = ScaledProblem(GuardedObjective(f), np.ones(3000))  # (scale 1: z is x)
    fx = p.value(x)
    g = jac(x)
    assert p._agrees_along_directions(x, fx, g)
    for i in (17, 2000):
        wrong = g.copy()
        wrong[i] += 1e-6 * fx
        assert not p._agrees_along_directions(x, fx, wrong)


def test_plateau_is_found_among_many_quiet_variables():
    # BoxBOD (its rate runs onto a plateau where exp(-b2 x) underflows) beside 20
    # variables at their minimum, all with analytic gradients: the one gradient a step
    # away screens the 20 out and the rate is still probed
    p = next(q for q in nist_problems() if q.name == "BoxBOD_start2")
    x = np.asarray(PROBLEMS["BoxBOD"]["x"])
    y = np.asarray(PROBLEMS["BoxBOD"]["y"])
    centres = np.arange(1.0, 21.0)

    def fun(v):
        return p.fun(v[:2]) + float(np.sum((v[2:] - centres) ** 2))

    def jac(v):
        b = v[:2]
        e = np.exp(-b[1] * x)
        r = y - b[0] * (1 - e)
        return np.concatenate([[-2 * np.sum(r * (1 - e)), -2 * np.sum(r * b[0] * x * e)],
                               2 * (v[2:] - centres)])

    res = robust_minimize(fun, np.concatenate([p.x0, centres]), jac=jac, rng=0)
    assert res.success and p.solved(res.fun), (res.fun, p.fstar)
    assert "plateau" in [e["kind"] for e in res.events]


def test_the_gradient_check_at_bounds_takes_one_sided_steps():
    # every variable on its upper bound: a central step leaves the box, the one-sided
    # stencil turned inward checks the gradient all the same (4 evaluations, not 2 n)
    n = 50
    c = np.linspace(1.0, 3.0, n)

    def fun(x):
        return float(np.sum(c * (x - 2.0) ** 2))

    p = ScaledProblem(GuardedObjective(fun), np.ones(n), lower=-np.ones(n),
                      upper=np.ones(n))
    z = np.ones(n)
    g = 2 * c * (z - 2.0)
    before = p.guard.nfev
    assert p._agrees_along_directions(z, p.value(z), g)
    assert p.guard.nfev - before <= 1 + 2 * 2
    wrong = g.copy()
    wrong[7] *= 1.1
    assert not p._agrees_along_directions(z, p.value(z), wrong)


def test_a_boxed_logistic_regression_is_checked_without_every_variable():
    # 91% of the features on a bound of [-0.02, 0.02]: 2,026 evaluations, 2,000 of them
    # central differences of the gradient check; now about 25
    f, jac = _logistic(1000)
    res = robust_minimize(f, np.zeros(1000), jac=jac, bounds=[(-0.02, 0.02)] * 1000, rng=0)
    ref = minimize(f, np.zeros(1000), jac=jac, bounds=[(-0.02, 0.02)] * 1000,
                   method="L-BFGS-B", options={"gtol": 1e-12, "ftol": 1e-15})
    assert res.success, res.message
    assert res.fun <= ref.fun * (1 + 1e-12)
    assert res.nfev < 200, res.nfev


def test_a_variable_fixed_by_its_bounds_does_not_stop_the_directional_check():
    n = 50
    c = np.linspace(1.0, 3.0, n)
    lower, upper = -np.ones(n), np.ones(n)
    lower[3] = upper[3] = 0.5

    def fun(x):
        return float(np.sum(c * (x - 2.0) ** 2))

    p = ScaledProblem(GuardedObjective(fun), np.ones(n), lower=lower, upper=upper)
    z = np.ones(n)
    z[3] = 0.5
    before = p.guard.nfev
    assert p._agrees_along_directions(z, p.value(z), 2 * c * (z - 2.0))
    assert p.guard.nfev - before <= 1 + 2 * 2
