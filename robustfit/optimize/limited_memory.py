"""BFGS's inverse-Hessian estimate kept as its last few updates (limited memory).

The dense estimate of :mod:`.bfgs` holds ``n**2`` numbers and costs ``O(n**2)`` a
step: 3.2 GB at 20,000 variables, and the update makes five temporaries of that size,
so a model of 30,000 parameters would need about 36 GB where L-BFGS-B's peak is 9 MB
(``benchmarks/minimize_large.py``). Beyond
:data:`DENSE_LIMIT` variables the core keeps instead the last :data:`MEMORY` pairs
``(s, y)`` and applies ``H`` by the two-loop recursion (Nocedal & Wright, *Numerical
Optimization*, Algorithm 7.4), with ``H0 = gamma I`` and ``gamma = s·y / y·y`` of the
newest pair (their eq. 7.20). What the driver reads of the model besides ``H v`` --
its diagonal, and ``H^-1 v`` -- comes from the compact representation (Byrd, Nocedal &
Schnabel, Math. Program. 63, 1994, eqs. 2.17 and 3.1) in ``O(m**2 n)``.

The same curvature guard applies: a pair with ``y·s`` at or below the guard's bound is
never stored, and a reset forgets the pairs (keeping ``gamma``).
"""

from __future__ import annotations

import numpy as np

__all__ = ["DENSE_LIMIT", "MEMORY", "LimitedMemoryInverse", "snapshot"]

# the dense estimate up to this many variables (8 n**2 bytes: 32 MB at 2000), the
# limited-memory one beyond. The dense one goes further per evaluation and costs more
# per step: on a tanh network of 1,981 weights, 6,000 evaluations took the dense model
# to f = 1.1e-6 in 706 s and the limited one to 2.5e-4 in 55 s (two busy cores)
DENSE_LIMIT = 2000
# pairs kept (L-BFGS-B's default is 10; more cost O(m n) a step and help on
# ill-conditioned problems)
MEMORY = 20


def _dot(a: np.ndarray, b: np.ndarray) -> float:
    """``a · b`` without BLAS: OpenBLAS threads its dot products beyond about 10,000
    elements, and on a busy machine each one then waits for a second thread (the
    two-loop recursion's 40 of them took 17 ms at 30,000 variables on two busy cores,
    at times 320 ms; about 1.3 ms this way, profiled)."""
    return float(np.einsum("i,i->", a, b))


class LimitedMemoryInverse:
    """An ``n x n`` inverse-Hessian estimate stored as update pairs.

    ``H @ v`` and ``v @ H`` (numpy defers to this class: ``__array_ufunc__ = None``),
    :meth:`diagonal`, :meth:`solve` (``H^-1 v``), :meth:`update`, :meth:`reset`,
    :meth:`copy`, and ``shape``.

    Examples
    --------
    >>> import numpy as np
    >>> A = np.diag([1.0, 10.0, 100.0])
    >>> H = LimitedMemoryInverse(3)
    >>> for s in np.eye(3):
    ...     H.update(s, A @ s)
    >>> np.round(H @ np.array([1.0, 10.0, 100.0]), 10) + 0.0   # A^-1 from three pairs
    array([1., 1., 1.])
    >>> np.round(H.diagonal(), 10) + 0.0
    array([1.  , 0.1 , 0.01])
    """

    __array_ufunc__ = None

    def __init__(self, n: int, memory: int = MEMORY, gamma: float = 1.0):
        self.n = int(n)
        self.memory = int(memory)
        self.gamma = float(gamma)
        self.s: list[np.ndarray] = []
        self.y: list[np.ndarray] = []
        self.rho: list[float] = []

    @property
    def shape(self) -> tuple[int, int]:
        return (self.n, self.n)

    def update(self, s: np.ndarray, y: np.ndarray, sy: float | None = None) -> None:
        """Add the pair ``(s, y)`` (``sy = s·y > 0``, the caller's curvature guard
        passed) and rescale ``H0`` to ``sy / y·y``; the oldest pair beyond
        ``memory`` is dropped."""
        sy = _dot(s, y) if sy is None else float(sy)
        self.s.append(np.array(s, dtype=float))
        self.y.append(np.array(y, dtype=float))
        self.rho.append(1.0 / sy)
        if len(self.s) > self.memory:
            del self.s[0], self.y[0], self.rho[0]
        self.gamma = sy / _dot(y, y)

    def reset(self, gamma: float | None = None) -> None:
        """Forget the pairs: ``H = gamma I`` (the current ``gamma`` unless given)."""
        self.s, self.y, self.rho = [], [], []
        if gamma is not None:
            self.gamma = float(gamma)

    def copy(self) -> LimitedMemoryInverse:
        out = LimitedMemoryInverse(self.n, self.memory, self.gamma)
        out.s, out.y, out.rho = list(self.s), list(self.y), list(self.rho)
        return out

    def __matmul__(self, v):
        v = np.asarray(v, dtype=float)
        if v.shape != (self.n,):
            return NotImplemented
        q = v.copy()
        alphas = []
        for s, y, rho in zip(reversed(self.s), reversed(self.y), reversed(self.rho),
                             strict=True):
            a = rho * _dot(s, q)
            alphas.append(a)
            q -= a * y
        r = self.gamma * q
        for s, y, rho, a in zip(self.s, self.y, self.rho, reversed(alphas), strict=True):
            b = rho * _dot(y, r)
            r += (a - b) * s
        return r

    __rmatmul__ = __matmul__  # (symmetric)

    def _blocks(self):
        S = np.array(self.s).T  # n x m, oldest first
        Y = np.array(self.y).T
        return S, Y, S.T @ Y

    def diagonal(self) -> np.ndarray:
        """``diag(H)`` from the compact representation: ``H = gamma I + W M W^T``
        with ``W = [S, gamma Y]``."""
        if not self.s:
            return np.full(self.n, self.gamma)
        S, Y, SY = self._blocks()
        R = np.triu(SY)
        m = R.shape[0]
        R_inv = np.linalg.solve(R, np.eye(m))
        D = np.diag(np.diag(SY))
        M = np.block([[R_inv.T @ (D + self.gamma * (Y.T @ Y)) @ R_inv, -R_inv.T],
                      [-R_inv, np.zeros((m, m))]])
        W = np.hstack([S, self.gamma * Y])
        return self.gamma + np.einsum("ia,ia->i", W @ M, W)

    def solve(self, v: np.ndarray) -> np.ndarray:
        """``H^-1 v``: the direct BFGS matrix ``B = delta I - W N^-1 W^T`` with
        ``delta = 1 / gamma``, ``W = [delta S, Y]`` and
        ``N = [[delta S^T S, L], [L^T, -D]]`` applied to ``v``."""
        v = np.asarray(v, dtype=float)
        delta = 1.0 / self.gamma
        if not self.s:
            return delta * v
        S, Y, SY = self._blocks()
        L = np.tril(SY, -1)
        D = np.diag(np.diag(SY))
        N = np.block([[delta * (S.T @ S), L], [L.T, -D]])
        W = np.hstack([delta * S, Y])
        return delta * v - W @ np.linalg.solve(N, W.T @ v)


def snapshot(H):
    """A copy of an inverse-Hessian estimate, dense or :class:`LimitedMemoryInverse`."""
    return H.copy() if isinstance(H, LimitedMemoryInverse) else np.array(H)
