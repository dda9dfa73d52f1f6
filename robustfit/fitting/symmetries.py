"""Families whose shapes absorb a change of scale: one distribution, a line of parameters.

In a few scipy families, ``(shapes, loc, scale)`` and ``(g(shapes, k), loc, scale / k)``
are the same distribution for every ``k > 0``:

* ``loguniform`` / ``reciprocal``: ``s * LogUniform(a, b) = LogUniform(s a, s b)``;
* ``genexpon``: ``a``, ``b`` and ``c`` are rates, ``s * X`` has rates ``a/s, b/s, c/s``;
* ``dpareto_lognorm``: ``log(s X) = log(s) + log X``, so ``u`` absorbs ``log s``.

The likelihood then has a ridge of exactly equal maxima, and where an optimiser stops on
it depends on rounding: fits of ``a*x + b`` at different magnitudes used to land on
different, equally good points (parameters 1e4 apart, likelihoods equal to 1e-13). The
fit reports one member, chosen so that it maps back to the user's units equivariantly:

* ``loguniform`` / ``reciprocal``: ``b = 1``, so the scale is the upper end of the
  support above ``loc`` and ``a`` its lower end in that unit. scipy's acceptance case
  ``loguniform(0.01, 1.25)`` is then reported as ``(0.008, 1, loc, 1.25)``, within its
  test's tolerances of the truth at every magnitude; the member with the data's robust
  spread as its scale, ``(0.04, 5.04, loc, 0.248)``, was not;
* ``genexpon``, ``dpareto_lognorm``: scale 1 in the standardised coordinates (the
  scale is the data's robust spread).
"""

from __future__ import annotations

import math

import numpy as np

from .families import scipy_family_entry


def _loguniform(shapes: tuple, scale: float) -> tuple:
    a, b = shapes
    return a * scale, b * scale


def _rates(shapes: tuple, scale: float) -> tuple:
    return tuple(v / scale for v in shapes)


def _log_location(shapes: tuple, scale: float) -> tuple:
    return (shapes[0] + math.log(scale), *shapes[1:])


def _upper_end(theta) -> float:
    return float(theta[1] * theta[-1])  # b * scale: the member with b = 1


def _unit(theta) -> float:
    return 1.0


# name -> (the shapes at scale 1, given the shapes at ``scale``; the shapes that move;
# the scale of the reported member, given a point of the ridge)
_ABSORBS_SCALE = {
    "loguniform": (_loguniform, (0, 1), _upper_end),
    "reciprocal": (_loguniform, (0, 1), _upper_end),
    "genexpon": (_rates, (0, 1, 2), _unit),
    "dpareto_lognorm": (_log_location, (0,), _unit),
}


def canonical_scale(dist, theta, fixed: dict) -> np.ndarray | None:
    """``theta`` (standardised: shapes, loc, scale) moved along the family's ridge of
    identical distributions to its reported member (see the module's notes); None for
    other families, or where the scale or a shape that moves with it is fixed (that
    pins the point on the ridge).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> theta = np.array([0.5, 8.0, -0.2, 1.3])            # loguniform a, b, loc, scale
    >>> canon = canonical_scale(stats.loguniform, theta, {})
    >>> canon.tolist()                                     # b = 1: the scale is b * 1.3
    [0.0625, 1.0, -0.2, 10.4]
    >>> x = np.linspace(1.0, 9.0, 5)
    >>> bool(np.allclose(stats.loguniform.logpdf(x, *theta),
    ...                  stats.loguniform.logpdf(x, *canon), rtol=1e-14))
    True
    """
    entry = _absorbing(dist)
    n_shapes = len(theta) - 2
    if entry is None or n_shapes + 1 in fixed or any(j in fixed for j in entry[1]):
        return None
    scale = entry[2](np.asarray(theta, dtype=float))
    if not (math.isfinite(scale) and scale > 0):
        return None
    out = at_scale(dist, theta, scale)
    return out if np.all(np.isfinite(out)) else None


def _absorbing(dist):
    """The family's entry of ``_ABSORBS_SCALE`` (scipy's own families only), or None."""
    return scipy_family_entry(dist, _ABSORBS_SCALE)


def shapes_absorb_scale(dist) -> bool:
    """Whether the family's shapes absorb its scale (a ridge of identical distributions
    through every point).

    Examples
    --------
    >>> from scipy import stats
    >>> shapes_absorb_scale(stats.loguniform), shapes_absorb_scale(stats.gamma)
    (True, False)
    """
    return _absorbing(dist) is not None


def absorbs_fixed_scale(dist, fixed: dict, n_shapes: int) -> bool:
    """Whether a fixed scale is no constraint at all: the family absorbs the scale into
    shapes none of which is fixed (the fit then runs with the scale free and moves the
    result along the ridge to the fixed scale, :func:`at_scale`)."""
    entry = _absorbing(dist)
    return (entry is not None and n_shapes + 1 in fixed
            and not any(j in fixed for j in entry[1]))


def at_scale(dist, theta, scale: float) -> np.ndarray:
    """``theta`` moved along the ridge of identical distributions to ``scale``.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> at_scale(stats.loguniform, np.array([0.5, 8.0, -0.2, 1.0]), 2.0).tolist()
    [0.25, 4.0, -0.2, 2.0]
    """
    absorb = _ABSORBS_SCALE[dist.name][0]
    out = np.array(theta, dtype=float)
    n_shapes = out.size - 2
    unit = absorb(tuple(out[:n_shapes].tolist()), float(out[-1]))  # the shapes at scale 1
    out[:n_shapes] = absorb(unit, 1.0 / scale)
    out[-1] = scale
    return out
