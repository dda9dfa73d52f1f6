"""A fit's time budget: evaluations that grow far costlier than at the start."""

import importlib
import time

import numpy as np
import pytest
from scipy import stats
from scipy.stats._distr_params import distcont

import robustfit
from robustfit.fitting import time_budget

fit_module = importlib.import_module("robustfit.fitting.fit")  # (the package's fit is the function)


class _CostlierT(stats.rv_continuous):
    """Student's t whose density costs more as ``df`` grows (as nct's series does)."""

    def _pdf(self, x, df):
        time.sleep(1e-5 * min(float(np.max(df)), 1e4))
        return stats.t.pdf(x, df)

    def _logpdf(self, x, df):
        time.sleep(1e-5 * min(float(np.max(df)), 1e4))
        return stats.t.logpdf(x, df)


def test_budget_is_slack_times_the_start_price_with_a_floor():
    assert time_budget.budget_seconds(1e-3, 6000) == pytest.approx(
        time_budget.SLACK * 6.0)
    assert time_budget.budget_seconds(1e-9, 10) == time_budget.FLOOR_S


def test_nested_budget_keeps_the_outer_deadline():
    with time_budget.budget_scope():
        time_budget.start_budget(0.0)
        with time_budget.budget_scope():
            time_budget.start_budget(100.0)  # (cannot outlast the outer one)
            time.sleep(0.001)
            assert time_budget.spent()
        assert time_budget.spent()
    assert not time_budget.spent()


def test_a_fit_drawn_to_a_costly_limit_stops_at_its_budget(monkeypatch):
    # uniform data: the t likelihood rises towards df -> inf (the normal), where each
    # evaluation here costs up to 0.1 s; without a budget the crawl there takes minutes.
    # The budget is fixed at 2 s: one from the start's measured price (the formula is
    # tested above) grew past what the crawl needs when the machine was loaded, and
    # the fit then ended on its evaluations, not its budget
    monkeypatch.setattr(fit_module, "budget_seconds", lambda *args: 2.0)
    dist = _CostlierT(name="costlier_t")
    x = stats.uniform.rvs(size=200, random_state=np.random.default_rng(3))
    started = time.perf_counter()
    res = robustfit.fit(dist, x)
    assert time.perf_counter() - started < 30
    assert not res.success
    assert "time budget is spent" in res.message
    assert res.message.startswith("the fit's time budget ran out")  # (the reason first)
    assert np.all(np.isfinite(tuple(res))) and np.isfinite(res.nll)
    assert res.nll <= -np.sum(dist.logpdf(x, 5.0, loc=0.5, scale=0.3))
    # no walk towards df's open end starts once the budget is spent: each re-fit would
    # pay for its start, at the costliest densities of the family
    assert not any(a.start == "open_end" for a in res.attempts)


def test_an_ordinary_fit_is_not_touched_by_the_budget():
    x = stats.gamma.rvs(2.5, size=300, random_state=np.random.default_rng(0))
    res = robustfit.fit(stats.gamma, x)
    assert res.success
    assert not any("time budget" in a.message for a in res.attempts)


def test_nct_right_censored_ends_in_seconds():
    # the complete-data fit of its pseudo-observations (the censored values at their
    # bound) crawled towards df, nc -> inf, where scipy's nct pdf costs 0.16 s per
    # evaluation: 1,054 s before the budget (scipy: 1.2 s, 0.75 units worse)
    from benchmarks import fit_cases

    x = fit_cases.sample(stats.nct, dict(distcont)["nct"], 150, seed=12)
    cut = np.quantile(x, 0.8)
    data = stats.CensoredData.right_censored(np.minimum(x, cut), x > cut)
    started = time.perf_counter()
    res = robustfit.fit(stats.nct, data)
    assert time.perf_counter() - started < 90
    nll = -(np.sum(stats.nct.logpdf(x[x <= cut], *res))
            + np.sum(stats.nct.logsf(np.full(np.sum(x > cut), cut), *res)))
    assert nll == pytest.approx(res.nll, rel=1e-9)
    assert nll <= 207.50  # scipy's estimate: 207.507


def test_the_budget_is_the_threads_cpu_time_with_a_wall_clock_cap():
    # a pause of the machine (a loaded worker) is not spent by the fit: a hand-written
    # beta fitted by moments had run out of a wall-clock budget in 2 of 4 loaded runs.
    # The wall still bounds a density whose cost is not this thread's CPU
    with time_budget.budget_scope():
        time_budget.start_budget(0.2)
        time.sleep(0.3)  # (wall time only)
        assert not time_budget.spent()
        time.sleep(time_budget.WALL_FACTOR * 0.2)
        assert time_budget.spent()
    with time_budget.budget_scope():
        time_budget.start_budget(0.05)
        started = time.thread_time()
        while time.thread_time() - started < 0.1:  # (CPU time)
            pass
        assert time_budget.spent()
