"""Local minimisation of a guarded objective in unconstrained coordinates.

A quasi-Newton stage (BFGS with forward differences) does the work; where it does not
report convergence (a kink, an infeasible edge, precision loss), a Nelder–Mead stage
started from the best point it found, with a simplex sized by the steps taken, finishes
the job. The best point either stage evaluated is returned, so the result is never worse
than the start.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import dataclass, field

import numpy as np
from scipy import optimize

from ..optimize.bfgs import Bundle, guarded_bfgs
from ..optimize.events import EventLog
from .time_budget import spent

TIME_BUDGET_SPENT = "the fit's time budget is spent"  # (a fit's message reads it)


@dataclass
class LocalResult:
    t: np.ndarray
    fun: float
    success: bool
    message: str
    nfev: int
    warnings: list = field(default_factory=list)
    hess_inv: np.ndarray | None = None  # BFGS's inverse-Hessian estimate, to warm-start
    abandoned: bool = False  # a racing start stopped: it cannot beat the converged one
    heading_for_edge: bool = False  # BFGS stopped: gaps shrinking steadily towards 0


@dataclass(frozen=True)
class Race:
    """A start racing a rival one (values per observation, as ``f`` returns them).

    After ``iterations`` BFGS iterations and ``min_evals`` evaluations the racer is
    judged against ``threshold``. A ``patient`` race spares a racer that is still
    closing in on the rival fast; an impatient one (against a rival that used most of
    its budget without converging) does not.
    """

    iterations: int
    threshold: float
    rival: float
    min_evals: int = 0
    patient: bool = True


class _BudgetExhausted(Exception):
    """The local run has used its evaluations (raised by the tracker)."""


class _TimeSpent(_BudgetExhausted):
    """The fit's time budget ran out (:mod:`.time_budget`): the local run stops as if
    its evaluations were spent."""


class _BestTracker:
    """Wraps ``f``: counts calls, maps NaN/errors to inf, keeps the best point seen and
    remembers the last evaluation (BFGS asks for f and its gradient at the same point)."""

    def __init__(self, f, maxfev: int, deadline: float | None = None):
        self.f = f
        self.maxfev = maxfev
        self.deadline = deadline
        self.nfev = 0
        self.best_t = None
        self.best_f = np.inf
        self._last_t = None
        self._last_f = np.inf

    def __call__(self, t) -> float:
        t = np.asarray(t, dtype=float)
        key = t.tolist()  # comparing lists of floats is ~10x cheaper than array_equal
        if key == self._last_t:
            return self._last_f
        if self.nfev >= self.maxfev:
            raise _BudgetExhausted
        self._check_deadline()
        self._check_time_budget()
        self.nfev += 1
        try:
            val = float(self.f(t))
        except (ArithmeticError, ValueError):
            val = math.inf
        val = self._keep(t, val)
        self._last_t, self._last_f = key, val
        return val

    def _check_deadline(self) -> None:
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise _Abandoned("out of time (a racing start may take only a few times as "
                             "long as the converged one)")

    def _check_time_budget(self) -> None:
        """Stop once the fit's time budget is spent (never before the run's first
        evaluation: a run always has its start's value)."""
        if self.nfev and spent():
            raise _TimeSpent(f"stopped after {self.nfev} evaluations: "
                             f"{TIME_BUDGET_SPENT} (its evaluations grew far costlier "
                             "than at the start)")

    def _keep(self, t, val: float) -> float:
        """``val`` with NaN/inf made ``inf``; ``t`` kept if it is the best so far."""
        if not math.isfinite(val):
            val = math.inf
        if val < self.best_f:
            self.best_f, self.best_t = val, np.array(t, dtype=float)
        return val

    def many(self, points: list[np.ndarray]) -> list[float]:
        """``f`` at several points: in one call where ``f`` has a ``many`` method (a
        vectorised likelihood) and the budget allows, else one by one."""
        batch = getattr(self.f, "many", None)
        if batch is None or len(points) < 2 or self.nfev + len(points) > self.maxfev:
            return [self(p) for p in points]
        self._check_deadline()
        self._check_time_budget()
        self.nfev += len(points)
        try:
            values = [float(v) for v in batch(points)]
        except (ArithmeticError, ValueError):
            values = [math.inf] * len(points)
        return [self._keep(t, val) for t, val in zip(points, values, strict=True)]


