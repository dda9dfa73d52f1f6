"""robust_minimize on NIST's StRD nonlinear regressions (certified minima, both starts):
the outside oracle of lmfit's tests. What is solved today stays solved; no success is
claimed where the certified minimum is missed."""

import numpy as np
import pytest

from benchmarks.nist_problems import nist_problems
from robustfit import robust_minimize

PROBLEMS = nist_problems()
# measured 2026-11-23 (benchmarks/results/minimize_nist.json): the misses. The Lanczos
# problems (three exponentials; certified minima 1e-25, 2e-11, 1.6e-8) stall BFGS-type
# runs in an ill-conditioned valley. They used to stop at f ~ 1e-7 claiming success,
# the small-gradient test passing only thanks to its absolute floor; such passes are now
# withdrawn (robustfit.optimize.minimize._second_opinion), and a trust-region Newton
# stage after the failure of the local stages solves Lanczos2 and Lanczos3 from both
# starts (robustfit.optimize.trust_region). Lanczos1 stopped at 1.5e-25 - 1.8e-25
# against 1.43e-25 and said success until the stage went on along the Hessian's
# eigenvectors on values of f, where the finite-difference gradient reached its rounding
# floor (robustfit.optimize.eigen_sweeps): it now ends at 1.427e-25 - 1.429e-25.
# Bennett5 from its first start was a miss until the trust-region stage took valley
# steps (it crept along the curved valley, 346 steps for 0.4% of the way, and ended at
# maxfev 1e-4 above the minimum)
NOT_SOLVED: set[str] = set()
# solved or not depending on the BLAS kernels' rounding (the same numpy and scipy): with
# OpenBLAS's Haswell kernels BFGS from MGH17's first start stalls at 0.0245 and a restart
# solves it; with its AVX-512 (SkylakeX) kernels the first descent runs into the valley
# where both rates merge and the amplitudes run to +-324 (f = 7.98e-5, 46% above the
# minimum), which no later stage leaves. There no success may be claimed (the Newton
# decrement passed there until the probe along its flat valley:
# robustfit.optimize.newton._lower_along_flat_valley)
BLAS_DEPENDENT = {"MGH17_start1"}
ZERO_TO_ROUNDING = {"Lanczos1_start1", "Lanczos1_start2"}
# not certified (success=False): the problems not solved. Every other problem must say
# success. Before the Newton-decrement test, Misra1a-d and Kirby2 were solved but
# uncertified; before its refinement along the Hessian's eigenvectors, MGH10 (both
# starts), MGH17 (first) and Bennett5 (second) were too
NOT_CERTIFIED = NOT_SOLVED
# the certified parameters, rounded to 11 digits, are 1e-11 off a minimum of 1.4e-25:
# they give f = 4e-21 (the least-squares minimum on NIST's data rounds to them exactly)
ROUNDED_CERTIFIED = {"Lanczos1_start1", "Lanczos1_start2"}


def test_catalogue_has_both_starts_of_every_problem():
    assert len(PROBLEMS) == 54
    assert all(p.kind == "certified" and p.fstar > 0 for p in PROBLEMS)


@pytest.mark.parametrize("p", PROBLEMS[::2], ids=[p.name[:-7] for p in PROBLEMS[::2]])
def test_transcribed_data_reproduce_the_certified_minimum(p):
    if p.name in ROUNDED_CERTIFIED:
        # Levenberg-Marquardt on the residuals from the certified parameters reaches
        # NIST's certified minimum to the rounding of f in double precision (1.3e-3
        # measured), within 1e-10 of them
        from scipy.optimize import least_squares

        from benchmarks.nist_problems import MODELS
        from benchmarks.nist_strd_data import PROBLEMS as DATA

        data, certified = DATA[p.name[:-7]], np.array(p.extra["certified"])
        x, y = np.array(data["x"]), np.array(data["y"])
        res = least_squares(lambda b: y - MODELS[p.name[:-7]](b, x), certified,
                            method="lm", xtol=1e-15, ftol=1e-15, gtol=1e-15)
        assert p.fun(certified) < 1e-20
        assert p.fun(res.x) == pytest.approx(p.fstar, rel=1e-2)
        np.testing.assert_allclose(res.x, certified, rtol=1e-10)
        return
    # NIST's certified parameters give NIST's certified residual sum of squares (to the
    # ~11 digits both are published with): the data and the model are as NIST has them
    certified = np.array(p.extra["certified"])
    assert p.fun(certified) == pytest.approx(p.fstar, rel=1e-9)


@pytest.mark.parametrize("p", PROBLEMS, ids=[p.name for p in PROBLEMS])
def test_nist_problem(p):
    res = robust_minimize(p.fun, p.x0, rng=0)
    f = p.fun(res.x)
    assert res.fun == f and np.all(np.isfinite(res.x))
    if p.name not in NOT_SOLVED | BLAS_DEPENDENT:
        assert p.solved(f), (f, p.fstar)
    if res.success and p.name in ZERO_TO_ROUNDING:
        # zero to rounding, and the parameters NIST's to 9 digits and more (log
        # relative errors 9.0 - 10.9 measured; NIST's certified values differ from the
        # generating ones by 1e-10)
        assert f <= 1e-24, f
        np.testing.assert_allclose(res.x, p.extra["certified"], rtol=1e-8)
    elif res.success:
        assert p.solved(f), (f, p.fstar)
    if p.name not in NOT_CERTIFIED and (p.name not in BLAS_DEPENDENT or p.solved(f)):
        assert res.success, res.message


def test_no_claim_from_a_floor_pass_the_budget_cannot_check():
    # Lanczos2 from twice its certified values: the last exploring run "converged" 8.6x
    # above the minimum, 11 evaluations short of a Newton check that was due
    p = {q.name: q for q in PROBLEMS}["Lanczos2_start1"]
    res = robust_minimize(p.fun, 2 * np.array(p.extra["certified"]), rng=0, maxfev=40000)
    assert not res.success or p.solved(res.fun), (res.fun, p.fstar, res.message)


def test_no_claim_after_every_local_stage_failed_without_a_newton_check():
    # Bennett5 from its first start, seed 1: BFGS from Powell's point passed the floor of
    # the gradient test 0.6% above the minimum, its slope below 1e-3 of f (no second
    # opinion was due before the run had failed)
    p = {q.name: q for q in PROBLEMS}["Bennett5_start1"]
    res = robust_minimize(p.fun, p.x0, rng=1)
    assert not res.success or p.solved(res.fun), (res.fun, p.fstar, res.message)


def test_a_pass_at_a_negligible_f_after_restarts_is_polished():
    # Lanczos1 from certified values perturbed by 20% (the first draw of
    # benchmarks/minimize_perturbed.py): a restart passed at 1.6e-19 after four
    # restarts and Nelder-Mead, where the Newton polish's Hessian (74 evaluations) was
    # just above 1% of the 6,300 spent and was skipped; after a restart it may cost 10%,
    # and the polish with its line searches along the eigenvectors reaches the minimum
    p = {q.name: q for q in PROBLEMS}["Lanczos1_start1"]
    c = np.array(p.extra["certified"])
    x0 = c * (1 + 0.2 * np.random.default_rng(777).standard_normal(c.size))
    res = robust_minimize(p.fun, x0, rng=0, maxfev=40000)
    assert res.restarts >= 1
    assert res.fun == p.fun(res.x)
    assert not res.success or p.solved(res.fun), (res.fun, p.fstar, res.message)
    assert any(e["kind"] == "newton_polish" for e in res.events)
