"""Variables whose start gave them a size wrong by decades (see robustfit.optimize.scale_probe)."""

import numpy as np
import pytest
from scipy.optimize import least_squares

from robustfit import robust_minimize
from robustfit.optimize.scale_probe import DECADES, lower_decades_away

T = np.linspace(0.1, 10, 40)


def _fit(curve, truth, magnitude, x0, seed):
    rng = np.random.default_rng(seed)
    y = magnitude * curve(np.array(truth), T) * (1 + 0.02 * rng.standard_normal(T.size))

    def residuals(p):
        with np.errstate(all="ignore"):
            return y - curve(p, T)

    with np.errstate(all="ignore"):
        res = robust_minimize(lambda p: float(np.sum(residuals(p) ** 2)), x0, rng=0,
                              maxfev=20000)
    ref = least_squares(residuals, res.x, x_scale="jac", xtol=1e-15, ftol=1e-15,
                        gtol=1e-15, max_nfev=5000)
    return res, float(np.sum(ref.fun ** 2)), float(np.sum(y ** 2))


def _sine(p, t):
    return p[0] * np.sin(p[1] * t + p[2]) + p[3]


def _three_decays(p, t):
    return (p[0] * np.exp(-p[1] * t) + p[2] * np.exp(-p[3] * t)
            + p[4] * np.exp(-p[5] * t))


@pytest.mark.parametrize("curve, truth, seed", [
    (_sine, [2.0, 1.3, 0.4, 1.0], 1),
    (_sine, [2.0, 1.3, 0.4, 1.0], 5),
    (_three_decays, [3.0, 2.0, 2.0, 0.5, 1.0, 0.05], 1),
    (_three_decays, [3.0, 2.0, 2.0, 0.5, 1.0, 0.05], 4),
])
def test_a_curve_started_at_ones_on_data_of_1e8_is_not_certified_short_of_a_minimum(
        curve, truth, seed):
    # curve_fit's default start: f is the sum of the squared data (1e18), a unit move
    # of any parameter changes it by 1e-9 of itself, and the gradient test passed
    # near the start (a restart's pass after 2 iterations; the sine's amplitude at
    # 24, its minimum at 2e8), or the Newton test did, on a Hessian that was rounding
    # (the three decays). Of 16 such fits (seeds 0-7), 10 were false successes
    res, f_ref, f_data = _fit(curve, truth, 1e8, np.ones(len(truth)), seed)
    assert not res.success or res.fun <= f_ref * (1 + 1e-6), (res.fun, f_ref, res.message)
    assert res.fun < 0.7 * f_data


def test_the_probe_stops_where_f_rises_both_ways():
    calls = []

    def bowl(z):
        calls.append(z.copy())
        return float(np.sum((z - 1) ** 2)) + 5.0

    z = np.ones(3)
    assert lower_decades_away(bowl, z, bowl(z), np.ones(3), range(3), 1e-3) is None
    assert len(calls) == 1 + 2 * 3  # one decade per variable: both moves raise f


def test_the_probe_goes_on_while_f_is_unresolved_or_falling():
    data = np.array([3.0, 2.0, 1.0])

    def far(z):  # minimum at z = 1e6: unresolved, then falling, for decades
        return float(np.sum((1e6 * data - z[0] * data) ** 2)) + 1e15

    assert lower_decades_away(far, np.zeros(1), far(np.zeros(1)), np.ones(1), [0],
                              1e-3) == 0
    # an f that never resolves the variable: all decades, two moves each, nothing lower
    calls = []

    def flat(z):
        calls.append(1)
        return 1.0

    assert lower_decades_away(flat, np.zeros(2), 1.0, np.ones(2), [1], 1e-3) is None
    assert len(calls) == 2 * DECADES


def test_bad_points_neither_count_as_lower_nor_end_the_probe():
    # NaN to the right of 0 at every decade; to the left f is unresolved up to a move
    # of 1e5 and 1% lower at 1e8
    def nan_right(z):
        return float("nan") if z[0] > 0 else 1e12 - (1e-3 * z[0]) ** 2

    assert lower_decades_away(nan_right, np.zeros(1), 1e12, np.ones(1), [0], 1e-3) == 0
    assert lower_decades_away(lambda z: float("nan"), np.zeros(1), 1.0, np.ones(1), [0],
                              1e-3) is None


def test_the_probe_event_reports_values_in_the_users_units():
    res, _, _ = _fit(_three_decays, [3.0, 2.0, 2.0, 0.5, 1.0, 0.05], 1e8, np.ones(6), 1)
    probes = [e for e in res.events if e["kind"] == "scale_probe"]
    assert probes
    assert all(e["f_best"] < e["f"] and e["f"] > 1e17 for e in probes)
