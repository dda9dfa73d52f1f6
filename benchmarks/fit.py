"""robustfit.fit vs scipy's dist.fit on scipy's acceptance cases at several magnitudes.

For every distribution of scipy's ``distcont`` (minus those whose pdf alone takes
seconds, unless --all), a standard sample of size n is drawn as scipy's test_cont_fit
draws it and mapped to ``loc + scale*x`` for each (loc, scale) magnitude. Both fitters
run on the same samples in the same process; we record the NLL gap to the true
parameters (success = NLL <= truth's + tol), the time ratio, and how far each result is
from the unit-scale result mapped to that magnitude (equivariance).

Usage: python benchmarks/fit.py [--n 1000] [--dists a,b] [--timeout 60] [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import sys
import time
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from fit_cases import MAGNITUDES, cases, sample, true_nll  # noqa: E402

import robustfit  # noqa: E402

TOL = 1e-6  # relative slack on "NLL <= truth's"


def _one(label, dist, shapes, n, loc, scale, which):
    x = loc + scale * sample(dist, shapes, n)
    ref = true_nll(dist, shapes, loc, scale, x)
    t0 = time.perf_counter()
    err = None
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if which == "scipy":
                est = tuple(float(v) for v in dist.fit(x))
            else:
                est = tuple(robustfit.fit(dist, x))
    except Exception as exc:  # scipy's fit may raise; that is an outcome we record
        est, err = None, f"{type(exc).__name__}: {exc}"[:200]
    elapsed = time.perf_counter() - t0
    nll = true_nll(dist, est[:-2], est[-2], est[-1], x) if est else float("inf")
    ok = bool(np.isfinite(nll) and nll <= ref + TOL * abs(ref) + 1e-6)
    return dict(case=label, n=n, loc=loc, scale=scale, fitter=which, params=est, nll=nll,
                true_nll=ref, gap=nll - ref, ok=ok, time=elapsed, error=err)


def _worker(args, q):
    q.put(_one(*args))


def run_with_timeout(args, timeout):
    q = mp.Queue()
    p = mp.Process(target=_worker, args=(args, q))
    p.start()
    p.join(timeout)
    if p.is_alive():
        p.terminate()
        p.join()
        label, dist, shapes, n, loc, scale, which = args
        return dict(case=label, n=n, loc=loc, scale=scale, fitter=which, params=None,
                    nll=float("inf"), true_nll=None, gap=None, ok=False, time=timeout,
                    error="timeout")
    return q.get()


def equivariance(rows):
    """Max relative difference of each magnitude's result from the unit-scale one."""
    by = {(r["case"], r["n"], r["fitter"], r["loc"]): r for r in rows}
    out = {}
    for (case, n, fitter, loc), r in by.items():
        base = by.get((case, n, fitter, 0.0))
        if loc == 0.0 or base is None or not r["params"] or not base["params"]:
            continue
        b = np.array(base["params"], float)
        p = np.array(r["params"], float)
        mapped = b.copy()
        mapped[-2] = r["loc"] + r["scale"] * b[-2]
        mapped[-1] = r["scale"] * b[-1]
        denom = np.abs(mapped)
        denom[-2] = max(denom[-2], r["scale"])  # loc relative to the scale
        denom[-1] = r["scale"]
        denom[:-2] = np.maximum(denom[:-2], 1.0)
        out[f"{case}|{n}|{fitter}|{loc}"] = float(np.max(np.abs(p - mapped) / denom))
    return out


def summarise(rows, eq):
    summary = {}
    for fitter in ("robustfit", "scipy"):
        for loc, scale in MAGNITUDES:
            sel = [r for r in rows if r["fitter"] == fitter and r["loc"] == loc]
            if not sel:
                continue
            key = f"{fitter}@{loc:g},{scale:g}"
            eqs = [v for k, v in eq.items() if k.split("|")[2] == fitter
                   and float(k.split("|")[3]) == loc]
            summary[key] = dict(
                cases=len(sel), ok_rate=float(np.mean([r["ok"] for r in sel])),
                median_time=float(np.median([r["time"] for r in sel])),
                equivariant_1e6=float(np.mean([e <= 1e-6 for e in eqs])) if eqs else None,
            )
    pairs = {}
    for r in rows:
        pairs.setdefault((r["case"], r["n"], r["loc"]), {})[r["fitter"]] = r
    ratios = [p["robustfit"]["time"] / max(p["scipy"]["time"], 1e-9) for p in pairs.values()
              if "robustfit" in p and "scipy" in p]
    summary["median_time_ratio_robustfit_over_scipy"] = float(np.median(ratios))
    return summary


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", default="1000")
    ap.add_argument("--dists", default="")
    ap.add_argument("--timeout", type=float, default=60.0)
    ap.add_argument("--fitters", default="robustfit,scipy")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "fit.json"))
    args = ap.parse_args(argv)
    wanted = set(filter(None, args.dists.split(",")))
    rows = []
    for label, dist, shapes in cases():
        if wanted and label not in wanted and label.split("#")[0] not in wanted:
            continue
        for n in map(int, args.n.split(",")):
            for loc, scale in MAGNITUDES:
                for which in args.fitters.split(","):
                    r = run_with_timeout((label, dist, shapes, n, loc, scale, which),
                                         args.timeout)
                    rows.append(r)
                    flag = "ok " if r["ok"] else "BAD"
                    print(f"{flag} {which:9s} {label:20s} n={n} loc={loc:g} "
                          f"gap={r['gap'] if r['gap'] is None else round(r['gap'], 4)} "
                          f"t={r['time']:.2f}s {r['error'] or ''}", flush=True)
    eq = equivariance(rows)
    summary = summarise(rows, eq)
    print(json.dumps(summary, indent=1))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(dict(command="python benchmarks/fit.py " + " ".join(argv or sys.argv[1:]),
                       summary=summary, equivariance=eq, rows=rows), fh, indent=1,
                  default=str)


if __name__ == "__main__":
    main()
