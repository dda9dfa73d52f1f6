"""Initial-guess strategies, cheapest first; the driver scores them by likelihood.

Each strategy returns a list of :class:`Candidate` (full parameter vectors in
standardised coordinates with the fixed values in place):

* ``closed_form``: an exact MLE from :mod:`.closed_form` where one applies (the driver
  adds ``loc_profile``, from :mod:`.loc_profile`, where one applies once loc is fixed);
* ``user``: the user's positional shape guesses and ``loc=``/``scale=``;
* ``scipy_fitstart``: the distribution's own ``_fitstart``;
* ``moments``: shapes from a small grid over their domains, loc/scale matching the
  sample mean and standard deviation (only where the distribution has cheap moments);
* ``quantiles``: the same shapes, loc/scale matching the sample median and
  interquartile range (needs no finite moments).

A candidate whose loc/scale put data outside the support is moved just beyond the
extreme observation, so that it can be scored and optimised.
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .closed_form import closed_form_mle
from .likelihood import support, valid_shapes
from .quantile_moments import own_statistics
from .quantiles import standard_quantiles
from .spec import shape_domain
from .tight_ends import shape_ends

_QUARTILES = np.array([0.25, 0.5, 0.75])
# starts at the standardised data's own location and scale (at most this many, the
# first shapes of the grid that take the data in) where no moment or quantile of the
# family could be had
DEFAULT_STARTS = 3


@dataclass(frozen=True)
class Candidate:
    """A starting point: where it came from and the full parameter vector."""

    start: str
    theta: np.ndarray
    exact: bool = False  # an exact MLE: no optimisation needed


@dataclass(frozen=True)
class SampleSummary:
    """What the strategies need to know of the (standardised) data."""

    zmin: float
    zmax: float
    quartiles: np.ndarray
    mean: float
    std: float
    n: int

    @classmethod
    def from_data(cls, z: np.ndarray) -> SampleSummary:
        from ..moments import Moments

        m = Moments.from_data(z)
        return cls(float(z.min()), float(z.max()), np.quantile(z, _QUARTILES), m.mean,
                   float(np.sqrt(m.variance())), z.size)


def _overrides(dist, method: str) -> bool:
    return getattr(type(dist), method) is not getattr(stats.rv_continuous, method)


def shape_grid(dist, n_shapes: int, fixed: dict, per_shape: int,
               both_signs: bool = False) -> list[tuple]:
    """A small product grid of shape values inside each shape's domain; with
    ``both_signs``, a shape over the whole line takes at least three (0 and +-0.5),
    whatever ``per_shape`` says."""
    axes = []
    for j in range(n_shapes):
        if j in fixed:
            axes.append([fixed[j]])
            continue
        lo, hi = shape_domain(dist, j)
        if np.isfinite(lo) and np.isfinite(hi):
            vals = lo + (hi - lo) * np.array([0.2, 0.5, 0.8, 0.35, 0.65])
        elif np.isfinite(lo):
            vals = max(lo, 0.0) + np.array([1.0, 0.3, 3.0, 10.0, 0.6])
            vals = vals[vals > lo]
        elif np.isfinite(hi):
            vals = min(hi, 0.0) - np.array([1.0, 0.3, 3.0, 10.0, 0.6])
        else:
            # 0 first: the symmetric or limiting member (skewnorm, genextreme, kappa4 with
            # k = 0) that the other values straddle
            vals = np.array([0.0, 0.5, -0.5, 2.0, -2.0])
            if both_signs:
                axes.append(list(vals[:max(per_shape, 3)]))
                continue
        axes.append(list(vals[:per_shape]))
    return [tuple(p) for p in itertools.product(*axes)]


def _data_free(fn):
    """Memoise a property of the standard distribution at given shapes (the same shape
    grid recurs in every fit of a family); unhashable user distributions skip the cache."""
    cached = functools.lru_cache(maxsize=1024)(fn)

    @functools.wraps(fn)
    def call(dist, shapes):
        shapes = tuple(float(s) for s in shapes)
        try:
            return cached(dist, shapes)
        except TypeError:
            return fn(dist, shapes)
    return call


@_data_free
def _standard_quartiles(dist, shapes) -> np.ndarray | None:
    q = standard_quantiles(dist, shapes, _QUARTILES)
    if not (np.all(np.isfinite(q)) and q[2] > q[0]):
        return None
    q.setflags(write=False)  # shared by every later call
    return q


def _private_mean_var(dist, shapes) -> tuple | None:
    """``(mean, variance)`` from the distribution's own closed forms -- ``_stats``, or
    the raw moments of ``_munp`` where ``_stats`` leaves them out -- as ``dist.stats``
    computes them at loc 0, scale 1, without its argument handling (~40-140 us a call,
    and the shape grid asks at up to 17 shape vectors per fit); None where neither is
    the distribution's own (scipy would integrate the pdf numerically) or they fail."""
    out = None
    if _overrides(dist, "_stats"):
        try:
            out = own_statistics(dist, shapes, "mv")
        except Exception:
            return None
        if out is None or len(out) < 2:
            return None
    mean, var = (None, None) if out is None else (out[0], out[1])
    if mean is None or var is None:
        # what scipy's stats does with a None moment: raw moments from _munp
        if not _overrides(dist, "_munp"):
            return None  # kappa4: a None that sends scipy to numerical integration
        try:
            with np.errstate(all="ignore"):
                if mean is None:
                    mean = dist._munp(1, *shapes)
                if var is None:
                    m = float(np.asarray(mean))
                    var = dist._munp(2, *shapes) - m * m if math.isfinite(m) else math.inf
        except Exception:
            return None
    try:
        return float(np.asarray(mean)), float(np.asarray(var))
    except (TypeError, ValueError):  # not a single number
        return None


