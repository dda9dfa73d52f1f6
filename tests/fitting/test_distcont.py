"""robustfit.fit on every distribution of scipy's distcont, at three magnitudes.

The catalogue is :mod:`benchmarks.fit_cases` (shared with ``benchmarks/fit.py``): the
standard sample ``z`` of each case is drawn as scipy's ``test_cont_fit`` draws it and
mapped to ``b + a*z`` for each ``(b, a)`` in ``MAGNITUDES``. Two independent checks:

* the fit is a maximum: NLL at the returned parameters is at most the NLL at the true
  parameters ``(shapes, b, a)`` (scipy's ``logpdf`` is the oracle), up to 1e-6 relative;
* the fit is equivariant: the result at ``(b, a)`` equals the unit-scale result mapped
  to ``(shapes, a*loc + b, a*scale)``, to 1e-6 relative.

The default run covers a representative subset (every start strategy: closed forms,
moments, quantiles, scipy's ``_fitstart``; bounded, semi-bounded and shape-dependent
supports; heavy tails). ``-m slow`` runs the whole catalogue at n=1000, each case
capped in time.
"""

from __future__ import annotations

import functools
import signal
from contextlib import contextmanager

import numpy as np
import pytest

import robustfit
from benchmarks.fit_cases import MAGNITUDES, cases, sample, true_nll

NLL_RTOL = 1e-6  # slack on "NLL <= truth's": relative to |NLL|, plus NLL_ATOL
NLL_ATOL = 1e-6
EQUIV_RTOL = 1e-6
CASE_CAP_S = 240  # wall-clock cap on the three fits of one case in the slow run

# one or more per start strategy / kind of support; each fits in well under a second
REPRESENTATIVE = (
    "norm", "cauchy", "maxwell", "gamma", "lognorm", "weibull_min", "weibull_max", "t",
    "lomax", "genpareto", "burr12", "invgamma", "beta", "genextreme", "johnsonsu",
    "pareto", "invgauss", "uniform", "triang", "powerlaw", "skewnorm", "truncnorm",
    "halfcauchy", "nakagami",
)

# pdfs by series or quadrature: too slow for the default run, kept in the slow one
SLOW_PDF = {"gausshyper", "kappa4", "kappa4#1", "kappa4#2", "kappa4#3", "irwinhall"}

# measured failures of the full catalogue (n=1000; 46 of 113 failed when the list was
# made, 10 on 2026-11-23, when the 35 cases that had come to pass were taken off it;
# laplace_asymmetric left it with its closed form and chi joined it, the same day;
# kappa4 left and kappa4#3 joined it on 2026-11-23, fifth session, and kappa4#3 left
# it on 2026-11-24 with an accurate kappa4 density and free starts at h = 0 or k = 0,
# as did chi with the Newton step below rounding taken; chi2 passed by then too;
# trapezoid left it with its knots held on observations);
# strict=False: errors near the tolerances may move with platform and BLAS. The numbers
# are those first measured: the largest relative error over shapes / loc / scale.
SLOW_XFAIL: dict[str, str] = {
    "gausshyper": "equivariance error (1e6,1e4) 4.71e-06, (-1e-3,1e-6) 0.00733",
    "gengamma#1": "equivariance error (1e6,1e4) 0.0329, (-1e-3,1e-6) 0.00875",
    "beta": ("AVX-512 (SkylakeX) kernels only: b = 0.63 < 1 makes the likelihood "
             "unbounded at the upper edge, held at a gap of 2e-11 of the scale, which "
             "float64 represents only to 0.4% at (-1e-3, 1e-6): the magnitudes end "
             "1.2e-5 and 1.4e-5 apart, success=False at all three (passes with Haswell "
             "kernels)"),
    "ncf": "equivariance error (1e6,1e4) 0.748, (-1e-3,1e-6) 7.19e+05",
    "ncx2": "equivariance error (1e6,1e4) 8.42e-05, (-1e-3,1e-6) 6.01e-05",
    "pearson3#1": ("skew -2 is a gamma of shape 1 whose edge moves with the skew, a "
                   "non-regular likelihood: equivariance error (1e6,1e4) 6.06e-06, "
                   "(-1e-3,1e-6) 0.000151"),
    "truncpareto#2": "equivariance error (1e6,1e4) 0.00211, (-1e-3,1e-6) 3",
}

