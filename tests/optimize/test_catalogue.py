"""The catalogue's references, checked against oracles nobody on this team wrote."""

import numpy as np
import pytest
from scipy.optimize import least_squares

from benchmarks.minimize_problems import (
    catalogue,
    hinge_l2_minimum,
    hinge_loss,
    hinge_lp_minimum,
    smooth_problems,
    svm_data,
)

# Moré, Garbow & Hillstrom (1981), the minimum values as printed (six digits)
MGH_PRINTED = {
    "jennrich_sampson": 124.362, "bard": 8.21487e-3, "gaussian": 1.12793e-8,
    "meyer": 87.9458, "kowalik_osborne": 3.07505e-4, "brown_dennis": 85822.2,
    "osborne1": 5.46489e-5, "watson6": 2.28767e-3, "watson9": 1.39976e-6,
    "penalty1_4": 2.24997e-5, "penalty1_10": 7.08765e-5, "penalty2_4": 9.37629e-6,
    "penalty2_10": 2.93660e-4, "chebyquad8": 3.51687e-3,
}


def test_catalogue_is_large_and_names_are_unique():
    names = [p.name for p in catalogue()]
    assert len(names) == len(set(names)) >= 85
    kinds = {p.kind for p in catalogue()}
    assert kinds == {"smooth", "nonsmooth", "hostile"}


@pytest.mark.parametrize("name,printed", sorted(MGH_PRINTED.items()))
def test_refined_minima_round_to_the_paper(name, printed):
    p = next(q for q in smooth_problems() if q.name == name)
    assert p.fstar == pytest.approx(printed, rel=1e-5)


@pytest.mark.parametrize("problem", [p for p in smooth_problems()
                                     if not p.name.endswith("_x10")], ids=lambda p: p.name)
def test_least_squares_reaches_a_listed_minimum(problem):
    """MINPACK's Levenberg-Marquardt from the standard start lands on f* or a listed local
    minimum: this checks our transcription of every MGH function."""
    r = problem.fun.residuals
    with np.errstate(all="ignore"):
        sol = least_squares(r, problem.x0, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                            max_nfev=20000)
    f = 2 * sol.cost
    assert problem.at_a_minimum(f) or f <= problem.fstar + problem.tol


def test_hinge_references_agree():
    X, y = svm_data()
    f_lp = hinge_lp_minimum(X, y)
    # adding a penalty can only raise the minimum; the dual QP certifies its value
    for lam in (0.1, 0.01):
        f_l2, gap = hinge_l2_minimum(X, y, lam)
        assert f_lp <= f_l2 + 1e-9
        assert -1e-12 <= gap < 1e-12  # the active-set KKT solve closes it to rounding
    # and no point of a coarse random search beats the LP optimum
    rng = np.random.default_rng(0)
    best = min(hinge_loss(rng.standard_normal(5), X, y) for _ in range(2000))
    assert best >= f_lp


def test_tolerance_is_relative_and_never_looser_than_the_start():
    for p in catalogue():
        if p.tol_override is not None:
            continue
        assert 0 < p.tol <= 1e-6 * max(1.0, abs(p.fstar)) + 1e-14
