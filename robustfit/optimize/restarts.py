"""Restart policy: where to start again when the BFGS core stalls."""

from __future__ import annotations

import numpy as np

__all__ = ["restart_point"]


def restart_point(z_best: np.ndarray, step_norms: list[float], attempt: int,
                  rng: np.random.Generator, lower=None, upper=None) -> np.ndarray:
    """The best point perturbed at a scale taken from the recent steps and ``|z|``.

    The scale is the median of the last three step lengths, kept within
    ``[1e-4, 0.3] * max(1, ‖z‖∞)`` and multiplied by ``3**(attempt - 1)`` so that repeated
    restarts look further away. The direction is a random Gaussian vector of unit
    expected length; the point is clipped into the bounds.

    Examples
    --------
    >>> import numpy as np
    >>> z = restart_point(np.zeros(3), [0.1, 0.1], 1, np.random.default_rng(0))
    >>> bool(0.0 < np.linalg.norm(z) < 1.0)
    True
    """
    size = max(1.0, float(np.max(np.abs(z_best))))
    recent = float(np.median(step_norms[-3:])) if step_norms else 0.0
    scale = min(max(recent, 1e-4 * size), 0.3 * size) * 3.0 ** (attempt - 1)
    z = z_best + scale * rng.standard_normal(z_best.size) / np.sqrt(z_best.size)
    if lower is not None:
        z = np.clip(z, lower, upper)
    return z
