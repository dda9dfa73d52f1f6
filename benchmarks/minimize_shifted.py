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
from dataclasses import replace

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.minimize import run_one  # noqa: E402
from benchmarks.minimize_problems import catalogue  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "minimize_shifted.json")
SHIFTS = (1e3, 1e6)
METHODS = ("robust", "BFGS", "Nelder-Mead")


def shifted_problems():
    """The catalogue's smooth problems from their standard starts (not 10 x0)."""
    return [p for p in catalogue() if p.kind == "smooth" and not p.name.endswith("_x10")]


def shifted(problem, shift: float):
    """``problem`` as ``f(x - shift)`` from ``x0 + shift``, without its ``jac``."""
    fun = problem.fun
    return replace(problem, fun=lambda x: fun(np.asarray(x, dtype=float) - shift),
                   x0=np.asarray(problem.x0, dtype=float) + shift, jac=None)


def run_case(problem, shift: float, method: str) -> dict:
    """One run, counted and judged as ``benchmarks/minimize.py`` does (rng 0)."""
    return dict(run_one(shifted(problem, shift), method), shift=shift)


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
