"""Later starts racing an unconverged first start (a likelihood that rises towards a
limit of the family)."""

import numpy as np
from scipy import stats

import robustfit
from robustfit.fitting.fit import EVALS_PER_PARAMETER, UNCONVERGED_RACE_SHARE


def test_later_starts_give_up_early_against_a_march_to_a_limit():
    # norminvgauss on normal data: the likelihood rises towards the normal limit
    # (a -> inf), every start creeps along the same valley; only the first spends its
    # budget (lognorm, gamma, ... reach such limits through their profile over loc)
    x = np.random.default_rng(0).normal(100.0, 15.0, 2000)
    res = robustfit.fit(stats.norminvgauss, x)
    # (the racing starts; probes of the walk towards the limit are another stage's)
    runs = [a for a in res.attempts if a.stage == "optimize" and a.start != "open_end"]
    budget = EVALS_PER_PARAMETER * 5  # four free parameters
    assert runs[0].nfev >= budget / 2
    for later in runs[1:]:
        assert later.nfev <= 1.2 * UNCONVERGED_RACE_SHARE * runs[0].nfev + 20
        assert "no prospect" in later.message or "agree" in later.message
    # honest: no convergence claimed, and the value is the limit's to within a unit
    assert not res.success
    norm_nll = stats.norm.nnlf(stats.norm.fit(x), x)
    assert res.nll <= norm_nll + 1.0


def test_a_far_location_is_reached_in_units_of_the_scale():
    # loggamma on right-skewed data: the likelihood rises as c grows, with loc ~ -scale
    # log(c) running far away; in the coordinate loc/scale that valley is straight, and
    # the fit walks further along it than scipy's Nelder-Mead (which it used to trail)
    x = stats.gamma.rvs(2.5, scale=3.0, size=5000, random_state=np.random.default_rng(7))
    ours = robustfit.fit(stats.loggamma, x)
    ref = stats.loggamma.nnlf(stats.loggamma.fit(x), x)
    assert ours.nll <= ref


def test_a_racer_that_converges_on_a_shape_plateau_races_on_from_the_grid():
    # crystalball with floc, seed 7: from beta = 10 every observation is in the normal
    # core and the likelihood does not see beta or m; a racer ahead of its rival that
    # converged there is restarted from the shape grid, still racing (the race was once
    # handed on in its converted form, and the restart raised TypeError)
    from benchmarks.fit_cases import sample
    from robustfit.fitting.fit import _optimize_from
    from robustfit.fitting.guesses import Candidate, SampleSummary
    from robustfit.fitting.likelihood import CompleteNLL
    from robustfit.fitting.spec import parse_fit_arguments

    dist = stats.crystalball
    z = np.sort(sample(dist, (2.0, 3.0), 300, seed=7))
    spec = parse_fit_arguments(dist, (), {"floc": 0.0})
    nll = CompleteNLL(dist, z)
    start = np.array([10.0, 3.0, 0.0, float(np.std(z))])
    plateau_value = nll(start)
    # a rival well above: the racer is ahead of it all the way
    race = (plateau_value + 102.0, plateau_value + 100.0, 0, True)
    res = _optimize_from(spec, Candidate("racer", start), nll, None, {2: 0.0},
                         SampleSummary.from_data(z), 0.0, race=race)
    assert not res.abandoned and res.theta is not None
    assert "off a shape's plateau" in res.message
    assert res.theta[0] < 5 and res.value < plateau_value - 1.0


def test_later_starts_are_impatient_after_a_first_start_that_crawled(monkeypatch):
    # a first start that converged only after spending more than half its budget
    # crawled a ridge: racers go on past a quarter of its evaluations only while below
    # it (nct on 80 points crawled df and nc to 180 and 400, where each density costs
    # 0.16 s, and two racers crawled the same ridge for 1300 evaluations each)
    import importlib

    fit_module = importlib.import_module("robustfit.fitting.fit")
    x = stats.fisk.rvs(3.1, loc=2.0, scale=5.0, size=1000, random_state=1)
    free = robustfit.fit(stats.fisk, x)
    first = [a for a in free.attempts if a.stage == "optimize"][0]
    # a budget the first start needs more than half of, but not all
    monkeypatch.setattr(fit_module, "EVALS_PER_PARAMETER", int(first.nfev * 1.5) // 4)
    res = robustfit.fit(stats.fisk, x)
    runs = [a for a in res.attempts if a.stage == "optimize"]
    assert runs[0].success and runs[0].nfev == first.nfev
    assert len(runs) > 1
    for later in runs[1:]:
        assert later.nfev <= 1.2 * UNCONVERGED_RACE_SHARE * runs[0].nfev + 20
    assert res.nll <= free.nll + 1e-9 * abs(free.nll)


def test_a_density_that_underflows_around_its_centre_is_not_scanned_in_loc():
    from robustfit.fitting.singular_loc import vanishes_at_loc

    assert vanishes_at_loc(stats.dweibull, (2.07,))
    assert vanishes_at_loc(stats.dgamma, (30.0,))
    # nct with nc = 400: its centre lies 400 deviations into its tail, where the
    # density underflows on either side too; no local maxima between observations
    assert not vanishes_at_loc(stats.nct, (184.0, 402.0))
    assert not vanishes_at_loc(stats.dgamma, (0.5,))
