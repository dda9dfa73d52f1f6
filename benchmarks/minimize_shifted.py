"""robust_minimize and scipy's BFGS and Nelder-Mead on the catalogue's smooth problems
moved far from 0.

Each smooth problem of the catalogue (``benchmarks/minimize_problems.py``, the
Moré-Garbow-Hillstrom functions from their standard starts) becomes ``f(x - shift)``
from ``x0 + shift``, for shifts of 1e3 and 1e6 in every variable: the same function,
the same minimum value and the same path, but variables of size ``shift`` whose
structure is of size 1. Finite-difference steps relative to a variable's size (scipy's
rule, and robust_minimize's) are then ``shift`` times too long: the case of a model
whose parameter is a time of 1.7e9 s with a peak 100 s wide. Solved means ``f(x) <=
f* + tol`` with the catalogue's tolerance (the shift changes neither); a false success
is a success claim at a point that is neither solved nor at one of the problem's listed
local minima. Without ``jac`` (finite differences), rng 0.

    python benchmarks/minimize_shifted.py [--shifts 1e3,1e6] [--out PATH]

Results: ``benchmarks/results/minimize_shifted.json``.
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

from benchmarks.minimize_problems import catalogue  # noqa: E402
from robustfit import robust_minimize  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "minimize_shifted.json")
SHIFTS = (1e3, 1e6)
METHODS = ("robust", "BFGS", "Nelder-Mead")


def shifted_problems():
    """The catalogue's smooth problems from their standard starts (not 10 x0)."""
    return [p for p in catalogue() if p.kind == "smooth" and not p.name.endswith("_x10")]


def run_case(problem, shift: float, method: str) -> dict:
    calls = [0]

    def f(x):
        calls[0] += 1
        return problem.fun(np.asarray(x, dtype=float) - shift)

    x0 = np.asarray(problem.x0, dtype=float) + shift
    error = None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if method == "robust":
                res = robust_minimize(f, x0, rng=0)
            else:
                res = minimize(f, x0, method=method)
        x, success, message = np.asarray(res.x, dtype=float), bool(res.success), str(
            res.message)
    except Exception as exc:  # an exception escaping the optimiser is an outcome we count
        x, success, message = None, False, ""
        error = f"{type(exc).__name__}: {exc}"[:200]
    nfev = calls[0]
    with np.errstate(all="ignore"):
        value = float(problem.fun(x - shift)) if x is not None else float("nan")
    solved = problem.solved(value)
    return dict(problem=problem.name, shift=shift, method=method, f=value,
                fstar=problem.fstar, solved=solved, success=success,
                false_success=bool(success and not problem.at_a_minimum(value)),
                escaped=error, nfev=nfev, message=message[:160])


def summarise(rows: list[dict]) -> dict:
    summary = {}
    for method in METHODS:
        for shift in sorted({r["shift"] for r in rows}):
            part = [r for r in rows if r["method"] == method and r["shift"] == shift]
            summary[f"{method}, shift {shift:g}"] = dict(
                runs=len(part), solved=sum(r["solved"] for r in part),
                success_claims=sum(r["success"] for r in part),
                false_successes=sum(r["false_success"] for r in part),
                solved_not_claimed=sum(r["solved"] and not r["success"] for r in part),
                escaped=sum(r["escaped"] is not None for r in part),
                nfev=sum(r["nfev"] for r in part))
    return summary


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--shifts", default=",".join(f"{s:g}" for s in SHIFTS))
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args(argv)
    shifts = [float(s) for s in args.shifts.split(",")]
    rows = [run_case(problem, shift, method) for problem in shifted_problems()
            for shift in shifts for method in METHODS]
    summary = summarise(rows)
    for key, s in summary.items():
        print(f"{key:28s} solved {s['solved']:3d}/{s['runs']}  claims "
              f"{s['success_claims']:3d}  false {s['false_successes']:2d}  solved but "
              f"not claimed {s['solved_not_claimed']:2d}  escaped {s['escaped']}  "
              f"nfev {s['nfev']}")
    command = "python benchmarks/minimize_shifted.py" + (
        f" --shifts {args.shifts}" if shifts != list(SHIFTS) else "")
    with open(args.out, "w") as fh:
        json.dump(dict(command=command,
                       openblas_coretype=os.environ.get("OPENBLAS_CORETYPE"),
                       summary=summary, rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
