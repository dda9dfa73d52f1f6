"""Where a benchmark's numbers came from: the commit it ran at, and whether (and how)
the library's code differed from that commit."""

from __future__ import annotations

import hashlib
import os
import subprocess


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
