"""scipy.optimize.minimize's ways of saying things that robust_minimize takes too:
``tol=``, the ``intermediate_result`` callback, ``options["disp"]``; and scipy's options
that mean something else here, refused with the way to say them."""

import numpy as np
import pytest
from scipy import optimize

import robustfit
from robustfit import robust_minimize

X0 = np.array([-1.2, 1.0])


def test_tol_is_gtol():
    # (rng fixed: at this tolerance a randomised check's outcome decides between two
    # certified end points, 1e-8 apart; with rng=None the two runs differed now and then)
    by_tol = robust_minimize(optimize.rosen, X0, tol=1e-10, rng=0)
    by_option = robust_minimize(optimize.rosen, X0, options={"gtol": 1e-10}, rng=0)
    assert by_tol.success
    np.testing.assert_array_equal(by_tol.x, by_option.x)
    assert by_tol.nfev == by_option.nfev
    with pytest.raises(robustfit.RobustFitError, match="keep one"):
        robust_minimize(optimize.rosen, X0, tol=1e-8, options={"gtol": 1e-9})
    with pytest.raises(robustfit.InvalidInputError, match="options must be a dict"):
        robust_minimize(optimize.rosen, X0, tol=1e-8, options=3)


def test_intermediate_result_callback_gets_x_and_fun():
    seen = []

    def callback(intermediate_result):
        seen.append((np.array(intermediate_result.x), intermediate_result.fun))

    res = robust_minimize(optimize.rosen, X0, callback=callback)
    assert res.success and seen
    for x, fun in seen:
        assert fun == optimize.rosen(x)
    assert seen[-1][1] >= res.fun


def test_classic_callback_gets_x():
    seen = []
    robust_minimize(optimize.rosen, X0, callback=lambda xk: seen.append(xk))
    assert seen and all(isinstance(x, np.ndarray) and x.shape == (2,) for x in seen)


def test_stop_iteration_from_an_intermediate_result_callback_stops():
    def stop_below_one(intermediate_result):
        if intermediate_result.fun < 1.0:
            raise StopIteration

    res = robust_minimize(optimize.rosen, X0, callback=stop_below_one)
    assert res.status == 5 and not res.success
    assert res.fun < 1.0 and res.fun == optimize.rosen(res.x)


def test_disp_prints_the_final_message(capsys):
    res = robust_minimize(optimize.rosen, X0, options={"disp": True})
    out = capsys.readouterr().out
    assert res.message in out and f"Function evaluations: {res.nfev}" in out
    robust_minimize(optimize.rosen, X0)
    assert capsys.readouterr().out == ""


@pytest.mark.parametrize("options, match", [
    ({"maxfev": 50, "maxfun": 60}, "different evaluation budgets"),
    ({"maxiter": 0}, "options\\['maxiter'\\]=0 must be a positive"),
    ({"maxiter": 2.5}, "must be a positive finite integer"),
    ({"disp": 1}, "must be True or False"),
    ({"gtoll": 1e-6}, "unknown key"),
    ([("gtol", 1e-6)], None),
    (3, "options must be a dict"),
])
def test_options_that_cannot_be_honoured_are_refused_with_the_way_to_say_them(options,
                                                                              match):
    if match is None:  # a sequence of pairs is a dict's input: accepted
        assert robust_minimize(optimize.rosen, X0, options=options).success
        return
    with pytest.raises(robustfit.InvalidInputError, match=match):
        robust_minimize(optimize.rosen, X0, options=options)


def test_a_budget_in_options_and_a_different_maxfev_argument_are_refused():
    with pytest.raises(robustfit.InvalidInputError, match="differ"):
        robust_minimize(optimize.rosen, X0, maxfev=40, options={"maxfev": 50})


