"""Powell from x0 before the restarts, where the first descent took no step from x0."""

import numpy as np

from robustfit import robust_minimize


def extended_hiebert(x):
    """Andrei's extended Hiebert function: f* = 0 at (10, 5000) per pair."""
    a, b = x[0::2], x[1::2]
    return float(np.sum((a - 10) ** 2 + (a * b - 50000) ** 2))


def test_a_first_descent_without_a_step_hands_over_to_powell():
    # from 0 the gradient is (-20, 0) per pair against f = 1.25e10: no decrease above
    # rounding along it. Before: the first restart crawled 2,000 BFGS iterations down
    # the hyperbolic valley and the run ended at maxfev (55,000) with f = 12
    res = robust_minimize(extended_hiebert, np.zeros(10), rng=0)
    kinds = [(e["stage"], e["kind"]) for e in res.events]
    assert ("Powell from x0", "strategy") in kinds
    assert kinds.index(("Powell from x0", "stage_end")) < min(
        (i for i, (stage, _) in enumerate(kinds) if stage.startswith("restart")),
        default=len(kinds))
    assert res.fun == extended_hiebert(res.x) <= 1e-12
    assert np.allclose(res.x, np.tile([10.0, 5000.0], 5), rtol=1e-5)
    assert res.nfev < 55_000


def test_powell_from_x0_runs_once():
    res = robust_minimize(extended_hiebert, np.zeros(10), rng=0)
    stages = [e["stage"] for e in res.events if e["kind"] == "stage_end"]
    assert stages.count("Powell from x0") == 1


def test_a_wrong_jac_is_dropped_instead():
    # a jac of the wrong sign makes the first line search fail at x0 too: there the
    # gradient check drops it and the restarts go on with finite differences
    def fun(x):
        return float((x[0] - 1) ** 2 + 10 * (x[1] + 2) ** 2)

    def jac(x):
        return -np.array([2 * (x[0] - 1), 20 * (x[1] + 2)])

    res = robust_minimize(fun, np.array([3.0, 3.0]), jac=jac, rng=0)
    assert res.success and np.allclose(res.x, [1.0, -2.0], atol=1e-6)
    assert not any(e["stage"] == "Powell from x0" for e in res.events)
    assert any(e["kind"] == "gradient_mismatch" for e in res.events)
