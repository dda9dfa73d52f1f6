"""Integer-valued shapes (irwinhall's n): the search over integers finds what a walk one
integer at a time finds on a profile with one maximum, with far fewer re-fits."""

import numpy as np
import pytest

from robustfit.fitting.fit import INTEGER_STEPS, _integer_search


def _search(profile, origin, step):
    calls = []

    def refit(v, start):
        calls.append(v)
        theta = np.array(start, dtype=float)
        theta[0] = v
        return profile(v), theta

    tried = {}
    cand = np.array([origin, 0.0, 1.0])
    val, theta = _integer_search(refit, tried, cand, profile(origin), 0, step)
    return val, theta[0], calls


@pytest.mark.parametrize("optimum", [12, 13, 14, 19, 26, 37, 42, 60, 74])
def test_finds_the_best_integer_upwards(optimum):
    def profile(v):
        return (v - optimum) ** 2 + 0.1 * abs(v - optimum)

    val, v, calls = _search(profile, 11.0, 1.0)
    assert v == optimum and val == 0.0
    assert len(calls) <= 2 * np.log2(INTEGER_STEPS) + 4  # a walk takes optimum - 10
    assert len(set(calls)) == len(calls)  # nothing re-fitted twice


def test_a_profile_rising_to_a_limit_stops_at_the_reach():
    val, v, calls = _search(lambda v: 1.0 / v, 11.0, 1.0)
    assert v == 11.0 + INTEGER_STEPS
    assert len(calls) == int(np.log2(INTEGER_STEPS)) + 2  # the doublings, and reach - 1


def test_no_better_neighbour_leaves_the_start():
    val, v, calls = _search(lambda v: abs(v - 11.0), 11.0, 1.0)
    assert v == 11.0 and calls == [12.0]
    val, v, calls = _search(lambda v: abs(v - 11.0), 11.0, -1.0)
    assert v == 11.0 and calls == [10.0]


def test_downwards_and_invalid_values():
    # below 1 the shape is invalid: the refit reports inf, the search stays inside
    def profile(v):
        return np.inf if v < 1 else (v - 3) ** 2

    val, v, _ = _search(profile, 40.0, -1.0)
    assert v == 3.0


def test_the_message_says_the_shape_is_held_at_an_integer():
    # scipy's erlang.fit returns a non-integer shape (with a warning); robustfit keeps
    # a an integer, and says so
    from scipy import stats

    import robustfit
    from benchmarks.fit_cases import sample

    res = robustfit.fit(stats.erlang, sample(stats.erlang, (10,), 300, seed=2026))
    assert res.success and res[0] == 10.0
    assert "a held at the integer 10 (an integer for erlang)" in res.message
    assert "held at the integer" not in robustfit.fit(stats.gamma, [1.0, 2.0, 4.0]).message