def minimize_local(f, t0, *, maxfev: int = 3000, xtol: float = 1e-9,
                   hess_inv0: np.ndarray | None = None,
                   race: Race | None = None,
                   edge: tuple[list[int], float] | None = None,
                   deadline: float | None = None,
                   polish_at_budget: bool = False) -> LocalResult:
    """Minimise ``f`` from ``t0``; ``f`` returns ``inf`` where infeasible.

    ``hess_inv0`` warm-starts BFGS (e.g. the estimate from a fit on a subsample, when
    polishing on the whole sample: the curvature per observation is nearly the same).
    ``race`` (a :class:`Race`): after that many BFGS iterations (and evaluations), give
    up unless the value is below ``threshold``; give up as soon as the value settles at
    the ``rival`` value -- a second start racing a first one is finished only while it
    may still beat it.
    ``edge = (positions, below)``: stop BFGS once a coordinate at one of ``positions``
    (a log-gap to an end of the support) is below ``below`` and has fallen steadily for
    several iterations: BFGS only creeps towards an optimum on the edge, one constant
    step of the log-gap per iteration; the caller puts the gap on the edge instead
    (``heading_for_edge`` in the result).
    ``deadline`` (``time.monotonic()``): a racer still running then is abandoned -- some
    densities take seconds per evaluation in degenerate corners (ncf with dfn ~ 1e7).
    ``polish_at_budget``: Newton-polish the best point even where the budget ran out
    (a start already at the optimum by other means, such as the profile likelihood,
    whose short check did not converge).
    """
    t0 = np.asarray(t0, dtype=float)
    tracker = _BestTracker(f, maxfev, deadline)
    try:
        start_value = tracker(t0)
    except _Abandoned as stop:
        return LocalResult(t0, np.inf, False, str(stop), 0, abandoned=True)
    if not np.isfinite(start_value):
        return LocalResult(t0, np.inf, False, "infeasible start", 1)
    if t0.size == 0:
        # nothing left free (a shape held at a closed end with loc and scale fixed:
        # foldnorm, rice and triang with floc and fscale raised ValueError on the
        # empty gradient): the value at the start is the minimum
        return LocalResult(t0, start_value, True, "no free parameters", 1,
                           hess_inv=np.zeros((0, 0)))
    msgs = []
    converged = False
    abandoned = heading = False
    hess_inv = None
    with warnings.catch_warnings(record=True) as rec, np.errstate(all="ignore"):
        warnings.simplefilter("always")
        try:
            if hess_inv0 is None and INITIAL_HESSIAN:
                hess_inv0 = _inverse_hessian_estimate(tracker, t0)
            watch = None if race is None else _RaceWatch(tracker, race)
            watchers = [w for w in (watch, None if not edge or not edge[0] else
                                    _EdgeWatch(*edge)) if w is not None]
            bfgs = _bfgs_stage(tracker, t0, hess_inv0, callback=_all_of(watchers))
            msgs.append(f"BFGS: {bfgs.message}")
            if not bfgs.success and bfgs.iterations == 0:
                # not one step from the start: its gradient is noise. Starts at a
                # family's limiting member sit where scipy switches to a special-case
                # formula (kappa4 at h = k = 0, the Gumbel): next to it the general
                # one cancels, and the likelihood jitters by 4e-5 over steps of 1e-8
                for sign in (1.0, -1.0):  # (one side may leave the support)
                    nudged = t0 + sign * START_NUDGE * np.maximum(1.0, np.abs(t0))
                    if np.isfinite(tracker(nudged)):
                        bfgs = _bfgs_stage(tracker, nudged, hess_inv0,
                                           callback=_all_of(watchers))
                        msgs.append(f"BFGS from the start nudged by {sign * START_NUDGE:g}"
                                    f": {bfgs.message}")
                        break
            converged = bool(bfgs.success)
            hess_inv = getattr(bfgs, "hess_inv", None)
            if watch is not None:
                watch.after_bfgs(converged)
            if not converged:
                converged = _central_restarts(tracker, msgs)
            if not converged:
                converged = _nelder_mead_stage(tracker, t0, xtol, msgs)
            if converged:
                _polish_beyond_budget(tracker, msgs, hess_inv)
        except _BudgetExhausted as stop:
            msgs.append(str(stop) or f"stopped after {maxfev} evaluations")
            if polish_at_budget:
                try:
                    _polish_beyond_budget(tracker, msgs, hess_inv)
                except (_BudgetExhausted, _Abandoned) as stop:
                    msgs.append(f"polish cut short ({stop or 'its evaluations spent'})")
        except _Abandoned as stop:
            msgs.append(str(stop))
            converged, abandoned = False, True
        except _HeadingForEdge as stop:
            msgs.append(str(stop))
            converged, heading = False, True
        t_end, f_end = tracker.best_t, tracker.best_f
        if not abandoned:
            honest = _neighbour_of_spike(tracker)
            if honest is not None:
                t_end, f_end = honest
                converged = False
                msgs.append("the lowest value was a spike of rounding error, far below "
                            f"its neighbours {SPIKE_STEP:g} away (a formula cancelling "
                            "next to a special case); reported at a neighbour")
        caught = sorted({f"{w.category.__name__}: {w.message}" for w in rec})
    return LocalResult(t_end, f_end, converged, "; ".join(msgs),
                       tracker.nfev, caught, hess_inv, abandoned, heading)


