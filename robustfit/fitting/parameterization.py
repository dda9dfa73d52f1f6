"""Unconstrained coordinates for the optimiser.

Free shapes map through their domain (``lo + exp(t)``, ``hi - exp(t)``, a logistic map
on a bounded domain, identity on the real line); the scale through ``exp``. Where the
support is bounded by ``loc`` (and ``loc + scale``), the location is expressed as a gap
``exp(t)`` beyond the extreme observation, so every point the optimiser visits keeps all
data strictly inside the support instead of relying on a penalty. On an unbounded
support with both free, the coordinate is ``loc / scale`` (Burridge's natural one): where
a shape runs towards a limit of the family, loc runs off like ``-scale log(c)``
(loggamma) or ``-scale c``, a valley that is straight in ``loc / scale`` and curved,
exponentially long, in ``loc``.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logit

from .likelihood import _support, support
from .spec import shape_domain

_TINY = 1e-300


def _exp(x: float) -> float:
    """``exp`` of a Python float, ``inf`` on overflow (math is ~20x faster than numpy on
    scalars, and the map runs once per likelihood evaluation)."""
    try:
        return math.exp(x)
    except OverflowError:
        return math.inf


def _expit(x: float) -> float:
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    e = _exp(x)
    return e / (1.0 + e)


def _support_kind(a: float, b: float) -> tuple[bool, bool]:
    return math.isfinite(a), math.isfinite(b)


class Parameterization:
    """Bijection between ``t`` (free, unconstrained) and full ``theta`` (standardised).

    Parameters
    ----------
    dist : rv_continuous
    fixed : dict
        Index -> value of fixed parameters, in standardised coordinates.
    n_params : int
        Shapes + 2.
    zmin, zmax : float
        Extremes of the standardised data that must stay inside the support.
    ref_shapes : sequence of float
        Shapes at which the kind of support (bounded below/above) is read; the
        parameterisation stays valid while the kind does not change.
    bounded : bool
        If False, use a free location (no support-aware gap), e.g. to let a fit cross
        from one kind of support to another.
    """

    def __init__(self, dist, fixed: dict, n_params: int, zmin: float, zmax: float,
                 ref_shapes, bounded: bool = True, gap_floor: float = 0.0):
        self.dist = dist
        self.fixed = dict(fixed)
        self.n_params = n_params
        self.n_shapes = n_params - 2
        self.free = [i for i in range(n_params) if i not in self.fixed]
        self.zmin, self.zmax = zmin, zmax
        self.domains = [shape_domain(dist, j) for j in range(self.n_shapes)]
        a, b = support(dist, tuple(ref_shapes))
        self.kind = _support_kind(a, b) if bounded else (False, False)
        self.bounded = bounded
        # smallest gap between an extreme observation and the end of the support: keeps
        # the data inside the support after mapping back to the user's coordinates
        self.gap_floor = float(gap_floor)
        self._template = [float(self.fixed.get(i, 0.0)) for i in range(n_params)]
        self._free_shapes = [j for j in self.free if j < self.n_shapes]

    def _gap(self, t):
        return self.gap_floor + _exp(t)

    def _gap_t(self, g):
        g = g - self.gap_floor
        return np.log(g) if g > 0 else None

    def gap_positions(self) -> list[int]:
        """Positions in ``t`` of the coordinates that are gaps ``exp(t)`` between an
        extreme observation and an end of the support (t -> -inf: on the edge)."""
        if not self.bounded:
            return []
        li, si = self.n_shapes, self.n_shapes + 1
        lower, upper = self.kind
        out = []
        if li in self.free and (lower or upper):
            if not (lower and upper) or si in self.free:  # two-sided, fixed scale: expit
                out.append(self.free.index(li))
        if si in self.free and li in self.free and lower and upper:
            out.append(self.free.index(si))
        return out

    def gap_end(self, position: int) -> int:
        """The end of the support (0 lower, 1 upper) whose gap is the coordinate at
        ``position`` (one of :meth:`gap_positions`)."""
        li = self.n_shapes
        lower, _ = self.kind
        return 0 if self.free[position] == li and lower else 1

    # -- shapes ----------------------------------------------------------------------
    def _shape_from_t(self, j, t):
        lo, hi = self.domains[j]
        if math.isfinite(lo) and math.isfinite(hi):
            return lo + (hi - lo) * _expit(t)
        if math.isfinite(lo):
            return lo + _exp(t)
        if math.isfinite(hi):
            return hi - _exp(t)
        return t

    def _shape_to_t(self, j, v):
        lo, hi = self.domains[j]
        if np.isfinite(lo) and np.isfinite(hi):
            p = np.clip((v - lo) / (hi - lo), 1e-12, 1 - 1e-12)
            return float(logit(p))
        if np.isfinite(lo):
            return float(np.log(max(v - lo, _TINY)))
        if np.isfinite(hi):
            return float(np.log(max(hi - v, _TINY)))
        return float(v)

    # -- the map ---------------------------------------------------------------------
    def to_theta(self, t) -> np.ndarray | None:
        """Full standardised parameters for ``t``, or None where ``t`` is infeasible."""
        values = self.theta_values(t)
        return None if values is None else np.array(values)

    def theta_values(self, t) -> list[float] | None:
        """:meth:`to_theta` as a list of Python floats: the map runs once per likelihood
        evaluation, and numpy's overhead on a handful of scalars is most of its cost."""
        ts = t.tolist() if hasattr(t, "tolist") else [float(v) for v in t]
        theta = self._template.copy()
        free = dict(zip(self.free, ts, strict=True))
        ns = self.n_shapes
        for j in self._free_shapes:
            v = self._shape_from_t(j, free[j])
            if not math.isfinite(v):
                return None
            theta[j] = v
        shapes = tuple(theta[:ns])
        li, si = ns, ns + 1
        if li not in free and si not in free:
            return theta
        ends = self._support_of_same_kind(shapes)
        if ends is None:
            return None
        a, b = ends
        if not self._loc_scale(theta, free, a, b):
            return None
        loc, scale = theta[li], theta[si]
        if not (math.isfinite(loc) and math.isfinite(scale) and scale > 0):
            return None
        return theta

    def _loc_scale(self, theta: list, values: dict, a: float, b: float) -> bool:
        """Set loc and scale in ``theta`` (Python floats) from the free coordinates."""
        li, si = self.n_shapes, self.n_shapes + 1
        lower, upper = self.kind
        zmin, zmax = self.zmin, self.zmax
        if li in values and si in values:
            tl, ts = values[li], values[si]
            if lower and upper:
                lo_end, hi_end = zmin - self._gap(tl), zmax + self._gap(ts)
                theta[si] = (hi_end - lo_end) / (b - a)
                theta[li] = lo_end - a * theta[si]
            else:
                theta[si] = _exp(ts)
                if lower:
                    theta[li] = zmin - a * theta[si] - self._gap(tl)
                elif upper:
                    theta[li] = zmax - b * theta[si] + self._gap(tl)
                else:
                    theta[li] = tl * theta[si]
            return True
        if li in values:  # scale fixed
            scale, tl = theta[si], values[li]
            if lower and upper:
                lo_loc, hi_loc = zmax - b * scale, zmin - a * scale
                if not hi_loc > lo_loc:
                    return False
                theta[li] = lo_loc + (hi_loc - lo_loc) * _expit(tl)
            elif lower:
                theta[li] = zmin - a * scale - self._gap(tl)
            elif upper:
                theta[li] = zmax - b * scale + self._gap(tl)
            else:
                theta[li] = tl
            return True
        # loc fixed, scale free: scale must keep [zmin, zmax] inside loc + scale*[a, b]
        smin, smax = self._scale_interval(theta[li], a, b)
        ts = values[si]
        if not smax > smin:
            return False
        if math.isfinite(smax):
            theta[si] = smin + (smax - smin) * _expit(ts)
        else:
            theta[si] = smin + _exp(ts)
        return True

    def _support_of_same_kind(self, shapes: tuple) -> tuple[float, float] | None:
        """The support at ``shapes`` (Python floats), or None where it cannot be had or
        (bounded parameterisation) its kind differs from the one the map was built for."""
        try:
            a, b = _support(self.dist, shapes)
        except Exception:
            return None
        if self.bounded and _support_kind(a, b) != self.kind:
            return None
        return a, b

    def _scale_interval(self, loc, a, b) -> tuple[float, float]:
        if not self.bounded:
            return 0.0, np.inf
        smin, smax = 0.0, np.inf
        for end, z, below in ((a, self.zmin, True), (b, self.zmax, False)):
            if not np.isfinite(end):
                continue
            # below: loc + end*s <= zmin ; above: loc + end*s >= zmax
            gap = z - loc
            if end == 0:
                if (below and gap < 0) or (not below and gap > 0):
                    return 0.0, 0.0
                continue
            bound = gap / end
            if (end > 0) == below:
                smax = min(smax, bound)
            else:
                smin = max(smin, bound)
        return smin, smax

    def to_t(self, theta) -> np.ndarray | None:
        """Unconstrained coordinates of ``theta``, or None if it violates the support."""
        theta = np.asarray(theta, dtype=float)
        shapes = tuple(theta[: self.n_shapes])
        out = []
        li, si = self.n_shapes, self.n_shapes + 1
        with np.errstate(all="ignore"):
            for j in range(self.n_shapes):
                if j not in self.fixed:
                    out.append(self._shape_to_t(j, theta[j]))
            ends = self._support_of_same_kind(tuple(float(v) for v in shapes))
            if ends is None:
                return None
            a, b = ends
            loc, scale = theta[li], theta[si]
            lower, upper = self.kind
            zmin, zmax = self.zmin, self.zmax
            if li not in self.fixed and si not in self.fixed:
                if lower and upper:
                    g1, g2 = zmin - (loc + a * scale), (loc + b * scale) - zmax
                    t1, t2 = self._gap_t(g1), self._gap_t(g2)
                    if t1 is None or t2 is None:
                        return None
                    out += [t1, t2]
                else:
                    if lower:
                        g = zmin - a * scale - loc
                    elif upper:
                        g = loc + b * scale - zmax
                    else:
                        g = None
                    tg = None if g is None else self._gap_t(g)
                    if g is not None and tg is None:
                        return None
                    out += [loc / scale if g is None else tg, np.log(scale)]
            elif li not in self.fixed:
                if lower and upper:
                    lo_loc, hi_loc = zmax - b * scale, zmin - a * scale
                    p = (loc - lo_loc) / (hi_loc - lo_loc)
                    if not 0 < p < 1:
                        return None
                    out.append(float(logit(p)))
                elif lower or upper:
                    g = zmin - a * scale - loc if lower else loc + b * scale - zmax
                    tg = self._gap_t(g)
                    if tg is None:
                        return None
                    out.append(tg)
                else:
                    out.append(loc)
            elif si not in self.fixed:
                smin, smax = self._scale_interval(loc, a, b)
                if not smin < scale < smax or not scale > 0:
                    return None
                if np.isfinite(smax):
                    out.append(float(logit((scale - smin) / (smax - smin))))
                else:
                    out.append(np.log(scale - smin) if smin > 0 else np.log(scale))
        t = np.array(out, dtype=float)
        return t if np.all(np.isfinite(t)) else None
