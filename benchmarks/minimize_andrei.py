"""robust_minimize on held-out unconstrained problems: Andrei's collection, CUTE and the
classic two-dimensional test functions, none of them in the MGH or NIST catalogues.

Problems are written from their mathematical definitions: N. Andrei, "An unconstrained
optimization test functions collection", Adv. Model. Optim. 10 (2008) 147-161 (its
standard starting points), CUTE problems of free dimension, and the classic
two-dimensional functions with known minima. Each family runs at n = 2..30 (the cheap
ones also at n = 100), from the standard start and, where that makes sense (the start
is not 0 and 10x it is not a different problem), from 10x the start. Every ``f*`` is
exact (closed form, or a 1-D root of a polynomial or scalar equation solved to machine
precision) or was computed by least squares / multistarts and is checked by
``--verify``; how is said next to each value. The MGH problems (extended Rosenbrock,
extended Powell, Wood, Beale at n = 2, Freudenstein-Roth, ...) are not repeated.

For every problem, in one process, we run robust_minimize (``rng=0``, ``maxtime=120``,
finite-difference gradients) and scipy's BFGS, L-BFGS-B, Nelder-Mead and Powell with
their defaults (a scipy run is stopped after 120 s and counted as failed). Evaluations
are counted by a wrapper. Outcomes, with ``f`` recomputed at the returned ``x`` and
``tol = max(min(1e-6 max(1, |f*|), 1e-5 (f(x0) - f*)), 1e-14)``:

* ``solved``: ``f <= f* + tol``;
* ``local``: not solved, ``|f - m| <= tol`` for a listed local minimum value ``m``;
* ``stationary``: the same for a listed degenerate stationary value that is not a
  minimum but from which no descent is visible in floating point (Dixon-Price's 2/3);
* ``false_success``: success claimed, neither solved nor local (``polish_f``: what
  scipy's BFGS then Nelder-Mead reach from the returned point, and ``polish_stuck`` when
  that is not lower by more than ``tol``: a stall at an unlisted minimum, or a region
  flat to rounding, as ``tanh_plateau`` from 10x its start);
* ``failed``: the rest; ``error`` an exception escaping the optimiser, ``nan_x``.

    OPENBLAS_CORETYPE=Haswell python benchmarks/minimize_andrei.py
        [--only FAMILY,...] [--out benchmarks/results/minimize_andrei.json] [--verify]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq, least_squares, minimize

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from robustfit import robust_minimize  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minimize_support import code_version, value_at  # noqa: E402

OURS = ("robust",)
SCIPY = ("BFGS", "L-BFGS-B", "Nelder-Mead", "Powell")
METHODS = OURS + SCIPY
MAXTIME = 120.0
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "minimize_andrei.json")
COMMAND = "OPENBLAS_CORETYPE=Haswell python benchmarks/minimize_andrei.py"


@dataclass
class Problem:
    name: str
    family: str
    fun: object
    x0: np.ndarray
    fstar: float
    local_minima: tuple = ()
    source: str = ""
    stationary: tuple = ()  # degenerate stationary values: not minima, no visible descent

    @property
    def n(self) -> int:
        return int(self.x0.size)

    @property
    def tol(self) -> float:
        with np.errstate(all="ignore"):
            f0 = float(self.fun(self.x0))
        gap = f0 - self.fstar if np.isfinite(f0) else np.inf
        return max(min(1e-6 * max(1.0, abs(self.fstar)), 1e-5 * gap), 1e-14)


def _odd_even(x):
    return x[0::2], x[1::2]


# --- Andrei (2008) / CUTE, free dimension ----------------------------------------------

def arwhead(x):  # f* = 0 at (1, ..., 1, 0): each term >= x^4 - 4x + 3 >= 0
    return float(np.sum(-4.0 * x[:-1] + 3.0) + np.sum((x[:-1] ** 2 + x[-1] ** 2) ** 2))


def _bdqrtic_res(x):
    q = (x[:-4] ** 2 + 2 * x[1:-3] ** 2 + 3 * x[2:-2] ** 2 + 4 * x[3:-1] ** 2
         + 5 * x[-1] ** 2)
    return np.concatenate([-4.0 * x[:-4] + 3.0, q])


def bdqrtic(x):  # convex (a square of a non-negative convex function): one minimum value
    r = _bdqrtic_res(x)
    return float(r @ r)


def dqdrtic(x):  # f* = 0 at 0
    return float(np.sum(x[:-2] ** 2 + 100 * x[1:-1] ** 2 + 100 * x[2:] ** 2))


def _edensch_res(x):
    return np.concatenate([(x[:-1] - 2) ** 2, x[1:] * (x[:-1] - 2), x[1:] + 1])


def edensch(x):
    r = _edensch_res(x)
    return float(16.0 + r @ r)


def engval1(x):  # convex: (x_i^2 + x_{i+1}^2)^2 is, the rest is linear
    return float(np.sum((x[:-1] ** 2 + x[1:] ** 2) ** 2) + np.sum(-4 * x[:-1] + 3))


def liarwhd(x):  # f* = 0 at 1; local minima with some x_i (i > 1) near -sqrt(x_1)
    return float(np.sum(4 * (x ** 2 - x[0]) ** 2 + (x - 1) ** 2))


def nondia(x):
    """Andrei's form (x_n does not appear); f* = 0 at 1. With x_i = +-sqrt(x_1) the sum
    vanishes and (t - 1)^2 + 100 (t - t^2)^2 is left, which has a local minimum at
    t = 0.0102: a local minimum of f at every n (:func:`_nondia_local`)."""
    return float((x[0] - 1) ** 2 + np.sum(100 * (x[0] - x[:-1] ** 2) ** 2))


def nondquar(x):  # f* = 0 at 0 (singular: quartic terms)
    return float((x[0] - x[1]) ** 2 + np.sum((x[:-2] + x[1:-1] + x[-1]) ** 4)
                 + (x[-2] + x[-1]) ** 2)


def power(x):  # f* = 0 at 0
    return float(np.sum((np.arange(1, x.size + 1) * x) ** 2))


def quartc(x):  # f* = 0 at x_i = i
    return float(np.sum((x - np.arange(1, x.size + 1)) ** 4))


def tridia(x):  # f* = 0 at x_1 = 1, x_i = x_{i-1} / 2
    i = np.arange(2, x.size + 1)
    return float((x[0] - 1) ** 2 + np.sum(i * (2 * x[1:] - x[:-1]) ** 2))


def _dixmaan(alpha, beta, gamma, delta):
    def f(x):
        n = x.size
        m = n // 3
        # all k_j = 0 for DIXMAANA and B, so the (i/n)^k weights are 1
        return float(1.0 + alpha * np.sum(x ** 2)
                     + beta * np.sum(x[:-1] ** 2 * (x[1:] + x[1:] ** 2) ** 2)
                     + gamma * np.sum(x[:2 * m] ** 2 * x[m:] ** 4)
                     + delta * np.sum(x[:m] * x[2 * m:]))
    return f


# f* = 1 at 0: a x^2 + a y^2 + d x y is positive definite for d = 0.125 < 2 a, the rest >= 0
dixmaana = _dixmaan(1.0, 0.0, 0.125, 0.125)
dixmaanb = _dixmaan(1.0, 0.0625, 0.0625, 0.0625)


def dixon_price(x):
    """f* = 0 at x_i = 2^(-(2^i - 2) / 2^i). (1/3, 0, ..., 0) is stationary with f = 2/3:
    at n = 2 a saddle; at n >= 3 its Hessian is positive semidefinite (one zero
    eigenvalue) and f descends from it only along x_2 = e, x_k = sqrt(x_(k-1) / 2), by
    ~e^2 while x_n moves ~e^(2^(2-n)): not a minimum, but no descent is visible in
    floating point for n >= 10 (every scipy method stops there too), so a claim there
    is classed ``stationary``, not false."""
    i = np.arange(2, x.size + 1)
    return float((x[0] - 1) ** 2 + np.sum(i * (2 * x[1:] ** 2 - x[:-1]) ** 2))


def raydan1(x):  # f* = sum i/10 at 0
    return float(np.sum(np.arange(1, x.size + 1) / 10 * (np.exp(x) - x)))


def raydan2(x):  # f* = n at 0
    return float(np.sum(np.exp(x) - x))


def diagonal1(x):  # f* = sum (i - i ln i) at x_i = ln i
    return float(np.sum(np.exp(x) - np.arange(1, x.size + 1) * x))


def diagonal2(x):  # f* = sum (1 + ln i) / i at x_i = -ln i
    return float(np.sum(np.exp(x) - x / np.arange(1, x.size + 1)))


def hager(x):  # f* = sum sqrt(i) (1 - ln(i) / 2) at x_i = ln(i) / 2
    return float(np.sum(np.exp(x) - np.sqrt(np.arange(1, x.size + 1)) * x))


def ext_beale(x):  # f* = 0 at (3, 0.5) per pair
    a, b = _odd_even(x)
    return float(np.sum((1.5 - a * (1 - b)) ** 2 + (2.25 - a * (1 - b ** 2)) ** 2
                        + (2.625 - a * (1 - b ** 3)) ** 2))


def ext_himmelblau(x):  # f* = 0 at four points per pair; no other local minima
    a, b = _odd_even(x)
    return float(np.sum((a ** 2 + b - 11) ** 2 + (a + b ** 2 - 7) ** 2))


def ext_white_holst(x):  # f* = 0 at (1, 1) per pair
    a, b = _odd_even(x)
    return float(np.sum(100 * (b - a ** 3) ** 2 + (1 - a) ** 2))


def perturbed_quadratic(x):  # f* = 0 at 0
    return float(np.sum(np.arange(1, x.size + 1) * x ** 2) + np.sum(x) ** 2 / 100)


def almost_perturbed_quadratic(x):  # f* = 0 at 0
    return float(np.sum(np.arange(1, x.size + 1) * x ** 2) + (x[0] + x[-1]) ** 2 / 100)


def fletchcr(x):  # f* = 0 at 1 (and on a curve of zeros)
    return float(np.sum(100 * (x[1:] - x[:-1] + 1 - x[:-1] ** 2) ** 2))


def genhumps(x):  # f* = 0 at 0; many local minima (polish_f tells them apart)
    s = np.sin(2 * x) ** 2
    return float(np.sum(s[:-1] * s[1:] + 0.05 * (x[:-1] ** 2 + x[1:] ** 2)))


def nonscomp(x):  # f* = 0 at 1 (triangular Jacobian: no other stationary point)
    return float((x[0] - 1) ** 2 + np.sum(4 * (x[1:] - x[:-1] ** 2) ** 2))


def cube(x):  # f* = 0 at 1 (triangular Jacobian: no other stationary point)
    return float((x[0] - 1) ** 2 + np.sum(100 * (x[1:] - x[:-1] ** 3) ** 2))


def hilbert(x):  # f* = 0 at 0 (positive definite Hilbert matrix)
    i = np.arange(1, x.size + 1)
    return float(x @ (1.0 / (i[:, None] + i[None, :] - 1)) @ x)


def zakharov(x):  # convex, f* = 0 at 0
    s = np.sum(0.5 * np.arange(1, x.size + 1) * x)
    return float(np.sum(x ** 2) + s ** 2 + s ** 4)


def styblinski_tang(x):
    return float(0.5 * np.sum(x ** 4 - 16 * x ** 2 + 5 * x))


def trid(x):  # convex, f* = -n (n + 4) (n - 1) / 6 at x_i = i (n + 1 - i)
    return float(np.sum((x - 1) ** 2) - np.sum(x[1:] * x[:-1]))


def sum_of_powers(x):  # f* = 0 at 0
    return float(np.sum(np.abs(x) ** np.arange(2, x.size + 2)))


def exp_plateau(x):  # f* = -1 at 0; flat far away: exp(-0.1 |x|^2)
    return float(-np.exp(-0.1 * (x @ x)))


def tanh_plateau(x):  # f* = 0 at 0; tanh^2 is 1 to rounding beyond |x| ~ 19
    return float(np.sum(np.tanh(x) ** 2))


def dixon3dq(x):  # f* = 0 at 1
    return float((x[0] - 1) ** 2 + np.sum((x[1:-1] - x[2:]) ** 2) + (x[-1] - 1) ** 2)


def ext_maratos(x):
    a, b = _odd_even(x)
    return float(np.sum(a + 100 * (a ** 2 + b ** 2 - 1) ** 2))


def himmelbg(x):  # f* = 0 at 0 (and the infimum far out along +x)
    a, b = _odd_even(x)
    return float(np.sum((2 * a ** 2 + 3 * b ** 2) * np.exp(-a - b)))


def ext_tridiag1(x):  # convex, f* = 0 at (1, 2) per pair
    a, b = _odd_even(x)
    return float(np.sum((a + b - 3) ** 2 + (a - b + 1) ** 4))


def gen_tridiag1(x):  # convex
    return float(np.sum((x[:-1] + x[1:] - 3) ** 2 + (x[:-1] - x[1:] + 1) ** 4))


def qp1(x):
    """Andrei's extended quadratic penalty QP1. Convex in s_i = x_i^2 >= 0: with
    s_n = 0 and the others 2.5 / n (KKT holds), f* = n (2 - 2.5 / n)^2 (200 multistarts
    agree)."""
    return float(np.sum((x[:-1] ** 2 - 2) ** 2) + (x @ x - 0.5) ** 2)


def qf2(x):  # separable: 0.5 i (x_i^2 - 1)^2 is 0 at +-1 for i < n
    i = np.arange(1, x.size + 1)
    return float(0.5 * np.sum(i * (x ** 2 - 1) ** 2) - x[-1])


def psc1(x):
    a, b = _odd_even(x)
    return float(np.sum((a ** 2 + b ** 2 + a * b) ** 2 + np.sin(a) ** 2 + np.cos(b) ** 2))


def three_exp(x):  # convex, f* = n/2 * 2 sqrt(2) e^-0.1 at (-ln(2)/2, 0) per pair
    a, b = _odd_even(x)
    return float(np.sum(np.exp(a + 3 * b - 0.1) + np.exp(a - 3 * b - 0.1)
                        + np.exp(-a - 0.1)))


def ext_cliff(x):  # convex, f* = n/2 (1 + ln 20) / 20 at a = 3, a - b = -ln(20) / 20
    a, b = _odd_even(x)
    return float(np.sum(((a - 3) / 100) ** 2 - (a - b) + np.exp(20 * (a - b))))


def ext_bd1(x):  # f* = 0 at (1, 1) and (-1.41.., 0.0895..) per pair
    a, b = _odd_even(x)
    return float(np.sum((a ** 2 + b ** 2 - 2) ** 2 + (np.exp(a - 1) - b) ** 2))


def ext_hiebert(x):  # f* = 0 at (10, 5000) per pair; only other stationary point a saddle
    a, b = _odd_even(x)
    return float(np.sum((a - 10) ** 2 + (a * b - 50000) ** 2))


def _chained_rosenbrock_res(x):
    return np.concatenate([10 * (x[1:] - x[:-1] ** 2), 1 - x[:-1]])


def chained_rosenbrock(x):  # f* = 0 at 1; a local minimum near (-1, 1, ..., 1) for n >= 4
    r = _chained_rosenbrock_res(x)
    return float(r @ r)


def ext_denschnb(x):  # f* = 0 at (2, -1) per pair
    a, b = _odd_even(x)
    return float(np.sum((a - 2) ** 2 + (a - 2) ** 2 * b ** 2 + (b + 1) ** 2))


def ep1(x):  # a function of d = a - b per pair
    a, b = _odd_even(x)
    d = a - b
    return float(np.sum((np.exp(d) - 5) ** 2 + d ** 2 * (d - 11) ** 2))


def ext_denschnf(x):
    a, b = _odd_even(x)
    return float(np.sum((2 * (a + b) ** 2 + (a - b) ** 2 - 8) ** 2
                        + (5 * a ** 2 + (b - 3) ** 2 - 9) ** 2))


# --- classic two-dimensional functions -------------------------------------------------

def rastrigin(x):
    return float(10 * x.size + np.sum(x ** 2 - 10 * np.cos(2 * np.pi * x)))


def six_hump_camel(x):
    a, b = x
    return float((4 - 2.1 * a ** 2 + a ** 4 / 3) * a ** 2 + a * b + (-4 + 4 * b ** 2) * b ** 2)


def branin(x):
    a, b = x
    return float((b - 5.1 / (4 * np.pi ** 2) * a ** 2 + 5 / np.pi * a - 6) ** 2
                 + 10 * (1 - 1 / (8 * np.pi)) * np.cos(a) + 10)


def goldstein_price(x):
    a, b = x
    return float((1 + (a + b + 1) ** 2 * (19 - 14 * a + 3 * a ** 2 - 14 * b + 6 * a * b
                                          + 3 * b ** 2))
                 * (30 + (2 * a - 3 * b) ** 2 * (18 - 32 * a + 12 * a ** 2 + 48 * b
                                                 - 36 * a * b + 27 * b ** 2)))


def booth(x):  # f* = 0 at (1, 3)
    return float((x[0] + 2 * x[1] - 7) ** 2 + (2 * x[0] + x[1] - 5) ** 2)


def matyas(x):  # f* = 0 at 0
    return float(0.26 * (x[0] ** 2 + x[1] ** 2) - 0.48 * x[0] * x[1])


def three_hump_camel(x):
    a, b = x
    return float(2 * a ** 2 - 1.05 * a ** 4 + a ** 6 / 6 + a * b + b ** 2)


# --- minimum values that are 1-D roots (exact to rounding) ------------------------------

def _real_roots(coeffs):
    r = np.roots(coeffs)
    return np.sort(r[np.abs(r.imag) < 1e-12].real)


def _newton_polish(g, dg, t):
    for _ in range(8):
        t = t - g(t) / dg(t)
    return t


def _styblinski_1d():
    """(global, local) values of 0.5 (t^4 - 16 t^2 + 5 t): roots of 4 t^3 - 32 t + 5."""
    h = lambda t: 0.5 * (t ** 4 - 16 * t ** 2 + 5 * t)  # noqa: E731
    r = _real_roots([4.0, 0.0, -32.0, 5.0])  # minima at the outer two roots
    return h(r[0]), h(r[2])


def _rastrigin_1d(kmax: int = 40) -> dict:
    """The local minimum value of t^2 + 10 (1 - cos 2 pi t) near each integer k >= 0."""
    h = lambda t: t * t + 10 * (1 - math.cos(2 * math.pi * t))  # noqa: E731
    dh = lambda t: 2 * t + 20 * math.pi * math.sin(2 * math.pi * t)  # noqa: E731
    out = {0: 0.0}
    for k in range(1, kmax + 1):
        # the minimum near k lies in (k - 1/4, k]: h' < 0 at k - 1/4, h' >= 0 at k
        lo, hi = k - 0.25, float(k)
        if dh(lo) < 0 < dh(hi):
            out[k] = h(brentq(dh, lo, hi, xtol=1e-15, rtol=1e-15))
    return out


def _nondia_local():
    """Local minimum value of (t - 1)^2 + 100 (t - t^2)^2: a root of its cubic derivative."""
    g = np.polyadd(np.polymul([1.0, -1.0], [1.0, -1.0]),
                   100 * np.polymul([-1.0, 1.0, 0.0], [-1.0, 1.0, 0.0]))
    r = _real_roots(np.polyder(g))  # 0.0102 (local min), 0.4898 (max), 1 (global min)
    return float(np.polyval(g, r[0]))


def _liarwhd_locals(n):
    """Local minimum values of LIARWHD with m of x_2..x_n in the negative well.

    For x_1 = t each other term 4 (x^2 - t)^2 + (x - 1)^2 has a minimum near +sqrt(t) and,
    for t large enough, one near -sqrt(t) (outer roots of 16 x^3 + (2 - 16 t) x - 2);
    with m of them in the negative well, f is the sum of these minima plus
    4 (t^2 - t)^2 + (t - 1)^2, whose local minima in t (brentq on the envelope
    derivative) are strict local minima of f."""
    def wells(t):
        r = _real_roots([16.0, 0.0, 2.0 - 16.0 * t, -2.0])
        return (r[0], r[-1]) if r.size == 3 else (None, r[-1])

    g = lambda x, t: 4 * (x * x - t) ** 2 + (x - 1) ** 2  # noqa: E731
    grid = np.linspace(0.0, 20.0, 4001)
    w = [wells(t) for t in grid]
    keep = [k for k in range(grid.size) if w[k][0] is not None]
    tg = grid[keep]
    lo_g = np.array([w[k][0] for k in keep])
    hi_g = np.array([w[k][1] for k in keep])
    out = []
    for m in range(1, n):
        def dF(t, m=m, lo=None, hi=None):
            if lo is None:
                lo, hi = wells(t)
            return (16 * t ** 3 - 24 * t ** 2 + 10 * t - 2 - 8 * (n - 1 - m) * (hi * hi - t)
                    - 8 * m * (lo * lo - t))
        d = dF(tg, lo=lo_g, hi=hi_g)
        for k in np.flatnonzero((d[:-1] < 0) & (d[1:] >= 0)):
            t = brentq(dF, tg[k], tg[k + 1], xtol=1e-15, rtol=1e-15)
            lo, hi = wells(t)
            out.append(g(t, t) + (n - 1 - m) * g(hi, t) + m * g(lo, t))
    return tuple(sorted(out))


def _maratos_pair():
    """min of t + 100 (t^2 - 1)^2 (b = 0 is optimal once |a| > 1): root of 400t^3-400t+1."""
    t = _real_roots([400.0, 0.0, -400.0, 1.0])[0]
    return t + 100 * (t * t - 1) ** 2


def _qf2_last(n):
    """(global, local) of 0.5 n (t^2 - 1)^2 - t: roots of 2 n t^3 - 2 n t - 1."""
    r = _real_roots([2.0 * n, 0.0, -2.0 * n, -1.0])
    psi = lambda t: 0.5 * n * (t * t - 1) ** 2 - t  # noqa: E731
    return psi(r[2]), psi(r[0])


def _ep1_1d():
    """Minima of (e^d - 5)^2 + d^2 (d - 11)^2 over d: a grid, then brentq on phi'."""
    phi = lambda d: (math.exp(d) - 5) ** 2 + d * d * (d - 11) ** 2  # noqa: E731
    dphi = lambda d: (2 * (math.exp(d) - 5) * math.exp(d)  # noqa: E731
                      + 2 * d * (d - 11) ** 2 + 2 * d * d * (d - 11))
    grid = np.linspace(-20, 12, 320001)
    g = np.array([dphi(t) for t in grid])
    mins = [brentq(dphi, grid[i], grid[i + 1], xtol=1e-15, rtol=1e-15)
            for i in range(grid.size - 1) if g[i] < 0 <= g[i + 1]]
    vals = sorted(phi(t) for t in mins)
    return vals[0], tuple(vals[1:])