SPIKE_STEP = 1e-8  # relative move of each coordinate that looks for a spike
SPIKE_RTOL = 1e-7  # per unit of |f|; smooth functions bend by ~H*step**2 (~1e-13) there


def _neighbour_of_spike(tracker) -> tuple[np.ndarray, float] | None:
    """Where the best point is a spike along some coordinate, ``(point, value)`` of its
    lower neighbour there (the highest such over the coordinates); else None.

    Along a coordinate and a side, ``d1``, ``d2`` and ``d3`` are the rises from the point
    to its neighbours ``1``, ``2`` and ``3`` times ``SPIKE_STEP`` away, each from the
    previous one. A spike rises by ``d1`` far more than by ``d2`` and is smooth beyond
    (``d2 == d3`` to ``SPIKE_RTOL * |f|``) on every finite side (one side may be
    infeasible). A smooth minimum does not (the differences agree to ``H * step**2``),
    nor does a kink (they differ by its slope times the step), nor a likelihood that is
    unbounded at the support's edge (it rises like a logarithm there: ``d2 - d3`` is a
    fixed share of ``d2``). A spike is an artefact of rounding: scipy's kappa4 next to
    ``k = 0``, where it switches to the Gumbel formula, raises ``1 - k*y`` to the power
    ``1/k``; at ``k = -1.5e-14`` it reads 0.42 units below the likelihood around it,
    and a start of a fit that converged there won against the true optimum. The
    neighbour stands in for it, so that the start competes with its honest value.
    """
    t, f0 = tracker.best_t, tracker.best_f
    if t is None or not np.isfinite(f0):
        return None
    steps = SPIKE_STEP * np.maximum(1.0, np.abs(t))
    tol = SPIKE_RTOL * max(1.0, abs(f0))
    sides = [(i, s) for i in range(t.size) for s in (1.0, -1.0)]
    tracker.maxfev += 6 * t.size  # a check of the result, beyond the search's budget
    try:
        near = dict(zip(sides, tracker.many([_moved(t, i, s * steps[i]) for i, s in sides]),
                        strict=True))
        rising = [i for i in range(t.size) if _rises_on_every_finite_side(
            [near[i, s] for s in (1.0, -1.0)], f0, tol)]
        beyond = [(i, s, k) for i in rising for s in (1.0, -1.0) for k in (2, 3)
                  if np.isfinite(near[i, s])]
        far = dict(zip(beyond, tracker.many(
            [_moved(t, i, k * s * steps[i]) for i, s, k in beyond]), strict=True))
    except (_BudgetExhausted, _Abandoned):
        return None
    honest = None
    for i in rising:
        finite = [s for s in (1.0, -1.0) if (i, s, 2) in far]
        if all(_spike_side(f0, near[i, s], far[i, s, 2], far[i, s, 3], tol)
               for s in finite):
            s = min(finite, key=lambda side: near[i, side])
            if honest is None or near[i, s] > honest[1]:
                honest = (_moved(t, i, s * steps[i]), near[i, s])
    return honest


def _spike_side(f0: float, f1: float, f2: float, f3: float, tol: float) -> bool:
    d1, d2, d3 = f1 - f0, f2 - f1, f3 - f2
    return bool(np.isfinite(f3) and d1 - max(d2, 0.0) > tol and abs(d3 - d2) <= tol)


def _rises_on_every_finite_side(values, f0: float, tol: float) -> bool:
    finite = [v for v in values if np.isfinite(v)]
    return bool(finite) and all(v > f0 + tol for v in finite)


