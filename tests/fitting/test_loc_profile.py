"""The profile likelihood over loc (three-parameter lognorm, gamma, Weibull, ...).

References: scipy's own fits (its numeric solvers with ``floc``, its override for
lognorm), the true parameters, and a multi-start Nelder-Mead on scipy's ``nnlf``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import optimize, stats

import robustfit
from robustfit.fitting.likelihood import CompleteNLL
from robustfit.fitting.loc_profile import loc_profile_start

N = 600


def draw(dist, shapes, loc, scale, seed=5, n=N):
    return dist.rvs(*shapes, loc=loc, scale=scale, size=n,
                    random_state=np.random.default_rng(seed))


def nnlf(dist, params, x) -> float:
    return float(dist.nnlf(tuple(params), x))


def scipy_fit(dist, x, **kw):
    """scipy's own fit, its warnings (log of a negative trial gap, ...) silenced."""
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return dist.fit(x, **kw)


# closed forms added for a fixed loc, against scipy's numeric fit with the same fixed set
FIXED_LOC = [
    ("chi2", (3.3,), -1.0, 2.0, {"floc": -1.0}),
    ("chi2", (3.3,), -1.0, 2.0, {"floc": -1.0, "fscale": 2.0}),
    ("chi2", (3.3,), -1.0, 2.0, {"floc": -1.0, "f0": 3.3}),
    ("invgamma", (2.5,), 0.5, 2.0, {"floc": 0.5}),
    ("invgamma", (2.5,), 0.5, 2.0, {"floc": 0.5, "fscale": 2.0}),
    ("invgamma", (2.5,), 0.5, 2.0, {"floc": 0.5, "f0": 2.5}),
    ("weibull_max", (1.7,), 3.0, 2.0, {"floc": 3.0}),
    ("weibull_max", (1.7,), 3.0, 2.0, {"floc": 3.0, "f0": 1.7}),
]


@pytest.mark.parametrize("case", FIXED_LOC, ids=lambda c: f"{c[0]}-{'-'.join(c[4])}")
def test_closed_forms_at_fixed_loc_match_scipys_numeric_fit(case):
    name, shapes, loc, scale, kw = case
    dist = getattr(stats, name)
    x = draw(dist, shapes, loc, scale)
    ours = robustfit.fit(dist, x, **kw)
    ref = scipy_fit(dist, x, **kw)
    assert ours.start == "closed_form" and ours.success
    ref_nll = nnlf(dist, ref, x)
    assert ours.nll <= ref_nll + 1e-9 * abs(ref_nll)
    np.testing.assert_allclose(ours, ref, rtol=1e-3)


def nelder_mead_reference(dist, x, starts) -> float:
    """Best NLL of Nelder-Mead runs on scipy's nnlf (in log scale) from ``starts``."""
    best = np.inf
    with np.errstate(all="ignore"):
        for theta in starts:
            best = min(best, _nelder_mead(dist, x, theta))
    return best


def _nelder_mead(dist, x, theta) -> float:
    def f(p):
        return nnlf(dist, (*p[:-1], np.exp(p[-1])), x)

    res = optimize.minimize(f, [*theta[:-1], np.log(theta[-1])], method="Nelder-Mead",
                            options={"maxfev": 4000, "xatol": 1e-10, "fatol": 1e-12})
    return float(res.fun)


# three-parameter families with free loc: (name, shapes, loc, scale)
FREE_LOC = [
    ("lognorm", (0.5,), -2.0, 3.0),
    ("gamma", (2.5,), 1.0, 2.0),
    ("weibull_min", (1.8,), 0.5, 2.0),
    ("invgauss", (0.4,), -1.0, 2.0),
    ("chi2", (4.0,), 1.0, 0.5),
    ("invgamma", (3.0,), 1.0, 2.0),
    ("weibull_max", (2.2,), 4.0, 2.0),
]


@pytest.mark.parametrize("case", FREE_LOC, ids=lambda c: c[0])
def test_free_loc_fits_start_from_the_profile_and_need_one_start(case):
    name, shapes, loc, scale = case
    dist = getattr(stats, name)
    x = draw(dist, shapes, loc, scale)
    ours = robustfit.fit(dist, x)
    runs = [a for a in ours.attempts if a.stage == "optimize"]
    assert ours.success
    if name == "lognorm":  # the profile's root is its closed form: no local run at all
        assert ours.start == "closed_form" and not runs
    else:
        assert runs[0].start == "loc_profile" and len(runs) == 1
    truth = nnlf(dist, (*shapes, loc, scale), x)
    ref = min(nnlf(dist, scipy_fit(dist, x), x),
              nelder_mead_reference(dist, x, [(*shapes, loc, scale), tuple(ours)]))
    assert ours.nll <= min(truth, ref) + 1e-7 * abs(ref)


@pytest.mark.parametrize("case", FREE_LOC[:3], ids=lambda c: c[0])
def test_profile_fits_are_equivariant(case):
    name, shapes, loc, scale = case
    dist = getattr(stats, name)
    x = draw(dist, shapes, loc, scale)
    a, b = 1e4, 1e6
    unit = robustfit.fit(dist, x)
    big = robustfit.fit(dist, a * x + b)
    expected = np.r_[np.asarray(unit)[:-2], a * unit[-2] + b, a * unit[-1]]
    np.testing.assert_allclose(big, expected, rtol=1e-6)


def test_symmetric_data_march_towards_the_normal_limit_cheaply():
    x = np.random.default_rng(0).normal(100.0, 15.0, 2000)
    z = np.sort((x - np.median(x)) / stats.iqr(x))
    start = loc_profile_start(CompleteNLL(stats.lognorm, z), {}, 1)
    assert start.towards_limit and not start.interior
    res = robustfit.fit(stats.lognorm, x)
    runs = [a for a in res.attempts if a.stage == "optimize"]
    assert runs[0].start == "loc_profile"
    assert sum(a.nfev for a in runs) < 1600  # one start's budget, not three
    norm_nll = stats.norm.nnlf(stats.norm.fit(x), x)
    assert res.nll <= norm_nll + 1.0


def test_an_ill_conditioned_optimum_is_confirmed_by_the_profile():
    # invgamma on nearly normal data: a ~ 1e4 and loc far below the data; BFGS in the
    # joint coordinates cannot improve on the profile's point, which is the maximum
    x = stats.norm.rvs(100.0, 15.0, size=5000, random_state=np.random.default_rng(12345))
    res = robustfit.fit(stats.invgamma, x)
    assert res.success and "profile likelihood" in res.message
    assert res.nll <= nnlf(stats.invgamma, scipy_fit(stats.invgamma, x), x)
    # no point nearby is better: a small Nelder-Mead from the estimate finds nothing
    assert res.nll <= nelder_mead_reference(stats.invgamma, x, [tuple(res)]) + 1e-6


@pytest.mark.parametrize("dist, fixed", [(stats.beta, {}), (stats.pareto, {}),
                                         (stats.gamma, {1: -3.0}), (stats.norm, {})])
def test_profile_does_not_apply(dist, fixed):
    z = np.sort(np.random.default_rng(1).uniform(-1.0, 1.0, 50))
    loc_index = dist.numargs
    assert loc_profile_start(CompleteNLL(dist, z), fixed, loc_index) is None
