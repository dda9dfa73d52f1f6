"""Later starts racing an unconverged first start (a likelihood that rises towards a
limit of the family)."""

import numpy as np
from scipy import stats

import robustfit
from robustfit.fitting.fit import EVALS_PER_PARAMETER, UNCONVERGED_RACE_SHARE


def test_later_starts_give_up_early_against_a_march_to_a_limit():
    # loggamma on normal data: the likelihood rises towards the normal limit (c -> inf),
    # every start creeps along the same valley; only the first spends its budget
    # (lognorm, gamma, ... reach such limits through their profile over loc instead)
    x = np.random.default_rng(0).normal(100.0, 15.0, 2000)
    res = robustfit.fit(stats.loggamma, x)
    runs = [a for a in res.attempts if a.stage == "optimize"]
    budget = EVALS_PER_PARAMETER * 4
    assert runs[0].nfev >= budget / 2
    for later in runs[1:]:
        assert later.nfev <= 1.2 * UNCONVERGED_RACE_SHARE * runs[0].nfev + 20
        assert "no prospect" in later.message or "agree" in later.message
    # honest: no convergence claimed, and the value is the limit's to within a unit
    assert not res.success
    norm_nll = stats.norm.nnlf(stats.norm.fit(x), x)
    assert res.nll <= norm_nll + 1.0
