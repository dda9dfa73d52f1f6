"""Properties that hold for every objective, hostile ones included."""

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from robustfit import robust_minimize


def _objective(kind, centre, scale):
    c = np.asarray(centre)

    def f(x):
        d = (np.asarray(x) - c) * scale
        if kind == "quadratic":
            return float(d @ d)
        if kind == "abs":
            return float(np.abs(d).sum())
        if kind == "nan_domain":
            return float(np.sum(np.log(np.abs(d) + 1e-3) ** 2)) if d[0] > -1 else np.nan
        if kind == "raises":
            if d[0] > 2:
                raise ArithmeticError("outside")
            return float(d @ d + np.cos(3 * d).sum())
        return float(np.floor(10 * (d @ d)) / 10)  # "steps"
    return f


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["quadratic", "abs", "nan_domain", "raises", "steps"]),
       centre=st.lists(st.floats(-5, 5), min_size=2, max_size=3),
       scale=st.floats(1e-2, 1e2),
       start=st.floats(-10, 10))
# a subnormal start: the step of the shrunken-variable check underflowed to 0 (0/0)
@example(kind="quadratic", centre=[0.0, 0.0], scale=1.0, start=5e-324)
def test_invariants(kind, centre, scale, start):
    f = _objective(kind, centre, scale)
    x0 = np.full(len(centre), start)
    res = robust_minimize(f, x0, rng=0, maxfev=3000)
    if res.success:
        assert np.all(np.isfinite(res.x))
    with np.errstate(all="ignore"):
        try:
            fx = f(res.x)
        except ArithmeticError:
            fx = np.nan
        try:
            f0 = f(x0)
        except ArithmeticError:
            f0 = np.nan
    if np.isfinite(res.fun):
        assert res.fun == fx
    if np.isfinite(f0):
        assert res.fun <= f0
    assert res.nfev <= 3000
