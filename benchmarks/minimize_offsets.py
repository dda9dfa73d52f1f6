"""robust_minimize and scipy's BFGS and Nelder-Mead on objectives with a constant term.

``factor * q(x) + constant`` for three smooth ``q`` (Rosenbrock in 2 variables, the
chained Rosenbrock function in 4, a weighted bowl in 5; minimiser at ones, minimum 0),
factors 1, 1e-2 and 1e-3 and constants from 0 to 1e9 of either sign. Solved means
``f(x) <= f* + tol`` with the catalogue's tolerance (``tol = min(1e-6 max(1, |f*|),
1e-5 (f(x0) - f*))``: relative to the descent from ``x0``, which the constant does not
change); a false success is a success claim that is neither solved nor at the chained
Rosenbrock function's local minimum (3.7014286 at (-0.776, 0.613, 0.382, 0.146), told
apart by ``q(x)`` itself). The distance of ``x`` from the global minimiser (max norm)
is recorded too.

    python benchmarks/minimize_offsets.py [--out PATH]

Results: ``benchmarks/results/minimize_offsets.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.minimize_problems import chained_rosenbrock, weighted_bowl  # noqa: E402
from robustfit import robust_minimize  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "minimize_offsets.json")
FACTORS = (1.0, 1e-2, 1e-3)
CONSTANTS = (0.0, 1e2, -1e2, 1e4, -1e4, 1e6, -1e6, 1e9)
METHODS = ("robust", "BFGS", "Nelder-Mead")


# q's local minima other than the global one (0)
LOCAL_MINIMA = {"rosenbrock4": (3.7014286104411727,)}
SHAPES = {"rosenbrock2": (chained_rosenbrock, np.array([-1.2, 1.0])),
          "rosenbrock4": (chained_rosenbrock, np.array([-1.2, 1.0, -1.2, 1.0])),
          "bowl5": (weighted_bowl, np.zeros(5))}


def run_case(shape: str, factor: float, constant: float, method: str) -> dict:
    q, x0 = SHAPES[shape]
    calls = [0]

    def f(x):
        calls[0] += 1
        return factor * q(np.asarray(x, dtype=float)) + constant

    fstar = constant
    f0 = factor * q(x0) + constant
    tol = max(min(1e-6 * max(1.0, abs(fstar)), 1e-5 * (f0 - fstar)), 1e-14)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "robust":
            res = robust_minimize(f, x0, rng=0)
        else:
            res = minimize(f, x0, method=method)
    x = np.asarray(res.x, dtype=float)
    solved = bool(f(x) <= fstar + tol)
    local = any(abs(q(x) - m) <= 1e-6 * m for m in LOCAL_MINIMA.get(shape, ()))
    return dict(shape=shape, factor=factor, constant=constant, method=method,
                success=bool(res.success), solved=solved, local=bool(local and not solved),
                false_success=bool(res.success and not solved and not local),
                x_error=float(np.max(np.abs(np.asarray(res.x) - 1.0))),
                nfev=calls[0] - 1, message=str(res.message)[:160])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    rows = [run_case(shape, factor, constant, method)
            for shape in SHAPES for factor in FACTORS for constant in CONSTANTS
            for method in METHODS]
    summary = {}
    for method in METHODS:
        sel = [r for r in rows if r["method"] == method]
        for label, part in (("all", sel),
                            ("|constant| <= 1e6", [r for r in sel
                                                   if abs(r["constant"]) <= 1e6])):
            summary[f"{method}, {label}"] = dict(
                runs=len(part), solved=sum(r["solved"] for r in part),
                local=sum(r["local"] for r in part),
                success_claims=sum(r["success"] for r in part),
                false_successes=sum(r["false_success"] for r in part),
                median_x_error=float(np.median([r["x_error"] for r in part])),
                worst_x_error_claimed=max((r["x_error"] for r in part
                                           if r["success"] and not r["local"]), default=None),
                nfev=sum(r["nfev"] for r in part))
    for key, s in summary.items():
        print(f"{key:32s} solved {s['solved']:3d}/{s['runs']}  local {s['local']:2d}  claims "
              f"{s['success_claims']:3d}  false {s['false_successes']:3d}  median |x - x*| "
              f"{s['median_x_error']:.1e}  worst claimed, global "
              f"{s['worst_x_error_claimed']:.1e}  "
              f"nfev {s['nfev']}")
    with open(args.out, "w") as fh:
        json.dump(dict(command="python benchmarks/minimize_offsets.py",
                       openblas_coretype=os.environ.get("OPENBLAS_CORETYPE"),
                       summary=summary, rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
