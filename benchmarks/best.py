"""``robustfit best`` vs ``fitter`` on 5000 samples with the same candidate list.

For each data set both tools fit the same ``--candidates common`` list (24 families)
with the same number of worker processes and the same per-distribution timeout; we
record wall time end to end (worker start-up included for both; each run in a fresh
interpreter, so neither reuses a warm pool), the best AIC each
found, and per distribution whose likelihood is higher (scipy's ``nnlf`` recomputed on
both parameter sets). fitter is an optional benchmark dependency: ``pip install fitter``.

Usage: python benchmarks/best.py [--n 5000] [--jobs 2] [--timeout 30] [--repeat 1]
                                 [--datasets lifetimes,speeds,normal] [--limit 600]
                                 [--out PATH]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import signal
import subprocess
import sys
import time
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from robustfit.fitting.selection import COMMON, best  # noqa: E402

DATASETS = {
    "lifetimes": lambda n, rng: rng.gamma(2.5, 3.0, n),
    "speeds": lambda n, rng: 1.0455e4 * np.linalg.norm(rng.standard_normal((n, 3)), axis=1),
    "normal": lambda n, rng: rng.normal(100.0, 15.0, n),
}


def _nll(name, params, x):
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        v = float(getattr(stats, name).nnlf(tuple(params), x))
    return v if np.isfinite(v) else float("inf")


def run_robustfit(x, jobs, timeout):
    t0 = time.perf_counter()
    ranking = best(x, "common", jobs=jobs, timeout=timeout)
    wall = time.perf_counter() - t0
    params = {r.name: r.params for r in ranking if r.status == "ok"}
    status = {r.name: [r.status, round(r.seconds, 3)] for r in ranking}
    return {"wall": wall, "params": params, "status": status, "top": ranking[0].name}


def run_fitter(x, jobs, timeout):
    from fitter import Fitter

    t0 = time.perf_counter()
    f = Fitter(x, distributions=list(COMMON), timeout=timeout, verbose=False)
    f.fit(max_workers=jobs)
    wall = time.perf_counter() - t0
    params = {k: tuple(float(v) for v in p) for k, p in f.fitted_param.items()}
    aic = f.df_errors["aic"].astype(float)
    return {"wall": wall, "params": params, "top": str(aic.idxmin())}


def _in_fresh_process(tool, name, n, jobs, timeout, limit):
    """Run one tool on one data set in a new interpreter, as a user's session would:
    no worker pool or import left warm by the previous run. A run past ``limit`` seconds
    is stopped and recorded as taking at least that long."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", tool, "--datasets", name,
           "--n", str(n), "--jobs", str(jobs), "--timeout", str(timeout)]
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
                            start_new_session=True)
    try:
        stdout, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)  # the tool's worker processes too
        proc.communicate()
        return {"wall": time.perf_counter() - t0, "params": {}, "status": {}, "top": None,
                "finished": False}
    res = json.loads(stdout.strip().splitlines()[-1])
    res["finished"] = True
    return res


def compare(name, x, jobs, timeout, repeat, limit):
    rf_walls, ft_walls = [], []
    for _ in range(repeat):
        ft = _in_fresh_process("fitter", name, x.size, jobs, timeout, limit)
        rf = _in_fresh_process("robustfit", name, x.size, jobs, timeout, limit)
        rf_walls.append(rf["wall"])
        ft_walls.append(ft["wall"])
    rf_params, rf_status, rf_top = rf["params"], rf["status"], rf["top"]
    ft_params, ft_top = ft["params"], ft["top"]
    better = worse = same = 0
    per_dist = {}
    for d in COMMON:
        a = _nll(d, rf_params[d], x) if d in rf_params else float("inf")
        b = _nll(d, ft_params[d], x) if d in ft_params else float("inf")
        per_dist[d] = {"robustfit_nll": a, "fitter_nll": b, "robustfit_status": rf_status.get(d)}
        tol = 1e-6 * max(1.0, abs(min(a, b)))
        if a < b - tol:
            better += 1
        elif b < a - tol:
            worse += 1
        else:
            same += 1
    rf_best = min(per_dist, key=lambda d: 2 * per_dist[d]["robustfit_nll"])
    return {
        "dataset": name, "n": int(x.size), "candidates": len(COMMON),
        "robustfit_seconds": min(rf_walls), "fitter_seconds": min(ft_walls),
        "fitter_finished": ft["finished"], "robustfit_finished": rf["finished"],
        "ratio": min(rf_walls) / min(ft_walls),
        "robustfit_top": rf_top, "fitter_top": ft_top, "robustfit_best_nll_family": rf_best,
        "robustfit_higher_likelihood": better, "fitter_higher_likelihood": worse,
        "same_likelihood": same, "per_distribution": per_dist,
    }


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=5000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--timeout", type=float, default=30.0)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--limit", type=float, default=600.0,
                    help="stop either tool's whole run after this many seconds (600)")
    ap.add_argument("--worker", choices=("robustfit", "fitter"), help=argparse.SUPPRESS)
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "best.json"))
    args = ap.parse_args(argv)
    try:
        import fitter  # noqa: F401
    except ImportError:
        print("this benchmark compares against fitter: pip install fitter", file=sys.stderr)
        return 1
    if args.worker:
        x = DATASETS[args.datasets](args.n, np.random.default_rng(12345))
        run = run_robustfit if args.worker == "robustfit" else run_fitter
        print(json.dumps(run(x, args.jobs, args.timeout)))
        return 0
    rows = []
    for name in args.datasets.split(","):
        x = DATASETS[name](args.n, np.random.default_rng(12345))
        row = compare(name, x, args.jobs, args.timeout, args.repeat, args.limit)
        rows.append(row)
        more = "" if row["fitter_finished"] else "+ (stopped)"
        print(f"{name:10s} robustfit {row['robustfit_seconds']:6.2f} s   fitter "
              f"{row['fitter_seconds']:6.2f} s{more}   ratio {row['ratio']:.2f}   top: "
              f"{row['robustfit_top']} / {row['fitter_top']}   higher likelihood: "
              f"robustfit {row['robustfit_higher_likelihood']}, fitter "
              f"{row['fitter_higher_likelihood']}, same {row['same_likelihood']}")
    out = {"command": "python benchmarks/best.py " + " ".join(argv or sys.argv[1:]),
           "machine": f"{platform.machine()}, {os.cpu_count()} CPUs", "jobs": args.jobs,
           "timeout": args.timeout, "target_ratio": 1 / 3, "results": rows}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as fh:
        json.dump(out, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