# measured on the default run (n=500): the optimiser stops within ~1e-5 of the optimum,
# and where the likelihood is flat the three magnitudes' stops differ by more than 1e-6
# (their standardised samples differ only by rounding, ~1e-14)
# beta(2.3, 0.63): with b < 1 the likelihood is unbounded as loc + scale -> max(x); the
# fit returns the interior local maximum, reached by Nelder-Mead after BFGS loses
# precision, so the magnitudes agree only to ~4e-5 and success is not always certified
EQUIV_XFAIL: dict[str, str] = {
    "beta": "interior local maximum of an unbounded likelihood, settled by Nelder-Mead: "
            "magnitudes agree to ~4e-5",
}
SUCCESS_XFAIL: dict[str, str] = {
    "beta": "b < 1: the likelihood is unbounded at the upper edge; at two magnitudes the "
            "fit ends on that edge and says so with success=False",
}


def with_xfails(labels, xfails: dict, strict: bool, extra_marks=()):
    for label in labels:
        marks = list(extra_marks)
        if label in xfails:
            marks.append(pytest.mark.xfail(strict=strict, reason=xfails[label]))
        yield pytest.param(label, marks=marks, id=label)


CATALOGUE = {label: (dist, shapes) for label, dist, shapes in cases()}


class CaseTimeout(BaseException):
    """Not an ``Exception``: the fit's guarded objective must not swallow it."""


