"""What ``robustfit fit`` and ``robustfit best`` print: building and formatting reports."""

from __future__ import annotations

import difflib
import math

import numpy as np
from scipy import stats

from ..errors import UnsupportedDistributionError
from .fit import fit
from .selection import Ranked, all_continuous

__all__ = ["resolve_distribution", "fit_report", "format_fit_report", "format_ranking"]


def resolve_distribution(name: str) -> stats.rv_continuous:
    """``"gamma"`` -> ``scipy.stats.gamma``; an unknown name suggests close matches."""
    dist = getattr(stats, name, None)
    if isinstance(dist, stats.rv_continuous):
        return dist
    close = difflib.get_close_matches(name, all_continuous(), n=3)
    hint = f"; did you mean {', '.join(close)}?" if close else \
        " (see the list in the scipy.stats documentation)."
    raise UnsupportedDistributionError(
        f"unknown distribution {name!r}: DIST must name a continuous scipy.stats "
        f"distribution{hint}"
    )


def fit_report(name: str, x: np.ndarray, fixed: dict, *, nan_policy: str = "raise",
               level: float = 0.95, scipy_timeout: float | None = 60.0) -> tuple[dict, object]:
    """Fit ``name`` to ``x`` and collect everything ``robustfit fit`` reports.

    Returns ``(report, result)``: a JSON-ready dict and the :class:`FitResult`.
    ``scipy_timeout=None`` skips the plain-scipy comparison.
    """
    dist = resolve_distribution(name)
    result = fit(dist, x, nan_policy=nan_policy, **fixed)
    cov = result.covariance()
    ci = result.confint(level) if result.success or np.isfinite(result.nll) else {}
    gof = result.gof().as_dict() if np.isfinite(result.nll) else None
    params = []
    for pname, value in result.params.items():
        free = pname in result.free
        params.append({"name": pname, "value": value, "fixed": not free,
                       "stderr": cov.stderr.get(pname) if free else None,
                       "confint": list(ci[pname]) if free and pname in ci else None})
    report = {
        "distribution": dist.name, "n": result.n_obs, "n_omitted": result.n_omitted,
        "params": params, "loglik": result.loglik, "aic": result.aic, "bic": result.bic,
        "success": result.success, "message": result.message, "start": result.start,
        "stderr_note": cov.message, "level": level, "gof": gof,
    }
    if scipy_timeout is not None:
        from ..scipy_baseline import scipy_fit_limited

        report["scipy"] = scipy_fit_limited(dist.name, result.data, fixed, scipy_timeout)
    return report, result


def _num(v, width: int = 12) -> str:
    if v is None or (isinstance(v, float) and math.isnan(v)):
        return "n/a".rjust(width)
    return f"{v:{width}.6g}"


def format_fit_report(rep: dict) -> str:
    """The human-readable text of :func:`fit_report`'s dict."""
    pct = f"{100 * rep['level']:g}%"
    head = f"{rep['distribution']} fitted to {rep['n']} observations"
    if rep.get("source"):
        head += f" from {rep['source']}"
    if rep["n_omitted"]:
        head += f" ({rep['n_omitted']} non-finite values omitted)"
    lines = [head, "",
             f"{'parameter':<12}{'estimate':>14}{'std. error':>14}   {pct} interval"]
    for p in rep["params"]:
        if p["fixed"]:
            lines.append(f"{p['name']:<12}{_num(p['value'], 14)}{'(fixed)':>14}")
            continue
        ci = p["confint"]
        interval = f"[{ci[0]:.6g}, {ci[1]:.6g}]" if ci and all(map(math.isfinite, ci)) \
            else "n/a"
        lines.append(f"{p['name']:<12}{_num(p['value'], 14)}{_num(p['stderr'], 14)}   "
                     f"{interval}")
    if rep["stderr_note"] not in ("ok", "no free parameters"):
        lines.append(f"  (no standard errors: {rep['stderr_note']})")
    lines += ["", f"log-likelihood {rep['loglik']:.10g}   AIC {rep['aic']:.10g}   "
              f"BIC {rep['bic']:.10g}"]
    g = rep["gof"]
    if g:
        lines.append(f"KS {g['ks']:.4g} (p={g['ks_pvalue']:.3g})   AD {g['ad']:.4g}   "
                     f"CvM {g['cvm']:.4g} (p={g['cvm_pvalue']:.3g})   "
                     "[p-values ignore that parameters were estimated]")
    lines.append(f"status: {'converged' if rep['success'] else 'NOT converged'} - "
                 f"{rep['message']}")
    if "scipy" in rep:
        lines += ["", _format_scipy(rep)]
    return "\n".join(lines)


def _format_scipy(rep: dict) -> str:
    s = rep["scipy"]
    name = rep["distribution"]
    if s["status"] == "timeout":
        return f"plain scipy.stats.{name}.fit: did not finish in {s['seconds']:.0f} s (stopped)"
    if s["status"] != "ok":
        return f"plain scipy.stats.{name}.fit: failed - {s['error']}"
    names = [p["name"] for p in rep["params"]]
    body = ", ".join(f"{n}={v:.6g}" for n, v in zip(names, s["params"], strict=False))
    ours = -rep["loglik"]
    gap = s["nll"] - ours
    if not math.isfinite(s["nll"]):
        verdict = "its parameters give the data zero likelihood"
    elif gap > 1e-6 * max(1.0, abs(ours)):
        verdict = f"its NLL is worse by {gap:.6g}"
    elif gap < -1e-6 * max(1.0, abs(ours)):
        verdict = f"its NLL is better by {-gap:.6g} (please report this data set)"
    else:
        verdict = "the same optimum"
    out = (f"plain scipy.stats.{name}.fit ({s['seconds']:.2f} s): {body}; "
           f"NLL {s['nll']:.10g} - {verdict}")
    if s["warnings"]:
        out += f"\n  scipy warned {len(s['warnings'])}x: " + "; ".join(s["warnings"][:3])
    return out


def format_ranking(ranking: list[Ranked], *, label: str, by: str, top: int) -> str:
    """The table printed by ``robustfit best``."""
    ok = [r for r in ranking if r.status == "ok"]
    bad = [r for r in ranking if r.status != "ok"]
    lines = [f"{len(ok)} of {len(ranking)} distributions fitted to {label}; ranked by "
             f"{by.upper()}", "",
             f"{'rank':>4}  {'distribution':<14}{'AIC':>14}{'BIC':>14}{'KS':>9}"
             f"{'time s':>8}  parameters"]
    for i, r in enumerate(ok[:top], start=1):
        params = ", ".join(f"{n}={v:.4g}" for n, v in zip(r.names, r.params, strict=False))
        name = r.name if r.converged else r.name + "*"
        lines.append(f"{i:>4}  {name:<14}{r.aic:>14.6g}{r.bic:>14.6g}{r.ks:>9.4f}"
                     f"{r.seconds:>8.2f}  {params}")
    if any(not r.converged for r in ok[:top]):
        lines.append("   * finite likelihood, but the optimiser's convergence test did not pass")
    if bad:
        lines.append("")
        for r in bad:
            lines.append(f"      {r.name:<14}{r.status}: {' '.join(r.message.split())[:90]}")
    return "\n".join(lines)
