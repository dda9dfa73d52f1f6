"""Guarded negative log-likelihoods of complete and censored samples.

Every function returns ``inf`` (never NaN, never an exception) at parameters that are
invalid, put data outside the support, or make the density underflow to zero at some
observation; floating-point warnings are silenced here and never reach the user.
"""

from __future__ import annotations

import functools
import math

import numpy as np
from scipy import stats

from .accurate_logpdf import accurate_log_tails, accurate_logpdf
from .families import scipy_family_entry
from .interval_quadrature import log_interval_probabilities
from .log_tails import below_median, median_free_log_tails

_DEFAULT_ARGCHECK = stats.rv_continuous._argcheck
_DEFAULT_GET_SUPPORT = stats.rv_continuous._get_support


def support(dist, shapes) -> tuple[float, float]:
    """Support ``(a, b)`` of the standard distribution at ``shapes``."""
    if not shapes:
        return _support(dist, ())
    return _support(dist, tuple(float(s) for s in shapes))


def _pearson3_support(skew: float) -> tuple[float, float]:
    """pearson3 is a gamma reflected for negative skew: its density vanishes beyond
    ``-2/skew``, which scipy does not declare (its support reads (-inf, inf))."""
    if skew > 0:
        return -2.0 / skew, math.inf
    if skew < 0:
        return -math.inf, -2.0 / skew
    return -math.inf, math.inf


# scipy distributions whose density vanishes outside a shape-dependent range that
# ``_get_support`` does not report: without it the optimiser meets a wall of zero
# density instead of a boundary it can follow
_UNDECLARED_SUPPORT = {"pearson3": _pearson3_support}


def _support(dist, shapes: tuple) -> tuple[float, float]:
    """``support`` for a tuple of Python floats: the hot path of every evaluation."""
    if type(dist)._get_support is _DEFAULT_GET_SUPPORT:
        exact = scipy_family_entry(dist, _UNDECLARED_SUPPORT)
        if exact is not None:
            return exact(*shapes)
        return float(dist.a), float(dist.b)  # scipy's default: the same for all shapes
    return _support_cached(dist, shapes)


@functools.lru_cache(maxsize=512)
def _support_cached(dist, shapes: tuple) -> tuple[float, float]:
    # cached: finite-difference gradients evaluate many points that share the shapes
    a, b = dist._get_support(*shapes)
    return float(np.asarray(a)), float(np.asarray(b))


def valid_shapes(dist, shapes) -> bool:
    if not shapes:
        return True
    if type(dist)._argcheck is _DEFAULT_ARGCHECK:
        # scipy's default check, on Python floats (numpy costs ~30 us per call here)
        return all(float(s) > 0 for s in shapes)
    try:
        return _valid_shapes(dist, tuple(map(float, shapes)))
    except TypeError:  # unhashable: a user distribution
        return False


@functools.lru_cache(maxsize=512)
def _valid_shapes(dist, shapes: tuple) -> bool:
    # Python floats first: every optimiser step has new shapes, so this runs on cache
    # misses, and numpy's 0-d conversions doubled its cost; an _argcheck that needs
    # arrays gets them
    with np.errstate(all="ignore"):
        for as_arrays in (False, True):
            args = [np.asarray(s) for s in shapes] if as_arrays else shapes
            try:
                return bool(np.all(dist._argcheck(*args)))
            except Exception:  # cannot handle this kind of value
                continue
    return False  # a user _argcheck that cannot handle the value: treat as invalid


# nats per observation by which the mean log-density may exceed the data's own
# (spacing) estimate of it before the value is taken for rounding garbage
PLAUSIBLE_MARGIN = 15.0


