"""Restart policy: where to start again when the BFGS core stalls."""

from __future__ import annotations

import numpy as np

__all__ = ["restart_point"]


def restart_point(z_best: np.ndarray, step_norms: list[float], attempt: int,
                  rng: np.random.Generator, lower=None, upper=None,
                  typical: np.ndarray | None = None,
                  structure: np.ndarray | None = None) -> np.ndarray:
    """The best point perturbed at a scale taken from the recent steps and ``|z|``.

    The relative size is the median of the last three step lengths over ``‖z‖``, kept in
    ``[1e-4, 0.3]`` and multiplied by ``3**(attempt - 1)`` so that repeated restarts look
    further away. Each coordinate moves by that fraction of its own magnitude
    ``max(|z_i|, typical_i)`` in a random Gaussian direction, so a small parameter next
    to a large one is not thrown across its whole range; where ``f``'s structure proved
    far smaller than that (``structure``, see :mod:`.truncation`), of that size instead.
    The point is clipped into the bounds.

    Examples
    --------
    >>> import numpy as np
    >>> z = restart_point(np.array([0.01, 100.0]), [0.5], 1, np.random.default_rng(0),
    ...                   typical=np.full(2, 0.01))
    >>> bool(np.all(np.abs(z - [0.01, 100.0]) < [0.01, 10.0]))
    True
    """
    typical = np.ones_like(z_best) if typical is None else typical
    size = np.maximum(np.abs(z_best), typical)
    if structure is not None:
        size = np.minimum(size, structure)
    recent = float(np.median(step_norms[-3:])) if step_norms else 0.0
    rel = min(max(recent / max(float(np.linalg.norm(size)), 1e-300), 1e-4), 0.3)
    rel *= 3.0 ** (attempt - 1)
    z = z_best + rel * size * rng.standard_normal(z_best.size)
    if lower is not None:
        z = np.clip(z, lower, upper)
    return z
