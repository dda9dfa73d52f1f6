"""What plain ``scipy.stats`` fitting gives on the same data: the comparison users want.

scipy's ``dist.fit`` runs in a child process with a time limit (it can take minutes on
some distributions); its warnings are captured and reported, not printed.
"""

from __future__ import annotations

import time
import warnings

import numpy as np
from scipy import stats

from ._timelimit import run_one_limited

__all__ = ["scipy_fit", "scipy_fit_limited"]


def scipy_fit(name: str, data: np.ndarray, kwds: dict) -> dict:
    """Run ``scipy.stats.<name>.fit(data, **kwds)``; return params, NLL and warnings."""
    dist = getattr(stats, name)
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        params = tuple(float(v) for v in dist.fit(data, **kwds))
        with np.errstate(all="ignore"):
            nll = float(dist.nnlf(params, data))
    seconds = time.perf_counter() - t0
    messages = []
    for w in caught:
        text = f"{w.category.__name__}: {w.message}"
        if text not in messages:
            messages.append(text)
    return {"params": params, "nll": nll, "warnings": messages, "seconds": seconds}


def scipy_fit_limited(name: str, data: np.ndarray, kwds: dict, timeout: float) -> dict:
    """:func:`scipy_fit` in a child process, stopped after ``timeout`` seconds.

    Returns a dict with ``status`` (``"ok"``, ``"error"``, ``"timeout"``, ``"crashed"``),
    ``error`` and, when it finished, the keys of :func:`scipy_fit`.
    """
    out = run_one_limited(scipy_fit, (name, np.asarray(data, dtype=float), dict(kwds)),
                          timeout)
    report = {"status": out.status, "error": out.error, "seconds": out.seconds}
    if out.status == "ok":
        report.update(out.value)
    return report
