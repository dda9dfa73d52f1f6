"""Likelihoods that rise towards an *excluded* end of a shape's domain: a limit, not a
maximum.

Some families approach a proper distribution as a shape runs to an end that its domain
excludes: t's ``df -> inf`` and exponnorm's ``K -> 0`` (the normal), genhalflogistic's
``c -> 0`` (the half-logistic), wrapcauchy's ``c -> 0`` (the uniform circle), argus's
``chi -> 0``, ncx2's ``df -> 0``. Where the sample asks for that limit, the likelihood
rises all the way to the end, the optimiser's gradient in its log coordinates vanishes
as it goes, and it stops wherever its tolerances say: scipy's acceptance sample of
ncx2(21, 1.06) (n = 1000) stopped at ``df = 4.6e-4``, ``1.1e-4`` and ``6.3e-5`` at three
magnitudes of the same data; t on normal samples anywhere from ``df = 2e6`` to ``2e10``.

The driver probes such a shape at decades ever closer to the end (``end + 10^-k``, or
``10^k`` towards infinity, the other parameters re-fitted each time from the last
probe). Where the likelihood keeps rising while the re-fitted parameters *and* the
rises shrink decade by decade, the limit is reached by the shape alone and the others
settle: once they move less than :data:`SETTLED_CHANGE` over a decade, the fit is
reported at the ladder's last probe (``10^-12`` from the end, or ``10^12``), the same at
every magnitude of the data. That is the likelihood's supremum to rounding -- a member
of the family's closure, like a closed end's, but one the family's finite parameters
cannot name -- and the message says that it is a limit. Where the other parameters do
not settle (lognorm on normal data: ``s -> 0`` drags ``loc`` to ``-inf`` and the scale
to ``+inf``, a limit outside the family altogether), the rises do not shrink (no finite
supremum), or the likelihood turns, the probes stop and the fit is left as it was.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import stats

from .closed_ends import shape_domain_ends
from .families import scipy_family_entry
from .quantiles import standard_quantiles
from .spec import shape_integrality

RISES_TO_EXCLUDED_END = "the likelihood rises towards an end that a shape's domain excludes"
RUNS_AWAY = ("the likelihood keeps rising towards a limit outside the family: the other "
             "parameters run away with the shape")
# a free shape this close to an excluded end (relative to max(1, |end|)) is probed
# (exponnorm on normal data: the likelihood rises as K^3 towards K = 0, and BFGS stopped
# at K = 0.011 to 0.016, up to 9e-6 short of the limit)
NEAR_OPEN_END = 0.1
# ... and a shape this large, towards an infinite end (t's df -> inf, the normal): BFGS,
# whose gradient in log(df) fades like 1/df there, stopped at df = 2e6 to 2e10 on normal
# samples, 1e-9 to 9e-7 short of the limit and at a different df at each magnitude;
# exponnorm on exponential data said converged at K = 135, 1.1 units short of the
# exponential limit, skewnorm on half-normal data stopped at a = 1574, 0.42 short (an
# interior maximum this far out costs one probe: t's df reaches 1e4 at n = 2000)
FAR_OPEN_END = 1e2
# the probes' distances from the end (relative to max(1, |end|)): decades down to this
# (towards an infinite end, the probes' values: decades up to 1 / this)
DEEPEST_PROBE = 1e-12
# the other parameters have settled where their largest change over a decade (relative:
# shapes to max(1, |value|), loc and scale to the standardised data's unit spread) is
# at most this; what is left to the limit is then about a tenth of it
SETTLED_CHANGE = 1e-7
# a decade's change of the other parameters, and its rise of the log-likelihood, must
# be at most this share of the decade's before (a limit approached like a power of the
# distance shrinks them ~10x per decade; lognorm's normal limit grows them 10x)
SHRINK = 0.5
# the fewest probes a ladder holds: three decades show whether the changes shrink
MIN_PROBES = 3
# evaluations a probe may take per free parameter (ncx2's took 10-15 from the probe a
# decade before; lognorm's runaway towards the normal limit 100-230)
PROBE_EVALS_PER_PARAMETER = 30
# a walk whose others change over a decade by at least this share of the decade's before,
# and by at least RUNAWAY_CHANGE, while the likelihood still rises, runs to a limit the
# family's parameters cannot reach (genlogistic on Gumbel data: as c -> inf, loc drifts
# by -2 per decade towards -inf; lognorm on normal data: loc and scale grow 10x)
RUNAWAY_RATIO = 0.9
RUNAWAY_CHANGE = 1e-3
# relative rounding of a likelihood: a probe may not be lower than its predecessor by
# more than this, or the likelihood turned
ROUNDING = 1e-12


def rounding_of(value: float) -> float:
    """How far a likelihood of ``value`` may move by rounding alone (:data:`ROUNDING`
    relative, at least absolute)."""
    return ROUNDING * max(1.0, abs(value))


def open_ends_near(dist, theta, fixed: dict, n_shapes: int
                   ) -> list[tuple[int, float, float]]:
    """``(shape index, end, direction into the domain)`` for every free, non-integral
    shape of ``theta`` within :data:`NEAR_OPEN_END` of a finite end its domain
    excludes, or beyond :data:`FAR_OPEN_END` towards an infinite one.

    Examples
    --------
    >>> from scipy import stats
    >>> open_ends_near(stats.ncx2, [4.6e-4, 37.9, 1.41, 0.55], {}, 2)
    [(0, 0.0, 1.0)]
    >>> open_ends_near(stats.ncx2, [4.6e-4, 37.9, 1.41, 0.55], {0: 4.6e-4}, 2)
    []
    >>> open_ends_near(stats.ncx2, [21.0, 1e-4, 0.0, 1.0], {}, 2)  # nc >= 0: closed
    []
    >>> open_ends_near(stats.t, [3e7, 0.0, 1.0], {}, 1)  # df -> inf: the normal
    [(0, inf, -1.0)]
    """
    out = []
    for j in range(n_shapes):
        if j in fixed or shape_integrality(dist, j):
            continue
        v = float(theta[j])
        for end, accepted, direction in shape_domain_ends(dist, theta[:n_shapes], j):
            if accepted or math.isnan(end):
                continue
            if math.isinf(end):
                if -direction * v >= FAR_OPEN_END:
                    out.append((j, end, direction))
                continue
            end = _excluded_value(end)
            if 0.0 < direction * (v - end) <= NEAR_OPEN_END * max(1.0, abs(end)):
                out.append((j, end, direction))
    return out


def _excluded_value(end: float) -> float:
    """The value an open end excludes: scipy writes ``df > 0`` as the domain
    ``[5e-324, inf]`` and truncpareto's ``c > 1`` as ``[1 + 2.2e-16, inf]``."""
    whole = float(np.round(end))
    return whole if abs(end - whole) <= 4 * np.finfo(float).eps * max(1.0, abs(end)) else end


