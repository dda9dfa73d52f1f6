"""Line searches on values of f along a Hessian's eigenvectors: they resolve a
small-residual minimum below the finite-difference gradient's rounding floor, keep to
the bounds, step over bad points, and report nothing where nothing is lower."""

import numpy as np
import pytest

from robustfit.optimize.eigen_sweeps import eigen_line_sweeps
from robustfit.optimize.objective import GuardedObjective
from robustfit.optimize.problem import ScaledProblem

# three decaying exponentials on 24 points, as NIST's Lanczos problems: the rates 1, 3
# and 5 and amplitudes 0.1, 0.9, 1.6 generate y, rounded to 13 digits (a residual of
# ~1e-13 at the least-squares minimum)
T = np.linspace(0.0, 1.15, 24)
TRUE = np.array([0.1, 1.0, 0.9, 3.0, 1.6, 5.0])


def _model(b):
    return b[0] * np.exp(-b[1] * T) + b[2] * np.exp(-b[3] * T) + b[4] * np.exp(-b[5] * T)


Y = np.round(_model(TRUE), 13)


def _rss(b):
    r = Y - _model(np.asarray(b, dtype=float))
    return float(r @ r)


def _jacobian(b):
    e1, e2, e3 = np.exp(-b[1] * T), np.exp(-b[3] * T), np.exp(-b[5] * T)
    return -np.column_stack([e1, -b[0] * T * e1, e2, -b[2] * T * e2, e3, -b[4] * T * e3])


def _least_squares_minimum():
    # Gauss-Newton from the generating values, on the exact Jacobian
    b = TRUE.copy()
    for _ in range(6):
        b = b + np.linalg.lstsq(_jacobian(b), Y - _model(b), rcond=None)[0]
    return b


def _problem(fun, n):
    return ScaledProblem(GuardedObjective(fun), np.ones(n))  # z = x


def test_sweeps_reach_a_small_residual_minimum_the_gradient_cannot_resolve():
    b_star = _least_squares_minimum()
    f_star = _rss(b_star)
    J = _jacobian(b_star)
    H = 2 * J.T @ J
    vals, vecs = np.linalg.eigh(H)
    assert vals[0] < 1e-6 * vals[-1]  # the valley is ill-conditioned
    # a point above the minimum along the flattest direction, by f* itself
    b = b_star + np.sqrt(2 * f_star / vals[0]) * vecs[:, 0]
    f = _rss(b)
    assert f == pytest.approx(2 * f_star, rel=0.05)
    # the central-difference gradient there is mostly rounding: it points elsewhere
    # than the exact one
    h = 1e-7
    g_fd = np.array([(_rss(b + h * e) - _rss(b - h * e)) / (2 * h) for e in np.eye(6)])
    g = 2 * J.T @ (_model(b) - Y)
    assert np.linalg.norm(g_fd - g) > 0.1 * np.linalg.norm(g)
    # ... while values of f along the eigenvectors of a (perturbed) Hessian find the
    # minimum to a few parts in 1000
    rng = np.random.default_rng(0)
    H_measured = H * (1 + 1e-3 * rng.standard_normal(H.shape))
    H_measured = (H_measured + H_measured.T) / 2
    z, f_new = eigen_line_sweeps(_problem(_rss, 6), b.copy(), f, H_measured)
    assert f_new == _rss(z)
    assert f_new <= f_star * (1 + 1e-2), (f_new, f_star)


def test_sweeps_solve_an_ill_conditioned_quadratic_from_afar():
    A = np.diag([1e-8, 1e-3, 1.0, 1e4])
    x_star = np.array([1.0, -2.0, 3.0, 0.5])
    fun = lambda x: float((x - x_star) @ A @ (x - x_star)) + 2.0  # noqa: E731
    x0 = x_star + np.array([30.0, -1.0, 0.5, 1e-2])
    z, f = eigen_line_sweeps(_problem(fun, 4), x0.copy(), fun(x0), 2 * A)
    assert f == pytest.approx(2.0, abs=1e-9)
    np.testing.assert_allclose(z[1:], x_star[1:], atol=1e-4)


def test_nothing_lower_at_the_minimum():
    fun = lambda x: float(np.sum((x - 1.0) ** 2)) + 5.0  # noqa: E731
    x = np.ones(3)
    assert eigen_line_sweeps(_problem(fun, 3), x.copy(), fun(x), 2 * np.eye(3)) is None


def test_probes_outside_the_bounds_or_at_bad_points_are_skipped():
    calls = []

    def fun(x):
        calls.append(np.array(x))
        if x[0] > 1.0:
            return np.nan  # a bad region just beyond the minimum's side
        return float((x[0] - 0.5) ** 2 + (x[1] - 0.3) ** 2)

    # the first probes: x[0] = 0.9 + 0.51 (NaN) and 0.39 (lower); then x[1] =
    # 0.9 + 0.43 (above its bound) and 0.47 (lower)
    x0 = np.array([0.9, 0.9])
    p = ScaledProblem(GuardedObjective(fun), np.ones(2), lower=np.array([-5.0, -5.0]),
                      upper=np.array([5.0, 1.0]))
    out = eigen_line_sweeps(p, x0.copy(), fun(x0), 2 * np.eye(2))
    assert out is not None
    x, f = out
    assert f < fun(x0) and np.isfinite(f)
    assert x[0] <= 1.0 and x[1] <= 1.0
    # no evaluation was made above the upper bound of the second variable
    assert all(c[1] <= 1.0 for c in calls)
