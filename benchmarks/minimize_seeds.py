"""robust_minimize with its defaults over several seeds (``rng``), per problem of the
catalogue: how many runs are solved, certified (solved with ``success=True``) and false
successes, and the median evaluations. Seed-dependent outcomes and costs (the restarts,
gradient sampling and exploring runs draw from ``rng``) show here, where the
catalogue's benchmark runs ``rng=0`` alone.

    python benchmarks/minimize_seeds.py [--kinds nonsmooth,hostile] [--seeds 5]

Results: ``benchmarks/results/minimize_seeds.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from benchmarks.minimize import run_one  # noqa: E402
from benchmarks.minimize_problems import catalogue  # noqa: E402

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "minimize_seeds.json")


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--kinds", default="nonsmooth,hostile",
                    help="comma-separated kinds of problem (smooth, nonsmooth, hostile)")
    ap.add_argument("--seeds", type=int, default=5)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    kinds = set(args.kinds.split(","))
    table = {}
    for problem in catalogue():
        if problem.kind not in kinds:
            continue
        runs = [run_one(problem, "robust", rng=seed) for seed in range(args.seeds)]
        table[problem.name] = {
            "solved": sum(r["solved"] for r in runs),
            "certified": sum(r["solved"] and r["success"] for r in runs),
            "false_successes": sum(r["false_success"] for r in runs),
            "nfev_median": float(np.median([r["nfev"] for r in runs])),
        }
        row = table[problem.name]
        print(f"{problem.name:28s} solved {row['solved']} certified {row['certified']} "
              f"false {row['false_successes']} nfev median {row['nfev_median']:.0f}")
    with open(args.out, "w") as fh:
        json.dump({"seeds": args.seeds, "kinds": sorted(kinds), "problems": table}, fh,
                  indent=1)
    return table


if __name__ == "__main__":
    main()
