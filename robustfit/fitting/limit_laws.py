"""Laws that a family reaches only as its parameters run away, checked directly.

Some families contain, as a limit, a law that is not a member, and on samples that ask
for it the likelihood rises all the way there while the optimiser crawls along the
ridge towards it and stops wherever its evaluations run out (short of the supremum,
at a different point at every magnitude of the data), or converges at a lesser local
maximum:

- ``johnsonsu`` as its scale runs to 0: the lognormal law of ``x - loc`` or of
  ``loc - x``, Johnson's SL (:mod:`.johnson_limits`);
- ``burr12(c, d)`` as ``d -> inf`` with ``scale = lam d^(1/c)``:
  ``(1 + (y/scale)^c)^-d -> exp(-(y/lam)^c)``, the Weibull law;
- ``burr(c, d)`` (Burr III) as ``d -> inf`` with ``scale = lam d^(-1/c)``:
  ``(1 + (y/scale)^-c)^-d -> exp(-(y/lam)^-c)``, the Frechet law (``invweibull``).

For each, robustfit's own fit of the limit family (loc free) gives the limit's best
law, and :attr:`LimitLaw.member` the member of the family that stands for it: one
whose density equals the law's to rounding on the data, at a fixed far value of the
running parameter, so the same member at every magnitude.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from .families import scipy_family_entry
from .johnson_limits import SL_GAP_FRACTION, su_near_sl

__all__ = ["FAR_SHAPE", "LimitLaw", "RISES_TO_LIMIT_LAW", "limit_laws"]

RISES_TO_LIMIT_LAW = "the likelihood rises towards a law the family reaches only in a limit"
# the running shape's value at which a Burr family stands for its limit: the density's
# relative distance from the limit law's is ~(y/lam)^(2c) / (2 FAR_SHAPE), below
# rounding for the values a Weibull or Frechet sample has
FAR_SHAPE = 1e14


@dataclass(frozen=True)
class LimitLaw:
    """A law that ``family`` reaches only in a limit.

    Attributes
    ----------
    name : str
        How a message names the law.
    dist : scipy.stats.rv_continuous
        The law's own family, fitted with loc free (to ``side * x``).
    side : int
        1: fitted to the data; -1: to the reflected data.
    member : callable
        ``member(params, x) -> theta``: the family's parameters (scipy's order) whose
        density on ``x`` is the fitted law's ``params`` to rounding, or None.
    at_limit : callable
        ``at_limit(theta, x) -> bool``: whether a point of the family is still next to
        the limit (a local run from the member that leaves it found an interior
        maximum).
    skew_sign : int or None
        Checked only where the sample's skewness has this sign (a lognormal law of
        ``x - loc`` is skewed to the right; where the sample is not, its fit runs to
        its own normal limit, which costs time and cannot win).
    """

    name: str
    dist: stats.rv_continuous
    side: int
    member: Callable[[np.ndarray, np.ndarray], np.ndarray | None]
    at_limit: Callable[[np.ndarray, np.ndarray], bool]
    skew_sign: int | None = None


def _sl(side: int) -> LimitLaw:
    def member(params, x):
        return su_near_sl(*params, side, x)

    def at_limit(theta, x):
        gap = float(np.min(np.abs(x - theta[2])))
        return bool(theta[3] <= 1e3 * SL_GAP_FRACTION * gap)

    law = "x - loc" if side > 0 else "loc - x"
    return LimitLaw(f"the lognormal law of {law}, Johnson's SL, as the scale runs to 0",
                    stats.lognorm, side, member, at_limit, skew_sign=side)


def burr12_near_weibull(params, x) -> np.ndarray | None:
    """burr12's ``(c, d, loc, scale)`` standing for ``weibull_min(c, loc, lam)``:
    ``d = FAR_SHAPE``, ``scale = lam d^(1/c)``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> x = stats.weibull_min.rvs(1.7, loc=2.0, scale=3.0, size=200, random_state=0)
    >>> theta = burr12_near_weibull((1.7, 2.0, 3.0), x)
    >>> bool(np.allclose(stats.burr12.logpdf(x, *theta),
    ...                  stats.weibull_min.logpdf(x, 1.7, 2.0, 3.0), rtol=0, atol=1e-9))
    True
    """
    return _far_burr(params, 1.0)


def burr_near_frechet(params, x) -> np.ndarray | None:
    """burr's ``(c, d, loc, scale)`` standing for ``invweibull(c, loc, lam)``:
    ``d = FAR_SHAPE``, ``scale = lam d^(-1/c)``.

    Examples
    --------
    >>> from scipy import stats
    >>> x = stats.invweibull.rvs(2.5, loc=1.0, scale=2.0, size=200, random_state=0)
    >>> frechet = stats.invweibull.nnlf((2.5, 1.0, 2.0), x)  # the law's NLL
    >>> bool(abs(stats.burr.nnlf(burr_near_frechet((2.5, 1.0, 2.0), x), x) - frechet) < 1e-9)
    True
    """
    return _far_burr(params, -1.0)


def _far_burr(params, power: float) -> np.ndarray | None:
    """A Burr family's ``(c, FAR_SHAPE, loc, lam FAR_SHAPE^(power/c))`` from the limit
    law's ``(c, loc, lam)``, or None where not finite."""
    c, loc, lam = (float(v) for v in params)
    scale = lam * FAR_SHAPE ** (power / c) if c > 0 else math.nan
    theta = np.array([c, FAR_SHAPE, loc, scale])
    return theta if np.all(np.isfinite(theta)) and scale > 0 else None


def _far_d(theta, x) -> bool:
    return bool(theta[1] >= 1e-3 * FAR_SHAPE)


_LAWS: dict[str, tuple[LimitLaw, ...]] = {
    "johnsonsu": (_sl(1), _sl(-1)),
    "burr12": (LimitLaw("the Weibull law, as d runs to infinity", stats.weibull_min, 1,
                        burr12_near_weibull, _far_d),),
    "burr": (LimitLaw("the Frechet law (invweibull), as d runs to infinity",
                      stats.invweibull, 1, burr_near_frechet, _far_d),),
}


def limit_laws(dist) -> tuple[LimitLaw, ...]:
    """The laws that scipy's ``dist`` reaches only in a limit (none for other
    distributions, a user's subclass included)."""
    return scipy_family_entry(dist, _LAWS, ())
