"""robust_minimize on held-out nonsmooth problems: the small unconstrained test problems of
Luksan & Vlcek, "Test problems for nonsmooth unconstrained and linearly constrained
optimization", Technical report 798, ICS AS CR, Prague, 2000 (section 2).

Twenty-four of its twenty-five problems are written from their published formulas, each
from its standard starting point with its published ``f*``: Rosenbrock, Crescent, CB2,
CB3, DEM, QL, LQ, Mifflin 1 and 2, Wolfe, Rosen-Suzuki, Shor, Colville 1, HS78,
El-Attar, Maxquad, Gill, Steiner 2, Maxq, Maxl, Goffin, MXHILB, L1HILB and Shell Dual.
TR48 is left out: we could not get its 48 x 48 data table right. Every ``f*`` is checked
on each run and recorded (``problems[].check``): the value at the known minimiser where
there is a closed form, else an independent SLSQP solve of a smooth reformulation
(the epigraph of a max, slacks for absolute values, second-order-cone slacks for
Steiner's distances, the constrained problem behind an exact penalty); every problem
reproduces its ``f*`` to 1e-6 relative. On the data:

* Shor's tenth weight is 3.5 (some copies have 4.5; that piece is inactive at the
  minimum, ``f*`` is the same);
* Colville 1 and Shell Dual use the data of Colville's second problem (Hock-Schittkowski
  117), with ``a_{2,4} = 0.4`` (some copies have 4; that row is inactive at the minimum);
* Maxquad: ``A_k(i, j) = exp(i/j) cos(ij) sin k`` for ``i < j``, symmetric, diagonal
  ``i |sin k| / 10 + sum_{j != i} |A_k(i, j)|``, ``b_k(i) = exp(i/k) sin(ik)``;
* El-Attar fits ``y(t) = exp(-t)/2 - exp(-2t) + exp(-3t)/2 + 1.5 exp(-1.5t) sin 7t +
  exp(-2.5t) sin 5t`` at ``t = 0, 0.1, ..., 5`` in the l1 norm;
* Gill's first piece is ``sum (x_i - 1)^2 + 1e-3 (sum x_i^2 - 1/4)^2`` (with the
  penalty inside the sum, as in some copies, the minimum is 9.785973, not 9.7857721).

Colville 1, HS78 and Shell Dual are, as published, unbounded below (far out, Colville's
cubic beats its linear penalty, HS78's product of five variables its cubic one, and
Shell Dual's ``-b z`` its penalties along a direction where ``sum d y^3 = 0``); their
``f*`` is the value at the minimiser of the constrained problem behind the penalty, a
local minimum. A row below ``f*`` by more than the tolerance is flagged ``below`` (not
solved, and not a failure of the method either).

For every problem we run robust_minimize (``rng=0``, all else default, finite-difference
gradients) and scipy's BFGS, L-BFGS-B, Nelder-Mead and Powell with their defaults,
warnings suppressed, an exception escaping the optimiser caught and recorded.
Evaluations are counted by a wrapper (``nfev``). With ``f`` recomputed at the returned
``x``:

* ``solved``: ``|f - f*| <= 1e-4 max(1, |f*|)``; ``solved_1e6`` the same with 1e-6;
* ``false_success``: success claimed but not solved (at 1e-4).

    OPENBLAS_CORETYPE=Haswell python benchmarks/minimize_luksan.py
        [--only NAME,...] [--check-only] [--out benchmarks/results/minimize_luksan.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy.optimize import minimize

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from minimize_support import code_version, command_line, run_method, value_at  # noqa: E402

OURS = ("robust",)
SCIPY = ("BFGS", "L-BFGS-B", "Nelder-Mead", "Powell")
METHODS = OURS + SCIPY
TOL = 1e-4
TOL_TIGHT = 1e-6
CHECK_TOL = 1e-6
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "minimize_luksan.json")


# --- the problems, two variables -------------------------------------------------------

def rosenbrock(x):
    return float(100.0 * (x[1] - x[0] ** 2) ** 2 + (1.0 - x[0]) ** 2)


def crescent(x):
    q = x[0] ** 2 + (x[1] - 1.0) ** 2
    return float(max(q + x[1] - 1.0, -q + x[1] + 1.0))


def _cb2_pieces(x):
    return (x[0] ** 2 + x[1] ** 4, (2.0 - x[0]) ** 2 + (2.0 - x[1]) ** 2,
            2.0 * np.exp(x[1] - x[0]))


def cb2(x):
    return float(max(_cb2_pieces(x)))


def cb3(x):
    return float(max(x[0] ** 4 + x[1] ** 2, (2.0 - x[0]) ** 2 + (2.0 - x[1]) ** 2,
                     2.0 * np.exp(x[1] - x[0])))


def dem(x):
    return float(max(5.0 * x[0] + x[1], -5.0 * x[0] + x[1],
                     x[0] ** 2 + x[1] ** 2 + 4.0 * x[1]))


def ql(x):
    r = x[0] ** 2 + x[1] ** 2
    return float(max(r, r + 10.0 * (-4.0 * x[0] - x[1] + 4.0),
                     r + 10.0 * (-x[0] - 2.0 * x[1] + 6.0)))


def lq(x):
    return float(max(-x[0] - x[1], -x[0] - x[1] + x[0] ** 2 + x[1] ** 2 - 1.0))


def mifflin1(x):
    return float(-x[0] + 20.0 * max(x[0] ** 2 + x[1] ** 2 - 1.0, 0.0))


def mifflin2(x):
    q = x[0] ** 2 + x[1] ** 2 - 1.0
    return float(-x[0] + 2.0 * q + 1.75 * abs(q))


def wolfe(x):
    if x[0] >= abs(x[1]):
        return float(5.0 * np.sqrt(9.0 * x[0] ** 2 + 16.0 * x[1] ** 2))
    if x[0] > 0.0:
        return float(9.0 * x[0] + 16.0 * abs(x[1]))
    return float(9.0 * x[0] + 16.0 * abs(x[1]) - x[0] ** 9)


# --- the problems, 4 to 15 variables ----------------------------------------------------

def _rosen_suzuki_pieces(x):
    f1 = (x[0] ** 2 + x[1] ** 2 + 2 * x[2] ** 2 + x[3] ** 2
          - 5 * x[0] - 5 * x[1] - 21 * x[2] + 7 * x[3])
    f2 = x @ x + x[0] - x[1] + x[2] - x[3] - 8.0
    f3 = x[0] ** 2 + 2 * x[1] ** 2 + x[2] ** 2 + 2 * x[3] ** 2 - x[0] - x[3] - 10.0
    f4 = x[0] ** 2 + x[1] ** 2 + x[2] ** 2 + 2 * x[0] - x[1] - x[3] - 5.0
    return f1, f1 + 10 * f2, f1 + 10 * f3, f1 + 10 * f4


def rosen_suzuki(x):
    return float(max(_rosen_suzuki_pieces(x)))


SHOR_A = np.array([[0, 0, 0, 0, 0], [2, 1, 1, 1, 3], [1, 2, 1, 1, 2], [1, 4, 1, 2, 2],
                   [3, 2, 1, 0, 1], [0, 2, 1, 0, 1], [1, 1, 1, 1, 1], [1, 0, 1, 2, 1],
                   [0, 0, 2, 1, 0], [1, 1, 2, 0, 0]], dtype=float)
SHOR_B = np.array([1, 5, 10, 2, 4, 3, 1.7, 2.5, 6, 3.5])


def _shor_pieces(x):
    return SHOR_B * np.sum((x[None, :] - SHOR_A) ** 2, axis=1)


def shor(x):
    return float(np.max(_shor_pieces(x)))


# Colville's second problem (Hock-Schittkowski 117): Colville 1 is its primal, Shell
# Dual its dual, each as an exact penalty function.
COLV_A = np.array([[-16, 2, 0, 1, 0], [0, -2, 0, 0.4, 2], [-3.5, 0, 2, 0, 0],
                   [0, -2, 0, -4, -1], [0, -9, -2, 1, -2.8], [2, 0, -4, 0, 0],
                   [-1, -1, -1, -1, -1], [-1, -2, -3, -2, -1], [1, 2, 3, 4, 5],
                   [1, 1, 1, 1, 1]], dtype=float)
COLV_B = np.array([-40, -2, -0.25, -4, -4, -1, -40, -60, 5, 1], dtype=float)
COLV_C = np.array([[30, -20, -10, 32, -10], [-20, 39, -6, -31, 32], [-10, -6, 10, -6, -10],
                   [32, -31, -6, 39, -20], [-10, 32, -10, -20, 30]], dtype=float)
COLV_D = np.array([4, 8, 10, 6, 2], dtype=float)
COLV_E = np.array([-15, -27, -36, -18, -12], dtype=float)


def _colville_objective(x):
    return COLV_E @ x + x @ COLV_C @ x + COLV_D @ x ** 3


def colville1(x):  # the primal's constraints A x >= b under an exact penalty
    return float(_colville_objective(x) + 50.0 * max(0.0, np.max(COLV_B - COLV_A @ x)))


def _shell_constraints(x):  # <= 0 where feasible (with x >= 0)
    z, y = x[:10], x[10:]
    return COLV_A.T @ z - 2.0 * COLV_C @ y - 3.0 * COLV_D * y ** 2 - COLV_E


def shell_dual(x):
    y = x[10:]
    value = 2.0 * abs(COLV_D @ y ** 3) + y @ COLV_C @ y - COLV_B @ x[:10]
    penalty = np.sum(np.maximum(0.0, _shell_constraints(x))) + np.sum(np.maximum(0.0, -x))
    return float(value + 100.0 * penalty)


def _hs78_constraints(x):
    return np.array([x @ x - 10.0, x[1] * x[2] - 5.0 * x[3] * x[4],
                     x[0] ** 3 + x[1] ** 3 + 1.0])


def hs78(x):
    return float(np.prod(x) + 10.0 * np.sum(np.abs(_hs78_constraints(x))))


EL_ATTAR_T = np.arange(51) / 10.0
EL_ATTAR_Y = (0.5 * np.exp(-EL_ATTAR_T) - np.exp(-2 * EL_ATTAR_T) + 0.5 * np.exp(-3 * EL_ATTAR_T)
              + 1.5 * np.exp(-1.5 * EL_ATTAR_T) * np.sin(7 * EL_ATTAR_T)
              + np.exp(-2.5 * EL_ATTAR_T) * np.sin(5 * EL_ATTAR_T))


def _el_attar_residuals(x):
    t = EL_ATTAR_T
    return (x[0] * np.exp(-x[1] * t) * np.cos(x[2] * t + x[3]) + x[4] * np.exp(-x[5] * t)
            - EL_ATTAR_Y)


def el_attar(x):
    return float(np.sum(np.abs(_el_attar_residuals(x))))


def _maxquad_data():
    i = np.arange(1, 11, dtype=float)
    upper = np.triu(np.exp(i[:, None] / i[None, :]) * np.cos(np.outer(i, i)), 1)
    mats, vecs = [], []
    for k in range(1, 6):
        a = (upper + upper.T) * np.sin(k)
        a[np.diag_indices(10)] = i * abs(np.sin(k)) / 10.0 + np.sum(np.abs(a), axis=1)
        mats.append(a)
        vecs.append(np.exp(i / k) * np.sin(i * k))
    return np.array(mats), np.array(vecs)


MAXQUAD_A, MAXQUAD_B = _maxquad_data()


def _maxquad_pieces(x):
    return np.einsum("i,kij,j->k", x, MAXQUAD_A, x) - MAXQUAD_B @ x


def maxquad(x):
    return float(np.max(_maxquad_pieces(x)))


def _gill_pieces(x):
    f1 = np.sum((x - 1.0) ** 2) + 1e-3 * (x @ x - 0.25) ** 2
    t = np.arange(1, 30) / 29.0  # (i - 1) / 29 for i = 2..30
    powers = t[None, :] ** np.arange(10)[:, None]  # t^(j-1), j = 1..10
    derivative = (x[1:] * np.arange(1, 10)) @ powers[:-1]
    watson = np.sum((derivative - (x @ powers) ** 2 - 1.0) ** 2)
    f2 = watson + x[0] ** 2 + (x[1] - x[0] ** 2 - 1.0) ** 2
    f3 = np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[1:]) ** 2)
    return f1, f2, f3


def gill(x):
    return float(max(_gill_pieces(x)))


STEINER_A = np.array([[0, 2], [2, 3], [3, -1], [4, -0.5], [5, 2], [6, 2]], dtype=float)
STEINER_P = np.array([2, 1, 1, 5, 1, 1], dtype=float)
STEINER_Q = np.array([1, 1, 2, 3, 2], dtype=float)
STEINER_W = np.concatenate([[1.0, 1.0], STEINER_P, STEINER_Q])


def _steiner_legs(x):
    """(dx, dy) of every weighted segment: the chain of six free points from (0, 0) to
    (5.5, -1), and each free point to its data point."""
    u, v = x[:6], x[6:]
    dx = np.concatenate([[u[0], 5.5 - u[5]], STEINER_A[:, 0] - u, np.diff(u)])
    dy = np.concatenate([[v[0], -1.0 - v[5]], STEINER_A[:, 1] - v, np.diff(v)])
    return dx, dy


def steiner2(x):
    return float(STEINER_W @ np.hypot(*_steiner_legs(x)))


def _steiner_x0():
    """Each free point the mean of its chain predecessor (starting at (0, 0)) and the
    data points on both sides (at the end, (5.5, -1))."""
    nxt = np.vstack([STEINER_A[1:], [5.5, -1.0]])
    x0, prev = np.zeros((6, 2)), np.zeros(2)
    for j in range(6):
        x0[j] = prev = (prev + STEINER_A[j] + nxt[j]) / 3.0
    return np.concatenate([x0[:, 0], x0[:, 1]])


# --- the problems, 20 and 50 variables --------------------------------------------------

def maxq(x):
    return float(np.max(x ** 2))


def maxl(x):
    return float(np.max(np.abs(x)))


def goffin(x):
    return float(x.size * np.max(x) - np.sum(x))


def _hilbert(n: int) -> np.ndarray:
    i = np.arange(1, n + 1, dtype=float)
    return 1.0 / (i[:, None] + i[None, :] - 1.0)


HILBERT_50 = _hilbert(50)


def mxhilb(x):
    return float(np.max(np.abs(HILBERT_50 @ x)))


def l1hilb(x):
    return float(np.sum(np.abs(HILBERT_50 @ x)))


def _signed_index(n):
    i = np.arange(1, n + 1, dtype=float)
    return np.where(i <= n // 2, i, -i)


# --- independent checks of f* -----------------------------------------------------------

_SLSQP = dict(maxiter=5000, ftol=1e-15)


def _epigraph_max(pieces: Callable, x0) -> np.ndarray:
    """argmin max_k pieces(x)_k as min t s.t. t >= pieces(x)_k, by SLSQP."""
    x0 = np.asarray(x0, dtype=float)
    n = x0.size
    res = minimize(lambda z: z[-1], np.append(x0, np.max(pieces(x0))), method="SLSQP",
                   constraints=[{"type": "ineq",
                                 "fun": lambda z: z[-1] - np.asarray(pieces(z[:n]))}],
                   options=_SLSQP)
    return res.x[:n]


def _slack_l1(smooth: Callable, weight: float, residuals: Callable, x0) -> np.ndarray:
    """argmin smooth(x) + weight sum |residuals(x)| with slacks s >= |residuals|."""
    x0 = np.asarray(x0, dtype=float)
    n = x0.size
    res = minimize(lambda z: smooth(z[:n]) + weight * np.sum(z[n:]),
                   np.append(x0, np.abs(residuals(x0))), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda z: z[n:] - residuals(z[:n])},
                                {"type": "ineq", "fun": lambda z: z[n:] + residuals(z[:n])}],
                   options=_SLSQP)
    return res.x[:n]


def _steiner_cone(x0) -> np.ndarray:
    """min sum w_k s_k s.t. s_k >= 0, s_k^2 >= |leg_k|^2 (a convex problem: any local
    solve is global), from a Nelder-Mead start."""
    start = minimize(steiner2, x0, method="Nelder-Mead",
                     options=dict(maxfev=100000, xatol=1e-10, fatol=1e-14, adaptive=True)).x
    res = minimize(lambda z: STEINER_W @ z[12:],
                   np.append(start, np.hypot(*_steiner_legs(start)) + 1e-6), method="SLSQP",
                   constraints=[{"type": "ineq", "fun": lambda z: z[12:]},
                                {"type": "ineq", "fun": lambda z: z[12:] ** 2 - np.sum(
                                    np.square(_steiner_legs(z[:12])), axis=0)}],
                   options=_SLSQP)
    return res.x[:12]


def _colville_primal() -> np.ndarray:
    """min e x + x C x + d x^3 s.t. A x >= b, x >= 0 (the constrained problem)."""
    return minimize(_colville_objective, np.array([0, 0, 0, 0, 1.0]), method="SLSQP",
                    bounds=[(0, None)] * 5, options=_SLSQP,
                    constraints=[{"type": "ineq", "fun": lambda x: COLV_A @ x - COLV_B}]).x


def _shell_dual_constrained() -> np.ndarray:
    """Hock-Schittkowski 117: min -b z + y C y + 2 d y^3 s.t. the dual constraints,
    z, y >= 0; clipped to x >= 0 where SLSQP leaves a rounding-size negative."""
    x0 = np.full(15, 1e-3)
    x0[6] = 60.0
    x = minimize(lambda x: -COLV_B @ x[:10] + x[10:] @ COLV_C @ x[10:] + 2 * COLV_D @ x[10:] ** 3,
                 x0, method="SLSQP", bounds=[(0, None)] * 15, options=_SLSQP,
                 constraints=[{"type": "ineq", "fun": lambda x: -_shell_constraints(x)}]).x
    return np.maximum(x, 0.0)


def _at(point) -> Callable:
    return lambda x0: np.asarray(point, dtype=float)


# --- the catalogue ----------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    name: str
    fun: Callable
    x0: np.ndarray  # standard start
    fstar: float  # published optimal value
    minimiser: Callable  # x0 -> the point whose value checks fstar
    check: str  # how that point is found
    unbounded_below: bool = False  # fstar is then a local minimum value


_CLOSED = "value at the known minimiser"
_EPI = "SLSQP on the epigraph of the max, from x0"
_SQ2 = 1.0 / np.sqrt(2.0)

PROBLEMS = (
    Problem("rosenbrock", rosenbrock, np.array([-1.2, 1.0]), 0.0, _at([1, 1]), _CLOSED),
    Problem("crescent", crescent, np.array([-1.5, 2.0]), 0.0, _at([0, 0]), _CLOSED),
    Problem("cb2", cb2, np.array([1.0, -0.1]), 1.9522245,
            lambda x0: _epigraph_max(_cb2_pieces, x0), _EPI),
    Problem("cb3", cb3, np.array([2.0, 2.0]), 2.0, _at([1, 1]), _CLOSED),
    Problem("dem", dem, np.array([1.0, 1.0]), -3.0, _at([0, -3]), _CLOSED),
    Problem("ql", ql, np.array([-1.0, 5.0]), 7.2, _at([1.2, 2.4]), _CLOSED),
    Problem("lq", lq, np.array([-0.5, -0.5]), -np.sqrt(2.0), _at([_SQ2, _SQ2]), _CLOSED),
    Problem("mifflin1", mifflin1, np.array([0.8, 0.6]), -1.0, _at([1, 0]), _CLOSED),
    Problem("mifflin2", mifflin2, np.array([-1.0, -1.0]), -1.0, _at([1, 0]), _CLOSED),
    Problem("wolfe", wolfe, np.array([3.0, 2.0]), -8.0, _at([-1, 0]), _CLOSED),
    Problem("rosen_suzuki", rosen_suzuki, np.zeros(4), -44.0, _at([0, 1, 2, -1]), _CLOSED),
    Problem("shor", shor, np.array([0, 0, 0, 0, 1.0]), 22.600162,
            lambda x0: _epigraph_max(_shor_pieces, x0), _EPI),
    Problem("colville1", colville1, np.array([0, 0, 0, 0, 1.0]), -32.348679,
            lambda x0: _colville_primal(), "SLSQP on the constrained primal (x >= 0)",
            unbounded_below=True),
    Problem("hs78", hs78, np.array([-2, 1.5, 2, -1, -1.0]), -2.9197004,
            lambda x0: _slack_l1(np.prod, 10.0, _hs78_constraints, x0),
            "SLSQP with slacks for the absolute values, from x0", unbounded_below=True),
    Problem("el_attar", el_attar, np.array([2, 2, 7, 0, -2, 1.0]), 0.5598131,
            lambda x0: _slack_l1(lambda x: 0.0, 1.0, _el_attar_residuals, x0),
            "SLSQP with slacks for the absolute values, from x0"),
    Problem("maxquad", maxquad, np.zeros(10), -0.8414083,
            lambda x0: _epigraph_max(_maxquad_pieces, x0), _EPI),
    Problem("gill", gill, np.full(10, -0.1), 9.7857721,
            lambda x0: _epigraph_max(_gill_pieces, x0), _EPI),
    Problem("steiner2", steiner2, _steiner_x0(), 16.703838, _steiner_cone,
            "SLSQP with second-order-cone slacks, from Nelder-Mead's point"),
    Problem("maxq", maxq, _signed_index(20), 0.0, _at(np.zeros(20)), _CLOSED),
    Problem("maxl", maxl, _signed_index(20), 0.0, _at(np.zeros(20)), _CLOSED),
    Problem("goffin", goffin, np.arange(1, 51) - 25.5, 0.0, _at(np.zeros(50)), _CLOSED),
    Problem("mxhilb", mxhilb, np.ones(50), 0.0, _at(np.zeros(50)), _CLOSED),
    Problem("l1hilb", l1hilb, np.ones(50), 0.0, _at(np.zeros(50)), _CLOSED),
    Problem("shell_dual", shell_dual, np.where(np.arange(15) == 6, 60.0, 1e-4), 32.348679,
            lambda x0: _shell_dual_constrained(), "SLSQP on the constrained dual (HS 117)",
            unbounded_below=True),
)


def check_fstar(prob: Problem) -> dict:
    """The published f* against the value at an independently found minimiser."""
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        x = prob.minimiser(prob.x0.copy())
    f = value_at(prob.fun, x)
    rel = abs(f - prob.fstar) / max(1.0, abs(prob.fstar))
    return dict(method=prob.check, f=f, rel_gap=rel, reproduced=bool(rel <= CHECK_TOL),
                x=np.asarray(x, dtype=float).tolist())


# --- running ---------------------------------------------------------------------------


def _within(f: float, fstar: float, tol: float) -> bool:
    return bool(np.isfinite(f) and abs(f - fstar) <= tol * max(1.0, abs(fstar)))


def run_one(prob: Problem, method: str) -> dict:
    x0, fstar = prob.x0, prob.fstar
    run = run_method(prob.fun, x0, method)
    x, success, message, error = run["x"], run["success"], run["message"], run["error"]
    f = value_at(prob.fun, x) if x is not None else float("nan")
    solved = _within(f, fstar, TOL)
    below = bool(np.isfinite(f) and f < fstar - TOL * max(1.0, abs(fstar)))
    return dict(problem=prob.name, n=int(x0.size), method=method, f0=value_at(prob.fun, x0),
                f=f, fstar=fstar, gap=f - fstar, solved=solved,
                solved_1e6=_within(f, fstar, TOL_TIGHT), success=success,
                false_success=bool(success and not solved), below=below,
                nfev=run["nfev"], nfev_reported=run["nfev_reported"], time=round(run["time"], 3),
                message=message[:200], error=error,
                x=None if x is None else x.tolist())


def summarise(rows: list[dict]) -> dict:
    summary = {"runs_per_method": 0, "tol": TOL, "tol_tight": TOL_TIGHT, "methods": {}}
    for m in METHODS:
        rs = [r for r in rows if r["method"] == m]
        if not rs:
            continue
        summary["runs_per_method"] = len(rs)
        summary["methods"][m] = dict(
            solved=sum(r["solved"] for r in rs), solved_1e6=sum(r["solved_1e6"] for r in rs),
            false_success=sum(r["false_success"] for r in rs),
            success_claims=sum(r["success"] for r in rs),
            below=sum(r["below"] for r in rs), errors=sum(r["error"] is not None for r in rs),
            median_nfev=float(np.median([r["nfev"] for r in rs])),
            time_total=round(sum(r["time"] for r in rs), 1),
            unsolved=[r["problem"] for r in rs if not r["solved"]],
            false_successes=[r["problem"] for r in rs if r["false_success"]])
    return summary


def _print_table(summary: dict) -> None:
    k = summary["runs_per_method"]
    print(f"{'method':12s} {'solved 1e-4':>11s} {'solved 1e-6':>11s} {'false succ':>10s} "
          f"{'errors':>6s} {'median nfev':>11s} {'time s':>7s}")
    for m, s in summary["methods"].items():
        print(f"{m:12s} {s['solved']:>6d}/{k:<4d} {s['solved_1e6']:>6d}/{k:<4d} "
              f"{s['false_success']:>10d} {s['errors']:>6d} {s['median_nfev']:>11.0f} "
              f"{s['time_total']:>7.1f}")


def _checks(problems) -> dict:
    checks = {}
    for p in problems:
        checks[p.name] = c = check_fstar(p)
        print(f"check {p.name:13s} f*={p.fstar:<12.8g} found={c['f']:<16.10g} "
              f"rel={c['rel_gap']:.1e} {'ok' if c['reproduced'] else 'NOT REPRODUCED'}",
              flush=True)
    return checks


def main(argv=None) -> dict:
    argv = sys.argv[1:] if argv is None else list(argv)
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", default="", help="comma-separated problem names")
    ap.add_argument("--check-only", action="store_true", help="only check every f*")
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args(argv)
    names = [s for s in args.only.split(",") if s]
    unknown = set(names) - {p.name for p in PROBLEMS}
    if unknown:
        ap.error(f"unknown problems: {sorted(unknown)}")
    problems = [p for p in PROBLEMS if not names or p.name in names]
    t0 = time.perf_counter()
    checks = _checks(problems)
    if args.check_only:
        return checks
    rows = []
    for prob in problems:
        for m in METHODS:
            r = run_one(prob, m)
            rows.append(r)
            print(f"{prob.name:13s} n={r['n']:<3d} {m:11s} f={r['f']:<14.8g} "
                  f"gap={r['gap']:<10.3g} success={r['success']!s:5s} "
                  f"solved={r['solved']!s:5s} nfev={r['nfev']:<7d} t={r['time']:.1f}"
                  + (f" {r['error']}" if r["error"] else ""), flush=True)
    summary = summarise(rows)
    summary["wall_s"] = round(time.perf_counter() - t0, 1)
    _print_table(summary)
    if args.out:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as fh:
            json.dump(dict(command=command_line(__file__, argv), version=code_version(),
                           openblas_coretype=os.environ.get("OPENBLAS_CORETYPE"),
                           summary=summary,
                           problems=[dict(name=p.name, n=int(p.x0.size), x0=p.x0.tolist(),
                                          fstar=p.fstar, unbounded_below=p.unbounded_below,
                                          check=checks[p.name]) for p in problems],
                           rows=rows), fh, indent=1, default=float)
    return summary


if __name__ == "__main__":
    main()