def probe_values(value: float, end: float, direction: float) -> list[float]:
    """The shape's probes: ``end + direction * 10^-k * max(1, |end|)`` for every decade
    closer to the end than ``value`` is (by at least half a decade) down to
    :data:`DEEPEST_PROBE`; towards an infinite end, ``+-10^k`` for every decade beyond
    ``value`` (by half a decade) up to ``1 / DEEPEST_PROBE``. At least
    :data:`MIN_PROBES` (the ladder starts earlier where ``value`` is already deep). The
    grid is fixed, so samples that differ only in magnitude meet the same probes, and
    the last, where a settled limit is reported, wherever their optimisers stopped.

    Examples
    --------
    >>> probe_values(4.6e-4, 0.0, 1.0)[:3]
    [0.0001, 1e-05, 1e-06]
    >>> len(probe_values(4.6e-4, 0.0, 1.0))
    9
    >>> probe_values(3e-12, 0.0, 1.0)  # (the first two are farther from 0 than 3e-12)
    [1e-10, 1e-11, 1e-12]
    >>> probe_values(2.9e8, float("inf"), -1.0)
    [1000000000.0, 10000000000.0, 100000000000.0, 1000000000000.0]
    """
    last = round(math.log10(DEEPEST_PROBE))
    if math.isinf(end):
        first = min(math.floor(math.log10(abs(value)) + 0.5) + 1, 1 - last - MIN_PROBES)
        return [-direction * 10.0 ** k for k in range(first, 1 - last)]
    unit = max(1.0, abs(end))
    distance = abs(value - end) / unit
    first = math.floor(math.log10(distance) - 0.5) if distance > 0 else last
    first = max(first, last + MIN_PROBES - 1)
    return [end + direction * 10.0 ** k * unit for k in range(first, last - 1, -1)]


