"""Helpers the minimize benchmarks share: an objective's value that never raises, and
where a run's numbers came from (the commit it ran at, and whether -- and how -- the
library's code differed from it)."""

from __future__ import annotations

import hashlib
import os
import shlex
import subprocess

import numpy as np


def value_at(fun, x) -> float:
    """``fun(x)`` as a float, NaN where it raises (warnings silenced)."""
    try:
        with np.errstate(all="ignore"):
            return float(fun(np.asarray(x, dtype=float)))
    except Exception:
        return float("nan")


def code_version() -> dict:
    """The commit the run used, and a hash of any uncommitted change under robustfit/
    (empty where git is not at hand)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    try:
        head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=root, capture_output=True,
                              text=True, check=True).stdout.strip()
        diff = subprocess.run(["git", "diff", "HEAD", "--", "robustfit"], cwd=root,
                              capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError):
        return {}
    return dict(commit=head, robustfit_dirty=bool(diff),
                robustfit_diff_sha1=hashlib.sha1(diff.encode()).hexdigest() if diff else None)


def run_method(fun, x0, method: str) -> dict:
    """One run of ``method`` ("robust": robust_minimize with ``rng=0``, else scipy's
    ``minimize``) on ``fun`` from ``x0``, warnings silenced, evaluations counted by a
    wrapper; an exception escaping the optimiser is recorded (``error``), not raised.
    Returns ``x`` (None after an error), ``success``, ``message``, ``nfev`` (counted),
    ``nfev_reported`` (the method's own count), ``error`` and ``time`` (seconds)."""
    import time
    import warnings

    from scipy.optimize import minimize

    from robustfit import robust_minimize

    calls = [0]

    def counted(x):
        calls[0] += 1
        return fun(np.asarray(x, dtype=float))

    out = dict(x=None, success=False, message="", nfev_reported=None, error=None)
    t0 = time.perf_counter()
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if method == "robust":
                res = robust_minimize(counted, np.array(x0, dtype=float), rng=0)
            else:
                res = minimize(counted, np.array(x0, dtype=float), method=method)
        out.update(x=np.asarray(res.x, dtype=float), success=bool(res.success),
                   message=str(res.message), nfev_reported=int(getattr(res, "nfev", -1)))
    except Exception as exc:  # an exception escaping the optimiser is an outcome we count
        out["error"] = f"{type(exc).__name__}: {exc}"[:200]
    out.update(nfev=calls[0], time=time.perf_counter() - t0)
    return out


def command_line(script: str, argv) -> str:
    """The command that reran ``script`` (its ``__file__``) with ``argv``, with the
    OPENBLAS_CORETYPE it ran under."""
    env = os.environ.get("OPENBLAS_CORETYPE")
    prefix = f"OPENBLAS_CORETYPE={env} " if env else ""
    return prefix + shlex.join(["python", os.path.relpath(os.path.abspath(script)), *argv])
