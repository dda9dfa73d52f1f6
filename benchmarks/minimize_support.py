"""Helpers the minimize benchmarks share: an objective's value that never raises, and
where a run's numbers came from (the commit it ran at, and whether -- and how -- the
library's code differed from it)."""

from __future__ import annotations

import hashlib
import os
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
