"""Markdown tables from benchmarks/results/fit.json, for docs/fitting.md.

Usage: python benchmarks/fit_report.py [PATH]
"""

from __future__ import annotations

import json
import os
import sys
from collections import defaultdict

import numpy as np


def summary_table(data: dict) -> str:
    summ = data["summary"]
    lines = ["| magnitude (loc, scale) | NLL ≤ truth's: robustfit | scipy | same parameters as "
             "at (0, 1) to 1e-6: robustfit | scipy | same NLL as at (0, 1) to 1e-8: robustfit "
             "| scipy | median time robustfit / scipy (s) |",
             "|---|---|---|---|---|---|---|---|"]
    rows = data["rows"]
    for key in summ:
        if not key.startswith("robustfit@"):
            continue
        mag = key.split("@")[1]
        ours, ref = summ[key], summ.get("scipy@" + mag, {})
        loc = float(mag.split(",")[0])
        pairs = {}
        for r in rows:
            if r["loc"] == loc:
                pairs.setdefault(r["case"], {})[r["fitter"]] = r["time"]
        ratios = [p["robustfit"] / p["scipy"] for p in pairs.values()
                  if "robustfit" in p and "scipy" in p and p["scipy"] > 0]

        def pct(v):
            return "–" if v is None else f"{100 * v:.1f}%"

        lines.append(f"| ({mag}) | {pct(ours['ok_rate'])} | {pct(ref.get('ok_rate'))} | "
                     f"{pct(ours['equivariant_1e6'])} | {pct(ref.get('equivariant_1e6'))} | "
                     f"{pct(ours.get('same_nll_1e8'))} | {pct(ref.get('same_nll_1e8'))} | "
                     f"{ours['median_time']:.3f} / {ref.get('median_time', float('nan')):.3f}"
                     f" (median ratio {np.median(ratios):.2f}) |")
    n_cases = summ[next(k for k in summ if k.startswith("robustfit@"))]["cases"]
    lines.append("")
    lines.append(f"{n_cases} cases per magnitude; median of the per-case time ratios "
                 f"over all magnitudes: {summ['median_time_ratio_robustfit_over_scipy']:.2f}.")
    return "\n".join(lines)


def failures(data: dict) -> str:
    out = []
    for r in data["rows"]:
        if r["fitter"] == "robustfit" and not r["ok"]:
            gap = "–" if r["gap"] is None else f"{r['gap']:.3g}"
            out.append(f"- {r['case']} at ({r['loc']:g}, {r['scale']:g}): NLL gap {gap}"
                       f"{' (' + r['error'] + ')' if r.get('error') else ''}")
    return "\n".join(out) or "- none"


def strategy_table(data: dict) -> str:
    won = defaultdict(list)
    for r in data["rows"]:
        if r["fitter"] == "robustfit" and r["loc"] == 0.0 and r.get("start"):
            won[r["start"]].append(r["case"])
    lines = ["| start strategy | distributions where it led to the returned optimum "
             "(unit magnitude, n = 1000) |", "|---|---|"]
    for start, names in sorted(won.items(), key=lambda p: -len(p[1])):
        lines.append(f"| `{start}` ({len(names)}) | {', '.join(sorted(names))} |")
    return "\n".join(lines)


def big_table(data: dict) -> str:
    big = data.get("big")
    if not big:
        return ""
    lines = [f"`{big['command']}`", "",
             "| case | n | robustfit (s) | × one numpy pass | scipy (s) | robustfit / scipy | "
             "NLL robustfit − scipy |", "|---|---|---|---|---|---|---|"]
    for r in big["rows"]:
        lines.append(f"| {r['case']} | {r['n']:.0e} | {r['robustfit']['time']:.3f} | "
                     f"{r['time_ratio_vs_one_pass']:.1f} | {r['scipy']['time']:.3f} | "
                     f"{r['time_ratio_vs_scipy']:.3f} | {r['nll_gap_vs_scipy']:.3g} |")
    return "\n".join(lines)


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    path = argv[0] if argv else os.path.join(os.path.dirname(__file__), "results",
                                             "fit.json")
    with open(path) as fh:
        data = json.load(fh)
    print(f"`{data['command']}`\n")
    print(summary_table(data))
    print("\nCases where robustfit's NLL is above the truth's:\n")
    print(failures(data))
    print()
    print(big_table(data))
    print()
    print(strategy_table(data))


if __name__ == "__main__":
    main()