def _moved(t: np.ndarray, i: int, by: float) -> np.ndarray:
    out = np.array(t, dtype=float)
    out[i] += by
    return out


class _HeadingForEdge(Exception):
    """BFGS creeps towards an optimum on the support's edge (see _EdgeWatch)."""


EDGE_CREEP_ITERATIONS = 3  # consecutive falls of a log-gap that make a creep
EDGE_CREEP_STEP = 0.2  # the least fall per iteration that counts
EDGE_OTHERS_STILL = 0.05  # ... while no other coordinate moved more than this in all


class _EdgeWatch:
    """BFGS callback: raises once a log-gap is below ``below`` and has fallen by at
    least ``EDGE_CREEP_STEP`` in each of the last ``EDGE_CREEP_ITERATIONS`` iterations
    while the other coordinates have settled (moved less than ``EDGE_OTHERS_STILL``):
    BFGS is then only creeping along the gap. While the shapes still move, the path may
    yet lead elsewhere, and BFGS goes on."""

    def __init__(self, positions: list[int], below: float):
        self.positions = list(positions)
        self.below = below
        self.history: list[np.ndarray] = []

    def __call__(self, x, fun, grad=None) -> None:
        self.history.append(np.array(x, dtype=float))
        if len(self.history) <= EDGE_CREEP_ITERATIONS or not any(
                x[i] < self.below for i in self.positions):
            return
        recent = np.array(self.history[-EDGE_CREEP_ITERATIONS - 1:])
        gaps = recent[:, self.positions]
        falls = -np.diff(gaps, axis=0)
        creeping = (gaps[-1] < self.below) & np.all(falls >= EDGE_CREEP_STEP, axis=0)
        others = [i for i in range(recent.shape[1]) if i not in self.positions]
        moved = np.max(np.abs(recent[-1, others] - recent[0, others])) if others else 0.0
        if creeping.any() and moved < EDGE_OTHERS_STILL:
            raise _HeadingForEdge(f"BFGS heading for the support's edge after "
                                  f"{len(self.history)} iterations")


def _all_of(callbacks):
    if not callbacks:
        return None
    if len(callbacks) == 1:
        return callbacks[0]

    def call(x, fun, grad=None):
        for cb in callbacks:
            cb(x, fun, grad)
    return call


class _Abandoned(Exception):
    """A racing start stops: it cannot beat, or has joined, the converged one."""


class _RaceWatch:
    """BFGS callback of a start racing a converged one (values are per observation).

    Once it has made ``iterations`` iterations and ``min_evals`` evaluations (a slow
    start may need a few dozen iterations before it falls), the racer gives up unless
    it is below ``threshold`` -- a margin above the rival that shrinks with the square
    of the iteration count: one still above the rival after many iterations is creeping
    towards the rival's optimum, not past it -- or is falling fast enough to reach the
    rival's value soon. At any iteration it stops once it has settled at the rival's
    value (within ``AGREE_RTOL`` and no longer falling): both starts lead to the same
    optimum, and finishing the second one would only repeat the first one's polish. (A
    test against the rival's quadratic model was tried and dropped: a single point
    where the model fits is weak evidence, and it stopped a racer bound for a better
    optimum.)
    """

    def __init__(self, tracker, race: Race):
        self.tracker = tracker
        self.iterations = race.iterations
        self.patient = race.patient
        self.min_evals = race.min_evals
        self.judged_from = None  # the first iteration at which the racer may be judged
        self.threshold = race.threshold
        self.rival = race.rival
        self.band = AGREE_RTOL * max(1.0, abs(race.rival))
        # (below an unconverged rival -- a march towards a limit of the family -- the
        # racer is on the same march, and stops within the band either side)
        self.below = (BELOW_RIVAL_RTOL if race.patient else AGREE_RTOL) * max(
            1.0, abs(race.rival))
        self.k = 0
        self.previous = np.inf
        self.values: list[float] = []

    def _closing_fast(self, value: float) -> bool:
        """Whether, at its rate over the last few iterations, the racer would reach the
        rival's value within ``RACE_HORIZON`` more iterations (a slow start on the way
        to a better optimum is not a reason to give up)."""
        span = min(4, len(self.values) - 1)
        if span < 1:
            return False
        rate = (self.values[-1 - span] - value) / span
        return rate > 0 and value - self.rival < RACE_HORIZON * rate

    def __call__(self, x, fun, grad=None) -> None:
        self.k += 1
        value = float(fun)
        self.values.append(value)
        if self.judged_from is None and self.k >= self.iterations \
                and self.tracker.nfev >= self.min_evals:
            self.judged_from = self.k
        margin = np.inf if self.judged_from is None else (
            (self.threshold - self.rival) * (self.judged_from / self.k) ** 2)
        if value > self.rival + margin and not (self.patient and self._closing_fast(value)):
            raise _Abandoned(f"abandoned after {self.k} BFGS iterations: no prospect of "
                             "beating the best start so far")
        if (self.rival - self.below <= value <= self.rival + self.band
                and self.previous - value <= 10 * self.band):
            raise _Abandoned(f"after {self.k} BFGS iterations at the converged start's "
                             "value: the starts agree")
        self.previous = value

    def after_bfgs(self, converged: bool) -> None:
        """Polishing is worth it only for a racer that may end below the rival."""
        best = self.tracker.best_f
        if best >= self.rival - self.below and (converged or best > self.threshold):
            raise _Abandoned("BFGS ended no better than the converged start "
                             f"({'converged' if converged else 'not converged'})")


