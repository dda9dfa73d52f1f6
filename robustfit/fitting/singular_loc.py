"""The density at ``loc``, inside the support: infinite, or zero.

Infinite, with ``loc`` on an observation: no maximum exists (below). Zero there alone
(dweibull with ``c > 1``, dgamma with ``a > 1``): the likelihood has a local maximum
in ``loc`` between neighbouring observations, which the fit scans for
(:func:`vanishes_at_loc`).

dgamma with ``a < 1`` and dweibull with ``c < 1`` have an infinite density at their
centre. Wherever ``loc`` sits on an observation, that observation's density is infinite,
so the likelihood is unbounded: each observation is a spike, and an optimiser that
wanders next to one "converges" there (on 12 points of dgamma(1.1), BFGS stopped with
``a = 0.41`` and ``loc`` 4e-18 scales from an observation, and the fit reported an
infinite NLL with the message that the optimum lay on the support's edge). No estimate of the
maximum likelihood exists; the useful answer is the best local maximum away from the
spikes (what scipy's optimiser finds from its start), reported with ``success=False``.
"""

from __future__ import annotations

import math

import numpy as np

from .likelihood import support

# loc within this many scales of an observation: on it, as far as an optimiser can tell
# (the density there grows like gap^(a - 1); the spike's optimum is at gap 0)
ON_OBSERVATION = 1e-6


# where a density that vanishes at 0 alone is positive
CENTRE_NEIGHBOURS = (-1e-3, 1e-3)


def _logpdf_around_loc(dist, shapes, points) -> np.ndarray | None:
    """The standard log-density at ``points``, where 0 lies strictly inside the
    support at ``shapes``; else (or where scipy cannot evaluate it) None."""
    try:
        shapes = tuple(float(s) for s in shapes)
        a, b = support(dist, shapes)
        if not a < 0.0 < b:
            return None
        with np.errstate(all="ignore"):
            return np.asarray(dist.logpdf(np.asarray(points, dtype=float), *shapes),
                              dtype=float)
    except Exception:
        return None


def singular_at_loc(dist, shapes) -> bool:
    """Whether the standard density is infinite at 0, inside its support.

    Examples
    --------
    >>> from scipy import stats
    >>> singular_at_loc(stats.dgamma, (0.5,)), singular_at_loc(stats.dgamma, (1.5,))
    (True, False)
    """
    values = _logpdf_around_loc(dist, shapes, [0.0])
    return values is not None and bool(values[0] == math.inf)


def vanishes_at_loc(dist, shapes) -> bool:
    """Whether the standard density is zero at 0 inside its support, and only there:
    finite at ``CENTRE_NEIGHBOURS``. A density that underflows around 0 as well (nct
    with nc = 400, whose centre is 400 deviations into its tail) has no maxima between
    observations: the fit's scan of shifted locations, ten racing starts, cost an nct
    fit of 80 points most of three minutes there.

    Examples
    --------
    >>> from scipy import stats
    >>> vanishes_at_loc(stats.dweibull, (2.0,)), vanishes_at_loc(stats.nct, (184, 402))
    (True, False)
    """
    values = _logpdf_around_loc(dist, shapes, [0.0, *CENTRE_NEIGHBOURS])
    return (values is not None and bool(values[0] == -math.inf)
            and bool(np.all(np.isfinite(values[1:]))))


def on_singular_observation(dist, theta, z: np.ndarray) -> bool:
    """Whether ``theta`` (shapes, loc, scale) puts ``loc``, where the density is
    infinite, on one of the sorted observations ``z`` (within ``ON_OBSERVATION``
    scales)."""
    theta = np.asarray(theta, dtype=float)
    loc, scale = float(theta[-2]), float(theta[-1])
    if z.size == 0 or not (math.isfinite(loc) and scale > 0):
        return False
    if not singular_at_loc(dist, theta[:-2]):
        return False
    i = int(np.searchsorted(z, loc))
    gaps = [abs(z[j] - loc) for j in (i - 1, i) if 0 <= j < z.size]
    return min(gaps) <= ON_OBSERVATION * scale


# factors by which a free shape is moved to look for a density infinite at loc (dgamma's
# a < 1, dweibull's c < 1). Not up: tukeylambda's density at its centre, 2^(lambda - 1),
# overflows to inf at lambda = 3130 with no singularity (its support shrinks to
# +-1/lambda), and its fits had been called unbounded
SPIKE_PROBES = (1e-3,)


def spikes_within_reach(dist, shapes, free_shapes) -> float | None:
    """A value of one of the ``free_shapes`` (indices), the others as in ``shapes``, at
    which the standard density is infinite at 0 inside its support (the shape moved by
    the factors :data:`SPIKE_PROBES`), or None. With ``loc`` free as well, such a shape
    makes the likelihood of every sample unbounded: ``loc`` on any observation.

    Examples
    --------
    >>> from scipy import stats
    >>> spikes_within_reach(stats.dgamma, (1.1,), [0])
    0.0011
    >>> spikes_within_reach(stats.dgamma, (1.1,), []) is None  # the shape fixed
    True
    >>> spikes_within_reach(stats.t, (3.0,), [0]) is None
    True
    >>> spikes_within_reach(stats.tukeylambda, (3.13,), [0]) is None
    True
    """
    shapes = [float(v) for v in shapes]
    for j in free_shapes:
        for factor in SPIKE_PROBES:
            trial = list(shapes)
            trial[j] = shapes[j] * factor
            if singular_at_loc(dist, trial):
                return trial[j]
    return None


REGULAR_GRID = (1.0, 1.5, 2.5, 4.0)  # multiples of the floor at which a shape is held


def regular_floor(dist, shapes, j: int) -> float | None:
    """The least value of shape ``j`` (the others as in ``shapes``) at which the density
    at ``loc`` is finite, where shape ``j`` alone takes it there from ``shapes[j]``
    (doubling it, at most 2^20 times, then bisecting in log scale); else None.

    Examples
    --------
    >>> from scipy import stats
    >>> round(regular_floor(stats.dweibull, (0.4,), 0), 6)  # c >= 1: finite at 0
    1.0
    """
    shapes = [float(s) for s in shapes]
    lo = shapes[j]
    if not lo > 0 or not singular_at_loc(dist, shapes):
        return None

    def singular(v: float) -> bool:
        trial = list(shapes)
        trial[j] = v
        return singular_at_loc(dist, trial)

    hi = lo
    for _ in range(20):
        hi *= 2.0
        if not singular(hi):
            break
    else:
        return None
    for _ in range(60):
        mid = math.sqrt(lo * hi)
        if singular(mid):
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-12 * hi:
            break
    return hi
