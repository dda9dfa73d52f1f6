"""The demo's SVM: hinge loss + L2 with one feature in units 1000x the other.

At its optimum three margins are active at once, and the subgradients differ in scale by
three orders of magnitude: the certificate (shortest convex combination of sampled
gradients) must be solved exactly, or a true optimum is reported as a failure.
"""

import numpy as np

import robustfit
from benchmarks.minimize_problems import hinge_l2_minimum
from robustfit.demo import svm_problem


def dual_optimum(n=400, seed=7, lam=1e-3):
    """The optimum certified by the SVM dual (duality gap at rounding): an independent
    reference built from the same blobs as the demo."""
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(-1.0, 1.0, (n // 2, 2)), rng.normal(1.0, 1.0, (n // 2, 2))])
    X[:, 1] *= 1000.0
    y = np.r_[-np.ones(n // 2), np.ones(n // 2)]
    fstar, gap = hinge_l2_minimum(X, y, lam)
    assert abs(gap) < 1e-12 * max(1.0, abs(fstar))
    return fstar


def test_badly_scaled_hinge_reaches_and_certifies_the_optimum():
    loss, grad, w0 = svm_problem()
    fstar = dual_optimum()
    res = robustfit.robust_minimize(loss, w0, jac=grad, rng=0)
    assert res.fun <= fstar + 1e-9 * abs(fstar)
    assert res.fun == loss(res.x)
    assert res.success, res.message


def test_min_norm_point_is_exact_for_gradients_of_very_different_scales():
    # two vertex gradients of a kink in a variable measured in units 1000x larger: 0 is
    # their midpoint, which a first-order iteration on the simplex approaches slowly
    G = np.array([[2e-3, 1.8], [-2e-3, -1.8], [1e-3, 0.9 + 1e-9]])
    d = robustfit.optimize.stationarity.min_norm_convex_combination(G)
    assert np.max(np.abs(d)) < 1e-12
