"""robust_minimize on the whole catalogue: solved where expected, never a false success."""

import numpy as np
import pytest

from benchmarks.minimize_problems import catalogue
from robustfit import robust_minimize

# Stops at a minimum the paper lists as local (a success claim there is true):
AT_LOCAL_MINIMUM = {"freudenstein_roth", "freudenstein_roth_x10", "biggs_exp6",
                    "trigonometric10"}
# meyer_x10 was solved or not depending on the BLAS kernels' rounding (by an exploring
# run with AVX-512 OpenBLAS kernels, not with Haswell ones) until the log-coordinate
# Nelder-Mead stage (seventeenth session): now with both, from every seed tried (0-4).
SLOW = {"hinge_svm_fd", "osborne1", "osborne1_x10", "penalty2_10", "penalty2_10_x10",
        "meyer_x10", "penalty2_4_x10", "l1_regression", "penalty1_10_x10",
        "extended_rosenbrock10_x10", "biggs_exp6_x10", "broyden_banded10_x10"}


def _params():
    for p in catalogue():
        marks = [pytest.mark.slow] if p.name in SLOW else []
        yield pytest.param(p, id=p.name, marks=marks)


@pytest.mark.parametrize("problem", list(_params()))
def test_catalogue_problem(problem):
    res = robust_minimize(problem.fun, problem.x0, jac=problem.jac, rng=0)
    with np.errstate(all="ignore"):
        f_at_x = problem.fun(res.x)
    assert res.fun == f_at_x
    assert np.all(np.isfinite(res.x))
    if res.success:  # never a false success
        assert problem.at_a_minimum(res.fun), (res.fun, problem.fstar, res.message)
    if problem.name in AT_LOCAL_MINIMUM:
        assert problem.at_a_minimum(res.fun)
    else:
        assert problem.solved(res.fun), (res.fun, problem.fstar, problem.tol, res.message)


def _random_nonsmooth(seed):
    from benchmarks.minimize_problems import (
        hinge_loss,
        hinge_lp_minimum,
        l1_data,
        l1_loss,
        l1_lp_minimum,
        max_of_quadratics,
        svm_data,
    )

    X, y = l1_data(30, 3, seed + 10)
    yield (lambda b: l1_loss(b, X, y)), np.zeros(4), l1_lp_minimum(X, y)
    yield max_of_quadratics(4, 3, seed + 20), np.full(4, 2.0), 0.0
    X2, y2 = svm_data(30, 2, seed + 30)
    yield (lambda p: hinge_loss(p, X2, y2)), np.zeros(3), hinge_lp_minimum(X2, y2)


@pytest.mark.parametrize("seed", [0, pytest.param(1, marks=pytest.mark.slow),
                                  pytest.param(2, marks=pytest.mark.slow),
                                  pytest.param(3, marks=pytest.mark.slow)])
def test_random_nonsmooth_problems_against_lp(seed):
    """Fresh L1-regression, hinge (LP references) and max-of-quadratics problems, with
    finite differences: solved, and never a success claim away from the minimum."""
    for fun, x0, fstar in _random_nonsmooth(seed):
        res = robust_minimize(fun, x0, rng=seed)
        tol = 1e-6 * max(1.0, abs(fstar))
        if res.success:
            assert res.fun <= fstar + tol, res.message
        assert res.fun <= fstar + 1e-4 * max(1.0, abs(fstar))
