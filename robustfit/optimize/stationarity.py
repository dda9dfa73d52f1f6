"""Stopping tests: when may a result be called a success?

* Smooth: the relative stationarity ``max_i |g_i| max(1, |z_i|) / max(1, |f|)`` is at
  most ``gtol``, with ``g`` from the analytic gradient or *central* differences.
* Non-smooth (gradient sampling / bundle test): gradients ``g_i`` collected at points
  ``z_i`` near the best point ``z`` lie in the ``e_i``-subdifferential of ``f`` at ``z``
  with linearisation error ``e_i = f(z) - f(z_i) - g_i·(z - z_i)`` (exactly so for convex
  ``f``). If the shortest convex combination ``d`` of the gradients with small ``e_i`` has
  small norm, ``0`` is nearly an ``e``-subgradient: ``z`` is nearly stationary even at a
  kink, where every single gradient is large (Burke, Lewis & Overton 2005; Kiwiel's
  bundle methods use the same certificate).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import optimize

__all__ = ["min_norm_convex_combination", "relative_stationarity", "scaled_slope",
           "bundle_stationarity", "gradients_near", "Verdict"]

# earlier gradients count in the non-smooth certificate only within this distance of
# the point (relative to its size), and with a linearisation error there below
# BUNDLE_ERROR max(1, |f|)
BUNDLE_RADIUS = 1e-4
BUNDLE_ERROR = 1e-7


@dataclass
class Verdict:
    """A stopping test's outcome: whether it passed, the measure, and the test's name."""

    passed: bool
    measure: float
    test: str


def scaled_slope(z: np.ndarray, g: np.ndarray) -> float:
    """``max_i |g_i| max(1, |z_i|)``: the change of ``f``, to first order, when a
    variable moves by its size (at least 1)."""
    return float(np.max(np.abs(g) * np.maximum(1.0, np.abs(z))))


def relative_stationarity(z: np.ndarray, f: float, g: np.ndarray) -> float:
    """``max_i |g_i| max(1, |z_i|) / max(1, |f|)``: a scale-free gradient size."""
    return scaled_slope(z, g) / max(1.0, abs(f))


def gradients_near(items: list, z: np.ndarray, f: float) -> list:
    """The ``(z_i, f_i, g_i)`` of ``items`` (earlier iterates) that may join the
    non-smooth certificate at ``(z, f)``: within ``BUNDLE_RADIUS max(1, |z|)`` of ``z``
    (max norm), with a linearisation error ``|f - f_i - g_i·(z - z_i)|`` of at most
    ``BUNDLE_ERROR max(1, |f|)``.

    The error bounds how far ``g_i`` is from the subdifferential at ``z`` only for
    convex ``f``. A small MLP's loss has a flat valley (a saturated unit) in which
    iterates 17 units away were within 1e-10 of ``f`` and of their linearisation, and
    their gradients of 1e-4 "combined to zero"; the radius keeps to the ball that
    gradient sampling's theory (the Clarke epsilon-subdifferential) speaks of.

    Examples
    --------
    >>> import numpy as np
    >>> z = np.zeros(2)
    >>> far = (np.array([17.0, 0.0]), 1.0, np.array([0.0, 1e-4]))   # exact linearisation
    >>> close = (np.array([1e-6, 0.0]), 1.0, np.array([0.0, 1e-4]))
    >>> [float(zi[0]) for zi, _, _ in gradients_near([far, close], z, 1.0)]
    [1e-06]
    """
    near = BUNDLE_RADIUS * max(1.0, float(np.max(np.abs(z))))
    etol = BUNDLE_ERROR * max(1.0, abs(f))
    return [(zi, fi, gi) for zi, fi, gi in items
            if float(np.max(np.abs(zi - z))) <= near
            and abs(f - fi - float(gi @ (z - zi))) <= etol]


def min_norm_convex_combination(G: np.ndarray, iters: int = 500) -> np.ndarray:
    """Shortest vector in the convex hull of the rows of ``G``.

    Solves ``min ‖G^T w‖`` over the unit simplex (a tiny quadratic program, one row per
    sampled gradient) by an active-set NNLS solve and by accelerated projected gradient
    on ``w``, and keeps the shorter answer.

    Examples
    --------
    >>> import numpy as np
    >>> d = min_norm_convex_combination(np.array([[1.0, 1.0], [-1.0, 1.0]]))
    >>> np.round(d, 6)
    array([0., 1.])

    Rows that are not finite (a difference of values near overflow) take no part; with
    none left the answer is infinite, which certifies nothing:

    >>> min_norm_convex_combination(np.array([[np.inf, 1.0], [1.0, np.nan]]))
    array([inf, inf])
    """
    G = np.asarray(G, dtype=float)
    G = G[np.all(np.isfinite(G), axis=1)]
    if G.shape[0] == 0:
        return np.full(G.shape[1], np.inf)
    m = G.shape[0]
    norm = np.max(np.abs(G))
    if norm == 0 or m == 1:
        return G[0].copy()
    exact = _active_set_min_norm(G / norm)
    iterative = _projected_gradient_min_norm(G / norm, iters)
    best = iterative if exact is None or np.linalg.norm(iterative) < np.linalg.norm(
        exact) else exact
    return best * norm


def _active_set_min_norm(Gs: np.ndarray) -> np.ndarray | None:
    """Exact active-set solution (Lawson–Hanson NNLS) of the same problem: the simplex
    constraint ``sum w = 1`` enters as one heavily weighted row. Accurate where the
    gradients differ in scale by orders of magnitude (badly scaled variables), where
    first-order iterations stall far from the minimum."""
    m, n = Gs.shape
    weight = 1e4
    A = np.vstack([Gs.T, weight * np.ones(m)])
    b = np.r_[np.zeros(n), weight]
    try:
        w, _ = optimize.nnls(A, b, maxiter=50 * (m + n))
    except (RuntimeError, ValueError):
        return None
    total = w.sum()
    if not total > 0:
        return None
    return (w / total) @ Gs


def _projected_gradient_min_norm(Gs: np.ndarray, iters: int) -> np.ndarray:
    m = Gs.shape[0]
    Q = Gs @ Gs.T
    lipschitz = 2.0 * max(np.linalg.eigvalsh(Q)[-1], 1e-300)
    w = np.full(m, 1.0 / m)
    v, theta = w.copy(), 1.0
    for _ in range(iters):
        w_new = _project_simplex(v - 2.0 * (Q @ v) / lipschitz)
        theta_new = 0.5 * (1 + np.sqrt(1 + 4 * theta * theta))
        v = w_new + ((theta - 1) / theta_new) * (w_new - w)
        w, theta = w_new, theta_new
    return w @ Gs


def _project_simplex(v: np.ndarray) -> np.ndarray:
    # Held & Wolfe / Duchi et al.: sort, find the threshold, clip.
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    rho = np.nonzero(u - css / k > 0)[0][-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


def bundle_stationarity(z: np.ndarray, f: float, items, etol: float) -> float:
    """Relative size of the shortest convex combination of nearby gradients.

    ``items`` holds ``(z_i, f_i, g_i)``; only those with ``|e_i| <= etol`` are used.
    Returns ``inf`` when none qualifies.

    Examples
    --------
    >>> import numpy as np
    >>> items = [(np.array([1e-9]), 1e-9, np.array([1.0])),
    ...          (np.array([-1e-9]), 1e-9, np.array([-1.0]))]   # |z| near its kink
    >>> bundle_stationarity(np.zeros(1), 0.0, items, etol=1e-8) < 1e-8
    True
    """
    grads = []
    for zi, fi, gi in items:
        e = f - fi - float(gi @ (z - zi))
        if abs(e) <= etol:
            grads.append(gi)
    if not grads:
        return np.inf
    d = min_norm_convex_combination(np.array(grads))
    return float(np.max(np.abs(d)) * max(1.0, np.max(np.abs(z))) / max(1.0, abs(f)))