@pytest.mark.parametrize("key", ["maxfev", "maxfun"])
def test_scipy_budget_options_are_the_maxfev_argument(key):
    # code written for scipy's minimize(..., options={"maxfev": ...}) runs, and the
    # budget is as hard as the argument's
    res = robust_minimize(optimize.rosen, X0, options={key: 50})
    assert res.nfev == 50 and res.status == 1 and not res.success
    assert res.fun == optimize.rosen(res.x)


@pytest.mark.parametrize("method", ["auto", "nelder-mead", "powell", "l-bfgs-b"])
def test_scipy_maxiter_is_a_hard_limit_on_the_runs_iterations(method):
    res = robust_minimize(optimize.rosen, X0, method=method, options={"maxiter": 5})
    assert res.status == 8 and not res.success and "maxiter" in res.message
    assert res.nit == 5
    assert res.fun == optimize.rosen(res.x) and res.fun < optimize.rosen(X0)
    # a generous limit does not change the run
    plain = robust_minimize(optimize.rosen, X0, method=method, rng=0)
    roomy = robust_minimize(optimize.rosen, X0, method=method, rng=0,
                            options={"maxiter": 100_000})
    assert roomy.success == plain.success and roomy.nfev == plain.nfev


def test_maxiter_counts_the_gradient_sampling_iterations_too():
    # Lewis and Overton's non-smooth Rosenbrock function ends in the gradient-sampling
    # stage; its iterations are the run's iterations as much as BFGS's, so a limit just
    # below the whole run's count stops it there
    def nonsmooth_rosenbrock(x):
        return 8.0 * abs(x[0] ** 2 - x[1]) + (1 - x[0]) ** 2

    free = robust_minimize(nonsmooth_rosenbrock, X0, rng=0)
    assert free.success
    assert any(e["stage"] == "gradient sampling" for e in free.events)
    capped = robust_minimize(nonsmooth_rosenbrock, X0, rng=0,
                             options={"maxiter": free.nit - 1})
    assert capped.status == 8 and capped.nit == free.nit - 1
    stopped = [e for e in capped.events if e["kind"] == "stopped"]
    assert stopped and stopped[-1]["stage"] == "gradient sampling"


def test_scipy_options_without_a_counterpart_are_ignored_with_a_warning():
    plain = robust_minimize(optimize.rosen, X0, rng=0)
    with pytest.warns(optimize.OptimizeWarning, match=r"\['eps', 'ftol'\]"):
        res = robust_minimize(optimize.rosen, X0, rng=0,
                              options={"ftol": 1e-3, "eps": 1e-8, "gtol": 1e-6})
    assert res.success and res.nfev == plain.nfev


@pytest.mark.parametrize("scheme", ["2-point", "3-point", "cs"])
def test_scipy_finite_difference_schemes_are_finite_differences(scheme):
    # a drop-in for minimize(..., jac="cs") must not raise; the run is the jac=None one
    res = robust_minimize(optimize.rosen, X0, jac=scheme, rng=0)
    plain = robust_minimize(optimize.rosen, X0, rng=0)
    assert res.success and res.nfev == plain.nfev
    np.testing.assert_array_equal(res.x, plain.x)


def test_an_unknown_jac_string_is_refused_with_the_choices():
    with pytest.raises(robustfit.InvalidInputError, match="'cs' are taken"):
        robust_minimize(optimize.rosen, X0, jac="4-point")


def test_jac_true_counts_each_call_as_a_gradient_evaluation():
    # fun returns (f, g): every call is a gradient evaluation too, as scipy counts it
    # (njev was 0); with a separate jac, njev counts jac's calls
    calls = []

    def fun_and_grad(x):
        calls.append(1)
        return optimize.rosen(x), optimize.rosen_der(x)

    res = robust_minimize(fun_and_grad, X0, jac=True, rng=0)
    assert res.success and res.njev == res.nfev == len(calls)
    jac_calls = []

    def jac(x):
        jac_calls.append(1)
        return optimize.rosen_der(x)

    res = robust_minimize(optimize.rosen, X0, jac=jac, rng=0)
    assert res.success and res.njev == len(jac_calls) > 0
