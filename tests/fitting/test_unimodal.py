"""One start for likelihoods with a single maximum (log-concave location-scale)."""

import numpy as np
import pytest
from scipy import optimize, stats

import robustfit
from robustfit.fitting.spec import parse_fit_arguments
from robustfit.fitting.unimodal import single_maximum


@pytest.mark.parametrize("name", ["norm", "logistic", "gumbel_r", "laplace", "maxwell",
                                  "rayleigh", "moyal", "hypsecant", "semicircular"])
def test_log_concave_families_without_shapes(name):
    assert single_maximum(parse_fit_arguments(getattr(stats, name), (), {}), {})


@pytest.mark.parametrize("name", ["cauchy", "arcsine", "levy", "wald", "halfcauchy"])
def test_not_log_concave(name):
    assert not single_maximum(parse_fit_arguments(getattr(stats, name), (), {}), {})


def test_free_shapes_or_moments_are_never_single():
    # gamma with a = 2 is log-concave, but a free shape voids the theorem
    assert not single_maximum(parse_fit_arguments(stats.gamma, (), {}), {})
    assert single_maximum(parse_fit_arguments(stats.gamma, (), {"f0": 2.0}), {0: 2.0})
    assert not single_maximum(parse_fit_arguments(stats.gamma, (), {"f0": 0.5}), {0: 0.5})
    assert not single_maximum(parse_fit_arguments(stats.logistic, (), {"method": "MM"}),
                              {})


def test_one_start_reaches_the_global_maximum():
    # (logistic and maxwell, the first examples here, are now exact MLEs without a
    # start: test_log_concave.py, test_closed_forms.py); semicircular goes through the
    # optimiser
    x = stats.semicircular.rvs(loc=3.0, scale=2.0, size=400, random_state=3)
    res = robustfit.fit(stats.semicircular, x)
    assert res.success
    assert [a.stage for a in res.attempts].count("optimize") == 1

    # independent reference: Nelder-Mead on scipy's own nnlf from a spread of starts
    def nll(p):
        value = stats.semicircular.nnlf((p[0], np.exp(p[1])), x)
        return value if np.isfinite(value) else 1e300  # loc beyond an observation

    ref = min((optimize.minimize(nll, [m, np.log(s)], method="Nelder-Mead",
                                 options=dict(xatol=1e-10, fatol=1e-12, maxiter=4000))
               for m in (-5.0, 3.0, 10.0) for s in (0.5, 5.0)), key=lambda r: r.fun)
    assert res.nll <= ref.fun + 1e-7
    np.testing.assert_allclose(res, (ref.x[0], np.exp(ref.x[1])), rtol=1e-5)
