"""The method of moments as an objective: match the first k raw moments."""

from __future__ import annotations

import math

import numpy as np

from ..moments import Moments
from .density_moments import density_raw_moments
from .quantile_moments import adaptive_quantile_moments, quantile_raw_moments

# a system counts as solved where every weighted residual is at most this: relative
# errors of 1e-6 in the moments (mean and spread: of the data's standard deviation).
# Solvable systems reach 1e-15, or 1e-8 where the root is ill-conditioned (nakagami at
# nu = 92, near its normal limit); one without a root stops far above (a symmetric
# family asked for a sample's skewness of 0.05: 0.03; geninvgauss on scipy's
# acceptance sample: 4e-4)
SOLVED_RESIDUAL = 1e-6
SOLVE_JACOBIANS = 50  # Levenberg-Marquardt iterations of the final solve, at most
_STEP = 1e-7  # relative forward-difference step of the solve's Jacobian


class MomentEquations:
    """The method of moments: the first k raw moments of ``dist(*shapes, loc, scale)``
    equal to the sample's, k = the number of free parameters.

    Moments are taken of the data standardised by their own mean and standard deviation
    (``u = (z - mean) / std``, so the first two targets are 0 and 1), and each residual
    is weighted by ``1 / sqrt(1 + target**2)``: an error in the mean or spread counts
    relative to the data's spread, higher ones relative to their size. The standardised
    data of the fit (median and IQR) are not enough: gamma(0.01) puts half its mass
    below 1e-29, where the IQR is 1e-14 and the raw moments of ``z`` reach 1e24.

    ``symmetric``: the family is symmetric about ``loc`` at every shape (t, gennorm,
    dweibull, ...), so its third central moment is 0 and no member matches a sample's
    skewness: the orders matched are then 1, 2, 4, 6, ... (the even ones beyond the
    mean), where the shapes show. Matching the first three, as scipy's generic fit does,
    has no root for any sample that is not exactly symmetric.

    Calling it gives the sum of squared residuals (``inf`` where a model moment is not
    finite), the objective the optimiser minimises; :meth:`solve` then finishes the
    system by Levenberg-Marquardt steps, and :meth:`solved` says whether it holds.
    """

    n = 1  # (the optimiser's objective is already per observation)

    def __init__(self, dist, z: np.ndarray, n_free: int, symmetric: bool = False,
                 mean: float | None = None, std: float | None = None):
        self.dist = dist
        count = max(int(n_free), 1)
        self.orders = ([1, 2] + [2 * j for j in range(2, count)] if symmetric
                       and count >= 3 else list(range(1, count + 1)))
        self.count = max(self.orders)
        z = np.asarray(z, dtype=float)
        if mean is None or std is None:  # (a fit passes its sample summary's)
            summary = Moments.from_data(z)
            mean, std = summary.mean, math.sqrt(summary.variance())
        self.center = float(mean)
        self.spread = float(std) if std > 0 and math.isfinite(std) else 1.0
        u = (z - self.center) / self.spread
        self.targets = np.array([np.mean(u ** k) for k in self.orders])
        self.weights = 1.0 / np.sqrt(1.0 + self.targets ** 2)
        self._picked = np.array(self.orders) - 1

    def residuals(self, theta) -> np.ndarray:
        """Weighted differences between the model's moments and the data's."""
        shapes, loc, scale = tuple(theta[:-2]), theta[-2], theta[-1]
        try:
            with np.errstate(all="ignore"):
                model = raw_moments(self.dist, shapes, (loc - self.center) / self.spread,
                                    scale / self.spread, self.count)[self._picked]
        except Exception:
            return np.full(len(self.orders), np.inf)
        return self.weights * (model - self.targets)

    def __call__(self, theta) -> float:
        r = self.residuals(theta)
        return float(r @ r) if np.all(np.isfinite(r)) else math.inf

    def solved(self, theta) -> bool:
        """Whether every weighted residual at ``theta`` is within :data:`SOLVED_RESIDUAL`."""
        r = self.residuals(theta)
        return bool(np.all(np.abs(r) <= SOLVED_RESIDUAL))

    def solve(self, theta, free) -> np.ndarray:
        """``theta`` with its ``free`` entries moved by Levenberg-Marquardt steps on the
        residuals, as far as they lower the sum of squares (at most
        :data:`SOLVE_JACOBIANS` forward-difference Jacobians). The optimiser's minimum
        of the sum of squares stops where its decrease is lost to rounding of the sum,
        residuals of ~1e-8; the equations themselves resolve to ~1e-15. Returns the
        ``theta`` given, the same object, where no step lowered the sum.

        Examples
        --------
        >>> from scipy import stats
        >>> x = stats.gamma.rvs(3.0, loc=2.0, size=400, random_state=0)
        >>> eq = MomentEquations(stats.gamma, x, 3)
        >>> theta = eq.solve(np.array([2.5, 2.5, 1.2]), [0, 1, 2])
        >>> eq.solved(theta), bool(np.isclose(stats.gamma.mean(*theta), x.mean()))
        (True, True)
        """
        given, theta = theta, np.array(theta, dtype=float)
        free = list(free)
        r = self.residuals(theta)
        if not free or not np.all(np.isfinite(r)):
            return given
        cost, damping, moved = float(r @ r), 1e-3, False
        for _ in range(SOLVE_JACOBIANS):
            if cost == 0.0:
                break
            jac = self._jacobian(theta, free, r)
            if jac is None:
                break
            normal, gradient = jac.T @ jac, jac.T @ r
            diagonal = np.diag(np.diag(normal) + 1e-300)  # (Marquardt's scaling)
            for _ in range(8):
                try:
                    step = np.linalg.solve(normal + damping * diagonal, -gradient)
                except np.linalg.LinAlgError:
                    step = None
                trial = theta.copy()
                if step is not None:
                    trial[free] += step
                rt = self.residuals(trial)
                cost_t = float(rt @ rt) if np.all(np.isfinite(rt)) else math.inf
                if cost_t < cost:
                    theta, r, cost, moved = trial, rt, cost_t, True
                    damping = max(damping / 10.0, 1e-12)
                    break
                damping *= 10.0
            else:
                break
        return theta if moved else given

    def _jacobian(self, theta, free, r) -> np.ndarray | None:
        columns = []
        for i in free:
            h = _STEP * max(abs(theta[i]), 1e-3)
            for step in (h, -h):
                moved = theta.copy()
                moved[i] += step
                ri = self.residuals(moved)
                if np.all(np.isfinite(ri)):
                    columns.append((ri - r) / step)
                    break
            else:
                return None
        return np.column_stack(columns)


