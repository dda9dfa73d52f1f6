"""robust_minimize at n = 50 and 100 with finite-difference gradients, against scipy's
BFGS and L-BFGS-B from the same start: what the guarded core costs where each gradient
takes n or 2 n evaluations.

Six MGH problems whose dimension is free (the catalogue's residual functions, the
paper's starts): extended Rosenbrock, trigonometric, variably dimensioned, discrete
boundary value, Broyden tridiagonal and penalty I. Each row has ``f``, ``success`` and
the evaluations of every method, counted by a wrapper; the summary has the ratio of
robust_minimize's evaluations to BFGS's where BFGS reports success.

    python benchmarks/minimize_dims.py [--dims 50,100]
        [--out benchmarks/results/minimize_dims.json]
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

from benchmarks import minimize_problems as mgh  # noqa: E402
from robustfit import robust_minimize  # noqa: E402


def problems(n: int):
    """(name, f, x0) at dimension ``n``, from MGH's starting points."""
    t = np.arange(1, n + 1) / (n + 1)
    return [
        (f"extended_rosenbrock_{n}", mgh._sumsq(mgh._ext_rosenbrock),
         np.tile([-1.2, 1.0], n // 2)),
        (f"trigonometric_{n}", mgh._sumsq(mgh._trigonometric), np.full(n, 1.0 / n)),
        (f"variably_dimensioned_{n}", mgh._sumsq(mgh._variably_dimensioned),
         1.0 - np.arange(1, n + 1) / n),
        (f"discrete_boundary_{n}", mgh._sumsq(mgh._discrete_boundary), t * (t - 1.0)),
        (f"broyden_tridiagonal_{n}", mgh._sumsq(mgh._broyden_tridiagonal), -np.ones(n)),
        (f"penalty1_{n}", mgh._sumsq(mgh._penalty1), np.arange(1.0, n + 1.0)),
    ]


class _Counted:
    def __init__(self, f):
        self.f, self.n = f, 0

    def __call__(self, x):
        self.n += 1
        return self.f(x)


def run_one(name, f, x0, method):
    counted = _Counted(f)
    t0 = time.perf_counter()
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        if method == "robust":
            res = robust_minimize(counted, x0, rng=0)
        else:
            res = minimize(counted, x0, method=method)
    return dict(problem=name, n=int(x0.size), method=method, f=float(f(res.x)),
                success=bool(res.success), nfev=counted.n,
                time=time.perf_counter() - t0, message=str(res.message)[:160])


def summarise(rows):
    by = {}
    for r in rows:
        by.setdefault(r["problem"], {})[r["method"]] = r
    ratios = {p: m["robust"]["nfev"] / m["BFGS"]["nfev"] for p, m in by.items()
              if m["BFGS"]["success"]}
    lower = [p for p, m in by.items()
             if m["robust"]["f"] < min(m["BFGS"]["f"], m["L-BFGS-B"]["f"])]
    return dict(nfev_ratio_vs_bfgs=ratios,
                median_ratio=float(np.median(list(ratios.values()))) if ratios else None,
                robust_success=sum(m["robust"]["success"] for m in by.values()),
                problems=len(by), robust_lower_than_both=lower)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", default="50,100")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "minimize_dims.json"))
    args = ap.parse_args(argv)
    rows = []
    for n in (int(v) for v in args.dims.split(",")):
        for name, f, x0 in problems(n):
            for method in ("robust", "BFGS", "L-BFGS-B"):
                row = run_one(name, f, x0, method)
                rows.append(row)
                print(f"{name:28s} {method:9s} f={row['f']:.4e} "
                      f"success={row['success']!s:5s} nfev={row['nfev']}", flush=True)
    summary = summarise(rows)
    print(json.dumps(summary, indent=1))
    with open(args.out, "w") as fh:
        json.dump(dict(command="python benchmarks/minimize_dims.py", summary=summary,
                       rows=rows), fh, indent=1)
    return summary


if __name__ == "__main__":
    main()