def _polish_beyond_budget(tracker, msgs, hess_inv) -> None:
    """:func:`_newton_polish` with evaluations of its own: the polish is what makes fits
    at every magnitude agree, and is not cut short by what the search spent."""
    d = tracker.best_t.size
    tracker.maxfev = max(tracker.maxfev,
                         tracker.nfev + 1 + d * (d + 1) + 6 * (2 * d + 1) + 4 * d)
    _newton_polish(tracker, msgs, hess_inv)


NEWTON_CLOSE = 1e-6  # after a Newton step this small (relative) the error is ~1e-9
SETTLED = 1e-9  # a step this small (relative): the point is the optimum to rounding


def _relative_step(step, t) -> float:
    return float(np.max(np.abs(step) / np.maximum(1.0, np.abs(t))))


def _newton_polish(tracker, msgs, hess_inv=None, steps: int = 3) -> None:
    """Newton steps (central-difference gradient, one finite-difference Hessian) from
    the converged point: BFGS stops within ~1e-6 of the optimum wherever its path
    happened to end; Newton takes every start (and every magnitude of the same data) to
    the same optimum to ~1e-10, which is what makes the fit equivariant in practice.

    First, BFGS's own inverse Hessian is asked whether the point is already settled (a
    step below 1e-9 with the central gradient); only otherwise is the Hessian computed.
    With a finite-difference Hessian accurate to ~1e-3, a step below 1e-6 leaves an
    error of ~1e-9: no further step is taken then.
    """
    t = tracker.best_t
    g = _gradient(tracker, t, central=True)
    h_inv = _positive_definite(hess_inv, t.size)
    if h_inv is not None and _relative_step(h_inv @ g, t) < SETTLED:
        msgs.append("settled (quasi-Newton step below 1e-9)")
        return
    hess = _hessian(tracker, t, rel=1e-4, accurate=True)
    if hess is None:
        return
    try:
        np.linalg.cholesky(hess)
    except np.linalg.LinAlgError:
        return  # not a strict local minimum in these coordinates (ridge, edge)
    taken = 0
    for k in range(steps):
        if k:
            t = tracker.best_t
            g = _gradient(tracker, t, central=True)
        step = np.linalg.solve(hess, g)
        size = _relative_step(step, t)
        if size < SETTLED:
            break
        before = tracker.best_f
        value = tracker(t - step)
        if not tracker.best_f < before and not _below_rounding(
                before, value, float(g @ step) / 2):
            # the gradient's rounding noise decides the step along a ridge: measure
            # slope and curvature along each eigenvector with steps long enough to
            # see them (chi2 with loc and scale free: df at 238, eigenvalues 7.7e-4
            # to 304, f jittering by 1e-13 per observation, and the three magnitudes'
            # fits 1e-5 apart)
            ridge = _ridge_newton_step(tracker, t, before, hess)
            if ridge is None:
                break
            step, promised = ridge
            size = _relative_step(step, t)
            value = tracker(t - step)
            if tracker.best_f < before:
                taken += 1
                if size < NEWTON_CLOSE:
                    break
                continue
            noise = RIDGE_NOISE * max(1.0, abs(before))
            if promised <= noise and value <= before + noise:
                # a step the value cannot judge, from slopes it can: taken (the
                # value at t was a dip of its rounding noise, 1e-13 on chi2's ridge)
                tracker.best_t, tracker.best_f = np.array(t - step), value
                taken += 1
            break
        if not tracker.best_f < before:
            # the decrease the model promises is below rounding, and the value agrees
            # to rounding: the Newton point, from an accurate gradient and Hessian, is
            # nearer the optimum than the value can tell (chi with df = 78: a step of
            # 5e-7 along a ridge of curvature 8e-4 promised 2.5e-16 per observation,
            # and the fits at three magnitudes stopped 1.2e-6 apart, 1e-7 after it)
            tracker.best_t, tracker.best_f = np.array(t - step), value
            taken += 1
            break
        taken += 1
        if size < NEWTON_CLOSE:
            break
    if taken:
        msgs.append(f"{taken} Newton polish step(s)")


