"""The one catalogue of minimisation problems, shared by tests/optimize and the benchmark.

Every :class:`Problem` has a starting point, a known minimum value ``fstar`` and a
tolerance: a method *solves* it when ``f(x) <= fstar + tol``. The default tolerance is
``min(1e-6 max(1, |f*|), 1e-5 (f(x0) - f*))``: relative to the minimum, but never so loose
that a point a hundred-thousandth of the way down from the start would count.

* ``smooth``: Moré, Garbow & Hillstrom, "Testing unconstrained optimization software",
  ACM TOMS 7 (1981) — the function definitions, standard starts and minimum values of
  that paper (also from 10x the standard start). Where the paper lists a second, local
  minimum value it is in ``local_minima``: a method that stops there has not solved the
  problem, but a claim of success there is not counted as false (it *is* a minimum).
  Values quoted to six digits in the paper were refined to more digits by
  ``scipy.optimize.least_squares`` from the paper's minimiser (tests check both).
* ``nonsmooth``: hinge-loss SVM without and with an L2 penalty (reference by linear
  programming with ``scipy.optimize.linprog``, and for the L2 case a dual QP certified by
  the duality gap), L1 regression (LP), Lewis & Overton's non-smooth Rosenbrock, a max
  of quadratics with a known minimiser, and an L1 distance.
* ``hostile``: NaN or inf outside a domain, objectives that raise, wrong or NaN
  gradients, bad scaling, a start at 1e8, a quantised (piecewise flat) objective.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from scipy.optimize import linprog, minimize

__all__ = ["Problem", "catalogue", "svm_data", "hinge_loss", "hinge_subgradient",
           "hinge_lp_minimum", "hinge_l2_minimum", "smooth_problems", "nonsmooth_problems",
           "hostile_problems", "by_name", "weighted_bowl", "chained_rosenbrock"]


@dataclass
class Problem:
    """One test problem: ``fun(x)``, ``x0``, the minimum value ``fstar`` and its tolerance."""

    name: str
    kind: str  # "smooth", "nonsmooth" or "hostile"
    fun: Callable[[np.ndarray], float]
    x0: np.ndarray
    fstar_source: float | Callable[[], float]
    jac: Callable | None = None
    tol_override: float | None = None
    local_minima: tuple[float, ...] = ()
    note: str = ""
    extra: dict = field(default_factory=dict)

    @cached_property
    def fstar(self) -> float:
        src = self.fstar_source
        return float(src() if callable(src) else src)

    @cached_property
    def tol(self) -> float:
        if self.tol_override is not None:
            return self.tol_override
        with np.errstate(all="ignore"):
            try:
                f0 = float(self.fun(np.array(self.x0, dtype=float)))
            except Exception:
                f0 = np.inf
        gap = f0 - self.fstar if np.isfinite(f0) else np.inf
        # the floor keeps a start that already is the minimiser (gulf_x10) solvable
        return max(min(1e-6 * max(1.0, abs(self.fstar)), 1e-5 * gap), 1e-14)

    def solved(self, f) -> bool:
        """True when ``f`` is at most the tolerance above the minimum (a value below it
        counts: rounding gives one on NIST's Lanczos1)."""
        return bool(np.isfinite(f) and f <= self.fstar + self.tol)

    def at_a_minimum(self, f) -> bool:
        """Solved, or at one of the paper's listed local minima."""
        if self.solved(f):
            return True
        return any(abs(f - m) <= 1e-6 * max(1.0, abs(m)) for m in self.local_minima)


def _sumsq(residuals: Callable[[np.ndarray], np.ndarray]) -> Callable[[np.ndarray], float]:
    def f(x):
        r = residuals(np.asarray(x, dtype=float))
        return float(r @ r)
    f.residuals = residuals
    return f


# --- Moré, Garbow & Hillstrom (1981) ---------------------------------------------------

def _rosenbrock(x):
    return np.array([10 * (x[1] - x[0] ** 2), 1 - x[0]])


def _freudenstein_roth(x):
    return np.array([-13 + x[0] + ((5 - x[1]) * x[1] - 2) * x[1],
                     -29 + x[0] + ((x[1] + 1) * x[1] - 14) * x[1]])


def _powell_badly_scaled(x):
    return np.array([1e4 * x[0] * x[1] - 1, np.exp(-x[0]) + np.exp(-x[1]) - 1.0001])


def _brown_badly_scaled(x):
    return np.array([x[0] - 1e6, x[1] - 2e-6, x[0] * x[1] - 2])


def _beale(x):
    y = np.array([1.5, 2.25, 2.625])
    i = np.arange(1, 4)
    return y - x[0] * (1 - x[1] ** i)


def _jennrich_sampson(x):
    i = np.arange(1, 11)
    return 2 + 2 * i - (np.exp(i * x[0]) + np.exp(i * x[1]))


def _helical_valley(x):
    theta = np.arctan(x[1] / x[0]) / (2 * np.pi) if x[0] != 0 else 0.25 * np.sign(x[1])
    if x[0] < 0:
        theta += 0.5
    return np.array([10 * (x[2] - 10 * theta), 10 * (np.hypot(x[0], x[1]) - 1), x[2]])


_BARD_Y = np.array([0.14, 0.18, 0.22, 0.25, 0.29, 0.32, 0.35, 0.39, 0.37, 0.58, 0.73,
                    0.96, 1.34, 2.10, 4.39])


def _bard(x):
    u = np.arange(1, 16.0)
    v = 16 - u
    w = np.minimum(u, v)
    return _BARD_Y - (x[0] + u / (v * x[1] + w * x[2]))


_GAUSS_Y = np.array([0.0009, 0.0044, 0.0175, 0.0540, 0.1295, 0.2420, 0.3521, 0.3989,
                     0.3521, 0.2420, 0.1295, 0.0540, 0.0175, 0.0044, 0.0009])


def _gaussian(x):
    t = (8 - np.arange(1, 16.0)) / 2
    return x[0] * np.exp(-x[1] * (t - x[2]) ** 2 / 2) - _GAUSS_Y


_MEYER_Y = np.array([34780, 28610, 23650, 19630, 16370, 13720, 11540, 9744, 8261, 7030,
                     6005, 5147, 4427, 3820, 3307, 2872], dtype=float)


def _meyer(x):
    t = 45 + 5 * np.arange(1, 17.0)
    return x[0] * np.exp(x[1] / (t + x[2])) - _MEYER_Y


def _gulf(x, m=99):
    t = np.arange(1, m + 1) / 100
    y = 25 + (-50 * np.log(t)) ** (2 / 3)
    return np.exp(-np.abs(y - x[1]) ** x[2] / x[0]) - t


def _box3d(x):
    t = 0.1 * np.arange(1, 11.0)
    return (np.exp(-t * x[0]) - np.exp(-t * x[1])
            - x[2] * (np.exp(-t) - np.exp(-10 * t)))


def _powell_singular(x):
    x = np.asarray(x)
    out = []
    for j in range(0, x.size, 4):
        a, b, c, d = x[j:j + 4]
        out += [a + 10 * b, np.sqrt(5) * (c - d), (b - 2 * c) ** 2, np.sqrt(10) * (a - d) ** 2]
    return np.array(out)


def _wood(x):
    return np.array([10 * (x[1] - x[0] ** 2), 1 - x[0], np.sqrt(90) * (x[3] - x[2] ** 2),
                     1 - x[2], np.sqrt(10) * (x[1] + x[3] - 2),
                     (x[1] - x[3]) / np.sqrt(10)])


_KO_Y = np.array([0.1957, 0.1947, 0.1735, 0.1600, 0.0844, 0.0627, 0.0456, 0.0342, 0.0323,
                  0.0235, 0.0246])
_KO_U = np.array([4, 2, 1, 0.5, 0.25, 0.167, 0.125, 0.1, 0.0833, 0.0714, 0.0625])


def _kowalik_osborne(x):
    u = _KO_U
    return _KO_Y - x[0] * (u * u + u * x[1]) / (u * u + u * x[2] + x[3])


def _brown_dennis(x):
    t = np.arange(1, 21) / 5
    return (x[0] + t * x[1] - np.exp(t)) ** 2 + (x[2] + x[3] * np.sin(t) - np.cos(t)) ** 2


_OSB1_Y = np.array([0.844, 0.908, 0.932, 0.936, 0.925, 0.908, 0.881, 0.850, 0.818, 0.784,
                    0.751, 0.718, 0.685, 0.658, 0.628, 0.603, 0.580, 0.558, 0.538, 0.522,
                    0.506, 0.490, 0.478, 0.467, 0.457, 0.448, 0.438, 0.431, 0.424, 0.420,
                    0.414, 0.411, 0.406])


def _osborne1(x):
    t = 10 * np.arange(33.0)
    return _OSB1_Y - (x[0] + x[1] * np.exp(-t * x[3]) + x[2] * np.exp(-t * x[4]))


def _biggs_exp6(x):
    t = 0.1 * np.arange(1, 14.0)
    y = np.exp(-t) - 5 * np.exp(-10 * t) + 3 * np.exp(-4 * t)
    return (x[2] * np.exp(-t * x[0]) - x[3] * np.exp(-t * x[1]) + x[5] * np.exp(-t * x[4])
            - y)


def _watson(x):
    n = x.size
    t = np.arange(1, 30) / 29
    j = np.arange(n)
    s1 = (j[1:] * x[1:] * t[:, None] ** (j[1:] - 1)).sum(axis=1)
    s2 = (x * t[:, None] ** j).sum(axis=1)
    return np.concatenate([s1 - s2 ** 2 - 1, [x[0], x[1] - x[0] ** 2 - 1]])


def _ext_rosenbrock(x):
    return np.concatenate([10 * (x[1::2] - x[0::2] ** 2), 1 - x[0::2]])


def _penalty1(x):
    return np.concatenate([np.sqrt(1e-5) * (x - 1), [x @ x - 0.25]])


def _penalty2(x):
    n = x.size
    a = np.sqrt(1e-5)
    i = np.arange(2, n + 1)
    y = np.exp(i / 10) + np.exp((i - 1) / 10)
    r2 = a * (np.exp(x[1:] / 10) + np.exp(x[:-1] / 10) - y)
    r3 = a * (np.exp(x[1:] / 10) - np.exp(-0.1))
    r4 = (np.arange(n, 0, -1) * x * x).sum() - 1
    return np.concatenate([[x[0] - 0.2], r2, r3, [r4]])


def _variably_dimensioned(x):
    j = np.arange(1, x.size + 1)
    s = (j * (x - 1)).sum()
    return np.concatenate([x - 1, [s, s * s]])


def _trigonometric(x):
    n = x.size
    i = np.arange(1, n + 1)
    return n - np.cos(x).sum() + i * (1 - np.cos(x)) - np.sin(x)


def _brown_almost_linear(x):
    n = x.size
    return np.concatenate([x[:-1] + x.sum() - (n + 1), [np.prod(x) - 1]])


def _discrete_boundary(x):
    n = x.size
    h = 1 / (n + 1)
    t = h * np.arange(1, n + 1)
    xp = np.concatenate([[0.0], x, [0.0]])
    return 2 * x - xp[:-2] - xp[2:] + h * h * (x + t + 1) ** 3 / 2


def _discrete_integral(x):
    n = x.size
    h = 1 / (n + 1)
    t = h * np.arange(1, n + 1)
    c = (x + t + 1) ** 3
    lower = np.cumsum(t * c)
    upper = np.concatenate([np.cumsum(((1 - t) * c)[::-1])[::-1][1:], [0.0]])
    return x + h * ((1 - t) * lower + t * upper) / 2


def _broyden_tridiagonal(x):
    xp = np.concatenate([[0.0], x, [0.0]])
    return (3 - 2 * x) * x - xp[:-2] - 2 * xp[2:] + 1


def _broyden_banded(x):
    n = x.size
    out = np.empty(n)
    for i in range(n):
        js = [j for j in range(max(0, i - 5), min(n, i + 2)) if j != i]
        out[i] = x[i] * (2 + 5 * x[i] ** 2) + 1 - sum(x[j] * (1 + x[j]) for j in js)
    return out


def _linear_full_rank(x, m=10):
    n = x.size
    s = 2 * x.sum() / m
    return np.concatenate([x - s - 1, np.full(m - n, -s - 1)])


def _chebyquad(x):
    n = x.size
    y = 2 * x - 1
    t_prev, t_cur = np.ones(n), y.copy()
    out = np.empty(n)
    for i in range(1, n + 1):
        integral = 0.0 if i % 2 else -1.0 / (i * i - 1)
        out[i - 1] = t_cur.mean() - integral
        t_prev, t_cur = t_cur, 2 * y * t_cur - t_prev
    return out


# name, residuals, x0, f* (refined; the paper's value in the comment), local minima
_MGH = [
    ("rosenbrock", _rosenbrock, [-1.2, 1], 0.0, ()),
    ("freudenstein_roth", _freudenstein_roth, [0.5, -2], 0.0, (48.9842536792,)),  # 48.9842
    ("powell_badly_scaled", _powell_badly_scaled, [0, 1], 0.0, ()),
    ("brown_badly_scaled", _brown_badly_scaled, [1, 1], 0.0, ()),
    ("beale", _beale, [1, 1], 0.0, ()),
    ("jennrich_sampson", _jennrich_sampson, [0.3, 0.4], 124.362182356, ()),  # 124.362
    ("helical_valley", _helical_valley, [-1, 0, 0], 0.0, ()),
    ("bard", _bard, [1, 1, 1], 8.21487730658e-3, (17.4286,)),  # 8.21487e-3
    ("gaussian", _gaussian, [0.4, 1, 0], 1.12793276961e-8, ()),  # 1.12793e-8
    ("meyer", _meyer, [0.02, 4000, 250], 87.9458551705, ()),  # 87.9458
    ("gulf", _gulf, [5, 2.5, 0.15], 0.0, ()),
    ("box3d", _box3d, [0, 10, 20], 0.0, ()),
    ("powell_singular", _powell_singular, [3, -1, 0, 1], 0.0, ()),
    ("wood", _wood, [-3, -1, -3, -1], 0.0, ()),
    ("kowalik_osborne", _kowalik_osborne, [0.25, 0.39, 0.415, 0.39], 3.07505603849e-4,
     (1.02734e-3,)),  # 3.07505e-4
    ("brown_dennis", _brown_dennis, [25, 5, -5, -1], 85822.2016263563, ()),  # 85822.2
    ("osborne1", _osborne1, [0.5, 1.5, -1, 0.01, 0.02], 5.46489469748e-5, ()),  # 5.46489e-5
    ("biggs_exp6", _biggs_exp6, [1, 2, 1, 1, 1, 1], 0.0, (5.65565e-3, 3.06677e-1)),
    ("watson6", _watson, [0.0] * 6, 2.28767005355e-3, ()),  # 2.28767e-3
    ("watson9", _watson, [0.0] * 9, 1.3997601381e-6, ()),  # 1.39976e-6
    ("extended_rosenbrock10", _ext_rosenbrock, [-1.2, 1] * 5, 0.0, ()),
    ("extended_powell8", _powell_singular, [3, -1, 0, 1] * 2, 0.0, ()),
    ("penalty1_4", _penalty1, [1, 2, 3, 4], 2.24997750086e-5, ()),  # 2.24997e-5
    ("penalty1_10", _penalty1, list(range(1, 11)), 7.08765146709e-5, ()),  # 7.08765e-5
    ("penalty2_4", _penalty2, [0.5] * 4, 9.37629300736e-6, ()),  # 9.37629e-6
    ("penalty2_10", _penalty2, [0.5] * 10, 2.93660537457e-4, ()),  # 2.93660e-4
    ("variably_dimensioned10", _variably_dimensioned, [1 - j / 10 for j in range(1, 11)],
     0.0, ()),
    ("trigonometric10", _trigonometric, [0.1] * 10, 0.0, (2.79506e-5,)),
    ("brown_almost_linear10", _brown_almost_linear, [0.5] * 10, 0.0, (1.0,)),
    ("discrete_boundary10", _discrete_boundary,
     [t * (t - 1) for t in np.arange(1, 11) / 11], 0.0, ()),
    ("discrete_integral10", _discrete_integral,
     [t * (t - 1) for t in np.arange(1, 11) / 11], 0.0, ()),
    ("broyden_tridiagonal10", _broyden_tridiagonal, [-1.0] * 10, 0.0, ()),
    ("broyden_banded10", _broyden_banded, [-1.0] * 10, 0.0, ()),
    ("linear_full_rank5", _linear_full_rank, [1.0] * 5, 5.0, ()),
    ("chebyquad6", _chebyquad, [j / 7 for j in range(1, 7)], 0.0, ()),
    ("chebyquad8", _chebyquad, [j / 9 for j in range(1, 9)], 3.51687372568e-3, ()),
]


def smooth_problems() -> list[Problem]:
    """MGH problems from the standard start and from 10x the standard start."""
    out = []
    for name, res, x0, fstar, local in _MGH:
        x0 = np.array(x0, dtype=float)
        f = _sumsq(res)
        out.append(Problem(name, "smooth", f, x0, fstar, local_minima=local))
        if np.any(x0 != 0):
            out.append(Problem(name + "_x10", "smooth", f, 10 * x0, fstar,
                               local_minima=local))
    return out


# --- non-smooth ------------------------------------------------------------------------

def svm_data(n_samples: int = 60, n_features: int = 4, seed: int = 0):
    """Two overlapping Gaussian classes (labels +-1): the hinge loss has a positive min."""
    rng = np.random.default_rng(seed)
    y = np.where(np.arange(n_samples) % 2 == 0, 1.0, -1.0)
    X = rng.standard_normal((n_samples, n_features)) + 0.8 * y[:, None]
    return X, y


def hinge_loss(params, X, y, lam=0.0):
    """Mean hinge loss of the linear classifier ``sign(X w + b)``, plus ``lam/2 ‖w‖²``."""
    w, b = params[:-1], params[-1]
    margins = 1.0 - y * (X @ w + b)
    return float(np.maximum(margins, 0.0).mean() + 0.5 * lam * (w @ w))


def hinge_subgradient(params, X, y, lam=0.0):
    """A subgradient of :func:`hinge_loss` (the gradient wherever it exists)."""
    w, b = params[:-1], params[-1]
    active = (1.0 - y * (X @ w + b)) > 0
    coef = -(y * active) / y.size
    return np.concatenate([X.T @ coef + lam * w, [coef.sum()]])


def hinge_lp_minimum(X, y) -> float:
    """min mean hinge loss as an LP: min mean(xi), xi >= 1 - y(Xw + b), xi >= 0."""
    n, d = X.shape
    c = np.concatenate([np.zeros(d + 1), np.full(n, 1.0 / n)])
    A = np.hstack([-y[:, None] * X, -y[:, None], -np.eye(n)])
    bounds = [(None, None)] * (d + 1) + [(0, None)] * n
    res = linprog(c, A_ub=A, b_ub=-np.ones(n), bounds=bounds, method="highs")
    return float(res.fun)


def hinge_l2_minimum(X, y, lam) -> tuple[float, float]:
    """(primal value, duality gap) for the L2-penalised hinge loss.

    Dual QP ``max sum(a) - ‖X^T (a*y)‖² / (2 lam)`` over ``0 <= a <= 1/n``, ``a·y = 0``
    (SLSQP, in ``a`` and in ``u = n a``); the primal point ``w = X^T (a*y) / lam`` with
    the intercept from an exact LP in ``b`` gives an upper bound, the dual value a lower
    bound. SLSQP alone closes the gap to 1e-13 - 1e-5, depending on the formulation and
    on the BLAS kernels it runs on (with X's features 1000x apart, one formulation ended
    at a gap of 2.6e8 with OpenBLAS's Sandybridge kernels), so each answer is polished by
    solving the KKT conditions exactly by an active-set iteration
    (:func:`_hinge_l2_active_set`), and the pair with the smallest gap is kept.
    """
    n = y.size
    Xy = X * y[:, None]

    def neg_dual(a):
        v = Xy.T @ a
        return -(a.sum() - v @ v / (2 * lam))

    def neg_dual_grad(a):
        return -(1.0 - Xy @ (Xy.T @ a) / lam)

    # the best intercept for a given w, min_b mean(max(0, 1 - y(Xw) - y b)), is an LP in
    # (b, xi) with these costs and constraint matrix
    c = np.concatenate([[0.0], np.full(n, 1.0 / n)])
    A = np.hstack([-y[:, None], -np.eye(n)])
    best = (np.inf, np.inf)
    for unit in (1.0, float(n)):  # the dual in a, and in u = n a
        res = minimize(lambda u, c=unit: neg_dual(u / c),
                       np.full(n, 0.5 * unit / n), method="SLSQP",
                       jac=lambda u, c=unit: neg_dual_grad(u / c) / c,
                       bounds=[(0, unit / n)] * n,
                       constraints=[{"type": "eq", "fun": lambda u: u @ y,
                                     "jac": lambda u: y}],
                       options={"ftol": 1e-15, "maxiter": 1000})
        a = np.clip(res.x / unit, 0, 1.0 / n)
        w = Xy.T @ a / lam
        lp = linprog(c, A_ub=A, b_ub=-(1 - y * (X @ w)),
                     bounds=[(None, None)] + [(0, None)] * n, method="highs")
        candidates = [(w, lp.x[0], a)]
        polished = _hinge_l2_active_set(X, y, lam, y * (X @ w + lp.x[0]))
        if polished is not None:
            candidates.append(polished)
        for w_c, b_c, a_c in candidates:
            primal = hinge_loss(np.concatenate([w_c, [b_c]]), X, y, lam)
            gap = primal + neg_dual(a_c)
            if -1e-12 <= gap < best[1]:
                best = (primal, gap)
    return best


def _hinge_l2_active_set(X, y, lam, margins):
    """Solve the SVM's KKT conditions exactly by an active-set iteration started from the
    sets ``margins`` suggest; ``(w, b, a)`` or None where it does not settle.

    Points with margin ``y (x·w + b)`` within ``width`` of 1 start on the margin (their
    dual weight free in ``[0, 1/n]``), those below as violators (weight ``1/n``), the
    rest at weight 0; widths from 1e-8 to 1e-2 are tried in turn (how close the
    approximate margins are depends on how well SLSQP did)."""
    for width in (1e-8, 1e-6, 1e-4, 1e-3, 1e-2):
        state = np.where(np.abs(margins - 1.0) <= width, 0, np.where(margins < 1.0, 1, -1))
        settled = _hinge_l2_settle(X, y, lam, state)
        if settled is not None:
            return settled
    return None


def _hinge_l2_settle(X, y, lam, state):
    """The active-set iteration of :func:`_hinge_l2_active_set` from ``state`` (0 on the
    margin, 1 violator, -1 zero weight). For given sets, ``lam w = X^T (a*y)``,
    ``a·y = 0`` and ``y (x·w + b) = 1`` on the margin are linear in ``(w, b, a_margin)``.
    Then the worst broken condition moves one point: a margin weight below 0 (above 1/n)
    to the zero (violator) set, a violator or zero-weight point on the wrong side of the
    margin onto it; when none is broken the KKT conditions hold to rounding.
    """
    n, d = X.shape
    state = state.copy()
    Xy = X * y[:, None]
    for _ in range(4 * n):
        on = state == 0
        a = np.where(state == 1, 1.0 / n, 0.0)
        k = int(on.sum())
        M = np.zeros((d + 1 + k, d + 1 + k))
        rhs = np.zeros(d + 1 + k)
        M[:d, :d] = lam * np.eye(d)
        M[:d, d + 1:] = -Xy[on].T
        rhs[:d] = Xy.T @ a
        M[d, d + 1:] = y[on]
        rhs[d] = -(y @ a)
        M[d + 1:, :d] = Xy[on]
        M[d + 1:, d] = y[on]
        rhs[d + 1:] = 1.0
        sol, *_ = np.linalg.lstsq(M, rhs, rcond=None)
        # (residuals relative to the terms they cancel: the rows mix lam with X's units)
        if np.any(np.abs(M @ sol - rhs) > 1e-9 * (np.abs(M) @ np.abs(sol) + np.abs(rhs))):
            return None
        w, b, a_on = sol[:d], sol[d], sol[d + 1:]
        idx = np.flatnonzero(on)
        low, high = -a_on, a_on - 1.0 / n
        worst = int(np.argmax(np.maximum(low, high))) if k else -1
        if k and max(low[worst], high[worst]) > 1e-12 / n:
            state[idx[worst]] = -1 if low[worst] > high[worst] else 1
            continue
        new_margins = y * (X @ w + b)
        wrong = np.where(state == 1, new_margins - 1.0,
                         np.where(state == -1, 1.0 - new_margins, 0.0))
        worst = int(np.argmax(wrong))
        if wrong[worst] > 1e-10 * max(1.0, float(np.abs(new_margins).max())):
            state[worst] = 0
            continue
        a[on] = np.clip(a_on, 0.0, 1.0 / n)
        return w, b, a
    return None


def l1_data(n_samples: int = 40, n_features: int = 4, seed: int = 1):
    rng = np.random.default_rng(seed)
    X = np.hstack([rng.standard_normal((n_samples, n_features)), np.ones((n_samples, 1))])
    beta = np.arange(1, n_features + 2, dtype=float)
    y = X @ beta + rng.standard_t(1.5, n_samples)
    return X, y


def l1_loss(beta, X, y):
    return float(np.abs(y - X @ beta).mean())


def l1_lp_minimum(X, y) -> float:
    """min mean|y - X beta| as an LP with y - X beta = u - v, u, v >= 0."""
    n, d = X.shape
    c = np.concatenate([np.zeros(d), np.full(2 * n, 1.0 / n)])
    A_eq = np.hstack([X, np.eye(n), -np.eye(n)])
    bounds = [(None, None)] * d + [(0, None)] * (2 * n)
    return float(linprog(c, A_eq=A_eq, b_eq=y, bounds=bounds, method="highs").fun)


def _nonsmooth_rosenbrock(x, w=8.0):
    # Lewis & Overton (2013), sec. 5: minimiser (1, 1), f* = 0
    return float(w * abs(x[0] ** 2 - x[1]) + (1 - x[0]) ** 2)


def max_of_quadratics(n: int = 10, m: int = 5, seed: int = 2):
    """``max_k g_k·x + x^T H_k x / 2`` with 0 in the hull of the g_k: minimum 0 at x = 0."""
    rng = np.random.default_rng(seed)
    G = rng.standard_normal((m, n))
    lam = rng.uniform(0.5, 1.5, m)
    G[-1] = -(lam[:-1] @ G[:-1]) / lam[-1]
    Hs = []
    for _ in range(m):
        A = rng.standard_normal((n, n)) / np.sqrt(n)
        Hs.append(A @ A.T)

    def f(x):
        x = np.asarray(x, dtype=float)
        return float(max(G[k] @ x + 0.5 * x @ Hs[k] @ x for k in range(m)))
    return f


def nonsmooth_problems() -> list[Problem]:
    X, y = svm_data()
    Xl, yl = l1_data()
    lam = 0.1
    out = [
        Problem("hinge_svm", "nonsmooth", lambda p: hinge_loss(p, X, y), np.zeros(5),
                lambda: hinge_lp_minimum(X, y), jac=lambda p: hinge_subgradient(p, X, y),
                note="mean hinge loss, LP reference"),
        Problem("hinge_svm_fd", "nonsmooth", lambda p: hinge_loss(p, X, y), np.zeros(5),
                lambda: hinge_lp_minimum(X, y), note="as hinge_svm, finite differences"),
        Problem("hinge_svm_l2", "nonsmooth", lambda p: hinge_loss(p, X, y, lam),
                np.zeros(5), lambda: hinge_l2_minimum(X, y, lam)[0],
                jac=lambda p: hinge_subgradient(p, X, y, lam),
                note="hinge + L2, dual-QP reference certified by the duality gap"),
        Problem("l1_regression", "nonsmooth", lambda b: l1_loss(b, Xl, yl), np.zeros(5),
                lambda: l1_lp_minimum(Xl, yl), note="least absolute deviations, LP"),
        Problem("nonsmooth_rosenbrock", "nonsmooth", _nonsmooth_rosenbrock,
                np.array([-1.2, 1.0]), 0.0, note="Lewis & Overton 2013"),
        Problem("nonsmooth_rosenbrock_b", "nonsmooth", _nonsmooth_rosenbrock,
                np.array([0.5, 2.0]), 0.0),
        Problem("max_quadratics", "nonsmooth", max_of_quadratics(), np.ones(10), 0.0),
        Problem("max_quadratics_2d", "nonsmooth", max_of_quadratics(2, 3, 5),
                np.array([3.0, -2.0]), 0.0),
        Problem("l1_distance", "nonsmooth",
                lambda x: float(np.abs(np.asarray(x) - np.arange(1, 6)).sum()),
                np.zeros(5), 0.0),
    ]
    return out


# --- hostile ---------------------------------------------------------------------------

def _log_domain(x):
    # NaN (numpy's log of a negative number) outside x > 0; minimum 0 at x = (1, 1)
    return float(np.sum(np.log(x) ** 2))


def _barrier(x):
    # +inf outside the open unit box; minimum (1-D, numerically) near x = 0.33
    x = np.asarray(x)
    if np.any(np.abs(x) >= 1):
        return np.inf
    return float(np.sum((x - 0.5) ** 2) - np.sum(np.log1p(-x * x)))


def _raises_outside(x):
    # math.sqrt raises ValueError for x0 < 0; minimum 0 at (0.01, 2)
    return (math.sqrt(x[0]) - 0.1) ** 2 + (x[1] - 2.0) ** 2


def _flaky(x):
    # raises RuntimeError at roughly one point in ten (a deterministic "solver failure")
    if int(abs(x[0]) * 1e9 + abs(x[1]) * 1e7) % 10 == 3:
        raise RuntimeError("inner solver did not converge")
    return float((x[0] - 1) ** 2 + 10 * (x[1] + 2) ** 2)


def _quantised(x):
    # a simulation that reports its result to 1e-4: flat steps, minimum 0 at (1, -1)
    v = (x[0] - 1) ** 2 + (x[1] + 1) ** 2 + 0.5 * (x[0] - 1) * (x[1] + 1)
    return float(np.floor(v * 1e4) / 1e4)


def _rosen(x):
    return float((1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2)


def _rosen_wrong_grad(x):
    # a typical bug: the chain-rule factor 2 x0 is missing in the first component
    return np.array([-2 * (1 - x[0]) - 400 * (x[1] - x[0] ** 2), 200 * (x[1] - x[0] ** 2)])


def _quad_nan_grad(x):
    g = np.array([2 * (x[0] - 3), 20 * (x[1] - 1)])
    if x[0] > 1.5:
        g[0] = np.nan
    return g


_SCALES = np.array([1e-4, 1e-2, 1.0, 1e2, 1e4])


def _badly_scaled(x):
    return float(np.sum(((x - 2 * _SCALES) / _SCALES) ** 2))


def _huge_start(x):
    return float((x[0] - 3) ** 2 + 2 * (x[1] + 1) ** 2 + (x[0] - 3) * (x[1] + 1))


def weighted_bowl(x):
    # sum(i (x_i - 1)**2): minimiser at ones, minimum 0
    x = np.asarray(x, dtype=float)
    return float(np.sum(np.arange(1, x.size + 1) * (x - 1.0) ** 2))


def chained_rosenbrock(x):
    x = np.asarray(x, dtype=float)
    return float(np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2))


def _barrier_min():
    # 1-D: (x - .5)^2 - log(1 - x^2) minimised numerically to machine precision
    from scipy.optimize import minimize_scalar
    r = minimize_scalar(lambda t: (t - 0.5) ** 2 - math.log1p(-t * t), bounds=(-0.99, 0.99),
                        method="bounded", options={"xatol": 1e-12})
    return 2 * r.fun


def hostile_problems() -> list[Problem]:
    return [
        Problem("nan_outside_domain", "hostile", _log_domain, np.array([0.05, 8.0]), 0.0,
                note="log of a negative number is NaN"),
        Problem("inf_outside_domain", "hostile", _barrier, np.array([0.9, -0.9]),
                _barrier_min, note="log barrier, +inf outside the box"),
        Problem("raises_outside_domain", "hostile", _raises_outside, np.array([4.0, 0.0]),
                0.0, note="math.sqrt raises ValueError for x0 < 0"),
        Problem("raises_sometimes", "hostile", _flaky, np.array([-3.0, 3.0]), 0.0),
        Problem("quantised_flat", "hostile", _quantised, np.array([4.0, 3.0]), 0.0,
                tol_override=2e-4, note="piecewise constant: finite differences are 0"),
        Problem("wrong_gradient", "hostile", _rosen, np.array([-1.2, 1.0]), 0.0,
                jac=_rosen_wrong_grad, note="jac misses a chain-rule factor"),
        Problem("nan_gradient", "hostile", lambda x: float((x[0] - 3) ** 2
                                                          + 10 * (x[1] - 1) ** 2),
                np.array([0.0, 0.0]), 0.0, jac=_quad_nan_grad,
                note="jac returns NaN for x0 > 1.5"),
        Problem("badly_scaled", "hostile", _badly_scaled, 7 * _SCALES, 0.0,
                note="variables from 1e-4 to 1e4"),
        Problem("huge_start", "hostile", _huge_start, np.array([1e8, -1e8]), 0.0,
                note="start at 1e8"),
        Problem("huge_start_rosenbrock", "hostile", _rosen, np.array([1e4, 1e4]), 0.0),
        # a constant term far above the changes of the rest (an energy's or a
        # likelihood's constant): tests relative to |f| alone accept any point of the
        # basin (the tolerance is relative to the descent from x0, 1e-5 of it)
        Problem("shifted_rosenbrock", "hostile", lambda x: _rosen(x) + 1e6,
                np.array([-1.2, 1.0]), 1e6, note="Rosenbrock plus 1e6"),
        Problem("shifted_scaled_rosenbrock4", "hostile",
                lambda x: 1e-2 * chained_rosenbrock(x) - 1e4, np.array([-1.2, 1.0, -1.2, 1.0]),
                -1e4, note="1e-2 times the chained Rosenbrock function, minus 1e4"),
        Problem("shifted_bowl", "hostile", lambda x: weighted_bowl(x) + 1e5, np.zeros(5), 1e5,
                note="a weighted bowl plus 1e5"),
    ]


def catalogue() -> list[Problem]:
    """Every problem: smooth, then non-smooth, then hostile."""
    return smooth_problems() + nonsmooth_problems() + hostile_problems()


def by_name(name: str) -> Problem:
    for p in catalogue():
        if p.name == name:
            return p
    raise KeyError(name)
