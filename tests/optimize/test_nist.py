"""robust_minimize on NIST's StRD nonlinear regressions (certified minima, both starts):
the outside oracle of lmfit's tests. What is solved today stays solved; no success is
claimed where the certified minimum is missed, except the two documented below."""

import numpy as np
import pytest

from benchmarks.nist_problems import nist_problems
from robustfit import robust_minimize

PROBLEMS = nist_problems()
# measured 2026-11-23 (benchmarks/results/minimize_nist.json): the misses
NOT_SOLVED = {"Lanczos3_start1", "Lanczos3_start2", "Bennett5_start1"}
# Lanczos3's certified RSS is 1.6e-8: the small-gradient test scales by max(1, |f|), so
# at f ~ 1e-7 a gradient of 1e-7 passes for stationary although the parameters are far
# from the certified ones (a method with the residuals, Levenberg-Marquardt, goes on)
KNOWN_FALSE_SUCCESS = {"Lanczos3_start1", "Lanczos3_start2"}
# not certified (success=False): Bennett5 from its first start, which is not solved.
# Every other problem must say success. Before the Newton-decrement test, Misra1a-d and
# Kirby2 were solved but uncertified; before its refinement along the Hessian's
# eigenvectors, MGH10 (both starts), MGH17 (first) and Bennett5 (second) were too
NOT_CERTIFIED = {"Bennett5_start1"}


def test_catalogue_has_both_starts_of_every_problem():
    assert len(PROBLEMS) == 36
    assert all(p.kind == "certified" and p.fstar > 0 for p in PROBLEMS)


@pytest.mark.parametrize("p", PROBLEMS[::2], ids=[p.name[:-7] for p in PROBLEMS[::2]])
def test_transcribed_data_reproduce_the_certified_minimum(p):
    # NIST's certified parameters give NIST's certified residual sum of squares (to the
    # ~11 digits both are published with): the data and the model are as NIST has them
    certified = np.array(p.extra["certified"])
    assert p.fun(certified) == pytest.approx(p.fstar, rel=1e-9)


@pytest.mark.parametrize("p", PROBLEMS, ids=[p.name for p in PROBLEMS])
def test_nist_problem(p):
    res = robust_minimize(p.fun, p.x0, rng=0)
    f = p.fun(res.x)
    assert res.fun == f and np.all(np.isfinite(res.x))
    if p.name not in NOT_SOLVED:
        assert p.solved(f), (f, p.fstar)
    if res.success and p.name not in KNOWN_FALSE_SUCCESS:
        assert p.solved(f), (f, p.fstar)
    if p.name not in NOT_CERTIFIED:
        assert res.success, res.message