def nearer_end(probe: float, value: float, end: float) -> bool:
    """Whether ``probe`` lies strictly between ``value`` and ``end``.

    Examples
    --------
    >>> nearer_end(1e-5, 4.6e-4, 0.0), nearer_end(1e10, 2e12, float("inf"))
    (True, False)
    """
    if math.isinf(end):
        return abs(probe) > abs(value)
    return abs(probe - end) < abs(value - end)


# families whose own raw moments (``_munp``) are numerical integrals: 1.9 s a call
_INTEGRATED_MOMENTS = {"studentized_range": True}


def _mean_variance(dist, shapes: list) -> tuple[float, float] | None:
    """The standard distribution's mean and variance where the family states them in
    closed form (its own ``_stats``, or its own raw moments ``_munp``: burr12,
    weibull_min, gengamma, ...), else None: scipy integrates them otherwise, 3 to 40 ms
    a call (genhalflogistic), more than a probe's re-fit."""
    args = [np.asarray(v) for v in shapes]
    try:
        with np.errstate(all="ignore"):
            if type(dist)._stats is not stats.rv_continuous._stats:
                mean, variance = (float(np.asarray(v)) for v in dist._stats(*args)[:2])
            elif (type(dist)._munp is not stats.rv_continuous._munp
                  and not scipy_family_entry(dist, _INTEGRATED_MOMENTS, False)):
                mean = float(np.asarray(dist._munp(1, *args)))
                variance = float(np.asarray(dist._munp(2, *args))) - mean * mean
            else:
                return None
    except Exception:  # (None for a moment it leaves to integration, or no such call)
        return None
    if not (math.isfinite(mean) and math.isfinite(variance) and variance > 0):
        return None
    return mean, variance


def moment_transported(dist, theta, j: int, value: float, n_shapes: int):
    """``theta`` with shape ``j`` moved to ``value`` and loc and scale moved with it so
    that the distribution keeps its mean and variance; None where the family does not
    state them in closed form or either is not finite at the old or the new shapes (the
    walk then starts from ``theta`` as it is).

    A limit that drags loc and scale along (lognorm's ``s -> 0``: loc and scale ~ 1/s)
    keeps the first two moments near the data's on the way, so the probe a decade on
    starts next to its optimum: from ``theta`` as it was, the re-fit spent its 30
    evaluations per parameter just moving loc and scale, and the walk learnt nothing.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> moved = moment_transported(stats.lognorm, [1e-3, -1000.0, 1000.0], 0, 1e-4, 1)
    >>> moved.round(1).tolist()
    [0.0, -10000.0, 10000.0]
    >>> bool(np.allclose(stats.lognorm.stats(*moved, moments="mv"),
    ...                  stats.lognorm.stats(1e-3, -1000.0, 1000.0, moments="mv")))
    True
    """
    shapes = [float(v) for v in theta[:n_shapes]]
    moved = list(shapes)
    moved[j] = value
    before, after = _mean_variance(dist, shapes), _mean_variance(dist, moved)
    if before is None or after is None:
        return None
    (m0, v0), (m1, v1) = before, after
    loc, scale = float(theta[n_shapes]), float(theta[n_shapes + 1])
    new_scale = scale * math.sqrt(v0 / v1)
    new_loc = loc + scale * m0 - new_scale * m1
    if not (math.isfinite(new_loc) and math.isfinite(new_scale) and new_scale > 0):
        return None
    return np.array(moved + [new_loc, new_scale])


