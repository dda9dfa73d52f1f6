"""The method of moments as an objective: match the first k raw moments."""

from __future__ import annotations

import numpy as np


def moment_objective(dist, z: np.ndarray, n_free: int):
    """``theta -> Σ_k (m_k(theta) - m̂_k)² / (1 + m̂_k²)`` for k = 1..n_free.

    Raw moments of the standardised data ``z`` are O(1), so the absolute error scaled
    by ``1 + m̂²`` is well conditioned (scipy divides by ``|m̂|``, which blows up when a
    moment is near zero). Returns ``inf`` where a model moment is not finite.
    """
    orders = range(1, max(n_free, 1) + 1)
    data_moments = np.array([np.mean(z ** k) for k in orders])
    weights = 1.0 / (1.0 + data_moments ** 2)

    def objective(theta) -> float:
        shapes, loc, scale = tuple(theta[:-2]), theta[-2], theta[-1]
        try:
            with np.errstate(all="ignore"):
                model = np.array([float(dist.moment(k, *shapes, loc=loc, scale=scale))
                                  for k in orders])
        except Exception:
            return np.inf
        if not np.all(np.isfinite(model)):
            return np.inf
        return float(np.sum(weights * (model - data_moments) ** 2))

    objective.n = 1
    return objective
