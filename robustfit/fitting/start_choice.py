"""Which start candidates get a local optimisation.

The driver scores every candidate by likelihood; from the ranking it optimises the best
few that differ in their shapes (:func:`distinct`), joined by the ones no ranking should
leave out (:func:`cover_regimes`): the user's own guess, and a start on each side of
zero for a shape whose sign changes the kind of distribution.
"""

from __future__ import annotations

from .guesses import Candidate
from .spec import shape_domain

__all__ = ["distinct", "cover_regimes"]


def distinct(cands: list[Candidate], k: int, n_shapes: int = 0) -> list[Candidate]:
    """Up to ``k`` candidates, best first, each with different shapes from those taken
    (10% apart: two starts that differ only in loc/scale mostly share a basin), then
    filled up with any that differ at all."""
    out: list[Candidate] = []

    def differs(c, o, rtol, atol, upto):  # not np.allclose, on Python floats
        return any(abs(a - b) > atol + rtol * abs(b) for a, b in
                   zip(c.theta[:upto].tolist(), o.theta[:upto].tolist(), strict=True))

    if n_shapes:
        for c in cands:
            if len(out) == k:
                return out
            if all(differs(c, o, 0.1, 1e-3, n_shapes) for o in out):
                out.append(c)
    for c in cands:
        if len(out) == k:
            break
        if all(differs(c, o, 1e-3, 1e-6, None) for o in out):
            out.append(c)
    return out


def cover_regimes(chosen: list[Candidate], ranked: list[Candidate], dist, n_shapes: int,
                  fixed: dict) -> list[Candidate]:
    """The starts to optimise: ``chosen`` plus, where missing, the user's own guess and
    the best start on each side of zero of every free shape whose domain has both
    signs (gengamma's or genextreme's sign is another regime: tails of another kind, a
    support bounded on the other side, and BFGS rarely crosses zero). Added, not
    swapped in: the start they would displace may hold the optimum (tukeylambda's
    lambda = 2 start leads to 3.1, the lambda < 0 one nowhere). Ordered by score.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from robustfit.fitting.guesses import Candidate
    >>> ranked = [Candidate("moments", np.array([3.0, 2.0, 0.0, 1.0])),
    ...           Candidate("moments", np.array([1.0, 2.0, 0.0, 1.0])),
    ...           Candidate("quantiles", np.array([3.0, -0.5, 0.0, 1.0]))]
    >>> [float(c.theta[1]) for c in cover_regimes(ranked[:2], ranked, stats.gengamma, 2, {})]
    [2.0, 2.0, -0.5]
    """
    extra = [c for c in ranked if c.start == "user"][:1]
    for j in range(n_shapes):
        lo, hi = shape_domain(dist, j)
        if j in fixed or not lo < 0.0 < hi:
            continue
        for side in (-1.0, 1.0):
            if not any(side * c.theta[j] > 0 for c in chosen + extra):
                extra += [c for c in ranked if side * c.theta[j] > 0][:1]
    out = list(chosen) + [c for c in extra if not any(c is o for o in chosen)]
    rank = {id(c): i for i, c in enumerate(ranked)}
    return sorted(out, key=lambda c: rank[id(c)])