def plausible_ceiling(z: np.ndarray) -> float:
    """The largest total log-density of ``z`` a distribution can plausibly give.

    Each observation's spacing ``(z_(i+1) - z_(i-1)) / 2`` estimates ``1 / (n f(z_i))``
    (Vasicek's entropy estimator); where the mean log-density of a fitted density beats
    the median of those estimates by ``PLAUSIBLE_MARGIN`` nats, most observations would
    carry a density ``e^15`` times what the data allow, and the mass of the density
    between them would exceed one by as much. No density does; scipy's ``logpdf`` in a
    far corner of its parameters can: betaprime at ``a = 8e27``, ``scale = 7e-28`` (a
    ridge towards the inverse-gamma limit) returns 342.8 at every point, a likelihood of
    e^342800 for 1000 observations. A single singular point (a density with an infinite
    edge) cannot reach the ceiling: float64 caps its log-density near 40 nats.
    ``inf`` (no ceiling) for fewer than three distinct points or more than half ties.
    """
    x = np.asarray(z, dtype=float)
    if x.size > 1 and not np.all(x[1:] >= x[:-1]):  # (the fit's samples come sorted)
        x = np.sort(x)
    n = x.size
    if n < 3 or not np.all(np.isfinite(x)):
        return math.inf
    gaps = np.empty(n)
    gaps[1:-1] = (x[2:] - x[:-2]) / 2
    gaps[0], gaps[-1] = x[1] - x[0], x[-1] - x[-2]
    with np.errstate(divide="ignore"):
        estimates = -np.log(n * gaps)
    typical = float(np.median(estimates))
    if not math.isfinite(typical):
        return math.inf
    # the mean where it is higher: a log-density skewed towards large values puts the
    # mean far above the median (gamma(0.01) spreads its sample over 200 decades, and
    # its mean log-density, 94 nats, is 30 above the median; the truth itself was
    # refused, and every start of gamma.fit(x, floc=0))
    typical = max(typical, float(np.mean(estimates[np.isfinite(estimates)])))
    return n * (typical + PLAUSIBLE_MARGIN)


