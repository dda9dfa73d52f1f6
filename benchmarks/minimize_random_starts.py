"""robust_minimize on classic multimodal and non-smooth test functions from random starts
in their usual boxes, with and without the box as bounds: does it claim minima that are
not minima, or fail with an error of its own?

Each function is written from its textbook definition (Beale, Booth, Matyas,
Himmelblau, three- and six-hump camel, Easom, Bukin 6, Levi 13, Styblinski-Tang,
Rastrigin, Ackley, Griewank, the step function, Zakharov, Dixon-Price, Trid, sum of
different powers, Schwefel 2.22, cross-in-tray, Eggholder, Holder table, McCormick,
Goldstein-Price, Qing, Salomon, an exponential well), with its global minimum value
``f*`` where one is known. From ``STARTS`` points drawn uniformly in the box (seed
2026) every run is ``robust_minimize(f, x0, rng=0, maxfev=20000)``, once free and once
with the box as ``bounds``. Outcomes:

* ``global``: ``f <= f* + 1e-6 max(1, |f*|)`` (most functions have many local minima:
  a local method is not expected to find the global one);
* ``claim_not_minimum``: ``success=True`` where a probe finds a lower point: ``f`` at 60
  points along random directions at distances 1e-7 and 1e-5 of ``max(1, |x|)`` and
  1e-3, inside the box for the bounded runs, lower than ``f(x)`` by more than
  ``1e-6 max(1, |f(x)|)``;
* ``internal_error``: the run ended with robustfit's ``internal_error`` event;
  ``exception``: an exception escaped.

Free runs of the Holder table and Eggholder functions leave the box, where those
functions fall without bound (Holder table: a lattice of local minima deepening as
``exp(r / pi)`` until ``f`` overflows); they are kept as hostile cases.

    OPENBLAS_CORETYPE=Haswell python benchmarks/minimize_random_starts.py
        [--out benchmarks/results/minimize_random_starts.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from robustfit import robust_minimize  # noqa: E402

STARTS = 6
SEED = 2026
MAXFEV = 20000
COMMAND = "OPENBLAS_CORETYPE=Haswell python benchmarks/minimize_random_starts.py"


def _s(x):
    return float(np.sum(x))


def _camel6(x):
    return (4 - 2.1 * x[0] ** 2 + x[0] ** 4 / 3) * x[0] ** 2 + x[0] * x[1] \
        + (-4 + 4 * x[1] ** 2) * x[1] ** 2


def _goldstein(x):
    a = 1 + (x[0] + x[1] + 1) ** 2 * (19 - 14 * x[0] + 3 * x[0] ** 2 - 14 * x[1]
                                      + 6 * x[0] * x[1] + 3 * x[1] ** 2)
    b = 30 + (2 * x[0] - 3 * x[1]) ** 2 * (18 - 32 * x[0] + 12 * x[0] ** 2 + 48 * x[1]
                                           - 36 * x[0] * x[1] + 27 * x[1] ** 2)
    return a * b


def _zakharov(x):
    s = np.sum(0.5 * np.arange(1, x.size + 1) * x)
    return _s(x ** 2) + s ** 2 + s ** 4


def _radius(x):
    return np.sqrt(np.sum(x ** 2))


# name: (f, dimension, half-width of the box [-R, R]^n, f* or None)
FUNCTIONS = {
    "beale": (lambda x: (1.5 - x[0] + x[0] * x[1]) ** 2 + (2.25 - x[0] + x[0] * x[1] ** 2)
              ** 2 + (2.625 - x[0] + x[0] * x[1] ** 3) ** 2, 2, 4.5, 0.0),
    "booth": (lambda x: (x[0] + 2 * x[1] - 7) ** 2 + (2 * x[0] + x[1] - 5) ** 2, 2, 10, 0.0),
    "matyas": (lambda x: 0.26 * (x[0] ** 2 + x[1] ** 2) - 0.48 * x[0] * x[1], 2, 10, 0.0),
    "himmelblau": (lambda x: (x[0] ** 2 + x[1] - 11) ** 2 + (x[0] + x[1] ** 2 - 7) ** 2,
                   2, 5, 0.0),
    "camel3": (lambda x: 2 * x[0] ** 2 - 1.05 * x[0] ** 4 + x[0] ** 6 / 6 + x[0] * x[1]
               + x[1] ** 2, 2, 5, 0.0),
    "camel6": (_camel6, 2, 3, -1.0316284534898774),
    "easom": (lambda x: -np.cos(x[0]) * np.cos(x[1]) * np.exp(
        -((x[0] - np.pi) ** 2 + (x[1] - np.pi) ** 2)), 2, 100, -1.0),
    "bukin6": (lambda x: 100 * np.sqrt(abs(x[1] - 0.01 * x[0] ** 2)) + 0.01 * abs(x[0] + 10),
               2, 10, 0.0),
    "levi13": (lambda x: np.sin(3 * np.pi * x[0]) ** 2 + (x[0] - 1) ** 2 * (
        1 + np.sin(3 * np.pi * x[1]) ** 2) + (x[1] - 1) ** 2 * (
        1 + np.sin(2 * np.pi * x[1]) ** 2), 2, 10, 0.0),
    "styblinski_tang5": (lambda x: 0.5 * _s(x ** 4 - 16 * x ** 2 + 5 * x), 5, 5,
                         -39.16616570377142 * 5),
    "rastrigin4": (lambda x: 10 * x.size + _s(x ** 2 - 10 * np.cos(2 * np.pi * x)), 4, 5.12,
                   0.0),
    "ackley3": (lambda x: -20 * np.exp(-0.2 * np.sqrt(np.mean(x ** 2)))
                - np.exp(np.mean(np.cos(2 * np.pi * x))) + 20 + np.e, 3, 32, 0.0),
    "griewank5": (lambda x: 1 + _s(x ** 2) / 4000 - np.prod(
        np.cos(x / np.sqrt(np.arange(1, x.size + 1)))), 5, 600, 0.0),
    "step5": (lambda x: _s(np.floor(x + 0.5) ** 2), 5, 100, 0.0),
    "zakharov6": (_zakharov, 6, 5, 0.0),
    "dixon_price5": (lambda x: (x[0] - 1) ** 2 + _s(np.arange(2, x.size + 1) * (
        2 * x[1:] ** 2 - x[:-1]) ** 2), 5, 10, 0.0),
    "trid6": (lambda x: _s((x - 1) ** 2) - _s(x[1:] * x[:-1]), 6, 36, -50.0),
    "sum_of_powers5": (lambda x: _s(np.abs(x) ** np.arange(2, x.size + 2)), 5, 1, 0.0),
    "schwefel_2_22_4": (lambda x: _s(np.abs(x)) + np.prod(np.abs(x)), 4, 10, 0.0),
    "cross_in_tray": (lambda x: -1e-4 * (abs(np.sin(x[0]) * np.sin(x[1]) * np.exp(
        abs(100 - _radius(x) / np.pi))) + 1) ** 0.1, 2, 10, -2.06261187082),
    "eggholder": (lambda x: -(x[1] + 47) * np.sin(np.sqrt(abs(x[0] / 2 + x[1] + 47)))
                  - x[0] * np.sin(np.sqrt(abs(x[0] - (x[1] + 47)))), 2, 512, None),
    "holder_table": (lambda x: -abs(np.sin(x[0]) * np.cos(x[1]) * np.exp(
        abs(1 - _radius(x) / np.pi))), 2, 10, None),
    "mccormick": (lambda x: np.sin(x[0] + x[1]) + (x[0] - x[1]) ** 2 - 1.5 * x[0]
                  + 2.5 * x[1] + 1, 2, 3, None),
    "goldstein_price": (_goldstein, 2, 2, 3.0),
    "qing4": (lambda x: _s((x ** 2 - np.arange(1, x.size + 1)) ** 2), 4, 500, 0.0),
    "salomon3": (lambda x: 1 - np.cos(2 * np.pi * _radius(x)) + 0.1 * _radius(x), 3, 100,
                 0.0),
    "exp_well3": (lambda x: -np.exp(-_s(x ** 2)), 3, 10, -1.0),
}


def _probe_lower(f, x, fx, box, rng) -> float:
    """How much lower than ``fx`` the lowest probe around ``x`` is (0 if none)."""
    size = max(1.0, float(np.max(np.abs(x))))
    lowest = fx
    for radius in (1e-7 * size, 1e-5 * size, 1e-3):
        for _ in range(20):
            v = rng.standard_normal(x.size)
            y = x + radius * v / np.linalg.norm(v)
            if box is not None and np.any(np.abs(y) > box):
                continue
            value = f(y)
            if np.isfinite(value):
                lowest = min(lowest, value)
    return fx - lowest


def run_one(name, f, x0, box, fstar):
    def fun(x):
        return float(f(np.asarray(x, dtype=float)))

    bounds = [(-box, box)] * x0.size if box is not None else None
    t0 = time.perf_counter()
    row = dict(function=name, bounded=box is not None, x0=x0.tolist())
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            res = robust_minimize(fun, x0, bounds=bounds, rng=0, maxfev=MAXFEV)
    except Exception as exc:
        row.update(exception=f"{type(exc).__name__}: {exc}"[:200], success=False)
        return row
    with np.errstate(all="ignore"):
        fx = fun(res.x)
        lower = _probe_lower(fun, res.x, fx, box, np.random.default_rng(0))
    row.update(
        success=bool(res.success), f=fx, fstar=fstar, nfev=int(res.nfev),
        time=time.perf_counter() - t0, message=str(res.message)[:160],
        global_=bool(fstar is not None and fx <= fstar + 1e-6 * max(1.0, abs(fstar))),
        probe_lower_by=float(lower),
        claim_not_minimum=bool(res.success and lower > 1e-6 * max(1.0, abs(fx))),
        internal_error=any(e.get("kind") == "internal_error" for e in res.events))
    return row


def summarise(rows):
    out = {}
    for bounded in (False, True):
        sel = [r for r in rows if r["bounded"] == bounded]
        out["box" if bounded else "free"] = dict(
            runs=len(sel),
            success_claims=sum(r["success"] for r in sel),
            global_minimum=sum(r.get("global_", False) for r in sel),
            claims_not_minimum=sum(r.get("claim_not_minimum", False) for r in sel),
            internal_errors=sum(r.get("internal_error", False) for r in sel),
            exceptions=sum("exception" in r for r in sel),
            not_minimum=[f"{r['function']} {r['x0']}" for r in sel
                         if r.get("claim_not_minimum")],
            no_claim=sorted({r["function"] for r in sel if not r["success"]}),
            nfev=sum(r.get("nfev", 0) for r in sel))
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default=None)
    args = ap.parse_args(argv)
    rng = np.random.default_rng(SEED)
    rows = []
    for name, (f, n, half_width, fstar) in FUNCTIONS.items():
        for _ in range(STARTS):
            x0 = rng.uniform(-half_width, half_width, n)
            for box in (None, float(half_width)):
                row = run_one(name, f, x0, box, fstar)
                rows.append(row)
                print(f"{name:18s} {'box ' if box else 'free'} success={row['success']!s:5} "
                      f"f={row.get('f', np.nan):.6g} nfev={row.get('nfev', 0)} "
                      f"{'NOT A MINIMUM ' if row.get('claim_not_minimum') else ''}"
                      f"{row.get('message', row.get('exception', ''))[:70]}", flush=True)
    summary = summarise(rows)
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(command=COMMAND, summary=summary, rows=rows), fh, indent=1,
                      default=float)
    return summary


if __name__ == "__main__":
    main()
