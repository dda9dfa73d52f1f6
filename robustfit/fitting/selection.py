"""Choosing the best of many distributions for one sample (``robustfit best``).

Every candidate is fitted with :func:`robustfit.fit` in its own process under a time
limit that kills it, so one pathological distribution can neither hang the search nor
keep a core busy; the survivors are ranked by AIC, BIC or the KS statistic.
"""

from __future__ import annotations

import math
import os
import sys
import time
import warnings
from dataclasses import asdict, dataclass

import numpy as np
from scipy import stats

from .._timelimit import Outcome, run_limited
from .._validation import as_finite_1d, check_choice
from ..errors import InvalidInputError, UnsupportedDistributionError

__all__ = ["COMMON", "Ranked", "candidate_names", "best"]

#: Distributions tried by ``--candidates common``: the families of fitdistrplus,
#: fitter's "common" set and distfit's popular set, together.
COMMON = (
    "norm", "lognorm", "gamma", "expon", "weibull_min", "weibull_max", "beta", "cauchy",
    "chi2", "exponpow", "powerlaw", "rayleigh", "uniform", "logistic", "laplace",
    "gumbel_r", "gumbel_l", "t", "invgauss", "genextreme", "pareto", "lomax", "loggamma",
    "invgamma",
)
CRITERIA = ("aic", "bic", "ks")
DEGENERATE_KS = 0.99  # the fitted cdf puts (almost) no mass between the observations
DEGENERATE_PARAM = 1e250  # parameters this large are float overflow, not estimates


@dataclass(frozen=True)
class Ranked:
    """One candidate's outcome.

    ``status`` is ``"ok"``, ``"failed"`` (robustfit raised, or found no valid or only
    degenerate parameters), ``"timeout"`` or ``"crashed"``; ``message`` says more.
    ``converged`` is the fit's own ``success`` (an ``"ok"`` fit may have a finite
    likelihood without its optimiser's convergence test passing).
    """

    name: str
    status: str
    params: tuple = ()
    names: tuple = ()
    nll: float = math.inf
    aic: float = math.inf
    bic: float = math.inf
    ks: float = math.inf
    seconds: float = 0.0
    message: str = ""
    converged: bool = False

    def frozen(self):
        """The fitted distribution, frozen at its parameters."""
        return getattr(stats, self.name)(*self.params)

    def as_dict(self) -> dict:
        return asdict(self)


def all_continuous() -> tuple[str, ...]:
    """Names of every continuous distribution in scipy.stats."""
    return tuple(sorted(n for n in dir(stats)
                        if isinstance(getattr(stats, n), stats.rv_continuous)))


def candidate_names(spec: str | list | tuple) -> tuple[str, ...]:
    """``"common"``, ``"all"``, ``"norm,gamma,..."`` or a sequence of names -> names.

    Examples
    --------
    >>> from robustfit.fitting.selection import candidate_names
    >>> candidate_names("norm, gamma")
    ('norm', 'gamma')
    >>> len(candidate_names("common")) >= 20
    True
    """
    if isinstance(spec, str):
        if spec == "common":
            return COMMON
        if spec == "all":
            return all_continuous()
        names = [s.strip() for s in spec.split(",") if s.strip()]
    else:
        names = [str(s) for s in spec]
    if not names:
        raise InvalidInputError("candidates is empty; use 'common', 'all' or NAME,NAME,...")
    known = set(all_continuous())
    unknown = [n for n in names if n not in known]
    if unknown:
        raise UnsupportedDistributionError(
            f"unknown distribution(s) {', '.join(unknown)} in candidates; use names of "
            "continuous scipy.stats distributions (e.g. norm, gamma, weibull_min)."
        )
    return tuple(dict.fromkeys(names))


