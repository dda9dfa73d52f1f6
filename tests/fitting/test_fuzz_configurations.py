"""A few of ``benchmarks/fit_fuzz.py``'s configurations in the default suite: the rules
it applies (only RobustFitError may be raised; no success with NaN, an infinite NLL or
an NLL above the truth's), and a finite NLL besides, on families and settings that
once broke them or stand for a kind of data."""

import numpy as np
import pytest
from scipy import stats

from benchmarks.fit_fuzz import CONFIGS, _one


@pytest.mark.parametrize("label, dist, shapes, config", [
    # dgamma and dweibull on 12 points: a start ran onto an observation with the shape
    # below 1, and the fit reported an infinite NLL
    ("dgamma", stats.dgamma, (1.1,), CONFIGS[0]),
    ("dweibull", stats.dweibull, (2.07,), CONFIGS[1]),
    ("crystalball", stats.crystalball, (2.0, 3.0), CONFIGS[2]),
    ("gamma", stats.gamma, (1.99,), CONFIGS[7]),      # right-censored
    ("weibull_min", stats.weibull_min, (1.79,), CONFIGS[10]),  # interval-censored
    ("lognorm", stats.lognorm, (0.5,), CONFIGS[8]),   # method of moments at 1e-9
    ("t", stats.t, (2.74,), CONFIGS[9]),              # far-off loc and scale guesses
])
def test_fuzz_rules_hold(label, dist, shapes, config):
    row = _one(label, dist, shapes, config)
    assert row["kind"] == "ok", row
    assert np.isfinite(row["nll"]), row
