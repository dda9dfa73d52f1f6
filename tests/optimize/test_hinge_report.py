"""The report behind issue 3: scipy's BFGS on an SVM hinge loss, and what we do instead."""

import contextlib
import io
import warnings

import numpy as np
import pytest
from scipy.optimize import fmin_bfgs

from benchmarks.minimize_problems import (
    hinge_l2_minimum,
    hinge_loss,
    hinge_lp_minimum,
    hinge_subgradient,
    svm_data,
)
from robustfit import robust_minimize
from robustfit.optimize.bfgs import Bundle, guarded_bfgs
from robustfit.optimize.events import EventLog


@pytest.fixture(scope="module")
def svm():
    X, y = svm_data()
    return X, y, hinge_lp_minimum(X, y)


def test_scipy_bfgs_fails_on_hinge_loss(svm):
    X, y, fstar = svm
    out = io.StringIO()
    with contextlib.redirect_stdout(out), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        xopt, fopt, *_, warnflag = fmin_bfgs(
            hinge_loss, np.zeros(5), fprime=hinge_subgradient, args=(X, y), disp=True,
            full_output=True)
    assert warnflag == 2  # "Desired error not necessarily achieved due to precision loss."
    assert any("precision loss" in str(w.message) for w in caught)
    assert fopt > fstar + 1e-3  # stopped well above the LP optimum


def test_robust_minimize_solves_hinge_loss(svm):
    X, y, fstar = svm
    res = robust_minimize(hinge_loss, np.zeros(5), args=(X, y), jac=hinge_subgradient, rng=0)
    assert res.success
    assert res.fun == pytest.approx(fstar, abs=1e-7)
    assert "convex combination" in res.message  # certified by the non-smooth test
    assert res.fun == hinge_loss(res.x, X, y)


def test_robust_minimize_solves_l2_hinge_loss(svm):
    X, y, _ = svm
    fstar, gap = hinge_l2_minimum(X, y, 0.1)
    res = robust_minimize(hinge_loss, np.zeros(5), args=(X, y, 0.1),
                          jac=hinge_subgradient, rng=0)
    assert res.fun <= fstar + max(1e-7, 10 * gap)


def test_zero_curvature_is_skipped_not_divided_by():
    """On a linear piece y = g_new - g = 0, so y·s = 0: scipy sets rhok = 1000 (and says so
    only with disp=True); the guarded core skips the update and records it. Here f is
    linear down to a NaN wall, so every step stays on one piece."""
    def f(z):
        return float(z.sum()) if np.all(z > -10) else np.nan

    def g(z, fz):
        return np.ones_like(z)

    log = EventLog()
    z0 = np.array([5.0, 7.0])
    out = guarded_bfgs(f, g, z0, f(z0), g(z0, 0), converged=lambda *a: False, max_iter=30,
                       bundle=Bundle(10), log=log, stage="test")
    kinds = [e["kind"] for e in log.as_list()]
    assert "curvature_skip" in kinds
    assert out.f < f(z0) and np.all(np.isfinite(out.z)) and np.isfinite(out.f)