class CompleteNLL:
    """``theta -> -sum(logpdf(z; theta))`` for uncensored data ``z``.

    Uses the distribution's ``_logpdf`` on the standardised variable directly (what
    scipy's own ``nnlf`` computes, without its per-call argument reshuffling), or an
    accurate replacement of it (see :mod:`.accurate_logpdf`); falls back to the public
    ``logpdf`` for distributions whose private method cannot take scalar shapes.
    """

    def __init__(self, dist, z: np.ndarray, plausible: bool = True,
                 ceiling: float | None = None):
        self.dist = dist
        self._logpdf = accurate_logpdf(dist) or dist._logpdf
        self.z = z
        self.n = z.size
        self.zmin = float(z.min()) if z.size else 0.0
        self.zmax = float(z.max()) if z.size else 0.0
        self._private_ok = True
        self._scalar_ok = True
        # which private call has returned a whole array once: after that, an exception
        # from it is the point's (boost's overflow in nct's density at nc = 1e4), not a
        # sign that it cannot take such arguments
        self._proven: str | None = None
        self._batch_ok = True  # rows of parameters in one _logpdf call (see many)
        self._batch_checked = False
        self.nfev = 0
        # computed at the first value (see plausible_ceiling) unless the caller knows it
        # for these data; inf: no check, for a likelihood asked once at known parameters
        # (the sufficient-statistics path, whose 1e7 observations would otherwise be
        # sorted for it)
        self._ceiling = ceiling if plausible else math.inf

    def __call__(self, theta) -> float:
        # scalars as Python floats and math: this runs once per optimiser evaluation,
        # and numpy's per-call overhead on 0-d values would double the cost at n ~ 1e3
        self.nfev += 1
        point = self._feasible(theta)
        if point is None:
            return math.inf
        shapes, loc, scale = point
        with np.errstate(all="ignore"):
            total = self._sum_logpdf(shapes, loc, scale)
        return self._value(total, scale)

    def many(self, thetas) -> list[float]:
        """The NLL at several parameter vectors, with one vectorised ``_logpdf`` call
        where the density broadcasts over rows of shapes (a finite-difference gradient
        evaluates ``d`` neighbouring points; one call instead of ``d`` saves the
        per-call overhead that dominates at n ~ 1e3). Checked once against single
        evaluations; a density that computes rows differently is evaluated row by row.
        """
        self.nfev += len(thetas)
        out = [math.inf] * len(thetas)
        rows = [(i, p) for i, p in enumerate(map(self._feasible, thetas)) if p is not None]
        if not rows:
            return out
        sums = self._batch_sums([p for _, p in rows]) if len(rows) > 1 else None
        if sums is None:
            with np.errstate(all="ignore"):
                sums = [self._sum_logpdf(*p) for _, p in rows]
        for (i, p), total in zip(rows, sums, strict=True):
            out[i] = self._value(total, p[2])
        return out

    def admits(self, theta) -> bool:
        """Whether ``theta`` is valid and keeps every observation inside the support the
        family declares (where the NLL is still not finite, the density itself is)."""
        return self._feasible(theta) is not None

    def _feasible(self, theta):
        """``(shapes, loc, scale)`` as Python floats, or None where the parameters are
        invalid or put an observation outside the support."""
        values = theta if type(theta) is list else np.asarray(theta, dtype=float).tolist()
        shapes = tuple(values[:-2])
        loc, scale = values[-2], values[-1]
        if not (scale > 0 and math.isfinite(scale) and math.isfinite(loc)):
            return None
        if shapes and not (all(map(math.isfinite, shapes))
                           and valid_shapes(self.dist, shapes)):
            return None
        try:
            a, b = _support(self.dist, shapes)
        except Exception:
            return None
        if (self.zmin - loc) / scale < a or (self.zmax - loc) / scale > b:
            return None
        return shapes, loc, scale

    def _value(self, total: float, scale: float) -> float:
        if not math.isfinite(total):
            return math.inf
        value = -total + self.n * math.log(scale)
        if self._ceiling is None:
            self._ceiling = plausible_ceiling(self.z)
        if -value > self._ceiling:
            return math.inf  # a density no distribution has: rounding in logpdf
        return value

    def _batch_sums(self, points) -> list[float] | None:
        """Row sums of ``_logpdf`` for several points in one call, or None where the
        density does not evaluate rows as it evaluates single points."""
        if not self._batch_ok or not (self._private_ok and self._scalar_ok):
            return None
        loc = np.array([p[1] for p in points])[:, None]
        scale = np.array([p[2] for p in points])[:, None]
        n_shapes = len(points[0][0])
        args = [np.array([p[0][j] for p in points])[:, None] for j in range(n_shapes)]
        with np.errstate(all="ignore"):
            try:
                u = (self.z - loc) / scale
                logpdf = self._logpdf(u, *args)
            except Exception:
                if self._batch_checked:  # (rows agreed before: a point failed, not rows)
                    return None
                logpdf = None
            if logpdf is None or np.shape(logpdf) != u.shape:
                self._batch_ok = False
                return None
            sums = np.sum(logpdf, axis=1).tolist()
            if self._batch_checked:
                return sums
            self._batch_checked = True
            single = [self._sum_logpdf(*p) for p in points]
        agree = all(a == b or not (math.isfinite(a) or math.isfinite(b))
                    or abs(a - b) <= 1e-12 * max(1.0, abs(b))
                    for a, b in zip(sums, single, strict=True))
        if not agree:
            self._batch_ok = False
        return single

    def logpdf_at(self, u: np.ndarray, shapes: tuple) -> np.ndarray:
        """The standard log-density at the points ``u`` (any shape): the private or
        accurate ``_logpdf`` where it takes scalar shapes, else the public ``logpdf``."""
        out = None
        if self._private_ok and self._scalar_ok:
            try:
                out = np.asarray(self._logpdf(u, *shapes), dtype=float)
            except Exception:
                out = None  # (the public logpdf below)
        if out is None or out.shape != np.shape(u):
            out = np.asarray(self.dist.logpdf(u, *shapes), dtype=float)
        return out

    def _sum_logpdf(self, shapes, loc, scale) -> float:
        u = (self.z - loc) / scale
        if self._private_ok and self._scalar_ok:
            try:
                # scalar shapes, as scipy's own fit passes them to _logpdf
                logpdf = self._logpdf(u, *shapes)
            except Exception:
                if self._proven == "scalar":
                    return self._public_sum(u, shapes)
                logpdf = None
            if type(logpdf) is np.ndarray and logpdf.shape == u.shape:
                self._proven = "scalar"
                return float(logpdf.sum())
            if logpdf is not None and np.shape(logpdf) == u.shape:
                self._proven = "scalar"
                return float(np.sum(logpdf))
            self._scalar_ok = False  # this _logpdf wants shapes shaped like x
            self._proven = None
        if self._private_ok:
            try:
                args = [np.broadcast_to(np.asarray(s, dtype=float), u.shape)
                        for s in shapes]
                total = float(np.sum(self._logpdf(u, *args)))
                self._proven = "broadcast"
                return total
            except Exception:
                if self._proven != "broadcast":
                    self._private_ok = False
        return self._public_sum(u, shapes)

    def _public_sum(self, u: np.ndarray, shapes) -> float:
        """The sum by scipy's public ``logpdf``, which takes the shapes as arrays (a
        private one that raised on Python floats -- a division by a shape of 0 -- may
        not), or NaN where that raises too: one failed point leaves the faster private
        path in place for the others (it had been given up for good, and a fit went on
        at the public one's price after a single overflow)."""
        try:
            return float(np.sum(self.dist.logpdf(u, *shapes)))
        except Exception:
            return np.nan


