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
    runs = [a for a in res.attempts if a.stage == "optimize"]
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