# --- minimum values computed numerically (reproduced by --verify) ----------------------
# bdqrtic, engval1, gen_tridiag1 are convex, so any minimiser gives f*: least_squares
# (xtol = ftol = gtol = 1e-15) on the residuals where there are any, then BFGS (gtol 1e-12)
# three times. edensch: best of 200 multistarts (uniform in [-5, 5]^n and x0) of
# least_squares on its residuals, polished the same way (n = 36 gives 219.2845920, the
# literature's 219.28). The 2-D values: BFGS (gtol 1e-12, twice) from a 61 x 61 grid of
# starts over a box holding every minimum, kept where a finite-difference Hessian is
# positive definite; distinct values listed (psc1 and ext_denschnf per pair).
NUMERIC = {
    ("bdqrtic", 5): 0.2794144438097576,
    ("bdqrtic", 10): 18.28116175359355,
    ("bdqrtic", 30): 98.37651057116304,
    ("bdqrtic", 100): 378.76919180868424,  # literature (n = 100): 3.78769e2
    ("engval1", 2): 0.0,  # at (1, 0)
    ("engval1", 10): 9.17746995718139,
    ("engval1", 30): 31.37984638205382,
    ("engval1", 100): 109.08813614309238,
    ("gen_tridiag1", 2): 0.0,  # at (1, 2)
    ("gen_tridiag1", 10): 7.2112167032915275,
    ("gen_tridiag1", 30): 27.21030748601771,
    ("edensch", 2): 16.0,  # at (2, -1), exactly
    ("edensch", 10): 63.284600105263394,
    ("edensch", 30): 183.2845920207646,
    ("psc1", 2): 0.7731990564929236,  # at (0.155437, -0.694564): the only minimum value
    ("ext_denschnf", 2): 0.0,  # at (1, 1): no other minimum in [-6, 6]^2
    ("six_hump_camel", 2): -1.0316284534898774,  # at (+-0.089842, -+0.712656)
    ("goldstein_price", 2): 3.0,  # at (0, -1)
    ("three_hump_camel", 2): 0.0,  # at 0
    # chained Rosenbrock's local minimum near (-1, 1, ..., 1): least_squares from there
    ("chained_rosenbrock_local", 4): 3.7014286104300207,
    ("chained_rosenbrock_local", 10): 3.9865791123471377,
    ("chained_rosenbrock_local", 30): 3.9866238543009334,
}
# local minimum values from the same grids (none for psc1, ext_denschnf, ext_beale (whose
# only other descents run off to infinity), ext_bd1, ext_denschnb, ext_white_holst,
# himmelbg, liarwhd and dixon_price at n = 2, genhumps in [-10, 10]^2)
NUMERIC_LOCAL = {
    "psc1": (),
    "ext_denschnf": (),
    "ext_beale": (),
    "ext_bd1": (),
    "six_hump_camel": (-0.21546382438372103, 2.104250310311255),
    "goldstein_price": (30.0, 84.0, 840.0),  # at (-0.6, -0.4), (1.8, 0.2), (1.2, 0.8)
    "three_hump_camel": (0.298638442236857,),  # at +-(1.747552, -0.873776)
}