class CensoredNLL:
    """Negative log-likelihood of a ``scipy.stats.CensoredData`` sample (standardised).

    Uncensored values contribute ``logpdf``; left-censored ``logcdf``; right-censored
    ``logsf``; interval-censored ``log(cdf(hi) - cdf(lo))``, computed on whichever tail
    is more accurate. Censored values that repeat (every unit still running when a test
    stops is censored at its end) are evaluated once and counted: where scipy's cdf is
    a numerical integral (norminvgauss), 30 right-censored values at one time cost what
    one does.
    """

    def __init__(self, dist, uncensored, left, right, lo, hi):
        self.dist = dist
        # (logcdf, logsf) of the standard distribution for the censored values: accurate
        # ones (which take the intervals too), or ones without scipy's per-call median
        # where that is a root-finding (no _ppf of the family's own); None: scipy's
        accurate = accurate_log_tails(dist)
        self._tails = accurate or median_free_log_tails(dist)
        self._tails_take_intervals = accurate is not None
        self.complete = CompleteNLL(dist, uncensored)
        self.left, self.left_count = _with_counts(left)
        self.right, self.right_count = _with_counts(right)
        self.lo, self.hi, self.interval_count = _intervals_with_counts(lo, hi)
        self.n = uncensored.size
        self.nfev = 0
        # the values the support must reach beyond: its lower end below every exact
        # value, left-censoring point and interval top (a right-censoring point below
        # it only contributes sf = 1), its upper end above every exact value,
        # right-censoring point and interval bottom
        below = np.concatenate([uncensored, left, hi])
        above = np.concatenate([uncensored, right, lo])
        every = np.concatenate([uncensored, left, right, lo, hi])
        self.zmin = float(np.min(below if below.size else every))
        self.zmax = float(np.max(above if above.size else every))

    def __call__(self, theta) -> float:
        self.nfev += 1
        theta = np.asarray(theta, dtype=float)
        shapes = tuple(theta[:-2])
        loc, scale = float(theta[-2]), float(theta[-1])
        if not (scale > 0 and np.isfinite(scale) and np.isfinite(loc)):
            return np.inf
        if not np.all(np.isfinite(theta[:-2])) or not valid_shapes(self.dist, shapes):
            return np.inf
        nll = self.complete(theta) if self.n else 0.0
        if not np.isfinite(nll):
            return np.inf
        d = self.dist
        with np.errstate(all="ignore"):
            try:
                if self._tails is not None:
                    total = _censored_terms(d, self._tails, self, shapes, loc, scale,
                                            intervals=self._tails_take_intervals)
                else:
                    total = 0.0
                    if self.left.size:
                        total += np.sum(self.left_count * d.logcdf(
                            self.left, *shapes, loc=loc, scale=scale))
                    if self.right.size:
                        total += np.sum(self.right_count * d.logsf(
                            self.right, *shapes, loc=loc, scale=scale))
                if self.lo.size and not self._tails_take_intervals:
                    total += self._interval_terms(shapes, loc, scale)
            except Exception:
                return np.inf
        if not np.isfinite(total):
            return np.inf
        return float(nll - total)

    def _interval_terms(self, shapes, loc, scale) -> float:
        """The intervals' log-probabilities: by quadrature of the density where it is
        smooth across them (:mod:`.interval_quadrature`; scipy's cdf of gausshyper is a
        numerical integral, and 15 intervals took 10 s of a 10.5 s fit), the others
        from the cdf."""
        lo = (self.lo - loc) / scale
        hi = (self.hi - loc) / scale
        try:
            values, done = log_interval_probabilities(
                lambda u: self.complete.logpdf_at(u, shapes), lo, hi,
                support(self.dist, shapes))
        except Exception:  # (a user's density that takes no 2-D array: the cdf alone)
            values, done = np.full(lo.shape, np.nan), np.zeros(lo.shape, dtype=bool)
        count = self.interval_count
        total = float(np.sum(count[done] * values[done]))
        rest = ~done
        if np.any(rest):
            total += float(np.sum(count[rest] * _log_interval_prob(
                self.dist, self.lo[rest], self.hi[rest], shapes, loc, scale)))
        return total


