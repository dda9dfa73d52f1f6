"""Saddles that a symmetry of the start kept: the probe that finds them.

A gradient method converges to a saddle point essentially only when its iterates are
confined to a subspace that contains it, and the usual confinement is a symmetry the
start gave them: two variables that enter ``f`` alike and start equal (the two terms of
a sum of exponentials, two hidden units, two mixture components, all started at ones)
get equal partials and stay equal; a variable that ``f`` treats evenly and that starts
at 0 stays at 0. The run then minimises ``f`` within that subspace, and the gradient
test passes at a point whose Hessian curves downwards across it: two decays fitted from
ones end with identical terms, the least-squares minimum with the rates split lying 50
times lower.

The probe moves each such pair of variables apart (and each such zero off 0) by
SADDLE_STEP of its size, both ways, two evaluations per direction; a value lower by
SADDLE_LOWERS of ``|f|`` means a saddle, and that point is the better one. At a minimum
where the symmetry holds (extended Rosenbrock at ones) the moves raise ``f``.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

__all__ = ["symmetry_breaking_steps", "lower_across_symmetry"]

TIE = 1e-6  # variables that started equal and are within this (relative) still tie
SADDLE_STEP = 1e-2  # each move, relative to the variable's size
SADDLE_LOWERS = 1e-8  # a move lowering f by this (relative to |f|) finds a saddle
MAX_DIRECTIONS = 50  # at most this many directions are probed


def symmetry_breaking_steps(x0: np.ndarray, x: np.ndarray, typical: np.ndarray,
                            earlier: np.ndarray | None = None
                            ) -> list[tuple[tuple[int, ...], np.ndarray]]:
    """Steps that break a tie the start had and ``x`` kept.

    Parameters
    ----------
    x0, x : numpy.ndarray
        The start and the point tested.
    typical : numpy.ndarray
        Positive typical sizes of the variables (the size of a move where ``x_i`` is 0).
    earlier : numpy.ndarray or None
        A point of the run between them (its first iterate): a tie counts only where it
        held there too, to TIE of how far the two had moved from the start. A symmetry
        moves its variables alike; among thousands of variables started alike, some
        land within TIE of each other by chance (a logistic regression of 10,000
        features from 0 had pairs 1e-6 apart at its minimum, and the probes took 100 of
        its 143 evaluations), but hardly any had also moved alike, to a millionth, in
        the first step (measured against their size there instead, 50 pairs at 5000
        features still counted as ties, the most probed; 126 evaluations, now 26).

    Returns
    -------
    list of (variables, step)
        For every two variables equal in ``x0`` and within TIE of each other in ``x``
        (neighbours in value), a step moving them apart; for every variable at 0 in
        ``x0`` and within TIE of its typical size of 0 in ``x``, a step moving it off.
        At most MAX_DIRECTIONS, pairs first.

    Examples
    --------
    >>> import numpy as np
    >>> steps = symmetry_breaking_steps(np.ones(4), np.array([2.0, 0.5, 2.0, 0.3]),
    ...                                 np.ones(4))
    >>> [(pair, step.tolist()) for pair, step in steps]
    [((0, 2), [0.02, 0.0, -0.02, 0.0])]
    """
    x0 = np.asarray(x0, dtype=float)
    x = np.asarray(x, dtype=float)
    size = np.maximum(np.abs(x), typical)
    out: list[tuple[tuple[int, ...], np.ndarray]] = []
    # neighbours in value among the variables of each start value: sorted by the start,
    # then by x (stable, so ties keep index order). A step is made only for the first
    # MAX_DIRECTIONS (each holds n numbers: all of them took 800 MB at n = 10,000)
    order = np.lexsort((x, x0))
    a, b = order[:-1], order[1:]
    tied = (x0[a] == x0[b]) & (np.abs(x[a] - x[b]) <= TIE * np.maximum(size[a], size[b]))
    at_zero = (x0 == 0) & (np.abs(x) <= TIE * typical)
    if earlier is not None:
        earlier = np.asarray(earlier, dtype=float)
        moved = np.abs(earlier - x0)
        tied &= np.abs(earlier[a] - earlier[b]) <= TIE * np.maximum(moved[a], moved[b])
        at_zero &= np.abs(earlier) <= TIE * typical
    for k in np.flatnonzero(tied)[:MAX_DIRECTIONS]:
        i, j = int(a[k]), int(b[k])
        step = np.zeros_like(x)
        h = SADDLE_STEP * max(size[i], size[j])
        step[i], step[j] = h, -h
        out.append(((i, j), step))
    for i in np.flatnonzero(at_zero)[:MAX_DIRECTIONS - len(out)]:
        step = np.zeros_like(x)
        step[i] = SADDLE_STEP * typical[i]
        out.append(((int(i),), step))
    return out


def lower_across_symmetry(value: Callable[[np.ndarray], float], x: np.ndarray, f: float,
                          steps: list[tuple[tuple[int, ...], np.ndarray]]
                          ) -> tuple[int, ...] | None:
    """The variables of the first of ``x ± step`` lower than ``f`` by more than
    SADDLE_LOWERS of ``|f|`` (evaluated by ``value``, so a guarded objective keeps that
    point as its best); None where every move keeps ``f`` or raises it.

    Examples
    --------
    >>> import numpy as np
    >>> seen = []
    >>> def f(x):                                   # a saddle at (1, 1)
    ...     seen.append(float(-(x[0] - x[1]) ** 2 + (x[0] + x[1] - 2) ** 2 + 1))
    ...     return seen[-1]
    >>> x = np.ones(2)
    >>> lower_across_symmetry(f, x, f(x), symmetry_breaking_steps(x, x, np.ones(2)))
    (0, 1)
    >>> round(min(seen), 6)
    0.9996
    """
    threshold = f - SADDLE_LOWERS * abs(f)
    for variables, step in steps:
        for sign in (1.0, -1.0):
            fp = value(x + sign * step)
            if np.isfinite(fp) and fp < threshold:
                return variables
    return None