def _pair_locals(n, global_pair, local_pair, cap=64):
    """Sums of per-pair minima with at least one pair at a local one (capped)."""
    k = n // 2
    out = set()
    for m in range(1, k + 1):
        for lv in local_pair:
            out.add((k - m) * global_pair + m * lv)
        if len(local_pair) > 1:
            for lv in local_pair:
                for lw in local_pair:
                    if m >= 2:
                        out.add((k - m) * global_pair + (m - 1) * lv + lw)
    return tuple(sorted(out))[:cap]


def problems(dims=(2, 10, 30), big: int = 100) -> list[Problem]:
    out = []

    def add(family, n, fun, x0, fstar, source, local=(), ten=True, stationary=()):
        x0 = np.asarray(x0, dtype=float)
        for tag, start in (("", x0), ("_x10", 10 * x0))[:2 if ten else 1]:
            out.append(Problem(f"{family}_{n}{tag}", family, fun, start, float(fstar),
                               tuple(local), source, tuple(stationary)))

    even = [d for d in dims if d % 2 == 0]
    st_glob, st_loc = _styblinski_1d()
    mar = _maratos_pair()
    ep_glob, ep_loc = _ep1_1d()
    ras = _rastrigin_1d()
    for n in list(dims) + [big]:
        cheap = n == big
        i = np.arange(1, n + 1)
        # cheap families: every n, 100 included
        add("arwhead", n, arwhead, np.ones(n), 0.0, "closed form")
        if n >= 3:  # f = 0 identically at n = 2
            add("dqdrtic", n, dqdrtic, np.full(n, 3.0), 0.0, "closed form")
        add("raydan1", n, raydan1, np.ones(n), n * (n + 1) / 20, "closed form")
        add("raydan2", n, raydan2, np.ones(n), float(n), "closed form")
        add("diagonal1", n, diagonal1, np.full(n, 1.0 / n), np.sum(i - i * np.log(i)),
            "closed form")
        add("diagonal2", n, diagonal2, 1.0 / i, np.sum((1 + np.log(i)) / i),
            "closed form")
        add("hager", n, hager, np.ones(n), np.sum(np.sqrt(i) * (1 - np.log(i) / 2)),
            "closed form")
        add("perturbed_quadratic", n, perturbed_quadratic, np.full(n, 0.5), 0.0,
            "closed form")
        add("power", n, power, np.ones(n), 0.0, "closed form")
        add("liarwhd", n, liarwhd, np.full(n, 4.0), 0.0, "closed form",
            local=_liarwhd_locals(n))
        add("engval1", n, engval1, np.full(n, 2.0), NUMERIC[("engval1", n)],
            "convex; least_squares/BFGS (--verify)")
        if cheap:
            for fam, fun, x0 in (("ext_himmelblau", ext_himmelblau, np.ones(n)),
                                 ("three_exp", three_exp, np.full(n, 0.1)),
                                 ("ext_tridiag1", ext_tridiag1, np.full(n, 2.0)),
                                 ("ext_bd1", ext_bd1, np.full(n, 0.1))):
                fs = (n / 2 * 2 * math.sqrt(2) * math.exp(-0.1)) if fam == "three_exp" else 0
                add(fam, n, fun, x0, fs, "closed form", ten=fam != "ext_bd1")
            add("bdqrtic", n, bdqrtic, np.ones(n), NUMERIC[("bdqrtic", n)],
                "convex; least_squares (--verify)")
            continue
        # free dimension, n = 2, 10, 30 only
        add("almost_perturbed_quadratic", n, almost_perturbed_quadratic, np.full(n, 0.5),
            0.0, "closed form")
        add("nondia", n, nondia, -np.ones(n), 0.0, "closed form", local=(_nondia_local(),))
        add("nondquar", n, nondquar, np.tile([1.0, -1.0], n // 2 + 1)[:n], 0.0,
            "closed form")
        add("quartc", n, quartc, np.full(n, 2.0), 0.0, "closed form")
        add("tridia", n, tridia, np.ones(n), 0.0, "closed form")
        add("dixon_price", n, dixon_price, np.ones(n), 0.0, "closed form",
            stationary=(2 / 3,) if n >= 3 else ())
        add("fletchcr", n, fletchcr, np.zeros(n), 0.0, "closed form", ten=False)
        add("nonscomp", n, nonscomp, np.full(n, 3.0), 0.0, "closed form")
        add("cube", n, cube, np.tile([-1.2, 1.1], n // 2 + 1)[:n], 0.0, "closed form")
        add("zakharov", n, zakharov, np.ones(n), 0.0, "closed form")
        add("trid", n, trid, np.zeros(n), -n * (n + 4) * (n - 1) / 6, "closed form",
            ten=False)
        add("sum_of_powers", n, sum_of_powers, np.ones(n), 0.0, "closed form", ten=n <= 10)
        add("exp_plateau", n, exp_plateau, np.ones(n), -1.0, "closed form")
        add("tanh_plateau", n, tanh_plateau, np.full(n, 2.0), 0.0, "closed form")
        add("qf2", n, qf2, np.full(n, 0.5), _qf2_last(n)[0],
            "cubic root (last variable), 0 for the others", local=(_qf2_last(n)[1],))
        if n > 2:  # at n = 2 it is ext_tridiag1
            add("gen_tridiag1", n, gen_tridiag1, np.full(n, 2.0),
                NUMERIC[("gen_tridiag1", n)], "convex; least_squares (--verify)")
        add("edensch", n, edensch, np.zeros(n), NUMERIC[("edensch", n)],
            "multistart least_squares (--verify)", ten=False)
        add("qp1", n, qp1, np.ones(n), n * (2 - 2.5 / n) ** 2, "closed form (convex in x^2)")
        add("styblinski_tang", n, styblinski_tang, np.zeros(n), n * st_glob,
            "cubic roots per variable", ten=False,
            local=tuple((n - m) * st_glob + m * st_loc for m in range(1, n + 1)))
        out.append(Problem(f"styblinski_tang_{n}_ones", "styblinski_tang", styblinski_tang,
                           np.ones(n), n * st_glob,
                           tuple((n - m) * st_glob + m * st_loc for m in range(1, n + 1)),
                           "cubic roots per variable"))
        if n >= 5:
            add("bdqrtic", n, bdqrtic, np.ones(n), NUMERIC[("bdqrtic", n)],
                "convex; least_squares (--verify)")
        if n <= 10:
            add("hilbert", n, hilbert, np.ones(n), 0.0, "closed form")
        for n3 in ({2: 3, 10: 12, 30: 30}[n],):
            add("dixmaana", n3, dixmaana, np.full(n3, 2.0), 1.0, "closed form")
            add("dixmaanb", n3, dixmaanb, np.full(n3, 2.0), 1.0, "closed form")
        if n >= 4:
            add("dixon3dq", n, dixon3dq, -np.ones(n), 0.0, "closed form")
            add("chained_rosenbrock", n, chained_rosenbrock,
                np.tile([-1.2, 1.0], n // 2 + 1)[:n], 0.0, "closed form",
                local=(NUMERIC[("chained_rosenbrock_local", n)],))
        if n in even:
            half = n // 2
            if n > 2:  # at n = 2 it is MGH's Beale
                add("ext_beale", n, ext_beale, np.tile([1.0, 0.8], half), 0.0,
                    "closed form", local=_pair_locals(n, 0.0, NUMERIC_LOCAL["ext_beale"]))
            add("ext_himmelblau", n, ext_himmelblau, np.ones(n), 0.0, "closed form")
            add("ext_white_holst", n, ext_white_holst, np.tile([-1.2, 1.0], half), 0.0,
                "closed form")
            add("genhumps", n, genhumps, np.tile([-506.2, 506.2], half), 0.0,
                "closed form", ten=False)
            add("ext_maratos", n, ext_maratos, np.tile([1.1, 0.1], half), half * mar,
                "cubic root per pair")
            add("himmelbg", n, himmelbg, np.full(n, 1.5), 0.0, "closed form", ten=False)
            add("ext_tridiag1", n, ext_tridiag1, np.full(n, 2.0), 0.0, "closed form")
            add("psc1", n, psc1, np.tile([3.0, 0.1], half), half * NUMERIC[("psc1", 2)],
                "2-D multistart per pair (--verify)",
                local=_pair_locals(n, NUMERIC[("psc1", 2)], NUMERIC_LOCAL["psc1"]))
            add("three_exp", n, three_exp, np.full(n, 0.1),
                half * 2 * math.sqrt(2) * math.exp(-0.1), "closed form")
            add("ext_cliff", n, ext_cliff, np.tile([0.0, -1.0], half),
                half * (1 + math.log(20)) / 20, "closed form")
            add("ext_bd1", n, ext_bd1, np.full(n, 0.1), 0.0, "closed form",
                local=_pair_locals(n, 0.0, NUMERIC_LOCAL["ext_bd1"]),
                ten=False)  # 10x the start is the minimiser (1, ..., 1)
            add("ext_hiebert", n, ext_hiebert, np.zeros(n), 0.0, "closed form", ten=False)
            add("ext_denschnb", n, ext_denschnb, np.ones(n), 0.0, "closed form")
            add("ext_denschnf", n, ext_denschnf, np.tile([2.0, 0.0], half),
                half * NUMERIC[("ext_denschnf", 2)], "2-D multistart per pair (--verify)",
                local=_pair_locals(n, NUMERIC[("ext_denschnf", 2)],
                                   NUMERIC_LOCAL["ext_denschnf"]))
            add("ep1", n, ep1, np.full(n, 1.5), half * ep_glob, "1-D roots in a - b",
                local=_pair_locals(n, ep_glob, ep_loc))
    # two-dimensional classics (no standard start: two fixed ones each)
    ras_vals = sorted({ras[a] + ras[b] for a in ras for b in ras} - {0.0})
    two = [
        ("rastrigin", rastrigin, [(3.2, -2.3), (32.0, -23.0)], 0.0, tuple(ras_vals),
         "1-D roots per variable near each integer"),
        ("six_hump_camel", six_hump_camel, [(-1.5, 1.5), (2.5, -1.5)],
         NUMERIC[("six_hump_camel", 2)], NUMERIC_LOCAL["six_hump_camel"],
         "2-D multistart (--verify)"),
        ("himmelblau", ext_himmelblau, [(0.0, 0.0), (-5.0, 5.0)], 0.0, (), "closed form"),
        # all local minima of Branin on R^2 are global (minimise over b first)
        ("branin", branin, [(0.0, 0.0), (8.0, 12.0)], 5 / (4 * math.pi), (),
         "closed form: 10 (1 - 1/(8 pi)) cos(a) + 10 at cos = -1"),
        ("goldstein_price", goldstein_price, [(-1.0, 1.0), (1.5, 1.5)],
         NUMERIC[("goldstein_price", 2)], NUMERIC_LOCAL["goldstein_price"],
         "2-D multistart (--verify)"),
        ("booth", booth, [(0.0, 0.0), (-10.0, 10.0)], 0.0, (), "closed form"),
        ("matyas", matyas, [(1.0, 2.0), (10.0, 20.0)], 0.0, (), "closed form"),
        ("three_hump_camel", three_hump_camel, [(2.0, -2.0), (-4.0, 4.0)],
         NUMERIC[("three_hump_camel", 2)], NUMERIC_LOCAL["three_hump_camel"],
         "2-D multistart (--verify)"),
    ]
    for fam, fun, starts, fs, loc, src in two:
        for j, x0 in enumerate(starts):
            out.append(Problem(f"{fam}_2_s{j}", fam, fun, np.array(x0, dtype=float),
                               float(fs), tuple(loc), src))
    return out


# --- running ---------------------------------------------------------------------------

class _Timeout(Exception):
    pass


def _polish(fun, x) -> float:
    """What scipy's BFGS then Nelder-Mead reach from ``x`` (the lower of the two)."""
    best = value_at(fun, x)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        try:
            r = minimize(fun, x, method="BFGS", options={"gtol": 1e-10})
            if np.isfinite(r.fun) and r.fun < best:
                best, x = float(r.fun), r.x
            r = minimize(fun, x, method="Nelder-Mead",
                         options={"xatol": 1e-12, "fatol": 1e-14, "maxfev": 20000})
            best = min(best, float(r.fun)) if np.isfinite(r.fun) else best
        except Exception:
            pass
    return best


def run_one(p: Problem, method: str, rng: int = 0) -> dict:
    calls = [0]
    t0 = time.perf_counter()
    guard = method != "robust"  # robust_minimize has maxtime; it would catch our raise

    def counted(x):
        calls[0] += 1
        if guard and calls[0] % 256 == 0 and time.perf_counter() - t0 > MAXTIME:
            raise _Timeout
        return p.fun(np.asarray(x, dtype=float))

    error, x, success, message, extra = None, None, False, "", {}
    try:
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            if method == "robust":
                res = robust_minimize(counted, p.x0, rng=rng, maxtime=MAXTIME)
                extra = dict(status=int(res.status), own_nfev=int(res.nfev),
                             restarts=int(getattr(res, "restarts", 0) or 0))
            else:
                res = minimize(counted, p.x0, method=method)
        x, success, message = np.asarray(res.x, dtype=float), bool(res.success), str(
            res.message)
    except _Timeout:
        message = f"stopped after {MAXTIME:.0f} s (benchmark guard)"
    except Exception as exc:  # an exception escaping the optimiser is an outcome we count
        error = f"{type(exc).__name__}: {exc}"[:200]
    elapsed = time.perf_counter() - t0
    f = value_at(p.fun, x) if x is not None else float("nan")
    tol = p.tol
    solved = bool(np.isfinite(f) and f <= p.fstar + tol)
    local = bool(not solved and np.isfinite(f)
                 and any(abs(f - m) <= tol for m in p.local_minima))
    stationary = bool(not solved and not local and np.isfinite(f)
                      and any(abs(f - m) <= tol for m in p.stationary))
    if error is not None:
        outcome = "error"
    elif solved:
        outcome = "solved"
    elif local:
        outcome = "local"
    elif stationary:
        outcome = "stationary"
    elif success:
        outcome = "false_success"
    else:
        outcome = "failed"
    row = dict(problem=p.name, family=p.family, n=p.n, method=method, f=f,
               fstar=p.fstar, tol=tol, f0=value_at(p.fun, p.x0), outcome=outcome,
               solved=solved, local=local, success=success,
               false_success=outcome == "false_success",
               nan_x=bool(x is not None and not np.all(np.isfinite(x))), error=error,
               nfev=calls[0], time=round(elapsed, 3), message=message[:200], **extra)
    if outcome == "false_success" and x is not None and np.all(np.isfinite(x)):
        row["polish_f"] = _polish(p.fun, x)
        # polish cannot go lower: an unlisted minimum, or a flat region in floating point
        row["polish_stuck"] = bool(row["polish_f"] >= f - tol)
    return row


def summarise(rows: list[dict]) -> dict:
    names = list(dict.fromkeys(r["problem"] for r in rows))
    by = {(r["problem"], r["method"]): r for r in rows}
    methods = [m for m in METHODS if (names[0], m) in by] if names else []
    summary = {"problems": len(names), "families": len({r["family"] for r in rows}),
               "methods": {}}
    for m in methods:
        rs = [by[p, m] for p in names]
        summary["methods"][m] = {
            k: sum(r["outcome"] == k for r in rs)
            for k in ("solved", "local", "stationary", "false_success", "failed", "error")}
        summary["methods"][m].update(
            solved_and_claimed=sum(r["solved"] and r["success"] for r in rs),
            solved_not_claimed=sum(r["solved"] and not r["success"] for r in rs),
            false_success_polish_stuck=sum(bool(r.get("polish_stuck")) for r in rs),
            nan_x=sum(r["nan_x"] for r in rs), success_claims=sum(r["success"] for r in rs),
            nfev_total=sum(r["nfev"] for r in rs),
            time_total=round(sum(r["time"] for r in rs), 1))
    if "robust" not in methods:
        return summary
    scipy_m = [m for m in SCIPY if m in methods]
    rob = {p: by[p, "robust"] for p in names}
    summary["robust_false_success"] = [p for p in names if rob[p]["false_success"]]
    summary["robust_misses_scipy_solves"] = {
        p: [m for m in scipy_m if by[p, m]["solved"]] for p in names
        if not rob[p]["solved"] and any(by[p, m]["solved"] for m in scipy_m)}
    summary["robust_error_or_nan"] = [p for p in names
                                      if rob[p]["error"] or rob[p]["nan_x"]]
    if "BFGS" in methods:
        ratios = {p: rob[p]["nfev"] / max(1, by[p, "BFGS"]["nfev"]) for p in names
                  if by[p, "BFGS"]["solved"]}
        summary["robust_nfev_over_3x_bfgs_where_bfgs_solves"] = {
            p: round(v, 2) for p, v in ratios.items() if v > 3}
        summary["nfev_ratio_vs_bfgs_where_bfgs_solves"] = {
            "problems": len(ratios),
            "median": round(float(np.median(list(ratios.values()))), 3) if ratios else None,
            "robust_also_solved": sum(rob[p]["solved"] for p in ratios)}
    summary["solved_by_any_scipy"] = sum(any(by[p, m]["solved"] for m in scipy_m)
                                         for p in names)
    return summary


# --- checking the numerical minimum values ---------------------------------------------

def verify(seed: int = 7) -> dict:
    """Recompute every numerical f* by other routes; returns the largest discrepancies."""
    rng = np.random.default_rng(seed)
    out = {}

    def tight(fun, x):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            for _ in range(3):
                x = minimize(fun, x, method="BFGS",
                             options={"gtol": 1e-12, "maxiter": 100000}).x
        return float(fun(x)), x

    def ls(res, x0):
        return least_squares(res, x0, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                             max_nfev=100000).x

    for (fam, n), ref in NUMERIC.items():
        if fam in ("bdqrtic", "engval1", "gen_tridiag1", "edensch"):
            fun = globals()[fam]
            starts = [rng.uniform(-3, 3, n) for _ in range(20 if fam == "edensch" else 3)]
            vals = []
            for x0 in starts:
                if fam == "bdqrtic":
                    x0 = ls(_bdqrtic_res, x0)
                elif fam == "edensch":
                    x0 = ls(_edensch_res, x0)
                vals.append(tight(fun, x0)[0])
            out[f"{fam}_{n}"] = dict(ref=ref, recomputed=min(vals),
                                     rel=abs(min(vals) - ref) / max(1.0, abs(ref)))
            print(f"{fam}_{n}", out[f"{fam}_{n}"], flush=True)
        elif fam == "chained_rosenbrock_local":
            x0 = np.ones(n)
            x0[0] = -1.0
            v, _ = tight(chained_rosenbrock, ls(_chained_rosenbrock_res, x0))
            out[f"{fam}_{n}"] = dict(ref=ref, recomputed=v, rel=abs(v - ref))
            print(f"{fam}_{n}", out[f"{fam}_{n}"], flush=True)
    two = {"psc1": (psc1, 6), "ext_denschnf": (ext_denschnf, 6),
           "six_hump_camel": (six_hump_camel, 3), "goldstein_price": (goldstein_price, 2.5),
           "three_hump_camel": (three_hump_camel, 5)}
    for fam, (fun, r) in two.items():
        vals = set()
        for a in np.linspace(-r, r, 25):
            for b in np.linspace(-r, r, 25):
                v, x = tight(fun, np.array([a, b]))
                h, e = 1e-4, np.eye(2) * 1e-4
                hess = np.array([[(fun(x + e[i] + e[j]) - fun(x + e[i] - e[j])
                                   - fun(x - e[i] + e[j]) + fun(x - e[i] - e[j])) / (4 * h * h)
                                  for j in range(2)] for i in range(2)])
                if np.all(np.abs(x) < 10 * r) and np.linalg.eigvalsh(hess)[0] > -1e-6:
                    vals.add(round(v, 9))
        ref = sorted({round(NUMERIC[(fam, 2)], 9)}
                     | {round(m, 9) for m in NUMERIC_LOCAL.get(fam, ())})
        out[fam] = dict(ref=ref, recomputed=sorted(vals))
        print(fam, out[fam], flush=True)
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated families")
    ap.add_argument("--methods", default=",".join(METHODS))
    ap.add_argument("--out", default=None)
    ap.add_argument("--verify", action="store_true",
                    help="recompute the numerical minimum values and stop")
    args = ap.parse_args(argv)
    if args.verify:
        return verify()
    probs = problems()
    if args.only:
        wanted = set(args.only.split(","))
        probs = [p for p in probs if p.family in wanted]
    methods = [m for m in args.methods.split(",") if m]
    out = args.out or (OUT if not args.only and methods == list(METHODS) else None)
    rows, t0 = [], time.perf_counter()
    for p in probs:
        for m in methods:
            r = run_one(p, m)
            rows.append(r)
            print(f"{p.name:36s} {m:11s} {r['outcome']:13s} f={r['f']:.10g} "
                  f"f*={p.fstar:.10g} nfev={r['nfev']} t={r['time']:.1f}"
                  + (f" polish={r['polish_f']:.6g}" if "polish_f" in r else ""), flush=True)
    summary = summarise(rows)
    summary["wall_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(summary, indent=1))
    if out:
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "w") as fh:
            json.dump(dict(command=COMMAND, version=code_version(),
                           openblas_coretype=os.environ.get("OPENBLAS_CORETYPE"),
                           summary=summary,
                           problems=[dict(name=p.name, family=p.family, n=p.n,
                                          x0=p.x0.tolist(), fstar=p.fstar,
                                          local_minima=list(p.local_minima)[:20],
                                          fstar_source=p.source) for p in probs],
                           rows=rows), fh, indent=1, default=float)
    return summary


if __name__ == "__main__":
    main()
