"""Stable, mergeable moments of data of any magnitude.

Moments are kept as ``(n, mean, M2, M3, M4)`` where ``Mk`` is the sum of the k-th powers
of deviations from the mean, accumulated in float64 whatever the input dtype. Two
summaries combine exactly (up to rounding) with the pairwise update of Chan, Golub &
LeVeque (1979) and Pébay (2008), so chunks of a big array, or statistics computed on
different devices (BatchNorm across GPUs), merge into the statistics of the whole.

Examples
--------
>>> import numpy as np
>>> from robustfit.moments import Moments
>>> x = 1e8 + np.array([1.0, 2.0, 3.0, 4.0])
>>> m = Moments.from_data(x[:2]).merge(Moments.from_data(x[2:]))
>>> float(m.variance(ddof=1))
1.6666666666666667
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ._validation import as_float_array
from .errors import InsufficientDataError, InvalidInputError

__all__ = ["Moments", "mean", "variance", "skewness", "kurtosis", "central_moment"]


# raw sums of 4th powers stay inside float64's range when |deviations| are in this band
_RAW_RANGE = (1e-60, 1e60)


@dataclass(frozen=True)
class Moments:
    """Summary ``(n, mean, M2, M3, M4)`` of a sample, mergeable with another.

    Attributes
    ----------
    n : int
        Number of observations.
    mean : float
        Sample mean.
    m2, m3, m4 : float
        Sums of the 2nd, 3rd and 4th powers of deviations from the mean, divided by
        ``scale**k``.
    scale : float
        A power of two: 1.0 for data whose 4th powers fit in float64 (then ``m2..m4``
        are the plain sums), else about the size of the deviations, so that data at
        1e-150 or 1e150 keep exact skewness and kurtosis.
    """

    n: int
    mean: float
    m2: float
    m3: float
    m4: float
    scale: float = 1.0

    @classmethod
    def from_data(cls, x) -> Moments:
        """Summarise a 1-D array (any float or integer dtype, accumulated in float64).

        Two passes: the mean first, then the powers of the deviations from it, which is
        what keeps the result exact for data like ``1e8 + small``. Non-finite data give
        numpy's mean (``inf`` or NaN) and NaN higher moments, without warnings.
        """
        arr = as_float_array(x, "x").ravel()
        n = arr.size
        if n == 0:
            return cls(0, 0.0, 0.0, 0.0, 0.0)
        with np.errstate(all="ignore"):
            mu = float(np.mean(arr))
            if not np.isfinite(mu) or not np.all(np.isfinite(arr)):
                return cls(n, mu, np.nan, np.nan, np.nan)
            d = arr - mu
            # a second correction of the mean removes the rounding of the first pass
            corr = float(np.mean(d))
            mu += corr
            d -= corr
        spread = float(np.max(np.abs(d)))
        scale = 1.0
        if spread > 0 and not _RAW_RANGE[0] <= spread <= _RAW_RANGE[1]:
            scale = float(2.0 ** np.round(np.log2(spread)))
            d /= scale  # exact: a power of two
        d2 = d * d
        return cls(n, mu, float(d2.sum()), float((d2 * d).sum()), float((d2 * d2).sum()),
                   scale)

    @property
    def power_sums(self) -> tuple[float, float, float]:
        """``(M2, M3, M4)`` in the data's units (may under/overflow at extreme scales,
        where :attr:`m2`.. with :attr:`scale` do not)."""
        s = self.scale
        return self.m2 * s * s, self.m3 * s * s * s, self.m4 * (s * s) * (s * s)

    def _at_scale(self, scale: float) -> tuple[float, float, float]:
        """(m2, m3, m4) expressed with another power-of-two ``scale``."""
        r = self.scale / scale
        return tuple(0.0 if m == 0.0 else m * r ** k  # 0 stays 0 even where r**k is inf
                     for k, m in ((2, self.m2), (3, self.m3), (4, self.m4)))

    def _log2_spread(self) -> float:
        """log2 of the root-mean-square deviation (-inf for a constant sample)."""
        if self.n == 0 or not self.m2 > 0:
            return -np.inf
        return float(np.log2(self.scale) + 0.5 * np.log2(self.m2 / self.n))

    def merge(self, other: Moments) -> Moments:
        """Summary of the union of the two samples (Chan et al. / Pébay update)."""
        if other.n == 0:
            return self
        if self.n == 0:
            return other
        na, nb = float(self.n), float(other.n)
        n = na + nb
        delta = other.mean - self.mean
        mean = self.mean + nb * (delta / n)
        # the scale of the union: its deviations are as large as either part's or as
        # the distance between the means
        size = max(self._log2_spread(), other._log2_spread(),
                   float(np.log2(abs(delta))) if delta != 0 else -np.inf)
        lo, hi = np.log2(_RAW_RANGE[0]), np.log2(_RAW_RANGE[1])
        scale = 1.0 if not np.isfinite(size) or lo <= size <= hi else float(
            2.0 ** np.round(size))
        a2, a3, a4 = self._at_scale(scale)
        b2, b3, b4 = other._at_scale(scale)
        dz = delta / scale
        dn = dz / n
        m2 = a2 + b2 + dz * dn * na * nb
        m3 = (a3 + b3 + dz * dn * dn * na * nb * (na - nb)
              + 3.0 * dn * (na * b2 - nb * a2))
        m4 = (a4 + b4
              + dz * dn ** 3 * na * nb * (na * na - na * nb + nb * nb)
              + 6.0 * dn * dn * (na * na * b2 + nb * nb * a2)
              + 4.0 * dn * (na * b3 - nb * a3))
        return Moments(self.n + other.n, mean, m2, m3, m4, scale)

    def __add__(self, other: Moments) -> Moments:
        return self.merge(other)

    def variance(self, ddof: int = 0) -> float:
        """Variance with ``ddof`` delta degrees of freedom.

        ``n == ddof`` (e.g. one point with ``ddof=1``) raises
        :class:`~robustfit.InsufficientDataError` instead of returning NaN.
        """
        if self.n - ddof <= 0:
            raise InsufficientDataError(
                f"variance with ddof={ddof} needs more than {ddof} observation(s), got "
                f"n={self.n}; use ddof=0 or pass more data."
            )
        return self.m2 / (self.n - ddof) * self.scale * self.scale

    def central_moment(self, order: int) -> float:
        """Biased central moment of order 0..4 (``M_k / n``)."""
        if order not in (0, 1, 2, 3, 4):
            raise InvalidInputError(f"order={order!r}: central moments of order 0..4 only.")
        if self.n == 0:
            raise InsufficientDataError("central moments of an empty sample are undefined.")
        s = self.scale
        return (1.0, 0.0, self.m2 / self.n * s * s, self.m3 / self.n * s * s * s,
                self.m4 / self.n * (s * s) * (s * s))[order]

    def skewness(self) -> float:
        """Biased sample skewness ``m3 / m2**1.5`` (0 for a constant sample)."""
        if self.n == 0:
            raise InsufficientDataError("skewness of an empty sample is undefined.")
        m2 = self.m2 / self.n  # in units of scale: the ratio does not depend on it
        return 0.0 if m2 == 0.0 else (self.m3 / self.n) / m2 ** 1.5

    def kurtosis(self, fisher: bool = True) -> float:
        """Biased sample kurtosis ``m4 / m2**2`` (minus 3 when ``fisher``).

        A constant sample has no defined kurtosis; it gives ``-3`` (Fisher) / ``0``,
        the limit scipy reports, rather than NaN.
        """
        if self.n == 0:
            raise InsufficientDataError("kurtosis of an empty sample is undefined.")
        m2 = self.m2 / self.n
        k = 0.0 if m2 == 0.0 else (self.m4 / self.n) / (m2 * m2)
        return k - 3.0 if fisher else k


def _moments_of(x, name: str = "x") -> Moments:
    arr = as_float_array(x, name)
    if arr.size == 0:
        raise InsufficientDataError(f"{name} is empty; moments need at least one value.")
    return Moments.from_data(arr)


def mean(x) -> float:
    """Mean of ``x`` accumulated in float64."""
    return _moments_of(x).mean


def variance(x, ddof: int = 0) -> float:
    """Variance of ``x`` (two-pass, float64), ``ddof`` as in numpy."""
    return _moments_of(x).variance(ddof)


def central_moment(x, order: int) -> float:
    """Biased central moment of order 0..4 of ``x``."""
    return _moments_of(x).central_moment(order)


def skewness(x) -> float:
    """Biased sample skewness of ``x`` (matches ``scipy.stats.skew``)."""
    return _moments_of(x).skewness()


def kurtosis(x, fisher: bool = True) -> float:
    """Biased sample kurtosis of ``x`` (matches ``scipy.stats.kurtosis``)."""
    return _moments_of(x).kurtosis(fisher)