def moment_objective(dist, z: np.ndarray, n_free: int, shape_sets=(),
                     loc_free: bool = True, mean: float | None = None,
                     std: float | None = None) -> MomentEquations:
    """The method of moments' objective for ``n_free`` free parameters (see
    :class:`MomentEquations`; ``mean`` and ``std`` of ``z`` where known); the family
    counts as symmetric where its skewness is 0 at every one of ``shape_sets`` (the
    starts' shapes; at least two) and ``loc`` is free (about a fixed loc the mean is
    no equation either)."""
    return MomentEquations(dist, z, n_free, symmetric=loc_free and _symmetric(
        dist, shape_sets), mean=mean, std=std)


def _symmetric(dist, shape_sets) -> bool:
    distinct = {tuple(float(v) for v in shapes) for shapes in shape_sets}
    if len(distinct) < 2 and dist.numargs:
        return False
    try:
        with np.errstate(all="ignore"):
            skews = [_skewness(dist, shapes) for shapes in distinct or {()}]
    except Exception:
        return False
    return all(math.isfinite(v) and abs(v) < 1e-12 for v in skews)


def _skewness(dist, shapes: tuple) -> float:
    """The skewness of ``dist(*shapes)``: from the quadrature rules' raw moments where
    they serve (scipy's ``stats(moments="s")`` integrates four moments for a family
    without statistics of its own: 7 s for a user's Weibull density), else scipy's."""
    raw = standard_raw_moments(dist, tuple(shapes), 3)
    if raw is None:
        return float(dist.stats(*shapes, moments="s"))
    m1, m2, m3 = raw
    variance = m2 - m1 * m1
    return float((m3 - 3.0 * m1 * m2 + 2.0 * m1 ** 3) / variance ** 1.5)


