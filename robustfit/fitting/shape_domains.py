"""The domain of a shape scipy does not describe, probed through ``_argcheck``.

scipy's own families state each shape's domain (``_shape_info``); a user's subclass of
``rv_continuous`` need not, and its ``_argcheck`` may accept what scipy's default (every
shape positive) refuses: a skewness on the whole line, a weight in (0, 1). Taken as
positive, such a shape kept the fit from the truth: a skew-normal written as a
subclass, fitted to data drawn with shape -4, ended at shape 0.003, 34 log-likelihood
units short of the truth's, saying success.

The domain spans the accepted values, among probes from -1e8 to 1e8, with the other
shapes at a combination ``_argcheck`` accepts and at every probe of one of them in turn
(the hull of those: a check ``a < b`` limits each shape only through the other); each
finite end is bisected between the last accepted and the first refused probe, and
snapped to a round value where the check changes there (``a > 0`` gives 0, ``w < 1``
gives 1).
"""

from __future__ import annotations

import functools
import itertools
import math
import warnings

import numpy as np
from scipy import stats

__all__ = ["probed_integrality", "probed_shape_domain"]

PROBES = (-1e8, -1e4, -100.0, -10.0, -2.0, -1.0, -0.5, -1e-3, 0.0, 1e-3, 0.5, 1.0, 2.0,
          10.0, 100.0, 1e4, 1e8)
# values tried, in this order, for the other shapes (each is among the probes)
BASES = (1.0, 0.5, 2.0, 0.0, -1.0, 1e-3, -0.5, 10.0)
MAX_BASES = 64  # combinations of BASES tried for an accepted one
BISECTIONS = 60
ROUNDINGS = (0, 1, 2, 3, 6)  # decimals an end is snapped to, the roundest first


def probed_shape_domain(dist, j: int) -> tuple[float, float]:
    """``(lo, hi)`` of shape ``j`` as ``dist._argcheck`` accepts it; scipy's default
    ``(0, inf)`` where ``_argcheck`` is scipy's own or accepts no probe.
    Memoised per distribution object (the fit asks for a shape's domain many times);
    an unhashable distribution is probed each time.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> class Mix(stats.rv_continuous):
    ...     def _argcheck(self, w, s):
    ...         return (w > 0) & (w < 1) & np.isfinite(s)
    >>> mix = Mix(name="mix", shapes="w, s")
    >>> probed_shape_domain(mix, 0), probed_shape_domain(mix, 1)
    ((0.0, 1.0), (-inf, inf))
    """
    try:
        return _probed_cached(dist, j)
    except TypeError:
        return _probed(dist, j)


def _probed(dist, j: int) -> tuple[float, float]:
    """:func:`probed_shape_domain`, computed."""
    if getattr(type(dist), "_argcheck", None) is stats.rv_continuous._argcheck:
        return 0.0, math.inf
    base = _accepted_base(dist)
    if base is None:
        return 0.0, math.inf
    lo, hi = math.inf, -math.inf
    for other in _other_bases(dist, base, j):
        accepted = [v for v in PROBES if _accepts(dist, other, j, v)]
        if not accepted:
            continue
        # an end that moves out to the extreme probes with another shape is no end
        extreme = other != base and any(abs(v) == PROBES[-1] for v in other)
        if accepted[0] < lo:
            lo = -math.inf if accepted[0] == PROBES[0] or extreme else _end(
                dist, other, j, accepted[0], PROBES[PROBES.index(accepted[0]) - 1])
        if accepted[-1] > hi:
            hi = math.inf if accepted[-1] == PROBES[-1] or extreme else _end(
                dist, other, j, accepted[-1], PROBES[PROBES.index(accepted[-1]) + 1])
    return lo, hi


def _other_bases(dist, base: tuple[float, ...], j: int):
    """``base``, then ``base`` with one other shape at a time set to each probe: a check
    that ties shapes together (``a < b``) accepts a different run of shape ``j`` at
    each, and the domain is their hull -- probed at ``b = 2`` alone, a hand-written
    truncated normal's ``a < b`` gave ``b`` the domain ``(1, inf)``, and fits to data
    whose upper end is 0.5 standard deviations out stopped at ``b = 1 + 2e-9``, up to
    9 log-likelihood units short, saying success. (The joint check itself stays the
    likelihood's: a point it refuses is not feasible.)"""
    yield base
    for k in range(dist.numargs):
        if k == j:
            continue
        for v in PROBES:
            if v != base[k]:
                other = list(base)
                other[k] = v
                yield tuple(other)


_probed_cached = functools.lru_cache(maxsize=64)(_probed)

# an integral shape: the check accepts at least two of these and refuses each one's
# half-integer neighbour above
INTEGER_PROBES = (1.0, 2.0, 3.0, 5.0, 10.0)


def probed_integrality(dist, j: int) -> bool:
    """Whether ``dist._argcheck`` takes only integers for shape ``j`` (a hand-written
    Erlang's ``k == round(k)``): it accepts at least two of :data:`INTEGER_PROBES` and
    refuses the half-integer above each one it accepts (the other shapes at a
    combination it accepts). False where ``_argcheck`` is scipy's own. Memoised like
    :func:`probed_shape_domain`.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> class Erlang(stats.rv_continuous):
    ...     def _argcheck(self, k):
    ...         return (k > 0) & (k == np.round(k))
    >>> probed_integrality(Erlang(a=0, name="erlang", shapes="k"), 0)
    True
    """
    try:
        return _integral_cached(dist, j)
    except TypeError:
        return _integral(dist, j)


def _integral(dist, j: int) -> bool:
    if getattr(type(dist), "_argcheck", None) is stats.rv_continuous._argcheck:
        return False
    base = _accepted_base(dist)
    if base is None:
        return False
    whole = [v for v in INTEGER_PROBES if _accepts(dist, base, j, v)]
    return len(whole) >= 2 and not any(_accepts(dist, base, j, v + 0.5) for v in whole)


_integral_cached = functools.lru_cache(maxsize=64)(_integral)


def _accepts(dist, shapes, j: int, value: float) -> bool:
    values = list(shapes)
    values[j] = value
    try:
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return bool(np.all(dist._argcheck(*(np.asarray(v, dtype=float)
                                                 for v in values))))
    except Exception:
        return False


def _accepted_base(dist) -> tuple[float, ...] | None:
    """The first combination of BASES the check accepts."""
    n = dist.numargs
    for shapes in itertools.islice(itertools.product(BASES, repeat=n), MAX_BASES):
        if _accepts(dist, shapes, 0, shapes[0]) if n else True:
            return shapes
    return None


def _end(dist, base, j: int, inside: float, outside: float) -> float:
    """Where the check stops accepting shape ``j``, between an accepted value ``inside``
    and a refused one ``outside``."""
    a, b = inside, outside
    for _ in range(BISECTIONS):
        mid = 0.5 * (a + b)
        if mid in (a, b):
            break
        if _accepts(dist, base, j, mid):
            a = mid
        else:
            b = mid
    toward_inside = 1.0 if inside > outside else -1.0
    for decimals in ROUNDINGS:
        end = round(0.5 * (a + b), decimals)
        if not min(inside, outside) <= end <= max(inside, outside):
            continue
        step = 1e-9 * max(1.0, abs(end))
        if _accepts(dist, base, j, end + toward_inside * step) and not _accepts(
                dist, base, j, end - toward_inside * step):
            return float(end)
    return float(a)
