"""Optima *on* a closed end of a shape's domain, which the optimiser can only approach.

Some shapes may equal an end of their domain: ncf's and ncx2's non-centrality ``nc >= 0``
(the central F and chi-squared), foldnorm's and foldcauchy's ``c >= 0``, rice's
``b >= 0`` (the Rayleigh), triang's ``c`` in ``[0, 1]``. The fit maps such a shape
through ``lo + exp(t)`` (or a logistic map), so where the likelihood is largest at the end
the optimiser creeps towards ``t -> -inf`` on an ever flatter slope and stops wherever its
tolerances say: scipy's acceptance sample of ncf(27, 27, 0.416) (n = 1000) ended at
``nc = 0.35``, 1.2e-4 log-likelihood units short of ``nc = 0``, and the same sample with
15 observations made intervals of +-1% ended at ``nc = 0.068`` -- the same maximum,
estimates 80% apart. This module names the shapes whose end is close enough to try; the
driver re-fits the others with the shape held exactly at the end and keeps that if it
is no worse.
"""

from __future__ import annotations

import math

import numpy as np

from .shape_domains import probed_shape_domain
from .spec import shape_integrality

# a shape is tried at an end within this distance of it, relative to max(1, |end|)
# (at most a quarter of a bounded domain): the optimiser stops short of an end at a
# distance set by how flat the likelihood is there, not by the data's magnitude
NEAR_END = 3.0
BOUNDED_SHARE = 0.25


def closed_ends_near(dist, theta, fixed: dict, n_shapes: int) -> list[tuple[int, float]]:
    """``(shape index, end)`` for every free, non-integral shape of ``theta`` near a
    finite end of its domain that the family accepts (its ``_argcheck`` passes with the
    shape at the end and the other shapes as in ``theta``).

    Examples
    --------
    >>> from scipy import stats
    >>> closed_ends_near(stats.ncf, [20.6, 30.3, 0.35, 0.01, 1.0], {}, 3)
    [(2, 0.0)]
    >>> closed_ends_near(stats.ncf, [20.6, 30.3, 0.35, 0.01, 1.0], {2: 0.35}, 3)
    []
    >>> closed_ends_near(stats.gamma, [0.5, 0.0, 1.0], {}, 1)  # a > 0: open
    []
    """
    out = []
    shapes = [float(v) for v in theta[:n_shapes]]
    for j in range(n_shapes):
        if j in fixed or shape_integrality(dist, j):
            continue
        ends = shape_domain_ends(dist, shapes, j)
        lo, hi = ends[0][0], ends[1][0]
        reach = NEAR_END
        if math.isfinite(lo) and math.isfinite(hi):
            reach = min(reach, BOUNDED_SHARE * (hi - lo))
        for end, accepted, _ in ends:
            if not accepted or shapes[j] == end:
                continue
            if abs(shapes[j] - end) <= reach * max(1.0, abs(end)):
                out.append((j, end))
    return out


def shape_domain_ends(dist, shapes, j: int) -> list[tuple[float, bool, float]]:
    """``(end, accepted, direction into the domain)`` for the lower and the upper end
    of shape ``j``'s domain; ``accepted`` where the end is finite, belongs to the
    domain, and the family's ``_argcheck`` passes with shape ``j`` on it and the other
    shapes as in ``shapes``.

    Examples
    --------
    >>> from scipy import stats
    >>> shape_domain_ends(stats.ncx2, [21.0, 1.0], 1)  # nc >= 0
    [(0.0, True, 1.0), (inf, False, -1.0)]
    >>> shape_domain_ends(stats.ncx2, [21.0, 1.0], 0)  # df > 0 (scipy says 5e-324)
    [(5e-324, False, 1.0), (inf, False, -1.0)]
    """
    shapes = [float(v) for v in shapes]
    (lo, hi), closed = _domain(dist, j)
    return [(end, bool(is_closed and math.isfinite(end) and _accepts(dist, shapes, j, end)),
             direction)
            for end, is_closed, direction in zip((lo, hi), closed, (1.0, -1.0), strict=True)]


def _domain(dist, j: int) -> tuple[tuple[float, float], tuple[bool, bool]]:
    """Shape ``j``'s domain and which of its ends belong to it, from scipy's shape
    info; for a distribution without it (a user's subclass), the domain its
    ``_argcheck`` accepts (:mod:`.shape_domains`), each finite end belonging to it
    where the check accepts the end itself (:func:`shape_domain_ends` asks)."""
    try:
        info = dist._shape_info()[j]
        lo, hi = (float(v) for v in info.domain)
        closed = tuple(bool(v) for v in info.inclusive)
    except (AttributeError, IndexError, NotImplementedError, TypeError, ValueError):
        return probed_shape_domain(dist, j), (True, True)
    return (lo, hi), closed


def _accepts(dist, shapes: list[float], j: int, end: float) -> bool:
    trial = list(shapes)
    trial[j] = end
    try:
        with np.errstate(all="ignore"):
            return bool(np.all(dist._argcheck(*map(np.asarray, trial))))
    except (TypeError, ValueError, ArithmeticError):
        return False
