"""robustfit.fit on the families whose shapes are knots (triang, trapezoid) over several
shapes, seeds and sample sizes at the three magnitudes of :mod:`benchmarks.fit_cases`:
how many fits end above the true parameters' likelihood, and how many magnitudes give
parameters more than 1e-6 (relative) from the unit-scale fit's.

    python benchmarks/fit_knots.py [--out benchmarks/results/fit_knots.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import warnings

import numpy as np
from scipy import stats

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import robustfit  # noqa: E402
from benchmarks.fit_cases import MAGNITUDES, sample, true_nll  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "fit_knots.json")
CASES = ((stats.triang, (0.158,)), (stats.trapezoid, (0.2, 0.8)), (stats.triang, (0.02,)),
         (stats.trapezoid, (0.0, 0.5)), (stats.trapezoid, (0.4, 0.4)))
SEEDS = (1, 2, 3, 4)
SIZES = (50, 500)


def _relative_error(unit, got, b, a, k) -> float:
    mapped = np.concatenate([unit[:k], [b + a * unit[k], a * unit[k + 1]]])
    denom = np.concatenate([np.maximum(np.abs(unit[:k]), 1.0), [a * unit[-1]] * 2])
    return float(np.max(np.abs(got - mapped) / denom))


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    rows = []
    for dist, shapes in CASES:
        for seed in SEEDS:
            for n in SIZES:
                z = sample(dist, shapes, n, seed)
                fits = []
                for b, a in MAGNITUDES:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        res = robustfit.fit(dist, b + a * z)
                    truth = true_nll(dist, shapes, b, a, b + a * z)
                    fits.append(np.array(res))
                    rows.append(dict(case=f"{dist.name}{shapes}", seed=seed, n=n, loc=b,
                                     scale=a, params=fits[-1].tolist(), nll=res.nll,
                                     true_nll=truth, success=bool(res.success),
                                     above_truth=bool(res.nll > truth + 1e-6 * abs(truth)
                                                      + 1e-6),
                                     equivariance=None if len(fits) == 1 else
                                     _relative_error(fits[0], fits[-1], b, a,
                                                     len(shapes))))
    pairs = [r["equivariance"] for r in rows if r["equivariance"] is not None]
    summary = dict(fits=len(rows), above_truth=sum(r["above_truth"] for r in rows),
                   magnitude_pairs=len(pairs),
                   pairs_apart_beyond_1e6=sum(e > 1e-6 for e in pairs))
    print(summary)
    with open(args.out, "w") as fh:
        json.dump(dict(command="python benchmarks/fit_knots.py", summary=summary,
                       rows=rows), fh, indent=1)
    return summary


if __name__ == "__main__":
    main()
