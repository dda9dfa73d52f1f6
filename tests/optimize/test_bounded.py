"""robust_minimize with bounds: NIST's certified regressions with sign bounds, minima on
active bounds (Hock-Schittkowski), and a function never evaluated outside its box."""

import numpy as np
import pytest
from scipy.optimize import minimize

from benchmarks.minimize_models import regression_cases
from benchmarks.nist_problems import capped_bounds, nist_problems, sign_bounds
from robustfit import robust_minimize

NIST = nist_problems()
# measured 2026-11-23: Bennett5 from both starts ends 4e-2 and 2e-3 (relative) above
# its certified minimum, MGH10 from its second 8e-3 above, each with success=False
# (MGH10 was solved before line searches gave up at a promised decrease below 1e-15:
# on these two, the hardest of the set, the path decides)
# Lanczos2 (minimum 2e-11): out of reach without the residuals.
# Hahn1 (cubic/cubic rational) from its first start ends 7x above its minimum, with
# success=False (measured when it joined the catalogue)
NOT_SOLVED = {"Bennett5_start1", "Bennett5_start2", "MGH10_start2", "Lanczos2_start1",
              "Lanczos2_start2", "Hahn1_start1"}
# L-BFGS-B takes Lanczos1 (f* = 1.4e-25, f = 270 at the start) to ~3e-15, and the
# small-gradient test passes there: f below gtol**2 (1e-12) of the problem's unit counts
# as zero (robustfit.optimize.minimize._second_opinion). One Newton step from that pass
# took f from 6.7e-17 to 3e-20, and the line searches along the Hessian's eigenvectors
# after it go on to the certified minimum (test below)
ZERO_TO_THE_UNIT: set[str] = set()


def _sign_bounds(p):
    return list(zip(*sign_bounds(p), strict=True))


@pytest.mark.parametrize("p", NIST, ids=[p.name for p in NIST])
def test_nist_with_sign_bounds(p):
    # before the guarded BFGS ran first (L-BFGS-B, restarts and Powell): 27 solved, 15
    # certified, one false success (Lanczos3)
    bounds = _sign_bounds(p)
    res = robust_minimize(p.fun, p.x0, bounds=bounds, rng=0)
    lo, hi = np.array(bounds).T
    assert np.all(res.x >= lo) and np.all(res.x <= hi)
    assert res.fun == p.fun(res.x)
    if p.name not in NOT_SOLVED:
        assert p.solved(res.fun) and res.success, (res.fun, p.fstar, res.message)
    elif res.success and p.name in ZERO_TO_THE_UNIT:
        assert res.fun <= 1e-12
    elif res.success:
        assert p.solved(res.fun)


def _hs4(x):
    return (x[0] + 1) ** 3 / 3 + x[1]


ACTIVE = [  # (name, f, x0, bounds, f*, x*)
    ("hs4", _hs4, [1.125, 0.125], [(1, None), (0, None)], 8 / 3, [1.0, 0.0]),
    ("hs45", lambda x: 2 - np.prod(x) / 120, [2.0] * 5, [(0, i) for i in range(1, 6)],
     1.0, [1.0, 2.0, 3.0, 4.0, 5.0]),
    ("rosenbrock_box", lambda x: 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2,
     [-1.2, 1.0], [(-1.5, 0.5), (-1, 1)], 0.25, [0.5, 0.25]),
    ("quadratic_box", lambda x: float(np.sum((x - np.arange(5)) ** 2)), [0.5] * 5,
     [(0, 2)] * 5, 5.0, [0.0, 1.0, 2.0, 2.0, 2.0]),
]


@pytest.mark.parametrize(("name", "f", "x0", "bounds", "fstar", "xstar"), ACTIVE,
                         ids=[a[0] for a in ACTIVE])
def test_minima_on_active_bounds(name, f, x0, bounds, fstar, xstar):
    res = robust_minimize(f, x0, bounds=bounds, rng=0)
    assert res.success, res.message
    assert res.fun == pytest.approx(fstar, rel=1e-8, abs=1e-10)
    np.testing.assert_allclose(res.x, xstar, rtol=1e-5, atol=1e-6)


def test_function_is_never_called_outside_its_box():
    outside = []

    def f(x):
        if np.any(x <= 0) or np.any(x > 10):
            outside.append(x.copy())
        return float(np.sum(x - 2 * np.log(x)))

    res = robust_minimize(f, [5.0, 0.5, 9.0], bounds=[(1e-9, 10)] * 3, rng=0)
    assert not outside
    assert res.success and res.x == pytest.approx([2.0, 2.0, 2.0], rel=1e-6)


@pytest.mark.parametrize("name", ["Misra1a_start1", "Thurber_start2", "Kirby2_start2",
                                  "Chwirut2_start1"])
