"""User subclasses of rv_continuous shared by the fitting tests."""

import numpy as np
from scipy import stats


class SkewNormal(stats.rv_continuous):
    """scipy's skew-normal written as a user's subclass: no _shape_info, an _argcheck
    that accepts the whole line, a cdf but no ppf of its own."""

    def _argcheck(self, a):
        return np.isfinite(a)

    def _pdf(self, x, a):
        return stats.skewnorm.pdf(x, a)

    def _cdf(self, x, a):
        return stats.skewnorm.cdf(x, a)