def _moments_cheap(dist, shapes) -> bool:
    """Whether ``dist.stats`` has closed forms at ``shapes`` (without them scipy
    integrates the pdf numerically: 0.1-2 s per call, more than a whole fit)."""
    return _private_mean_var(dist, shapes) is not None


_MIDPOINTS = (np.arange(128) + 0.5) / 128


@_data_free
def _standard_mean_std(dist, shapes) -> tuple[float, float] | None:
    """Mean and standard deviation of the standard distribution: exact where scipy has
    closed forms, else those of 128 evenly spaced quantiles (a cheap stand-in, good
    enough for a starting point) where the ppf is explicit, else None."""
    mv = _private_mean_var(dist, shapes)
    if mv is not None:
        m, v = mv
    elif _overrides(dist, "_ppf"):
        q = standard_quantiles(dist, shapes, _MIDPOINTS)
        m, v = float(np.mean(q)), float(np.var(q))
    else:
        return None
    return (m, np.sqrt(v)) if np.isfinite(m) and np.isfinite(v) and v > 0 else None


def _match(fixed, li, centre, spread, std_centre, std_spread):
    """loc, scale with ``loc + scale*std_centre = centre`` and matching spreads."""
    loc, scale = fixed.get(li), fixed.get(li + 1)
    if scale is None and loc is not None and std_centre != 0:
        scale = (centre - loc) / std_centre
        if not scale > 0:
            scale = spread / std_spread
    elif scale is None:
        scale = spread / std_spread
    if loc is None:
        loc = centre - scale * std_centre
    return loc, scale


