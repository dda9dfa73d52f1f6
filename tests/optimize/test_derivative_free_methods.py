"""``method="nelder-mead"`` and ``method="powell"``: the user's scipy method, run again from
its best point while the tests fail, with the plateau check of the BFGS runs."""

import numpy as np
import pytest
from scipy.optimize import rosen

from benchmarks.minimize_problems import by_name
from robustfit import robust_minimize


@pytest.mark.parametrize("method", ["powell", "nelder-mead"])
def test_rosenbrock_is_certified_at_its_minimum(method):
    # one Powell stage (400 (n + 1) evaluations) ended at f = 5e-17 with success=False,
    # its message "measure 5.69e-07 > gtol" for a measure below gtol
    res = robust_minimize(rosen, [-1.2, 1.0], rng=0, method=method)
    assert res.success, res.message
    np.testing.assert_allclose(res.x, [1.0, 1.0], atol=1e-6)
    assert res.fun == rosen(res.x)


@pytest.mark.parametrize("method", ["powell", "nelder-mead"])
@pytest.mark.parametrize("name", ["box3d", "box3d_x10"])
def test_a_plateau_is_not_claimed_as_a_minimum(method, name):
    # Box 3D: exp(-t x2) underflows once x2 runs to 500..2300, and f = 0.0756 does not
    # change with x2 there (the minimum is 0 at (1, 10, 1)). The Newton-decrement test
    # passed on that plateau (its zero curvature measured as a tiny positive one)
    problem = by_name(name)
    res = robust_minimize(problem.fun, problem.x0, rng=0, method=method)
    assert not res.success or problem.solved(res.fun), (res.fun, res.message)
    assert problem.solved(res.fun) or "plateau" in res.message


def test_a_stage_whose_retests_keep_finding_f_lower_says_so():
    # Powell's first stage on Rosenbrock's function stops at f = 5e-17, and each retest
    # finds f lower: the measure there is below gtol, and the stage's test says why it
    # did not pass (it said "measure 5.69e-07 > gtol")
    res = robust_minimize(rosen, [-1.2, 1.0], rng=0, method="powell")
    first = next(e for e in res.events if e["kind"] == "stage_end")
    assert first["stage"] == "Powell" and not first["passed"]
    assert first["measure"] <= 1e-6
    assert "f fell further at each of 3 retests" in first["test"]


def test_a_run_that_finds_nothing_lower_is_not_repeated():
    # a bowl: the first Nelder-Mead run passes, and no rerun follows
    res = robust_minimize(lambda x: float(np.sum((x - 2.0) ** 2)), np.zeros(3), rng=0,
                          method="nelder-mead")
    assert res.success and res.restarts == 0
    assert [e["stage"] for e in res.events if e["kind"] == "stage_end"] == ["Nelder-Mead"]
