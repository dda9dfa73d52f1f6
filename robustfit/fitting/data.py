"""Turning the ``data`` argument of :func:`robustfit.fit` into checked arrays."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from .._validation import as_finite_1d, check_choice, handle_nonfinite
from ..errors import InsufficientDataError


@dataclass(frozen=True)
class FitData:
    """Observations split by kind (all float64, finite where it matters).

    ``uncensored`` are exact values; ``left`` (value is an upper bound), ``right``
    (a lower bound) and ``interval`` (``lo < x <= hi``) come from CensoredData.
    """

    uncensored: np.ndarray
    left: np.ndarray
    right: np.ndarray
    lo: np.ndarray
    hi: np.ndarray
    n_omitted: int

    @property
    def censored(self) -> bool:
        return bool(self.left.size or self.right.size or self.lo.size)

    @property
    def n(self) -> int:
        return self.uncensored.size + self.left.size + self.right.size + self.lo.size

    def finite_values(self) -> np.ndarray:
        """Every finite number in the sample, for standardisation and support checks."""
        parts = [self.uncensored, self.left, self.right, self.lo, self.hi]
        allv = np.concatenate(parts) if self.censored else self.uncensored
        return allv[np.isfinite(allv)] if self.censored else allv

    def sorted(self) -> FitData:
        """The same observations in ascending order (intervals by their lower end)."""
        order = np.argsort(self.lo, kind="stable")
        return FitData(np.sort(self.uncensored), np.sort(self.left), np.sort(self.right),
                       self.lo[order], self.hi[order], self.n_omitted)

    def transformed(self, fn) -> FitData:
        return FitData(fn(self.uncensored), fn(self.left), fn(self.right), fn(self.lo),
                       fn(self.hi), self.n_omitted)


def read_fit_data(data, nan_policy: str) -> FitData:
    """Check ``data`` (array-like or ``scipy.stats.CensoredData``) for fitting."""
    check_choice(nan_policy, "nan_policy", ("raise", "omit"))
    empty = np.empty(0)
    if isinstance(data, stats.CensoredData):
        unc, n_bad = handle_nonfinite(np.asarray(data._uncensored, float), "data", nan_policy)
        left = np.asarray(data._left, float)
        right = np.asarray(data._right, float)
        interval = np.asarray(data._interval, float).reshape(-1, 2)
        out = FitData(unc, left, right, interval[:, 0].copy(), interval[:, 1].copy(), n_bad)
    else:
        x, n_bad = as_finite_1d(data, "data", nan_policy)
        out = FitData(x, empty, empty, empty, empty, n_bad)
    if out.n == 0:
        raise InsufficientDataError(
            "data is empty" + (" after omitting non-finite values" if n_bad else "")
            + "; fitting needs at least one observation."
        )
    return out
