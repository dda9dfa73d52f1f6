"""Limits at infinity: a "minimum" that the variables reached by running off.

A model whose terms can trade size for size has valleys that end at infinity. NIST's
Hahn1 is a ratio of two cubics, ``(b1 + b2 x + b3 x^2 + b4 x^3) / (1 + b5 x + b6 x^2 +
b7 x^3)``: when all seven coefficients grow together the ``1`` stops counting, the ratio
no longer depends on their common size, and ``f`` tends to the best fit of the
degenerate model. From its first start (coefficients from 1e-6 to 10) BFGS's restarts
ran them to 1e9..1e14, where ``f = 31.6`` against a minimum of 1.53: stationary to the
tests (the gradient is ``1e-6 f`` per variable's size), and ``f`` is the same to 3e-15
when those variables are halved or doubled together. That is the infimum of a valley,
approached, not a minimum; the minimum may be elsewhere.

:func:`scale_free_run_off` finds the variables that grew beyond :data:`RUN_OFF` times
their start's size (at least 1), and says whether ``f`` ignores their common size. A
genuine minimiser far out (Brown's badly scaled function, ``x* = (1e6, 2e-6)`` from
``(1, 1)``) moves far less, and ``f`` there changes at once when it is doubled.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["scale_free_run_off", "RUN_OFF", "SCALE_FREE"]

# growth over the start's size (at least 1) that counts as having run off
RUN_OFF = 1e8
# |f(c x) - f(x)| <= SCALE_FREE max(|f|, tiny) for c = 1/2 and 2: f ignores the size
SCALE_FREE = 1e-8


def scale_free_run_off(value: Callable[[np.ndarray], float], x: np.ndarray, f: float,
                       x0: np.ndarray) -> list[int]:
    """The indices of the variables that ran off from ``x0`` to ``x`` (beyond
    :data:`RUN_OFF` times ``max(1, |x0_i|)``) where ``f`` does not depend on their
    common size: halving them and doubling them (2 evaluations of ``value``) changes
    ``f`` by at most :data:`SCALE_FREE` of itself. Empty where none ran off or ``f``
    depends on their size.

    Examples
    --------
    >>> import numpy as np
    >>> ratio = lambda x: (x[0] / (1 + x[1]) - 2.0) ** 2 + 1.0   # x -> c x: 1 stops counting
    >>> scale_free_run_off(ratio, np.array([2e12, 1e12]), 1.0, np.array([1.0, 1.0]))
    [0, 1]
    >>> bowl = lambda x: (x[0] - 1e9) ** 2                       # a minimiser far out
    >>> scale_free_run_off(bowl, np.array([1e9]), 0.0, np.array([1.0]))
    []
    """
    x = np.asarray(x, dtype=float)
    far = np.abs(x) > RUN_OFF * np.maximum(1.0, np.abs(np.asarray(x0, dtype=float)))
    if not np.any(far) or not np.isfinite(f):
        return []
    allowed = SCALE_FREE * max(abs(f), np.finfo(float).tiny)
    for c in (0.5, 2.0):
        scaled = x.copy()
        scaled[far] *= c
        fc = value(scaled)
        if not (np.isfinite(fc) and abs(fc - f) <= allowed):
            return []
    return [int(i) for i in np.flatnonzero(far)]