def fit_into_support(dist, theta, fixed: dict, summary: SampleSummary,
                     gap_floor: float = 0.0) -> np.ndarray | None:
    """Move loc (or widen scale) so that every observation lies strictly inside."""
    theta = np.array(theta, dtype=float)
    li, si = theta.size - 2, theta.size - 1
    shapes = tuple(theta[:li])
    if not valid_shapes(dist, shapes) or not theta[si] > 0:
        return None
    try:
        a, b = support(dist, shapes)
    except Exception:
        return None
    loc, scale = theta[li], theta[si]
    span = summary.zmax - summary.zmin
    floor = 2.0 * gap_floor
    gap_lo = max(4.0 * (summary.quartiles[0] - summary.zmin) / summary.n, 1e-6 * span, floor)
    gap_hi = max(4.0 * (summary.zmax - summary.quartiles[2]) / summary.n, 1e-6 * span, floor)
    lo_end, hi_end = loc + a * scale, loc + b * scale
    ok_lo = not np.isfinite(a) or lo_end < summary.zmin - floor
    ok_hi = not np.isfinite(b) or hi_end > summary.zmax + floor
    if ok_lo and ok_hi:
        return theta
    if np.isfinite(a) and np.isfinite(b) and li not in fixed and si not in fixed:
        lo_end = min(lo_end, summary.zmin - gap_lo)
        hi_end = max(hi_end, summary.zmax + gap_hi)
        scale = (hi_end - lo_end) / (b - a)
        loc = lo_end - a * scale
    elif li not in fixed:
        if not ok_lo:
            loc = summary.zmin - gap_lo - a * scale
        elif not ok_hi:
            loc = summary.zmax + gap_hi - b * scale
        if np.isfinite(a) and np.isfinite(b) and not (
                loc + a * scale < summary.zmin - floor and loc + b * scale > summary.zmax + floor):
            # scale fixed and both ends finite: loc has a window, (zmax - b scale,
            # zmin - a scale), narrower than the gaps above when the fixed scale is just
            # wide enough for the data (arcsine or rdist at their true scale): its middle
            lo_loc = summary.zmax + floor - b * scale
            hi_loc = summary.zmin - floor - a * scale
            if not lo_loc < hi_loc:
                return None
            loc = 0.5 * (lo_loc + hi_loc)
    elif si not in fixed:
        # loc fixed: grow the scale until the support covers the data, if it can
        need = []
        if not ok_lo and a < 0:
            need.append((summary.zmin - gap_lo - loc) / a)
        if not ok_hi and b > 0:
            need.append((summary.zmax + gap_hi - loc) / b)
        if not need:
            return None
        scale = max(need + [scale])
    else:
        # loc and scale both fixed: only shapes that are themselves ends of the
        # support can make room (truncweibull_min's a and b)
        shapes = _ends_moved_by_shapes(
            dist, shapes, fixed, None if ok_lo else (summary.zmin - gap_lo - loc) / scale,
            None if ok_hi else (summary.zmax + gap_hi - loc) / scale)
        if shapes is None:
            return None
        theta[:li] = shapes
    theta[li], theta[si] = loc, scale
    return theta


def _ends_moved_by_shapes(dist, shapes: tuple, fixed: dict, lower: float | None,
                          upper: float | None) -> tuple | None:
    """``shapes`` with the free ones that are ends of the standard support
    (:func:`.tight_ends.shape_ends`) moved so that those ends are at ``lower`` and
    ``upper`` (None: that end is fine as it is); None where no free shape is the
    violated end, or the result is not valid.

    Examples
    --------
    >>> from scipy import stats
    >>> _ends_moved_by_shapes(stats.truncweibull_min, (2.0, 0.0, 1.0), {}, None, 1.7)
    (2.0, 0.0, 1.7)
    >>> _ends_moved_by_shapes(stats.gamma, (2.0,), {}, -1.0, None) is None
    True
    """
    free = [j for j in range(len(shapes)) if j not in fixed]
    ends = shape_ends(dist, shapes, free)
    current = support(dist, tuple(shapes))
    moved = list(shapes)
    for want, j, end in zip((lower, upper), ends, current, strict=True):
        if want is None:
            continue
        if j is None:
            return None
        moved[j] += want - end  # (the end moves one for one with the shape)
    moved = tuple(moved)
    if not valid_shapes(dist, moved):
        return None
    a, b = support(dist, moved)
    if (lower is not None and not a <= lower) or (upper is not None and not b >= upper):
        return None
    return moved


def exact_candidate(dist, z: np.ndarray, fixed: dict) -> Candidate | None:
    """The closed-form MLE for this fixed set, as a candidate, or None where none exists.

    Cheap and independent of every other guess: a maximum-likelihood fit tries it
    before it summarises the data for the others.
    """
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cf = closed_form_mle(dist, z, fixed)
    if cf is None:
        return None
    theta = np.asarray(cf, dtype=float)
    for i, v in fixed.items():
        theta[i] = v
    return Candidate("closed_form", theta, True) if np.all(np.isfinite(theta)) else None