QUARTILES = (0.25, 0.75)


def quantile_transported(dist, theta, j: int, value: float, n_shapes: int):
    """:func:`moment_transported`'s stand-in where the family states no moments in
    closed form (a user's subclass with a density and a cdf): loc and scale moved with
    shape ``j`` so that the quartiles stay where they are; None where a quartile is not
    finite or they do not increase.

    A hand-written Pareto on 20 points whose supremum is the exponential limit had
    "converged" at b = 8.6e7: its walk's probe at 1e9, started with loc and scale as
    they were, could not re-fit them, and the fit was kept.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> moved = quantile_transported(stats.pareto, [10.0, -9.0, 10.0], 0, 100.0, 1)
    >>> bool(np.allclose(stats.pareto.ppf([0.25, 0.75], *moved),
    ...                  stats.pareto.ppf([0.25, 0.75], 10.0, -9.0, 10.0)))
    True
    """
    shapes = [float(v) for v in theta[:n_shapes]]
    moved = list(shapes)
    moved[j] = value
    try:
        with np.errstate(all="ignore"):
            before = standard_quantiles(dist, tuple(shapes), np.array(QUARTILES))
            after = standard_quantiles(dist, tuple(moved), np.array(QUARTILES))
    except Exception:  # (a user's cdf that cannot take these shapes)
        return None
    if not (np.all(np.isfinite(before)) and np.all(np.isfinite(after))
            and before[1] > before[0] and after[1] > after[0]):
        return None
    loc, scale = float(theta[n_shapes]), float(theta[n_shapes + 1])
    new_scale = scale * float(before[1] - before[0]) / float(after[1] - after[0])
    new_loc = loc + scale * float(before[0]) - new_scale * float(after[0])
    if not (math.isfinite(new_loc) and math.isfinite(new_scale) and new_scale > 0):
        return None
    return np.array(moved + [new_loc, new_scale])


def parameter_change(a, b, j: int, n_shapes: int) -> float:
    """The largest change between the parameter vectors ``a`` and ``b`` (standardised),
    shape ``j`` (the one probed) aside: shapes relative to ``max(1, |value|)``, loc and
    the scale's logarithm absolutely (the standardised data's spread is 1).

    Examples
    --------
    >>> round(parameter_change([1e-3, 40.0, 1.0, 0.5], [1e-4, 40.4, 1.0, 0.5], 0, 2), 12)
    0.01
    """
    a, b = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    changes = [abs(a[i] - b[i]) / max(1.0, abs(a[i])) for i in range(n_shapes) if i != j]
    changes.append(abs(a[n_shapes] - b[n_shapes]))
    changes.append(abs(math.log(b[n_shapes + 1] / a[n_shapes + 1])))
    return float(max(changes))