def fit_candidate(name: str, data: np.ndarray) -> dict:
    """Fit ``scipy.stats.<name>`` with robustfit and score it (runs in a child process)."""
    from .fit import fit
    from .gof import ks_statistic

    t0 = time.perf_counter()
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = fit(getattr(stats, name), data)
        ok = bool(np.isfinite(res.nll))
        ks = ks_statistic(data, res.frozen()) if ok else math.inf
    message = res.message
    if ok and not (ks < DEGENERATE_KS and np.all(np.abs(res) < DEGENERATE_PARAM)):
        # a likelihood that numerically diverges (e.g. a shape at 1e308) is not a fit
        ok = False
        message = (f"degenerate estimate {tuple(float(v) for v in res)} (KS {ks:.3g}): the "
                   "likelihood diverges numerically; " + message)
    return {"params": tuple(res), "names": tuple(res.params), "nll": res.nll,
            "aic": res.aic, "bic": res.bic, "ks": ks, "ok": ok, "message": message,
            "success": res.success, "seconds": time.perf_counter() - t0}


def _ranked(name: str, out: Outcome) -> Ranked:
    if out.status == "ok" and out.value["ok"] and np.isfinite(out.value["nll"]):
        v = out.value
        return Ranked(name, "ok", v["params"], v["names"], v["nll"], v["aic"], v["bic"],
                      v["ks"], out.seconds, v["message"], v["success"])
    if out.status == "ok":
        return Ranked(name, "failed", seconds=out.seconds, message=out.value["message"])
    status = "failed" if out.status == "error" else out.status
    return Ranked(name, status, seconds=out.seconds, message=out.error)


def best(data, candidates="common", *, by: str = "aic", jobs: int | None = None,
         timeout: float | None = 30.0, progress: bool = False,
         nan_policy: str = "raise") -> list[Ranked]:
    """Fit every candidate distribution to ``data`` and rank them.

    Parameters
    ----------
    data : array_like
        One-dimensional sample.
    candidates : str or sequence of str
        ``"common"`` (24 widely used families), ``"all"`` (every continuous
        scipy.stats distribution) or names.
    by : {"aic", "bic", "ks"}
        Ranking criterion (smaller is better).
    jobs : int, optional
        Processes fitting at once (default: the number of CPUs).
    timeout : float or None
        Seconds allowed per distribution; a fit still running then is killed.
    progress : bool
        Show a tqdm progress bar on stderr.
    nan_policy : {"raise", "omit"}
        Non-finite observations: raise, or drop them.

    Returns
    -------
    list of Ranked
        Successful fits first, best first; then failures and time-outs.

    Examples
    --------
    >>> from scipy import stats
    >>> from robustfit.fitting.selection import best
    >>> x = stats.gamma.rvs(3.0, scale=2.0, size=500, random_state=0)
    >>> ranking = best(x, ["norm", "gamma", "expon"], jobs=1)
    >>> ranking[0].name
    'gamma'
    """
    check_choice(by, "by", CRITERIA)
    x, _ = as_finite_1d(data, "data", nan_policy)
    if x.size < 2:
        raise InvalidInputError(f"data holds {x.size} finite value(s); best needs at least 2.")
    if timeout is not None and not timeout > 0:
        raise InvalidInputError(f"timeout={timeout!r} must be positive (seconds) or None.")
    names = candidate_names(candidates)
    jobs = jobs or os.cpu_count() or 1
    bar = None
    if progress:
        from tqdm import tqdm

        class _Bar(tqdm):
            monitor_interval = 0  # no monitor thread: workers can then be forked cheaply

        bar = _Bar(total=len(names), desc="fitting", unit="dist", file=sys.stderr,
                   leave=False)

    def advance(key, outcome) -> None:
        if bar is not None:
            bar.set_postfix_str(f"{key}: {outcome.status}", refresh=False)
            bar.update(1)

    try:
        outcomes = run_limited([(n, fit_candidate, (n, x)) for n in names], jobs=jobs,
                               timeout=timeout, on_done=advance)
    finally:
        if bar is not None:
            bar.close()
    ranked = [_ranked(n, outcomes[n]) for n in names]
    return sorted(ranked, key=lambda r: (r.status != "ok", getattr(r, by), r.name))
