"""Standardised coordinates: fit ``(x - center) / spread`` and map parameters back.

Fitting in these coordinates makes the whole procedure equivariant: for ``a > 0`` the
data ``a*x + b`` give exactly the same standardised sample, hence the same optimisation
path, and the parameters come back as ``(shapes, a*loc + b, a*scale)``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

_IQR_TO_SIGMA = 1.0 / 1.3489795003921634  # IQR of the standard normal
NEAR = 1e-6  # spreads: an observation this close to a fixed loc centres the map on it


@dataclass(frozen=True)
class Standardizer:
    """Affine map ``z = (x - center) / spread`` and its action on (loc, scale)."""

    center: float
    spread: float

    @classmethod
    def from_data(cls, x: np.ndarray) -> Standardizer:
        """Median and a robust spread (IQR, then MAD, std, range), all equivariant."""
        if x.size == 0:
            return cls(0.0, 1.0)
        q25, center, q75 = np.quantile(x, [0.25, 0.5, 0.75])
        spread = (q75 - q25) * _IQR_TO_SIGMA
        if not spread > 0:
            spread = float(np.median(np.abs(x - center))) * 1.482602218505602
        if not spread > 0:
            spread = float(np.std(x))
        if not spread > 0:
            spread = abs(float(center)) or 1.0
        return cls(float(center), float(spread))

    def centred_near(self, x: np.ndarray, point: float) -> Standardizer:
        """This map, or the one with the same spread centred on ``point`` where an
        observation lies within :data:`NEAR` spreads of it: there ``z - point's image``
        loses its digits in coordinates centred on the median (a fixed ``loc`` one
        float64 spacing below the smallest observation, as scipy's own tests fix
        ``floc=np.nextafter(x.min(), -np.inf)``, rounded onto it, or past it, and the
        closed-form powerlaw shape read ``log`` of that difference 1e-4 off), while
        ``x - point`` is exact. The rule reads ``(x - point) / spread``, the same at
        every magnitude."""
        gaps = np.abs(np.asarray(x, dtype=float) - point)
        if gaps.size == 0 or not float(np.min(gaps)) < NEAR * self.spread:
            return self
        return Standardizer(float(point), self.spread)

    def data_to_z(self, x: np.ndarray) -> np.ndarray:
        return (x - self.center) / self.spread

    def loc_to_z(self, loc: float) -> float:
        return (loc - self.center) / self.spread

    def scale_to_z(self, scale: float) -> float:
        return scale / self.spread

    def theta_to_z(self, theta) -> np.ndarray:
        out = np.array(theta, dtype=float)
        out[-2] = self.loc_to_z(out[-2])
        out[-1] = self.scale_to_z(out[-1])
        return out

    def theta_from_z(self, theta_z) -> np.ndarray:
        out = np.array(theta_z, dtype=float)
        out[-2] = self.center + self.spread * out[-2]
        out[-1] = self.spread * out[-1]
        return out

    def nll_from_z(self, nll_z: float, n_density_terms: int) -> float:
        """NLL in original units: each density term gains ``log(spread)``."""
        return nll_z + n_density_terms * float(np.log(self.spread))