class EndApproach:
    """Judges the probes towards an excluded end, one decade at a time, from the fit's
    optimum (its NLL ``nll``).

    :meth:`add` takes each probe's NLL and parameters and answers ``"continue"``,
    ``"settled"`` (the likelihood rose all the way while the other parameters and the
    rises shrank, the last change at most :data:`SETTLED_CHANGE`) or ``"stop"`` (the
    likelihood turned, or the other parameters or the rises did not shrink: not a limit
    reached by this shape alone; :attr:`runaway` where the others ran away without
    shrinking while the likelihood still rose, :attr:`level_runaway` where they ran
    away while every probe stayed within rounding of the first). The fit's optimum is
    not itself a probe (the optimiser stopped at no particular decade): it only sets
    the first level to rise from.

    Examples
    --------
    >>> walk = EndApproach(0, 2, nll=10.0)
    >>> walk.add(9.9, [1e-4, 40.1, 1.0, 0.5])
    'continue'
    >>> walk.add(9.89, [1e-5, 40.11, 1.0, 0.5])
    'continue'
    >>> walk.add(9.889, [1e-6, 40.111, 1.0, 0.5])  # a tenth of the change: go on
    'continue'
    >>> walk.add(9.8889, [1e-7, 40.11100001, 1.0, 0.5])  # settled to 1e-8
    'settled'
    >>> walk = EndApproach(0, 1, nll=716.7)  # lognorm on normal data: s -> 0 drags loc
    >>> [walk.add(nll, th) for nll, th in [(716.67, [1e-2, -101.5, 101.5]),  # and scale
    ...                                    (716.26, [1e-3, -1013.8, 1013.7]),
    ...                                    (716.23, [1e-4, -10136.1, 10136.1])]]
    ['continue', 'continue', 'stop']
    >>> walk.runaway
    True
    >>> EndApproach(0, 2, nll=10.0).add(10.5, [1e-4, 40.1, 1.0, 0.5])  # lower: an interior
    'stop'
    """

    def __init__(self, j: int, n_shapes: int, nll: float):
        self.j, self.n_shapes = j, n_shapes
        self.nll = nll
        self.turned = False  # the last probe was less likely than the one before
        self.runaway = False  # the others ran away while the likelihood rose
        # ... or while it stayed level to rounding at every probe (the limit reached
        # to float64's precision: lomax at c = 1e10..1e12, its scale growing 10x a
        # decade, every probe's likelihood the exponential limit's to 1e-15)
        self.level_runaway = False
        self._level = True  # every probe so far within rounding of the first
        self.theta = None
        self.change: float | None = None
        self.rise: float | None = None

    def add(self, nll: float, theta, converged: bool = True) -> str:
        """The verdict after the probe with ``nll`` at ``theta`` (``converged``: whether
        its re-fit converged; an unconverged probe can show a runaway, never a settled
        limit, nor a turn: pareto on 20 points whose limit is the exponential, mapped to
        1e6 x, stopped short at shape 1e9, where loc and scale ~1e9 hold the support's
        end to ~1e-7, and the walk, taking that for a turn, resumed from the probe at 1e8
        and said it had converged)."""
        rise = self.nll - nll
        if not math.isfinite(nll) or rise < -rounding_of(nll):
            self.turned = math.isfinite(nll) and converged
            return "stop"  # less likely nearer the end: the optimum is not there
        rise = max(rise, 0.0)
        if self.theta is not None and rise > rounding_of(nll):
            self._level = False
        theta = np.asarray(theta, dtype=float)
        verdict, change = "continue", None
        if self.theta is not None:  # (a decade from the last probe)
            change = parameter_change(self.theta, theta, self.j, self.n_shapes)
            floor = rounding_of(nll)
            if self.change is not None and change > max(SHRINK * self.change,
                                                        SETTLED_CHANGE):
                verdict = "stop"  # the others run away with the shape
                dragged = change >= RUNAWAY_RATIO * self.change and change >= RUNAWAY_CHANGE
                self.runaway = dragged and rise > floor
                self.level_runaway = dragged and self._level
            elif self.rise is not None and rise > max(SHRINK * self.rise, floor):
                verdict = "stop"  # the rises do not shrink: no finite limit
            elif self.rise is not None and change <= SETTLED_CHANGE and converged:
                verdict = "settled"  # (after two decades' changes and rises shrank)
        self.nll, self.theta, self.change = nll, theta, change
        self.rise = rise if self.theta is not None and change is not None else None
        return verdict