RIDGE_CHANGE = 1e-7  # change of f (relative) the steps along eigenvectors aim at
# ... but no step along one is longer than this (a factor e in a log coordinate): along
# a direction flatter than that, f is flat to rounding over any span a quadratic model
# could describe (ncf on 200 points, data of 1e200 x: an eigenvalue of 2.8e-9 asked for a
# span of 9.7, nc multiplied by 16,000, and the 16 evaluations there took 9.3 s)
RIDGE_SPAN = 1.0
RIDGE_NOISE = 1e-12  # relative: a likelihood's rounding noise (1e-13 on chi2's ridge)


def _ridge_newton_step(tracker, t, f0: float, hess) -> tuple[np.ndarray, float] | None:
    """The Newton step ``H^-1 g`` (to be subtracted) and the decrease it promises,
    from slopes and curvatures measured along the eigenvectors of ``hess`` at ``t``
    (where ``f`` is ``f0``): central
    differences whose step ``h`` changes ``f`` by about ``RIDGE_CHANGE |f|``, and
    ``h / 2``, extrapolated (4 evaluations per eigenvector); None where a point is
    infeasible or a measured curvature is not positive.

    Coordinate steps of 6e-6 read a slope of 1e-8 along a direction of curvature 1e-3
    as rounding noise. A step that moves ``f`` by 1e-7 reads it, but with the cubic
    term's error ``h**2 f3 / 6`` (``f3`` the third derivative along the direction: as
    large as the slope itself on chi2's ridge), which Richardson's
    ``(4 s(h/2) - s(h)) / 3`` removes."""
    w, v = np.linalg.eigh(hess)
    if not np.all(w > 0):
        return None
    spans = np.minimum(np.sqrt(2.0 * RIDGE_CHANGE * max(1.0, abs(f0)) / w), RIDGE_SPAN)
    points = []
    for k, h in enumerate(spans):
        points += [t + h * v[:, k], t - h * v[:, k], t + 0.5 * h * v[:, k],
                   t - 0.5 * h * v[:, k]]
    values = np.array(tracker.many(points)).reshape(-1, 4)
    if not np.all(np.isfinite(values)):
        return None
    plus, minus, half_plus, half_minus = values.T
    slopes = (4 * (half_plus - half_minus) / spans - (plus - minus) / (2 * spans)) / 3
    curvatures = (plus - 2 * f0 + minus) / spans**2
    if not np.all(curvatures > 0):
        return None
    return v @ (slopes / curvatures), float(np.sum(slopes**2 / curvatures)) / 2


ROUNDING = 64 * np.finfo(float).eps  # relative rounding of a likelihood's value


def _below_rounding(before: float, value: float, promised: float) -> bool:
    """Whether a step that promised a decrease of ``promised`` and moved the value
    from ``before`` to ``value`` changed it only by rounding."""
    noise = ROUNDING * max(1.0, abs(before))
    return bool(math.isfinite(value) and 0 <= promised <= noise
                and value <= before + noise)


def _central_restarts(tracker, msgs, rounds: int = 2, gtol: float = 1e-5) -> bool:
    """Fresh BFGS runs from the best point with central differences.

    Forward differences limit BFGS to a gradient accuracy of ~sqrt(eps); on ridges that
    ends in "precision loss" short of the optimum. Restarting with a new Hessian and
    more accurate gradients either makes progress or shows a small gradient at the best
    point — the stated convergence test then.
    """
    if np.max(np.abs(_gradient(tracker, tracker.best_t, central=True))) <= gtol:
        msgs.append("central-difference gradient at the best point below 1e-5")
        return True  # the stop was at the optimum: forward differences were the limit
    for _ in range(rounds):
        before = tracker.best_f
        res = _bfgs_stage(tracker, tracker.best_t, None, central=True)
        msgs.append(f"BFGS restart (central differences): {res.message}")
        if res.success:
            return True
        if tracker.best_f >= before - 1e-12 * max(1.0, abs(before)):
            g = _gradient(tracker, tracker.best_t, central=True)
            small = bool(np.max(np.abs(g)) <= gtol)
            if small:
                msgs.append("gradient at the best point below 1e-5")
            return small
    return False


