"""Directions along a crease, where sampled gradients certified a point that is not a
minimum.

Gradient sampling certifies Clarke stationarity: a convex combination of the gradients
sampled near ``z`` is small. That holds at a minimum of a nonsmooth function, and also at
points that are not minima, where ``f`` falls along a crease in a direction no gradient
points to: Nesterov's nonsmooth Chebyshev-Rosenbrock function ``|x1 - 1| / 4 +
|x2 - 2|x1| + 1|`` at (0, -1), where the gradients (-2.25, 1), (1.75, -1), (1.75, 1),
(-2.25, -1) of its four pieces combine to zero, while along the crease ``x2 = 2 x1 - 1``
(x1 > 0) ``f`` falls at a slope of 1/4.

Along a crease between two pieces with gradients ``g_i`` and ``g_j``, both pieces change
alike: the direction lies in the complement of ``g_i - g_j``. There, minus the projection
of ``g_i`` (equal to that of ``g_j``) descends on both pieces at once. At a minimum some
third piece rises along each such direction; where none does, ``f`` falls along it.
"""

from __future__ import annotations

import numpy as np

__all__ = ["crease_directions"]

# two directions closer than this cosine are one
SAME_DIRECTION = 0.99


def crease_directions(gradients: list[np.ndarray], max_count: int) -> list[np.ndarray]:
    """Unit directions ``d = -P g_i / |P g_i|``, ``P`` the projection onto the complement
    of ``g_i - g_j``, for pairs of distinct ``gradients``: steepest first (by ``|P g_i|``),
    at most ``max_count``, without near-duplicates.

    Examples
    --------
    >>> g = [np.array([-2.25, 1.0]), np.array([1.75, -1.0]), np.array([1.75, 1.0]),
    ...      np.array([-2.25, -1.0])]
    >>> d = crease_directions(g, 4)
    >>> any(np.allclose(v, np.array([1.0, 2.0]) / np.sqrt(5)) for v in d)
    True
    """
    found: list[tuple[float, np.ndarray]] = []
    grads = [np.asarray(g, dtype=float) for g in gradients
             if np.all(np.isfinite(g)) and np.any(g)]
    for i, gi in enumerate(grads):
        for gj in grads[i + 1:]:
            diff = gi - gj
            size = float(np.linalg.norm(diff))
            if not size > 1e-12 * max(np.linalg.norm(gi), np.linalg.norm(gj)):
                continue  # one piece: no crease between them
            u = diff / size
            d = -(gi - float(gi @ u) * u)
            slope = float(np.linalg.norm(d))
            if slope > 0:
                found.append((slope, d / slope))
    found.sort(key=lambda item: -item[0])
    out: list[np.ndarray] = []
    for _, d in found:
        if all(abs(float(d @ e)) < SAME_DIRECTION for e in out):
            out.append(d)
            if len(out) >= max_count:
                break
    return out