def _censored_terms(d, tails, data, shapes, loc, scale, intervals: bool = True) -> float:
    """The censored observations' log-probabilities from accurate log-cdf and log-sf
    ``tails`` of the standard distribution (see :mod:`.accurate_logpdf`), with the ends
    of the support handled here: 0 and -inf beyond them. ``intervals=False`` leaves the
    intervals out (the caller's quadrature takes them)."""
    a, b = support(d, shapes)
    logcdf, logsf = tails

    def tail(v, log_tail, below, above):
        u = (v - loc) / scale
        inside = log_tail(np.clip(u, a, b), *shapes)
        return np.where(u <= a, below, np.where(u >= b, above, inside))

    def cdf_log(v):
        return tail(v, logcdf, -np.inf, 0.0)

    def sf_log(v):
        return tail(v, logsf, 0.0, -np.inf)

    total = 0.0
    if data.left.size:
        total += float(np.sum(data.left_count * cdf_log(data.left)))
    if data.right.size:
        total += float(np.sum(data.right_count * sf_log(data.right)))
    if data.lo.size and intervals:
        # log(F(hi) - F(lo)) on whichever tail is smaller, so that it does not cancel
        c_lo, c_hi = cdf_log(data.lo), cdf_log(data.hi)
        s_lo, s_hi = sf_log(data.lo), sf_log(data.hi)
        lower = c_hi + np.log1p(-np.exp(c_lo - c_hi))
        upper = s_lo + np.log1p(-np.exp(s_hi - s_lo))
        total += float(np.sum(data.interval_count
                              * np.where(c_hi < np.log(0.5), lower, upper)))
    return total


def _with_counts(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct ``values`` (sorted) and how often each occurs, as floats."""
    distinct, counts = np.unique(values, return_counts=True)
    return distinct, counts.astype(float)


def _intervals_with_counts(lo: np.ndarray, hi: np.ndarray):
    """The distinct intervals ``(lo, hi)`` (sorted by ``lo``) and how often each
    occurs, as floats."""
    if lo.size == 0:
        return lo, hi, np.zeros(0)
    rows, counts = np.unique(np.column_stack([lo, hi]), axis=0, return_counts=True)
    return rows[:, 0].copy(), rows[:, 1].copy(), counts.astype(float)


def _log_interval_prob(d, lo, hi, shapes, loc, scale):
    """``log(P(lo < X <= hi))``, via the sf above the median to avoid cancellation
    (the side told by the cdf and sf at ``lo``: the median itself is a root-finding on
    the cdf where scipy has no closed-form ppf).

    A cdf that falls again far out is wrong there (norminvgauss's, a numerical integral
    from -inf, is 7e-15 at 60 standard units): the side of each ``lo`` is told as
    :func:`.log_tails.below_median` tells it, with the sf where the cdf is suspect."""
    kw = dict(loc=loc, scale=scale)
    a, b = support(d, shapes)
    upper = ~below_median(d, np.clip((lo - loc) / scale, a, b), shapes)
    c_lo = np.asarray(d.cdf(lo, *shapes, **kw), dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.log(np.asarray(d.cdf(hi, *shapes, **kw), dtype=float) - c_lo)
        if np.any(upper):
            out[upper] = np.log(d.sf(lo[upper], *shapes, **kw)
                                - d.sf(hi[upper], *shapes, **kw))
    return out
