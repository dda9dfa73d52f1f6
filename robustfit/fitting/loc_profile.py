"""A starting point from the profile likelihood over the location.

Three-parameter lognormal, gamma, Weibull, inverse Gaussian, ... fits are hard for a
joint optimiser: near their optimum, shape, loc and scale move together along a long
curved valley (on nearly symmetric data, lognorm's optimum can sit at loc = -80 spreads
with s ~ 0.01). Yet once ``loc`` is fixed, each of these families has an exact MLE
(:mod:`.closed_form`). The maximum over all parameters is then the maximum over ``loc``
alone of the profile ``loc -> max over the rest``: a one-dimensional search. The gap
between ``loc`` and the nearest observation is searched on a grid in log scale, so the
global maximum over the grid's range is found, then refined by a bounded 1-D search.
A profile still falling at the grid's far end says the likelihood rises towards a
limit of the family (lognorm or gamma on symmetric data tend to the normal).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import optimize, stats

from .closed_form import closed_form_mle
from .likelihood import CompleteNLL
from .profile_roots import LOCATION_GRID

# log of the gap between loc and the extreme observation, in standardised units (the
# data's interquartile range is 1): from 5e-5 to 3e3 spreads. Farther out the fitted law
# is within rounding of the family's limit (normal, Gumbel) and densities such as
# gamma's at a ~ 1e8 lose digits to cancellation: the profile there is noise.
LOG_GAP_GRID = LOCATION_GRID  # (one grid with the closed forms' profile roots)
REFINE_XATOL = 1e-7  # in log gap: the profile is flat to ~1e-14 relative there


@dataclass(frozen=True)
class ProfileStart:
    """The profile's best point; whether it lies inside the grid (a maximum over
    ``loc``; at an end of the grid it only says which way the likelihood rises); and
    whether that end is the far one (the likelihood rises towards a limit of the
    family, loc -> -inf or +inf)."""

    theta: np.ndarray
    nll: float
    interior: bool
    towards_limit: bool = False


def _edge_side(dist) -> int:
    """+1 where the support is [loc, inf) for every shape, -1 where it is (-inf, loc],
    0 otherwise (the profile then does not apply)."""
    if type(dist)._get_support is not stats.rv_continuous._get_support:
        return 0
    a, b = float(dist.a), float(dist.b)
    if a == 0.0 and b == math.inf:
        return 1
    if a == -math.inf and b == 0.0:
        return -1
    return 0


def loc_profile_start(nll: CompleteNLL, fixed: dict, loc_index: int
                      ) -> ProfileStart | None:
    """Maximise the profile likelihood over ``loc`` for a family with an exact MLE at
    fixed ``loc``; None where that does not apply (loc fixed, no such MLE, a support
    not bounded by loc alone).

    ``nll`` is the negative log-likelihood of the sorted standardised sample the optimum
    is wanted for; ``fixed`` maps parameter indices to fixed values.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from robustfit.fitting.likelihood import CompleteNLL
    >>> z = np.sort(stats.lognorm.rvs(0.5, loc=-2.0, size=2000, random_state=3))
    >>> start = loc_profile_start(CompleteNLL(stats.lognorm, z), {}, 1)
    >>> bool(start.interior), bool(abs(start.theta[1] + 2.0) < 0.2)
    (True, True)
    """
    dist, z = nll.dist, nll.z
    side = _edge_side(dist)
    if side == 0 or loc_index in fixed or z.size < 3:
        return None
    edge = nll.zmin if side > 0 else nll.zmax

    def theta_at(log_gap: float):
        loc = edge - side * math.exp(log_gap)
        return closed_form_mle(dist, z, {**fixed, loc_index: loc})

    thetas = [theta_at(u) for u in LOG_GAP_GRID]
    rows = [i for i, th in enumerate(thetas) if th is not None]
    if not rows:  # no exact MLE for this family and fixed set
        return None
    values = np.full(LOG_GAP_GRID.size, math.inf)
    values[rows] = nll.many([thetas[i] for i in rows])
    if not np.isfinite(values).any():
        return None
    i = int(np.argmin(values))
    interior = 0 < i < LOG_GAP_GRID.size - 1
    best_u, best_v = float(LOG_GAP_GRID[i]), float(values[i])
    if interior:
        def profile(u):
            th = theta_at(u)
            return math.inf if th is None else nll(th)

        lo, hi = LOG_GAP_GRID[i - 1], LOG_GAP_GRID[i + 1]
        res = optimize.minimize_scalar(profile, bounds=(lo, hi), method="bounded",
                                       options={"xatol": REFINE_XATOL})
        if np.isfinite(res.fun) and res.fun <= best_v:
            best_u = float(res.x)
    theta = theta_at(best_u)
    if theta is None:
        return None
    return ProfileStart(theta, float(nll(theta)), interior,
                        towards_limit=i == LOG_GAP_GRID.size - 1)
