"""NIST StRD nonlinear regression problems as minimisation problems with certified minima.

Each problem of :mod:`benchmarks.nist_strd_data` is the residual sum of squares
``f(b) = sum((y - model(x, b))**2)`` of its model, from NIST's two starting points
("start 1" is usually the distant one); ``f*`` is NIST's certified residual sum of
squares. Nelson's model is for ``log(y)``: its residuals are ``log(y) - model(x, b)``.
A method solves a problem when ``f(b) <= f* (1 + 1e-6)``: relative, because certified
minima range from 1e-25 (Lanczos1) to 1e4 (Rat43). This is the outside oracle lmfit's
tests use; none of it was computed by this project.
"""

from __future__ import annotations

import numpy as np

from benchmarks.minimize_problems import Problem
from benchmarks.nist_strd_data import PROBLEMS

__all__ = ["MODELS", "RESPONSES", "nist_problems", "sign_bounds", "capped_bounds"]

RTOL = 1e-6  # solved: f <= f* (1 + RTOL)


def _misra1a(b, x):
    return b[0] * (1 - np.exp(-b[1] * x))


def _misra1b(b, x):
    return b[0] * (1 - (1 + b[1] * x / 2) ** (-2))


def _misra1c(b, x):
    return b[0] * (1 - (1 + 2 * b[1] * x) ** (-0.5))


def _misra1d(b, x):
    return b[0] * b[1] * x / (1 + b[1] * x)


def _danwood(b, x):
    return b[0] * x ** b[1]


def _rat42(b, x):
    return b[0] / (1 + np.exp(b[1] - b[2] * x))


def _rat43(b, x):
    return b[0] / (1 + np.exp(b[1] - b[2] * x)) ** (1 / b[3])


def _mgh09(b, x):
    return b[0] * (x ** 2 + x * b[1]) / (x ** 2 + x * b[2] + b[3])


def _mgh10(b, x):
    return b[0] * np.exp(b[1] / (x + b[2]))


def _eckerle4(b, x):
    return (b[0] / b[1]) * np.exp(-0.5 * ((x - b[2]) / b[1]) ** 2)


def _thurber(b, x):
    num = b[0] + b[1] * x + b[2] * x ** 2 + b[3] * x ** 3
    return num / (1 + b[4] * x + b[5] * x ** 2 + b[6] * x ** 3)


def _mgh17(b, x):
    return b[0] + b[1] * np.exp(-x * b[3]) + b[2] * np.exp(-x * b[4])


def _roszman1(b, x):
    return b[0] - b[1] * x - np.arctan(b[2] / (x - b[3])) / np.pi


def _lanczos(b, x):
    return b[0] * np.exp(-b[1] * x) + b[2] * np.exp(-b[3] * x) + b[4] * np.exp(-b[5] * x)


def _chwirut(b, x):
    return np.exp(-b[0] * x) / (b[1] + b[2] * x)


def _bennett5(b, x):
    return b[0] * (b[1] + x) ** (-1 / b[2])


def _kirby2(b, x):
    return (b[0] + b[1] * x + b[2] * x ** 2) / (1 + b[3] * x + b[4] * x ** 2)


def _gauss(b, x):
    return (b[0] * np.exp(-b[1] * x) + b[2] * np.exp(-((x - b[3]) ** 2) / b[4] ** 2)
            + b[5] * np.exp(-((x - b[6]) ** 2) / b[7] ** 2))


def _nelson(b, x):
    # x: the two rows (x1, x2) = (time, temperature); the model is for log(y)
    x1, x2 = x
    return b[0] - b[1] * x1 * np.exp(-b[2] * x2)


def _enso(b, x):
    w = 2 * np.pi * x
    return (b[0] + b[1] * np.cos(w / 12) + b[2] * np.sin(w / 12)
            + b[4] * np.cos(w / b[3]) + b[5] * np.sin(w / b[3])
            + b[7] * np.cos(w / b[6]) + b[8] * np.sin(w / b[6]))


MODELS = {
    "Misra1a": _misra1a, "Misra1b": _misra1b, "Misra1c": _misra1c, "Misra1d": _misra1d,
    "DanWood": _danwood, "BoxBOD": _misra1a, "Rat42": _rat42, "Rat43": _rat43,
    "MGH09": _mgh09, "MGH10": _mgh10, "Eckerle4": _eckerle4, "Thurber": _thurber,
    "MGH17": _mgh17, "Roszman1": _roszman1, "Lanczos1": _lanczos, "Lanczos2": _lanczos,
    "Lanczos3": _lanczos, "Chwirut1": _chwirut, "Chwirut2": _chwirut,
    "Bennett5": _bennett5, "Kirby2": _kirby2, "Gauss1": _gauss, "Gauss2": _gauss,
    "Gauss3": _gauss, "Hahn1": _thurber, "Nelson": _nelson, "ENSO": _enso,
}
# the response each model is for, where it is not y itself
RESPONSES = {"Nelson": np.log}


def _rss(model, x, y):
    def f(b):
        with np.errstate(all="ignore"):
            r = y - model(np.asarray(b, dtype=float), x)
        return float(r @ r)
    return f


def nist_problems() -> list[Problem]:
    """Every problem of :mod:`benchmarks.nist_strd_data`, in its order, from both starts
    (kind ``"certified"``; ``extra`` holds the certified parameters and NIST's level)."""
    out = []
    for name, data in PROBLEMS.items():
        model = MODELS[name]
        x = np.asarray(data["x"], dtype=float)
        y = np.asarray(data["y"], dtype=float)
        if name in RESPONSES:
            y = RESPONSES[name](y)
        f = _rss(model, x, y)
        for k in (1, 2):
            out.append(Problem(f"{name}_start{k}", "certified", f,
                               np.asarray(data[f"start{k}"], dtype=float), data["rss"],
                               tol_override=RTOL * data["rss"],
                               note=f"NIST StRD, {data['difficulty']} difficulty",
                               extra=dict(certified=tuple(data["certified"]),
                                          difficulty=data["difficulty"])))
    return out


def sign_bounds(p: Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: each parameter on the side of zero its certified value is on,
    within 100 times the certified value and the start."""
    cert = np.array(p.extra["certified"])
    reach = 100 * (np.abs(cert) + np.abs(p.x0))
    return np.where(cert > 0, 0.0, -reach), np.where(cert > 0, reach, 0.0)


def capped_bounds(p: Problem) -> tuple[np.ndarray, np.ndarray]:
    """``(lo, hi)``: the last parameter capped at 80% of its certified value (on its
    side of zero), so that the constrained minimum has it on that bound; the others
    free."""
    cert = np.array(p.extra["certified"])
    lo, hi = np.full(cert.size, -np.inf), np.full(cert.size, np.inf)
    if cert[-1] > 0:
        hi[-1] = 0.8 * cert[-1]
    else:
        lo[-1] = 0.8 * cert[-1]
    return lo, hi