def test_nist_minimum_on_an_active_bound_is_certified(name):
    # the last parameter capped at 80% of its certified value: the constrained minimum
    # has it on the bound; the Newton-decrement test on the other variables certifies
    # it (the projected gradient alone cannot: a rate of 5e-4 measured in units of 1)
    from scipy.optimize import minimize

    p = {q.name: q for q in NIST}[name]
    cert = np.array(p.extra["certified"])
    lo, hi = capped_bounds(p)
    bounds = list(zip(lo, hi, strict=True))
    res = robust_minimize(p.fun, np.clip(p.x0, lo, hi), bounds=bounds, rng=0)
    ref = minimize(p.fun, np.clip(cert, lo, hi), method="L-BFGS-B", bounds=bounds,
                   options=dict(ftol=1e-15, gtol=1e-12, maxiter=20000, maxfun=100000))
    assert res.success and "Newton decrement" in res.message, res.message
    assert res.fun <= ref.fun * (1 + 1e-9)
    assert res.x[-1] == (hi[-1] if cert[-1] > 0 else lo[-1])


def test_variable_fixed_by_equal_bounds():
    # lb == ub holds a variable (scipy's convention); no finite difference can be taken
    # in it, and the run used to end uncertified after ~950 evaluations
    def f(x):
        return float((x[0] - 1) ** 2 + (x[1] - 2) ** 2 + x[0] * x[1])

    res = robust_minimize(f, [0.0, 3.0], bounds=[(None, None), (3.0, 3.0)], rng=0)
    assert res.success and res.x[1] == 3.0
    assert res.x[0] == pytest.approx(-0.5, abs=1e-7)


@pytest.mark.parametrize("name", ["Lanczos3_start1", "Bennett5_start1"])
def test_a_bound_is_judged_by_a_second_order_one_sided_slope(name):
    # bounds [c/2, 2c] around the certified values, from 2c: Lanczos3's first amplitude
    # ends on its upper bound with a true slope of +5e-7 (into the box); the first-order
    # one-sided difference there erred by h f''/2 ~ 1e-5 and flipped its sign, so the
    # bound "held" and the run was certified at 2.2 f* (Bennett5: 1.18 f*)
    p = next(q for q in NIST if q.name == name)
    c = np.array(p.extra["certified"])
    lo, hi = np.where(c > 0, c / 2, 2 * c), np.where(c > 0, 2 * c, c / 2)
    bounds = list(zip(lo, hi, strict=True))
    res = robust_minimize(p.fun, np.clip(2 * c, lo, hi), bounds=bounds, rng=0)
    if res.success:
        assert p.solved(res.fun), (res.fun / p.fstar, res.message)
    if name.startswith("Lanczos3"):
        assert res.success


@pytest.mark.parametrize("name", ["Lanczos1_start1", "Lanczos1_start2"])
def test_a_pass_at_a_negligible_f_is_polished_to_the_minimum(name):
    # without the polish both runs stopped at 6.5e-17 to 6.7e-17 (parameters right to 6
    # digits); one Newton step, from a Hessian measured along its eigenvectors, took f
    # to 3e-20 to 4e-20, and line searches on values of f along that Hessian's
    # eigenvectors (robustfit.optimize.eigen_sweeps) take it to the certified minimum
    # (1.428e-25 measured, below NIST's 1.4308e-25 by rounding)
    p = next(q for q in NIST if q.name == name)
    res = robust_minimize(p.fun, p.x0, bounds=_sign_bounds(p), rng=0)
    polished = [e for e in res.events if e["kind"] == "newton_polish"]
    assert polished and polished[0]["f_best"] < 1e-2 * polished[0]["f"]
    assert res.fun == p.fun(res.x) and p.solved(res.fun), (res.fun, p.fstar)
    assert res.success
    # the model is a sum of three (amplitude, rate) terms: compare them sorted by rate
    pairs = res.x.reshape(3, 2)
    certified = np.array(p.extra["certified"]).reshape(3, 2)
    assert np.allclose(pairs[np.argsort(pairs[:, 1])], certified, rtol=1e-8)


def test_a_minimum_at_zero_inside_a_wide_box_is_certified():
    # -exp(-|x|**2) in [-10, 10]**3 from (3, -4, 6): the run reaches x ~ 1e-9, where
    # variables that shrank below a tenth of their typical size got Hessian steps of
    # their own size (1e-13), f was the same at every stencil point, and the Newton
    # check failed on a Hessian of zeros at the minimum, through every later stage
    # (success=False after 2,100 evaluations); without bounds it passed in 279
    fun = lambda x: float(-np.exp(-np.sum(np.asarray(x) ** 2)))  # noqa: E731
    res = robust_minimize(fun, np.array([3.0, -4.0, 6.0]), bounds=[(-10, 10)] * 3, rng=0)
    assert res.success, res.message
    assert res.fun == pytest.approx(-1.0, abs=1e-15)
    np.testing.assert_allclose(res.x, 0.0, atol=1e-6)
    assert res.nfev < 1000