def _gradient(tracker, t, central: bool, f0: float | None = None) -> np.ndarray:
    """Finite-difference gradient with steps scaled to |t|; an infeasible side is
    replaced by the other one. ``f0``: the value at ``t``, where known."""
    f0 = tracker(t) if f0 is None else f0
    g = np.empty_like(t)
    rel = 6e-6 if central else 1.5e-8
    steps = [rel * max(1.0, abs(v)) for v in t.tolist()]
    shifts = np.diag(steps)
    plus = list(t + shifts)  # row i: t with coordinate i moved by +h_i
    minus = list(t - shifts) if central else []
    values = tracker.many(plus + minus if central else plus)
    f_plus = values[:t.size]
    f_minus = values[t.size:] if central else [None] * t.size
    for i, h in enumerate(steps):
        fp, fm = f_plus[i], f_minus[i]
        if central and math.isfinite(fp) and math.isfinite(fm):
            g[i] = (fp - fm) / (2 * h)
            continue
        if not central and math.isfinite(fp):
            g[i] = (fp - f0) / h
            continue
        if fm is None:
            fm = tracker(t - shifts[i])
        g[i] = (fp - f0) / h if math.isfinite(fp) else (f0 - fm) / h if math.isfinite(fm) \
            else 0.0
    return g


def _nelder_mead_stage(tracker, t0, xtol, msgs) -> bool:
    start = tracker.best_t
    dim = start.size
    step = np.clip(0.1 * np.abs(start - t0), 1e-3, 0.5)
    simplex = np.vstack([start] + [start + np.eye(dim)[i] * step[i] for i in range(dim)])
    nm = optimize.minimize(tracker, start, method="Nelder-Mead",
                           options=dict(initial_simplex=simplex, xatol=xtol, fatol=1e-12,
                                        maxfev=200 * dim, adaptive=dim > 3))
    msgs.append(f"Nelder-Mead: {nm.message}")
    return bool(nm.success)


INITIAL_HESSIAN = True
# relative move of every coordinate of a start from which BFGS could not take a step
START_NUDGE = 1e-2
# the largest change of an unconstrained coordinate (log scale, log gap, transformed
# shape) in one BFGS iteration: a factor e^4 ~ 55; on flat ridges (ncf's dfn) the line
# search would otherwise double its step into regions where each density takes seconds
MAX_MOVE = 4.0
# relative rounding level of a log-likelihood summed over ~1e3..1e6 terms: a line search
# whose bracket can promise no more decrease than this stops (see weak_wolfe_search)
LINE_SEARCH_NOISE = 1e-13
BFGS_GTOL = 1e-6  # per observation; flat directions (rice's b) need it: Newton is blind there
# a racing start whose value is this close (relative) to the converged one's after its
# first iterations is heading for the same optimum (values are per observation)
AGREE_RTOL = 1e-7
# ... unless it is below the converged one's value by more than this (relative): then
# the first start stopped short on a flat ridge, and the racer goes on to its own
# optimum (rice on scipy's sample: a racer at b = 0.016 was 1.2e-4 units, 9e-8 of the
# likelihood, below the first start's b = 0.29, and was stopped as "agreeing")
BELOW_RIVAL_RTOL = 1e-11
RACE_HORIZON = 16  # iterations a racer still falling fast is given to reach the rival