@contextmanager
def time_cap(seconds: float):
    """Raise :class:`CaseTimeout` in the main thread after ``seconds`` (POSIX only)."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def on_alarm(signum, frame):
        raise CaseTimeout(f"three fits took more than {seconds} s")

    previous = signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@functools.cache
def fit_at(label: str, n: int, k: int):
    """(result, true NLL) of case ``label`` drawn at ``MAGNITUDES[k]``."""
    dist, shapes = CATALOGUE[label]
    b, a = MAGNITUDES[k]
    x = b + a * sample(dist, shapes, n)
    return robustfit.fit(dist, x), true_nll(dist, shapes, b, a, x)


def nll_problem(label: str, n: int, k: int) -> str | None:
    dist, shapes = CATALOGUE[label]
    res, ref = fit_at(label, n, k)
    b, a = MAGNITUDES[k]
    x = b + a * sample(dist, shapes, n)
    # the oracle is scipy's logpdf at the returned parameters, not the fit's own nll
    got = true_nll(dist, tuple(res[:-2]), res[-2], res[-1], x)
    if np.isfinite(got) and got <= ref + NLL_RTOL * abs(ref) + NLL_ATOL:
        return None
    return f"(b, a)={MAGNITUDES[k]}: NLL {got:.10g} > truth's {ref:.10g} (gap {got - ref:.3g})"


def equivariance_problems(label: str, n: int) -> list[str]:
    base = np.array(fit_at(label, n, 0)[0])
    n_shapes = base.size - 2
    loc0, scale0 = base[-2], base[-1]
    out = []
    for k in range(1, len(MAGNITUDES)):
        b, a = MAGNITUDES[k]
        got = np.array(fit_at(label, n, k)[0])
        err_shapes = np.abs(got[:n_shapes] - base[:n_shapes]) / np.maximum(
            np.abs(base[:n_shapes]), 1.0)
        # loc relative to the scale of the map (and to the loc's own size at unit scale)
        err_loc = abs(got[-2] - (a * loc0 + b)) / (a * max(1.0, abs(loc0), scale0))
        err_scale = abs(got[-1] - a * scale0) / (a * scale0)
        err = max([*err_shapes, err_loc, err_scale])
        if not err <= EQUIV_RTOL:
            out.append(f"(b, a)={MAGNITUDES[k]}: relative error {err:.3g} "
                       f"(shapes {np.round(err_shapes, 12).tolist()}, loc {err_loc:.3g}, "
                       f"scale {err_scale:.3g}); got {got.tolist()} vs unit {base.tolist()}")
    return out


@pytest.mark.parametrize("k", range(len(MAGNITUDES)), ids=[f"b{b:g}_a{a:g}"
                                                         for b, a in MAGNITUDES])
@pytest.mark.parametrize("label", REPRESENTATIVE)
def test_nll_at_most_truths(label, k):
    assert nll_problem(label, 500, k) is None, nll_problem(label, 500, k)


@pytest.mark.parametrize("label", list(with_xfails(REPRESENTATIVE, EQUIV_XFAIL, True)))
def test_equivariant_across_magnitudes(label):
    problems = equivariance_problems(label, 500)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("label", REPRESENTATIVE)
def test_params_finite_and_nll_consistent(label):
    for k in range(len(MAGNITUDES)):
        res, _ = fit_at(label, 500, k)
        assert np.all(np.isfinite(res)), (MAGNITUDES[k], tuple(res))
        assert len(res) == len(res.params) == CATALOGUE[label][0].numargs + 2
        dist, shapes = CATALOGUE[label]
        b, a = MAGNITUDES[k]
        x = b + a * sample(dist, shapes, 500)
        np.testing.assert_allclose(res.nll, -dist.logpdf(x, *res).sum(), rtol=1e-12)


@pytest.mark.parametrize("label", list(with_xfails(REPRESENTATIVE, SUCCESS_XFAIL, True)))
def test_reports_success(label):
    # every representative case reaches NLL <= truth's: the convergence test should agree
    failed = [MAGNITUDES[k] for k in range(len(MAGNITUDES))
              if not fit_at(label, 500, k)[0].success]
    assert not failed, [(m, fit_at(label, 500, k)[0].message) for k, m in
                        enumerate(MAGNITUDES) if m in failed]


@pytest.mark.parametrize("label", list(with_xfails(CATALOGUE, SLOW_XFAIL, False,
                                                   [pytest.mark.slow])))
def test_whole_catalogue(label):
    n = 1000
    try:
        with time_cap(CASE_CAP_S):
            problems = [p for k in range(len(MAGNITUDES))
                        if (p := nll_problem(label, n, k)) is not None]
            problems += equivariance_problems(label, n)
    except CaseTimeout as exc:
        pytest.fail(f"{label}: {exc}")
    assert not problems, "\n".join(problems)


def test_catalogue_covers_distcont():
    from scipy.stats._distr_params import distcont

    from benchmarks.fit_cases import VERY_SLOW

    names = {name for name, _ in distcont} - VERY_SLOW
    assert {label.split("#")[0] for label in CATALOGUE} == names
    assert set(REPRESENTATIVE) <= set(CATALOGUE)
    assert SLOW_PDF <= set(CATALOGUE) and not SLOW_PDF & set(REPRESENTATIVE)


# magnitudes where float64 itself is coarse: at 5e7 an ulp is 2.5e-6 of the scale 3e-3,
# so how close a support's edge may come to the data is set by rounding; at 3e-9 the
# scale (1e-12) is 3000 times smaller than the location
COARSE_MAGNITUDES = ((5e7, 3e-3), (3e-9, 1e-12))


@pytest.mark.parametrize("b, a", COARSE_MAGNITUDES, ids=["b5e7_a3e-3", "b3e-9_a1e-12"])
@pytest.mark.parametrize("label", ["beta", "fatiguelife", "powerlaw#1", "loguniform",
                                   "tukeylambda", "uniform", "gamma"])
def test_nll_at_most_truths_where_float64_is_coarse(label, b, a):
    dist, shapes = CATALOGUE[label]
    x = b + a * sample(dist, shapes, 1000)
    res = robustfit.fit(dist, x)
    got = true_nll(dist, tuple(res[:-2]), res[-2], res[-1], x)
    ref = true_nll(dist, shapes, b, a, x)
    assert np.isfinite(got) and np.isfinite(res.nll), res.message
    assert got <= ref + NLL_RTOL * abs(ref) + NLL_ATOL, (got, ref, res.message)
