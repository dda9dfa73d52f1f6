"""``options["explore"]``: exploratory local runs for problems with several minima."""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.minimize_problems import by_name
from robustfit import InvalidInputError, robust_minimize


def test_default_is_local_and_explore_finds_the_global_minimum():
    # Freudenstein-Roth from the standard start: BFGS descends to the local minimum
    # 48.98 (a minimum, so success is claimed honestly); exploring reaches f* = 0
    p = by_name("freudenstein_roth")
    local = robust_minimize(p.fun, p.x0, jac=p.jac, rng=0)
    assert local.success and local.fun == pytest.approx(48.9842536792, rel=1e-8)
    assert not any(e["stage"].startswith("explore") for e in local.events)
    found = robust_minimize(p.fun, p.x0, jac=p.jac, rng=0, options={"explore": 4})
    assert found.success and found.fun <= 1e-10
    assert found.fun == p.fun(found.x)
    np.testing.assert_allclose(found.x, [5.0, 4.0], atol=1e-5)
    assert any(e["stage"].startswith("explore") for e in found.events)


def test_exploring_never_loses_the_verified_point_when_the_budget_runs_out():
    def quadratic(x):
        return float(np.sum((x - 3.0) ** 2))

    plain = robust_minimize(quadratic, [0.0, 0.0], rng=1)
    assert plain.success
    tight = robust_minimize(quadratic, [0.0, 0.0], rng=1, maxfev=plain.nfev + 5,
                            options={"explore": 3})
    assert tight.success  # the budget ran out exploring: the tested point stands
    assert tight.fun <= plain.fun and tight.nfev <= plain.nfev + 5
    assert any("budget spent" in str(e.get("outcome", "")) for e in tight.events)


def test_a_budget_spent_exploring_after_a_failed_test_is_reported_as_the_budget():
    # Haarala et al.'s chained Mifflin 2 (n = 10): the main stages end unverified and
    # exploring spends the default budget (5000 (n + 1)). That run had returned status 4,
    # "stopped without passing a convergence test"; a budget spent in any other stage
    # returns status 1. Both now say which test failed last
    def chained_mifflin2(x):
        s = x[:-1] ** 2 + x[1:] ** 2 - 1.0
        return float(np.sum(-x[:-1] + 2.0 * s + 1.75 * np.abs(s)))

    res = robust_minimize(chained_mifflin2, -np.ones(10), rng=0)
    assert res.nfev == 55_000 and any(e["stage"].startswith("explore") for e in res.events)
    assert not res.success and res.status == 1
    assert res.message.startswith("maxfev reached; last test: ")
    assert res.fun == chained_mifflin2(res.x)
    assert res.fun <= -6.5146  # (f* = -6.51461: the point is good, just unverified)


def test_explore_with_bounds_uses_bounded_runs():
    p = by_name("freudenstein_roth")
    res = robust_minimize(p.fun, p.x0, bounds=[(-20, 20), (-20, 20)], rng=0,
                          options={"explore": 4})
    assert res.fun <= 1e-8 and res.success


@pytest.mark.parametrize("bad", [-1, 1.5, True, "2", None])
def test_bad_explore_values_are_rejected(bad):
    with pytest.raises(InvalidInputError, match="explore"):
        robust_minimize(lambda x: float(x @ x), [1.0], options={"explore": bad})