def _hessian(tracker, t, rel: float = 1e-3, accurate: bool = False) -> np.ndarray | None:
    """Finite-difference Hessian at ``t``, or None where a neighbouring point is
    infeasible.

    The diagonal is central (error O(h^2)). The mixed terms are forward differences
    (error O(h); 1 + d(d+3)/2 evaluations in all), or with ``accurate`` the symmetric
    formula with the points ``t +- (h_i e_i + h_j e_j)`` (error O(h^2); 1 + d(d+1)
    evaluations): in an ill-conditioned valley an O(h) error in the mixed terms shifts
    the small eigenvalues enough to make Newton converge only linearly.
    """
    d = t.size
    f0 = tracker(t)
    h = rel * np.maximum(1.0, np.abs(t))
    eye = np.diag(h)
    pairs = [(i, j) for i in range(d) for j in range(i + 1, d)]
    points = [t + eye[i] for i in range(d)] + [t - eye[i] for i in range(d)]
    points += [t + eye[i] + eye[j] for i, j in pairs]
    if accurate:
        points += [t - eye[i] - eye[j] for i, j in pairs]
    # all neighbours at once: one vectorised likelihood call where f has one
    values = np.array(tracker.many(points))
    if not np.all(np.isfinite(values)):
        return None
    fp, fm = values[:d], values[d:2 * d]
    fpp = dict(zip(pairs, values[2 * d:2 * d + len(pairs)], strict=True))
    fmm = dict(zip(pairs, values[2 * d + len(pairs):], strict=True)) if accurate else {}
    hess = np.diag((fp - 2 * f0 + fm) / h**2)
    for i, j in pairs:
        if accurate:
            mixed = fpp[i, j] - fp[i] - fp[j] + 2 * f0 - fm[i] - fm[j] + fmm[i, j]
            hess[i, j] = hess[j, i] = mixed / (2 * h[i] * h[j])
        else:
            hess[i, j] = hess[j, i] = (fpp[i, j] - fp[i] - fp[j] + f0) / (h[i] * h[j])
    return hess if np.all(np.isfinite(hess)) else None


def _inverse_hessian_estimate(tracker, t) -> np.ndarray | None:
    """Inverse of a finite-difference Hessian at ``t`` with its eigenvalues made
    positive (absolute values, floored), so BFGS starts with the right scales instead of
    the identity."""
    hess = _hessian(tracker, t)
    if hess is None:
        return None
    w, v = np.linalg.eigh(hess)
    w = np.abs(w)
    top = w.max() if w.size else 0.0
    if not top > 0:
        return None
    w = np.maximum(w, 1e-6 * top)
    return (v / w) @ v.T


def _positive_definite(h, dim: int) -> np.ndarray | None:
    """``h`` symmetrised if it is a usable (finite, well-conditioned SPD) matrix."""
    if h is None or np.shape(h) != (dim, dim) or not np.all(np.isfinite(h)):
        return None
    h = 0.5 * (h + h.T)
    eig = np.linalg.eigvalsh(h)
    if not (eig[0] > 1e-12 * eig[-1] > 0):
        return None
    try:
        np.linalg.cholesky(h)
    except np.linalg.LinAlgError:
        return None
    return h


_BFGS_ENDINGS = {
    "converged": "converged (largest gradient component below the tolerance)",
    "line_search_failed": "the line search found no decrease (precision loss)",
    "curvature_failures": "repeated vanishing curvature y.s",
    "no_progress": "no progress in 5 iterations",
    "no_descent": "no descent direction",
    "max_iter": "iteration limit reached",
}


@dataclass
class _StageResult:
    success: bool
    message: str
    hess_inv: np.ndarray | None
    iterations: int = 0


def _bfgs_stage(tracker, t0, hess_inv0=None, central: bool = False, callback=None):
    """BFGS with finite-difference gradients (the guarded core of
    :mod:`robustfit.optimize.bfgs`: weak-Wolfe line search, curvature guard), from
    ``hess_inv0`` where it is a usable inverse Hessian. ``callback(x, fun)`` is called
    after each iteration. scipy's BFGS was used here before; its per-iteration overhead
    (~0.5 ms) was a third of a typical fit at n = 1000."""
    t0 = np.asarray(t0, dtype=float)
    warm = _positive_definite(hess_inv0, t0.size)
    f0 = tracker(t0)
    g0 = _gradient(tracker, t0, central, f0)
    out = guarded_bfgs(tracker, lambda t, f: _gradient(tracker, t, central, f), t0, f0, g0,
                       converged=lambda t, f, g, H: float(np.max(np.abs(g))) <= BFGS_GTOL,
                       max_iter=200 * t0.size, bundle=Bundle(1), log=EventLog(),
                       stage="bfgs", first_step=None if warm is None else 1.0,
                       on_iteration=callback, H0=warm, max_move=MAX_MOVE,
                       rel_noise=LINE_SEARCH_NOISE)
    return _StageResult(out.reason == "converged",
                        f"{_BFGS_ENDINGS.get(out.reason, out.reason)} after "
                        f"{out.iterations} iterations", out.H, out.iterations)
