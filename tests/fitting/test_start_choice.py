"""Which starts get a local optimisation: the user's guess, and both signs of a shape
whose domain has both."""

from __future__ import annotations

import numpy as np
from scipy import stats

import robustfit
from benchmarks.fit_cases import sample


def optimised_starts(res):
    return [a for a in res.attempts if a.stage == "optimize"]


def test_the_users_shape_guess_is_always_optimised():
    x = stats.gengamma.rvs(4.4, -3.1, size=500, random_state=np.random.default_rng(2))
    res = robustfit.fit(stats.gengamma, x, 3.0, -0.5)
    user = [a for a in optimised_starts(res) if a.start == "user"]
    assert len(user) == 1 and user[0].initial[:2] == (3.0, -0.5)


def test_both_signs_of_a_real_line_shape_are_tried():
    # scipy's acceptance case gengamma(4.42, -3.12) at n = 10000: every start with c > 0
    # marches to a -> inf, 7 NLL units short of the truth; the c < 0 regime holds the MLE
    shapes = (4.4162385429431925, -3.119309167924276)
    x = sample(stats.gengamma, shapes, 10000)
    res = robustfit.fit(stats.gengamma, x)
    signs = {np.sign(a.initial[1]) for a in optimised_starts(res)}
    assert signs == {-1.0, 1.0}
    assert res[1] < 0
    assert res.nll <= stats.gengamma.nnlf((*shapes, 0.0, 1.0), x)
