"""Shapes the likelihood does not see: a converged fit on a plateau of a shape.

Some families switch from one formula to another at a point set by a shape: crystalball
is a normal core with a power-law tail beyond ``-beta``. Where no observation reaches
the tail (``beta = 10`` for a sample that ends at -4), the likelihood does not depend
on ``beta`` or ``m`` at all (their effect on the normalising constant is ~e^-50), every
gradient in them is exactly zero, and BFGS reports convergence wherever it started:
scipy's acceptance case crystalball(2, 3) drawn with seed 7, fitted with ``floc``, came
back 24 units above the truth with ``success=True``, all three starts at ``beta = 10``.
Such a shape is probed at the values of the start grid, the others held; a value that
lowers the likelihood is a start for another local run.
"""

from __future__ import annotations

import numpy as np

from .guesses import shape_grid

__all__ = ["flat_shapes", "off_shape_plateau"]

# a relative move of a shape, and the relative change of the likelihood below which the
# likelihood counts as not depending on it
PROBE_STEP = 1e-3
FLAT = 1e-12


def flat_shapes(nll, theta: np.ndarray, free: list[int],
                base: float | None = None) -> list[int]:
    """The free shapes (indices into ``theta``) whose moves of ``PROBE_STEP`` either way
    leave ``nll`` unchanged to ``FLAT``; ``base`` is ``nll(theta)`` where known."""
    base = nll(theta) if base is None else base
    if not np.isfinite(base):
        return []
    out = []
    for j in free:
        values = []
        for sign in (1.0, -1.0):
            trial = np.array(theta, dtype=float)
            trial[j] += sign * PROBE_STEP * max(1.0, abs(trial[j]))
            values.append(nll(trial))
        if all(np.isfinite(v) and abs(v - base) <= FLAT * max(1.0, abs(base))
               for v in values):
            out.append(j)
    return out


def off_shape_plateau(dist, nll, theta, n_shapes: int, fixed: dict,
                      value: float | None = None) -> np.ndarray | None:
    """A better start where ``theta`` sits on a plateau of some free shape, else None
    (``value``: ``nll(theta)``, where the caller has it).

    Each flat shape is set, in turn, to the values the start grid gives it, the other
    parameters held; the lowest of these, if below ``nll(theta)``, is returned.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from robustfit.fitting.likelihood import CompleteNLL
    >>> z = stats.crystalball.rvs(2.0, 3.0, size=300, random_state=7)
    >>> nll = CompleteNLL(stats.crystalball, z)
    >>> start = off_shape_plateau(stats.crystalball, nll, np.array([10.0, 2.0, 0.0, 1.0]),
    ...                           2, {})
    >>> bool(start is not None and start[0] < 10 and nll(start) < nll([10.0, 2.0, 0.0, 1.0]))
    True
    """
    theta = np.asarray(theta, dtype=float)
    free = [j for j in range(n_shapes) if j not in fixed]
    base = nll(theta) if value is None else value
    flat = flat_shapes(nll, theta, free, base)
    if not flat:
        return None
    grid = shape_grid(dist, n_shapes, fixed, per_shape=5)
    best, best_value = None, base
    for j in flat:
        for v in sorted({float(p[j]) for p in grid}):
            trial = theta.copy()
            trial[j] = v
            value = nll(trial)
            if value < best_value:
                best, best_value = trial, value
    return best