def generate_candidates(dist, fixed: dict, guesses: dict, summary: SampleSummary,
                        z: np.ndarray, n_shapes: int, gap_floor: float = 0.0,
                        inside: bool = True) -> list[Candidate]:
    """All starting candidates, in standardised coordinates, cheapest first.

    ``inside``: each is moved so that the data lie strictly inside its support (what a
    likelihood needs); the method of moments, which does not need it, passes False:
    with 72 of 100 gamma(0.01) observations on a fixed ``loc`` no start could be.
    """
    li = n_shapes
    out: list[Candidate] = []

    def add(start, theta, exact=False):
        theta = np.asarray(theta, dtype=float)
        for i, v in fixed.items():
            theta[i] = v
        if not np.all(np.isfinite(theta)):
            return
        if not inside:
            if not (valid_shapes(dist, tuple(theta[:li])) and theta[li + 1] > 0):
                return
        elif not exact:
            theta = fit_into_support(dist, theta, fixed, summary, gap_floor)
        if theta is not None:
            out.append(Candidate(start, theta, exact))

    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        exact = exact_candidate(dist, z, fixed)
        if exact is not None:
            out.append(exact)
        # scipy's generic _fitstart takes the moments of the standard distribution at
        # shapes 1.0: where those are integrated numerically, the moment candidates
        # below (shape grid led by 1.0, cheap moments) stand in for it
        fitstart = _safe_fitstart(dist, z, n_shapes) if (
            _overrides(dist, "_fitstart") or _moments_cheap(dist, (1.0,) * n_shapes)
        ) else None
        if guesses:
            base = fitstart if fitstart is not None else np.r_[np.ones(n_shapes), 0.0, 1.0]
            theta = base.copy()
            for i, v in guesses.items():
                theta[i] = v
            add("user", theta)
        if fitstart is not None:
            add("scipy_fitstart", fitstart)
        shape_sets = []
        if fitstart is not None:
            shape_sets.append(tuple(fitstart[:n_shapes]))
        cheap_ppf = _overrides(dist, "_ppf") or _overrides(dist, "_cdf")
        per_shape = 5 if n_shapes <= 1 else 4 if n_shapes == 2 else 3 if n_shapes == 3 else 2
        if not cheap_ppf:
            per_shape = min(per_shape, 2)
        grid = shape_grid(dist, n_shapes, fixed, per_shape, both_signs=not cheap_ppf
                          ) if n_shapes else [()]
        # quantiles where scipy's ppf solves by integrating the pdf (~0.2 s a shape
        # vector): the first two sets, and the first with each shape over the whole line
        # negative -- a skewness written as a user's subclass, fitted to left-skewed data,
        # had only the starts 0 and 0.5, converged to the stationary point at 0 and said
        # success, 6-22 log-likelihood units short
        quantile_sets = {0, 1}
        for j in range(n_shapes):
            first = next((k for k, g in enumerate(grid) if g[j] < 0), None)
            if j not in fixed and first is not None:
                quantile_sets.add(len(shape_sets) + first)
        shape_sets += grid
        for k, shapes in enumerate(shape_sets):
            shapes = tuple(fixed.get(j, s) for j, s in enumerate(shapes))
            if not valid_shapes(dist, shapes):
                continue
            ms = _safe(_standard_mean_std, dist, shapes)
            if ms is not None:
                loc, scale = _match(fixed, li, summary.mean, summary.std, *ms)
                add("moments", (*shapes, loc, scale))
            if cheap_ppf or k in quantile_sets:
                q = _safe(_standard_quartiles, dist, shapes)
                if q is not None:
                    loc, scale = _match(fixed, li, summary.quartiles[1],
                                        summary.quartiles[2] - summary.quartiles[0], q[1],
                                        q[2] - q[0])
                    add("quantiles", (*shapes, loc, scale))
        if not out:
            # neither moments nor quantiles at any shape: a user's distribution with a
            # _logpdf alone, whose scipy pdf, cdf and moments recurse into each other
            # (scipy's own fit dies with RecursionError); the likelihood needs only
            # the log-density: start at the standardised data's own location and scale.
            # The whole grid is tried, the first DEFAULT_STARTS that take the data in
            # kept: where the shapes set the support's ends and loc and scale are fixed
            # (a user's density on [0, c]), only some of them do
            wide = shape_grid(dist, n_shapes, fixed, 5) if n_shapes else [()]
            for shapes in wide:
                if len(out) >= DEFAULT_STARTS:
                    break
                if valid_shapes(dist, shapes):
                    add("default", (*shapes, 0.0, 1.0))
    return out


def _safe(fn, *args):
    try:
        return fn(*args)
    except Exception:
        return None


def _safe_fitstart(dist, z, n_shapes) -> np.ndarray | None:
    try:
        start = np.asarray(dist._fitstart(z), dtype=float).ravel()
    except Exception:
        return None
    if start.size != n_shapes + 2 or not np.all(np.isfinite(start)):
        return None
    return start
