"""robust_minimize on thousands of variables with analytic gradients, against scipy's
L-BFGS-B from the same start: evaluations, time, and the peak of numpy's allocations
(``tracemalloc``, in a second run of each), each method in the same process one after
the other.

Beyond 2000 variables robust_minimize keeps BFGS's model as its last 20 updates (see
``robustfit/optimize/limited_memory.py``); the dense model held ``8 n**2`` bytes and
its update made five temporaries of that size, 36 GB at 30,000 variables.

Problems (x0 as stated): L2-regularised logistic regression on Gaussian features
(2000 samples, from 0); extended Rosenbrock (from the MGH start (-1.2, 1) repeated);
a separable quadratic with curvatures from 1 to 1e4 (from 0, minimum at 1); a
tanh network with one hidden layer of 64 units fitted by least squares to a smooth
target (64 inputs, 4000 samples; from small random weights; a local minimum, so
f is compared with L-BFGS-B's, not with a known minimum). ``f_gap`` is
``(f_robust - f_lbfgsb) / max(1, |f_lbfgsb|)``; negative means robust_minimize
ended lower.

    python benchmarks/minimize_large.py [--dims 3000,10000,30000]
        [--out benchmarks/results/minimize_large.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import tracemalloc
import warnings

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.minimize_bounded import _counted  # noqa: E402
from robustfit import robust_minimize  # noqa: E402

SAMPLES = 2000


def logistic(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    A = rng.standard_normal((SAMPLES, n)) / np.sqrt(n)
    labels = np.sign(A @ rng.standard_normal(n) + 0.5 * rng.standard_normal(SAMPLES))
    lam = 1e-3

    def f(x):
        return float(np.logaddexp(0, -labels * (A @ x)).mean() + 0.5 * lam * x @ x)

    def jac(x):
        z = labels * (A @ x)
        return A.T @ (-labels * 0.5 * (1 - np.tanh(z / 2))) / SAMPLES + lam * x

    return f"logistic_{n}", f, jac, np.zeros(n)


def rosenbrock(n: int):
    def f(x):
        return float(np.sum(100 * (x[1::2] - x[::2] ** 2) ** 2 + (1 - x[::2]) ** 2))

    def jac(x):
        g = np.zeros_like(x)
        d = x[1::2] - x[::2] ** 2
        g[::2] = -400 * x[::2] * d - 2 * (1 - x[::2])
        g[1::2] = 200 * d
        return g

    return f"extended_rosenbrock_{n}", f, jac, np.tile([-1.2, 1.0], n // 2)


def quadratic(n: int):
    c = np.logspace(0, 4, n)

    def f(x):
        return float(0.5 * np.sum(c * (x - 1) ** 2))

    def jac(x):
        return c * (x - 1)

    return f"quadratic_cond1e4_{n}", f, jac, np.zeros(n)


def network(hidden: int = 64, inputs: int = 64, samples: int = 4000, seed: int = 0):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((samples, inputs))
    target = np.sin(X[:, :4].sum(axis=1)) + 0.1 * X[:, 4] ** 2
    shapes = [(inputs, hidden), (hidden,), (hidden,), ()]
    sizes = [int(np.prod(s)) for s in shapes]

    def unpack(x):
        parts, at = [], 0
        for shape, size in zip(shapes, sizes, strict=True):
            parts.append(x[at:at + size].reshape(shape))
            at += size
        return parts

    def forward(x):
        W, b, v, c = unpack(x)
        h = np.tanh(X @ W + b)
        return h, h @ v + c - target

    def f(x):
        return float(0.5 * np.mean(forward(x)[1] ** 2))

    def jac(x):
        W, b, v, c = unpack(x)
        h, r = forward(x)
        r = r / samples
        dh = np.outer(r, v) * (1 - h ** 2)
        return np.concatenate([(X.T @ dh).ravel(), dh.sum(axis=0), h.T @ r, [r.sum()]])

    x0 = 0.1 * rng.standard_normal(sum(sizes))
    return f"tanh_network_{x0.size}", f, jac, x0


def _measure(run):
    """``run()``'s outcome, its time, and the peak of numpy's allocations in a second,
    traced run (tracing slows allocation-heavy code: the time is the untraced run's)."""
    t0 = time.perf_counter()
    out = run()
    elapsed = time.perf_counter() - t0
    tracemalloc.start()
    run()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return out, elapsed, peak


def run_case(name, f, jac, x0) -> dict:
    row = {"problem": name, "n": int(x0.size)}
    fc, fcount = _counted(f)
    gc, gcount = _counted(jac)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res, elapsed, peak = _measure(lambda: robust_minimize(fc, x0, jac=gc, rng=0))
    row["robust"] = dict(f=float(res.fun), success=bool(res.success), message=res.message,
                         nfev=fcount[0] // 2, njev=gcount[0] // 2, time=elapsed,
                         peak_bytes=peak)  # (counts: two identical runs)
    fc, fcount = _counted(f)
    gc, gcount = _counted(jac)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref, elapsed, peak = _measure(lambda: minimize(
            fc, x0, jac=gc, method="L-BFGS-B", options={"maxiter": 100000, "maxfun": 100000}))
    row["lbfgsb"] = dict(f=float(ref.fun), success=bool(ref.success), message=str(ref.message),
                         nfev=fcount[0] // 2, njev=gcount[0] // 2, time=elapsed,
                         peak_bytes=peak)
    row["f_gap"] = (row["robust"]["f"] - row["lbfgsb"]["f"]) / max(1.0, abs(row["lbfgsb"]["f"]))
    row["time_ratio"] = row["robust"]["time"] / row["lbfgsb"]["time"]
    row["evaluation_ratio"] = ((row["robust"]["nfev"] + row["robust"]["njev"])
                               / (row["lbfgsb"]["nfev"] + row["lbfgsb"]["njev"]))
    row["memory_ratio"] = row["robust"]["peak_bytes"] / max(1, row["lbfgsb"]["peak_bytes"])
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dims", default="3000,10000,30000")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(__file__), "results",
                                                  "minimize_large.json"))
    args = ap.parse_args()
    dims = [int(d) for d in args.dims.split(",")]
    cases = [make(n) for n in dims for make in (logistic, rosenbrock, quadratic)]
    cases.append(network())
    rows = []
    for case in cases:
        row = run_case(*case)
        rows.append(row)
        r, s = row["robust"], row["lbfgsb"]
        print(f"{row['problem']:>28}: robust f={r['f']:.10g} success={r['success']} "
              f"evals={r['nfev']}+{r['njev']} {r['time']:.2f}s {r['peak_bytes'] / 1e6:.0f}MB"
              f" | L-BFGS-B f={s['f']:.10g} evals={s['nfev']}+{s['njev']} {s['time']:.2f}s "
              f"{s['peak_bytes'] / 1e6:.0f}MB | gap {row['f_gap']:.1e}", flush=True)
    summary = {
        "cases": len(rows),
        "robust_success": sum(r["robust"]["success"] for r in rows),
        "robust_not_above_lbfgsb": sum(r["f_gap"] <= 1e-8 for r in rows),
        "median_time_ratio": float(np.median([r["time_ratio"] for r in rows])),
        "median_evaluation_ratio": float(np.median([r["evaluation_ratio"] for r in rows])),
        "max_memory_ratio": float(max(r["memory_ratio"] for r in rows)),
    }
    print(json.dumps(summary, indent=1))
    if args.out:
        with open(args.out, "w") as fh:
            json.dump(dict(command="python benchmarks/minimize_large.py --dims " + args.dims,
                           summary=summary, rows=rows), fh, indent=1)


if __name__ == "__main__":
    main()