def test_a_kink_well_inside_the_box_gets_the_non_smooth_certificate():
    # sum(|x|) + prod(|x|) in [-10, 10]**4 (Schwefel 2.22), minimum 0 at the kink: the
    # bounded runs never tried the gradient-sampling certificate and ended uncertified
    # at 1e-21 to 1e-41 from 4 of 6 random starts (benchmarks/minimize_random_starts.py);
    # where the sampled gradients keep clear of the bounds it applies as without them
    fun = lambda x: float(np.sum(np.abs(x)) + np.prod(np.abs(x)))  # noqa: E731
    rng = np.random.default_rng(5)
    for _ in range(3):
        x0 = rng.uniform(-10, 10, 4)
        res = robust_minimize(fun, x0, bounds=[(-10, 10)] * 4, rng=0, maxfev=20000)
        assert res.success, res.message
        # (within the sampled ball, 1e-7 per variable, of the kink: 1.2e-8 from one
        # start since the Newton check skips Hessians of rounding errors, 1e-12 steps
        # across |x| ~ 1e-8, where a Newton point of one had led on to 1e-22)
        assert res.fun == fun(res.x) <= 4e-7
    # a kink on a bound is not certified by it: the minimum of |x - 20| in [-10, 10]
    # is the bound 10, where the projected gradient test decides
    res = robust_minimize(lambda x: float(abs(x[0] - 20.0)), np.array([0.0]),
                          bounds=[(-10, 10)], rng=0)
    assert res.x[0] == pytest.approx(10.0) and res.success


@pytest.mark.parametrize("analytic", [False, True])
def test_overshoots_from_deep_inside_the_box_are_not_pressing_on_it(analytic):
    # a logistic regression with features scaled 1e-3 .. 1e3 in a box of +-1e3 (its
    # minimum at |x| <= 93, inside): the first BFGS steps overshot the box 10 times and
    # the run handed over to L-BFGS-B, which crawled (ill-conditioned 1e10) through the
    # whole budget and stopped 49 above the minimum, or took 49,883 evaluations with
    # the gradient
    name, f, gradient, hessian, x0 = regression_cases()[0]
    ref = minimize(f, x0, jac=gradient, hess=hessian, method="trust-exact",
                   options={"gtol": 1e-12})
    assert np.max(np.abs(ref.x)) < 100
    res = robust_minimize(f, x0, jac=gradient if analytic else None,
                          bounds=[(-1e3, 1e3)] * x0.size, rng=0)
    assert res.success, res.message
    assert res.fun <= ref.fun * (1 + 1e-12)
    assert res.nfev < (2_000 if analytic else 30_000)


def test_a_small_variable_on_an_active_bound_keeps_its_projected_slope():
    # 25 variables (no Newton check at the first tests), the last started at 0 (its
    # typical size 1) and held at 5e-4 by its upper bound, its partial -1000 pointing
    # out of the box: re-taken with steps of its own size, that partial was no longer
    # projected, and the run ended success=False at the minimum after 6,313 evaluations
    n = 25
    centre = np.linspace(1.0, 2.0, n)
    centre[-1] = 1e-3
    weight = np.ones(n)
    weight[-1] = 1e6

    def f(x):
        return float(np.sum(weight * (x - centre) ** 2))

    x0 = np.ones(n)
    x0[-1] = 0.0
    bounds = [(None, None)] * (n - 1) + [(None, 5e-4)]
    res = robust_minimize(f, x0, bounds=bounds, rng=0)
    assert res.success, res.message
    assert res.x[-1] == 5e-4
    assert res.fun == pytest.approx(0.25, rel=1e-12)
    assert res.nfev < 2_000


def test_an_analytic_gradient_has_no_slope_in_a_fixed_variable():
    # the logistic regression of 30 scaled features with its last coefficient fixed
    # by equal bounds: the analytic partial in it coupled it into BFGS's model, whose
    # steps then left the box (37,283 evaluations; with finite differences, 6,629)
    name, f, gradient, hessian, x0 = regression_cases()[0]
    fixed = 3e-4
    free = slice(0, x0.size - 1)

    def embed(b):
        return np.append(b, fixed)

    ref = minimize(lambda b: f(embed(b)), x0[free], method="trust-exact",
                   jac=lambda b: gradient(embed(b))[free],
                   hess=lambda b: hessian(embed(b))[free, free], options={"gtol": 1e-12})
    bounds = [(-1e3, 1e3)] * (x0.size - 1) + [(fixed, fixed)]
    res = robust_minimize(f, x0, jac=gradient, bounds=bounds, rng=0)
    assert res.success, res.message
    assert res.x[-1] == fixed
    assert res.fun <= ref.fun * (1 + 1e-12)
    assert res.nfev < 2_000
