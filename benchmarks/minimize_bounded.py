"""robust_minimize with bounds, against scipy's L-BFGS-B.

Three sets, each from the same starts:

* ``nist_sign``: NIST's StRD regressions with each parameter bounded to the side of zero
  its certified value is on, within 100x (interior minima); solved = at most 1e-6 of
  the certified RSS above it.
* ``nist_active``: the same with the last parameter capped at 80% of its certified value,
  so that the constrained minimum sits on that bound; the reference is the best of
  L-BFGS-B (tight tolerances) from the capped certified point, the start and robust's
  answer (problems where none of these is finite are left out).
* ``hock_schittkowski``: small problems with simple bounds and known minima, most of them
  on active bounds.

Evaluations are counted by a wrapper. Usage:
``python benchmarks/minimize_bounded.py [--out benchmarks/results/minimize_bounded.json]``
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

from benchmarks.nist_problems import capped_bounds, nist_problems, sign_bounds  # noqa: E402
from robustfit import robust_minimize  # noqa: E402

OUT = os.path.join(os.path.dirname(__file__), "results", "minimize_bounded.json")


def _counted(fun):
    calls = [0]

    def f(x):
        calls[0] += 1
        return fun(x)
    return f, calls


def _wood(x):
    return (100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2 + 90 * (x[3] - x[2] ** 2) ** 2
            + (1 - x[2]) ** 2 + 10.1 * ((x[1] - 1) ** 2 + (x[3] - 1) ** 2)
            + 19.8 * (x[1] - 1) * (x[3] - 1))


def _rosen(x):
    return 100 * (x[1] - x[0] ** 2) ** 2 + (1 - x[0]) ** 2


# (name, f, x0, bounds, f*): Hock & Schittkowski's bound-constrained problems and two more
HOCK_SCHITTKOWSKI = [
    ("hs1", _rosen, [-2.0, 1.0], [(None, None), (-1.5, None)], 0.0),
    ("hs3", lambda x: x[1] + 1e-5 * (x[1] - x[0]) ** 2, [10.0, 1.0],
     [(None, None), (0, None)], 0.0),
    ("hs4", lambda x: (x[0] + 1) ** 3 / 3 + x[1], [1.125, 0.125], [(1, None), (0, None)],
     8 / 3),
    ("hs5", lambda x: np.sin(x[0] + x[1]) + (x[0] - x[1]) ** 2 - 1.5 * x[0] + 2.5 * x[1] + 1,
     [0.0, 0.0], [(-1.5, 4), (-3, 3)], -np.sqrt(3) / 2 - np.pi / 3),
    ("hs38", _wood, [-3.0, -1.0, -3.0, -1.0], [(-10, 10)] * 4, 0.0),
    ("hs45", lambda x: 2 - np.prod(x) / 120, [2.0] * 5, [(0, i) for i in range(1, 6)], 1.0),
    ("hs110", lambda x: np.sum(np.log(x - 2) ** 2 + np.log(10 - x) ** 2) - np.prod(x) ** 0.2,
     [9.0] * 10, [(2.001, 9.999)] * 10, -45.77846971),
    ("rosenbrock_box", _rosen, [-1.2, 1.0], [(-1.5, 0.5), (-1, 1)], 0.25),
    ("quadratic_box", lambda x: float(np.sum((x - np.arange(5)) ** 2)), [0.5] * 5,
     [(0, 2)] * 5, 5.0),
]


def _run(fun, x0, bounds):
    f, calls = _counted(fun)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        res = robust_minimize(f, np.asarray(x0, dtype=float), bounds=bounds, rng=0)
        ref_f, ref_calls = _counted(fun)
        ref = minimize(ref_f, np.asarray(x0, dtype=float), method="L-BFGS-B", bounds=bounds)
    return res, calls[0], ref, ref_calls[0]


def _reaches(f, fstar, tol):
    """``f`` at most ``tol`` above ``fstar``, as the catalogues count it
    (``Problem.solved``): below it counts too, as rounding puts NIST's Lanczos1 (1.428e-25
    against a certified 1.4308e-25, computed in higher precision)."""
    return bool(np.isfinite(f) and f <= fstar + tol)


def _row(set_name, name, res, nfev, ref, ref_nfev, fstar, tol):
    solved = _reaches(res.fun, fstar, tol)
    return dict(set=set_name, problem=name, f=float(res.fun), fstar=float(fstar),
                solved=solved, success=bool(res.success),
                false_success=bool(res.success and not solved), nfev=nfev,
                lbfgsb_solved=_reaches(ref.fun, fstar, tol), lbfgsb_nfev=ref_nfev,
                message=str(res.message)[:120])


def nist_rows():
    rows = []
    for p in nist_problems():
        cert = np.array(p.extra["certified"])
        lo, hi = sign_bounds(p)
        res, nfev, ref, ref_nfev = _run(p.fun, p.x0, list(zip(lo, hi, strict=True)))
        rows.append(_row("nist_sign", p.name, res, nfev, ref, ref_nfev, p.fstar,
                         1e-6 * p.fstar))
        lo, hi = capped_bounds(p)
        bounds = list(zip(lo, hi, strict=True))
        x0 = np.clip(p.x0, lo, hi)
        res, nfev, ref, ref_nfev = _run(p.fun, x0, bounds)
        with np.errstate(all="ignore"):
            tight = [minimize(p.fun, np.clip(s, lo, hi), method="L-BFGS-B", bounds=bounds,
                              options=dict(ftol=1e-15, gtol=1e-12, maxiter=20000,
                                           maxfun=100000)).fun for s in (cert, x0, res.x)]
        tight = [v for v in tight if np.isfinite(v)]
        if not tight:  # no reference (Bennett5: L-BFGS-B steps into the model's NaNs)
            continue
        fstar = min(tight)
        rows.append(_row("nist_active", p.name, res, nfev, ref, ref_nfev, fstar,
                         1e-6 * abs(fstar)))
    return rows


def hs_rows():
    rows = []
    for name, fun, x0, bounds, fstar in HOCK_SCHITTKOWSKI:
        res, nfev, ref, ref_nfev = _run(fun, x0, bounds)
        rows.append(_row("hock_schittkowski", name, res, nfev, ref, ref_nfev, fstar,
                         1e-6 * max(1.0, abs(fstar))))
    return rows


def summarise(rows):
    out = {}
    for set_name in dict.fromkeys(r["set"] for r in rows):
        sel = [r for r in rows if r["set"] == set_name]
        out[set_name] = dict(
            problems=len(sel), solved=sum(r["solved"] for r in sel),
            certified=sum(r["solved"] and r["success"] for r in sel),
            false_successes=sum(r["false_success"] for r in sel),
            lbfgsb_solved=sum(r["lbfgsb_solved"] for r in sel),
            median_nfev_ratio_to_lbfgsb=float(np.median(
                [r["nfev"] / max(r["lbfgsb_nfev"], 1) for r in sel])))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    rows = nist_rows() + hs_rows()
    for r in rows:
        print(f"{r['set']:18s} {r['problem']:18s} solved={r['solved']!s:5} "
              f"success={r['success']!s:5} nfev={r['nfev']:6d} "
              f"L-BFGS-B: solved={r['lbfgsb_solved']!s:5} nfev={r['lbfgsb_nfev']}")
    summary = summarise(rows)
    print(json.dumps(summary, indent=1))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(dict(command="python benchmarks/minimize_bounded.py", summary=summary,
                       rows=rows), fh, indent=1)
    return summary


if __name__ == "__main__":
    main()