def standard_raw_moments(dist, shapes: tuple, count: int) -> np.ndarray | None:
    """``E[Y**k]``, k = 1..``count``, of the standard member ``dist(*shapes)`` by one
    of the quadrature rules (:mod:`.quantile_moments` for an explicit quantile
    function, else :mod:`.density_moments`; then adaptive quadrature of the quantile
    function), or None where none serves and scipy's own route should (a family with
    statistics or moments of its own, or integrals that did not settle)."""
    standard = quantile_raw_moments(dist, shapes, count)
    if standard is None:
        standard = density_raw_moments(dist, shapes, count)
    if standard is None:
        standard = adaptive_quantile_moments(dist, shapes, count)
    return standard


def raw_moments(dist, shapes: tuple, loc: float, scale: float, count: int) -> np.ndarray:
    """The first ``count`` raw moments ``E[X**k]`` of ``dist(*shapes, loc, scale)``.

    Where scipy would integrate ``x**k pdf`` for them (no ``_munp`` of the family's own,
    and no ``_stats`` or one that leaves them to integration, as kappa4's), they come
    from :func:`standard_raw_moments`: a quadrature rule on the family's explicit
    quantile function or else on its density, one vectorised call each, 500 to 10,000
    times faster. Otherwise the
    first four come from one ``dist.stats(moments="mvsk")`` call (mean, variance,
    skewness, excess kurtosis): scipy's ``moment(k)`` ignores a family's closed-form
    ``_stats`` for k = 2 and 3 and integrates ``ppf`` numerically (johnsonsu: 40 ms a
    moment against 0.1 ms for all four statistics, and a fit by the method of moments
    of 1000 points ran past 300 s). Higher orders come from ``dist.moment``.

    Examples
    --------
    >>> from scipy import stats
    >>> raw_moments(stats.norm, (), 1.0, 2.0, 4).tolist()   # 1, 4 + 1, 3*4 + 1, ...
    [1.0, 5.0, 13.0, 73.0]
    """
    standard = standard_raw_moments(dist, shapes, count)
    if standard is not None:
        return _shifted(standard, loc, scale)
    out = np.empty(count)
    if count == 1:
        out[0] = float(dist.stats(*shapes, loc=loc, scale=scale, moments="m"))
        return out
    m, v, *rest = (float(value) for value in dist.stats(
        *shapes, loc=loc, scale=scale, moments="mvsk"[:min(count, 4)]))
    sd = np.sqrt(v)
    central = [0.0, v]  # E[(X - m)^k] for k = 1, 2, then 3 and 4 from skewness, kurtosis
    if count >= 3:
        central.append(rest[0] * sd ** 3)
    if count >= 4:
        central.append((rest[1] + 3.0) * v ** 2)
    out[:len(central)] = _shifted(np.array(central), m, 1.0)  # X = m + (X - m)
    for k in range(5, count + 1):
        out[k - 1] = float(dist.moment(k, *shapes, loc=loc, scale=scale))
    return out


def _shifted(standard: np.ndarray, loc: float, scale: float) -> np.ndarray:
    """``E[(loc + scale Y)**k]`` for k = 1..len(standard) from ``standard[j - 1] =
    E[Y**j]``: ``sum_j C(k, j) scale**j E[Y**j] loc**(k - j)``, summed from j = 0."""
    out = np.empty(standard.size)
    for k in range(1, standard.size + 1):
        total = loc ** k
        for j in range(1, k + 1):
            if standard[j - 1] == 0.0:
                continue  # (no contribution: a central first moment, by an infinite mean)
            total += math.comb(k, j) * (scale ** j * standard[j - 1]) * loc ** (k - j)
        out[k - 1] = total
    return out
