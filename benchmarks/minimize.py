"""robust_minimize vs scipy's BFGS, L-BFGS-B, Nelder-Mead and Powell on the catalogue.

``robust`` is robust_minimize with its defaults (local: one minimum, found and tested);
``robust-explore`` adds ``options={"explore": EXPLORE}`` exploratory local runs, the
multistart a user asks for when a problem may have several minima.

For every problem of ``benchmarks/minimize_problems.py`` and every method we record:
solved (``f(x) <= f* + tol``, with ``f(x)`` recomputed at the returned ``x``), the
method's own success flag, false successes (success claimed, not solved, and not at one
of the paper's listed local minima), escaped exceptions, and function evaluations
(counted by a wrapper, finite-difference evaluations included). All methods get the
problem's ``jac`` when it has one (Nelder-Mead and Powell ignore it), else finite
differences.

With ``--catalogue nist``, the problems are NIST's StRD nonlinear regressions instead
(:mod:`benchmarks.nist_problems`: certified residual sums of squares, both of NIST's
starts), saved to ``benchmarks/results/minimize_nist.json``.

Usage: python benchmarks/minimize.py [--only NAME,...] [--out PATH] [--catalogue mgh|nist]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.minimize_problems import catalogue  # noqa: E402
from robustfit import robust_minimize  # noqa: E402

OURS = ("robust", "robust-explore")
SCIPY = ("BFGS", "L-BFGS-B", "Nelder-Mead", "Powell")
METHODS = OURS + SCIPY
EXPLORE = 4
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "minimize.json")
OUT_NIST = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                        "minimize_nist.json")
KINDS = ("smooth", "nonsmooth", "hostile", "certified")


def _value_at(problem, x) -> float:
    try:
        with np.errstate(all="ignore"):
            f = float(problem.fun(np.asarray(x, dtype=float)))
    except Exception:
        return float("nan")
    return f


def run_one(problem, method: str, rng: int = 0) -> dict:
    calls = [0]

    def counted(x):
        calls[0] += 1
        return problem.fun(x)

    t0 = time.perf_counter()
    error = None
    x, success, message = None, False, ""
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if method in OURS:
                options = {"explore": EXPLORE} if method == "robust-explore" else None
                res = robust_minimize(counted, problem.x0, jac=problem.jac, rng=rng,
                                      options=options)
            else:
                jac = problem.jac if method in ("BFGS", "L-BFGS-B") else None
                res = minimize(counted, problem.x0, jac=jac, method=method)
        x, success, message = np.asarray(res.x, dtype=float), bool(res.success), str(
            res.message)
    except Exception as exc:  # an exception escaping the optimiser is an outcome we count
        error = f"{type(exc).__name__}: {exc}"[:200]
    elapsed = time.perf_counter() - t0
    f = _value_at(problem, x) if x is not None else float("nan")
    solved = problem.solved(f)
    return dict(problem=problem.name, kind=problem.kind, method=method, f=f,
                fstar=problem.fstar, tol=problem.tol, solved=solved, success=success,
                false_success=bool(success and not problem.at_a_minimum(f)),
                nan_x=bool(x is not None and not np.all(np.isfinite(x))),
                escaped=error, nfev=calls[0], time=elapsed, message=message[:200])


def summarise(rows: list[dict]) -> dict:
    problems = sorted({r["problem"] for r in rows}, key=[r["problem"] for r in rows].index)
    by = {(r["problem"], r["method"]): r for r in rows}
    summary = {"problems": len(problems), "methods": {}}
    for m in METHODS:
        rs = [by[p, m] for p in problems]
        summary["methods"][m] = {
            "solved": sum(r["solved"] for r in rs),
            "solve_rate": round(sum(r["solved"] for r in rs) / len(rs), 4),
            "false_successes": sum(r["false_success"] for r in rs),
            "escaped_exceptions": sum(r["escaped"] is not None for r in rs),
            "nan_x": sum(r["nan_x"] for r in rs),
            "solved_by_kind": {k: sum(r["solved"] for r in rs if r["kind"] == k)
                               for k in KINDS},
        }
    scipy_any = [p for p in problems if any(by[p, m]["solved"] for m in SCIPY)]
    summary["solved_by_any_scipy"] = len(scipy_any)
    summary["kinds"] = {k: sum(by[p, "robust"]["kind"] == k for p in problems)
                        for k in KINDS}
    bfgs_solves = [p for p in problems if by[p, "BFGS"]["kind"] in ("smooth", "certified")
                   and by[p, "BFGS"]["solved"]]
    for ours in OURS:
        summary["methods"][ours]["scipy_solves_it_misses"] = [
            p for p in scipy_any if not by[p, ours]["solved"]]
        ratios = [by[p, ours]["nfev"] / by[p, "BFGS"]["nfev"] for p in bfgs_solves]
        summary["methods"][ours]["nfev_ratio_vs_bfgs_smooth_bfgs_solves"] = {
            "problems": len(ratios),
            "median": round(float(np.median(ratios)), 3) if ratios else None,
            "also_solved": sum(by[p, ours]["solved"] for p in bfgs_solves),
        }
    return summary


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--only", default="", help="comma-separated problem names")
    ap.add_argument("--out", default=None)
    ap.add_argument("--catalogue", choices=("mgh", "nist"), default="mgh",
                    help="mgh: the shared catalogue; nist: NIST's StRD regressions")
    args = ap.parse_args(argv)
    if args.catalogue == "nist":
        from benchmarks.nist_problems import nist_problems
        probs, args.out = nist_problems(), args.out or OUT_NIST
    else:
        probs, args.out = catalogue(), args.out or OUT
    if args.only:
        wanted = set(args.only.split(","))
        probs = [p for p in probs if p.name in wanted]
    rows = [run_one(p, m) for p in probs for m in METHODS]
    summary = summarise(rows)
    if args.out and not args.only:
        os.makedirs(os.path.dirname(args.out), exist_ok=True)
        with open(args.out, "w") as fh:
            json.dump({"summary": summary, "runs": rows}, fh, indent=1, default=float)
    print(f"{summary['problems']} problems {summary['kinds']}")
    print(f"{'method':12s} {'solved':>7s} {'rate':>6s} {'false succ':>10s} {'escaped':>8s}"
          f" {'NaN x':>6s}")
    for m, s in summary["methods"].items():
        print(f"{m:12s} {s['solved']:7d} {s['solve_rate']:6.1%} {s['false_successes']:10d}"
              f" {s['escaped_exceptions']:8d} {s['nan_x']:6d}")
    print("solved by some scipy method:", summary["solved_by_any_scipy"])
    for ours in OURS:
        s = summary["methods"][ours]
        ratio = s["nfev_ratio_vs_bfgs_smooth_bfgs_solves"]
        print(f"{ours}: scipy solves, it misses: {s['scipy_solves_it_misses']}; nfev ratio "
              f"to BFGS (smooth problems BFGS solves): {ratio}")
    return summary


if __name__ == "__main__":
    main()
