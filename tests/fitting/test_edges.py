"""Fits with gaps held on the support's edge (robustfit.fitting.edges)."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

import robustfit
from robustfit.fitting import edges
from robustfit.fitting.edges import UNBOUNDED_AT_EDGE


def _bowl(calls: dict, batched: bool):
    """(t1 - 1)^2 + 3 (t2 + 2)^2 + 0.01 t0: a minimum at t0 -> -inf, (1, -2) in the rest."""

    def f(t):
        t = np.asarray(t, dtype=float)
        return float((t[1] - 1.0) ** 2 + 3.0 * (t[2] + 2.0) ** 2 + 0.01 * t[0])

    if batched:
        def many(ts):
            calls["batches"] += 1
            return [f(t) for t in ts]
        f.many = many
    return f


def test_the_reduced_fit_on_the_edge_evaluates_gradients_in_one_batch():
    # the objective's vectorised evaluation reaches the fit over the other coordinates
    # (finite-difference gradients in one call), and the result is the one-by-one one
    start = np.array([-5.0, 4.0, 3.0])
    results = {}
    for batched in (False, True):
        calls = {"batches": 0}
        res = edges._fit_with_gaps_at_edge(_bowl(calls, batched), start, [0], 2000,
                                           None, None)
        results[batched] = res
        assert (calls["batches"] > 0) == batched
    for res in results.values():
        assert res.t[0] == edges._AT_EDGE_T
        np.testing.assert_allclose(res.t[1:], [1.0, -2.0], atol=1e-6)
    np.testing.assert_array_equal(results[True].t, results[False].t)
    assert results[True].fun == results[False].fun


@pytest.mark.parametrize("dist", [stats.gamma, stats.weibull_min, stats.chi2])
def test_an_unbounded_edge_leads_the_message(dist):
    # five points, loc free: the likelihood grows without bound as loc closes on the
    # smallest (a shape below 1); the message had opened "optimiser did not report
    # convergence (BFGS: converged ...", the reason 300 characters further on
    x = 1e-3 + 1e-9 * stats.expon.rvs(size=5, random_state=np.random.default_rng(11))
    res = robustfit.fit(dist, x)
    assert not res.success
    assert res.message.startswith("no maximum of the likelihood exists"), res.message
    assert UNBOUNDED_AT_EDGE in res.message


def test_a_censored_fit_next_to_a_singular_edge_reports_the_users_likelihood():
    # powerlaw (a < 1) on 300 points, the top 30% right-censored: loc ends 6.7e-11 below
    # the smallest exact value, and the NLL computed in standardised coordinates, where
    # that gap is rounded differently, was 3.5e-6 units off the user's
    from benchmarks.fit_cases import sample

    x = 10.0 + 2.0 * sample(stats.powerlaw, (0.6591133289905851,), 300, seed=3034)
    cut = np.quantile(x, 0.7)
    res = robustfit.fit(stats.powerlaw,
                        stats.CensoredData.right_censored(np.minimum(x, cut), x > cut))
    user = -(np.sum(stats.powerlaw.logpdf(x[x <= cut], *res))
             + np.sum(x > cut) * stats.powerlaw.logsf(cut, *res))
    assert not res.success and res.nll == pytest.approx(user, rel=1e-13)
