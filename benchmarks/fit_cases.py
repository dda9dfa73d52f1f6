"""The catalogue of fit cases shared by tests and benchmarks: scipy's own ``distcont``
acceptance cases (distribution, example shapes), drawn as scipy's ``test_cont_fit`` draws
them, then mapped to other magnitudes."""

from __future__ import annotations

import multiprocessing as mp

import numpy as np
from scipy import stats
from scipy.stats._distr_params import distcont

MAGNITUDES = ((0.0, 1.0), (1e6, 1e4), (-1e-3, 1e-6))

# pdfs evaluated by numerical integration or series: one likelihood costs seconds
VERY_SLOW = {"levy_stable", "studentized_range", "genhyperbolic", "kstwo", "ksone",
             "vonmises"}


def cases(skip_very_slow: bool = True):
    """(label, dist, shapes) for every entry of distcont (labels unique)."""
    seen: dict[str, int] = {}
    for name, shapes in distcont:
        if skip_very_slow and name in VERY_SLOW:
            continue
        k = seen.get(name, 0)
        seen[name] = k + 1
        label = name if k == 0 else f"{name}#{k}"
        yield label, getattr(stats, name), tuple(shapes)


def sample(dist, shapes, n: int, seed: int = 1234) -> np.ndarray:
    """Standard-form sample drawn the way scipy's test_cont_fit draws it."""
    np.random.seed(seed)  # noqa: NPY002 - the legacy global seed scipy's test uses
    with np.errstate(all="ignore"):
        return np.asarray(dist.rvs(*shapes, size=n), dtype=float)


def true_nll(dist, shapes, loc, scale, x) -> float:
    with np.errstate(all="ignore"):
        return float(-np.sum(dist.logpdf(x, *shapes, loc=loc, scale=scale)))


def _forked_call(fn, args, q):
    q.put(fn(*args))


def call_forked(fn, args, timeout: float):
    """``fn(*args)`` in a forked process (isolated: a crash or a hang costs one case);
    its result, or None where it ran past ``timeout`` seconds and was killed."""
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    proc = ctx.Process(target=_forked_call, args=(fn, args, q))
    proc.start()
    proc.join(timeout)
    if proc.is_alive():
        proc.kill()
        proc.join()
        return None
    return q.get()
