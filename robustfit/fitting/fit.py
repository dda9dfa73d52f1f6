"""robustfit.fit: validate -> standardise -> guesses -> optimise -> result."""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import replace
from typing import NamedTuple

import numpy as np
from scipy import stats

from .._validation import as_float_array
from ..errors import (
    InsufficientDataError,
    OutOfSupportError,
    RobustFitError,
    UnsupportedDistributionError,
)
from .accurate_logpdf import accurate_logpdf
from .circular import circular_vonmises_fit, is_circular
from .closed_ends import closed_ends_near
from .closed_form import closed_form_limit
from .data import FitData, read_fit_data
from .domain_ends import interior_values, shapes_on_domain_end
from .edge_spacing import end_one_spacing_out
from .edges import (
    EDGE_GAP,
    UNBOUNDED,
    UNBOUNDED_AT_EDGE,
    settle_on_edge,
    singular_end_on_observation,
    singular_end_within_reach,
    snapped_to_edge,
)
from .flat_loc import centre_of_flat_stretch
from .generalized_gamma import (
    LOG_SCALE_LIMIT,
    USER_LOG_SCALE_LIMIT,
    PrenticeNLL,
    nearest_expressible,
    to_prentice,
)
from .generalized_gamma import refit as prentice_refit
from .guesses import (
    Candidate,
    SampleSummary,
    exact_candidate,
    fit_into_support,
    generate_candidates,
)
from .knots import knot_shapes, knots_on_observations
from .likelihood import CensoredNLL, CompleteNLL, plausible_ceiling, support, valid_shapes
from .limit_laws import RISES_TO_LIMIT_LAW, limit_laws
from .loc_profile import loc_profile_start
from .moment_fit import SOLVED_RESIDUAL, moment_objective
from .normalization import density_mass, mass_is_off
from .open_ends import (
    PROBE_EVALS_PER_PARAMETER,
    RISES_TO_EXCLUDED_END,
    RUNS_AWAY,
    EndApproach,
    moment_transported,
    nearer_end,
    open_ends_near,
    probe_values,
    quantile_transported,
    rounding_of,
)
from .optimizer import TIME_BUDGET_SPENT, Race, minimize_local
from .parameterization import Parameterization
from .quantile_moments import has_own
from .result import Attempt, FitResult
from .shape_plateau import off_shape_plateau
from .singular_loc import (
    REGULAR_GRID,
    on_singular_observation,
    regular_floor,
    singular_at_loc,
    spikes_within_reach,
    vanishes_at_loc,
)
from .spec import FitSpec, parse_fit_arguments, shape_integrality
from .standardize import Standardizer
from .start_choice import cover_regimes, distinct
from .sufficient import sufficient_statistic_fit
from .symmetries import absorbs_fixed_scale, at_scale, canonical_scale, shapes_absorb_scale
from .tight_ends import tighten_shape_ends
from .time_budget import budget_scope, budget_seconds, spent, start_budget
from .time_budget import clock as budget_clock
from .unimodal import single_maximum
from .user_optimizer import USER_OPTIMIZER, run_user_optimizer

SCORE_SIZE = 2000  # observations used to rank starting candidates
OPTIMIZE_SIZE = 20000  # above this, optimise on a stratified subsample, then polish
EXPENSIVE_EVAL_S = 0.02  # ... and likewise where one evaluation on all the data costs more
N_OPTIMIZED = 3  # best-scoring distinct candidates that get a local optimisation
VERIFY_SIZE = 2_000_000  # up to this size the final NLL is recomputed in user units
# evaluations one local optimisation may use, per free parameter (+1): a start that has
# not converged by then is wandering towards a degenerate limit (data far from the family)
EVALS_PER_PARAMETER = 400
MIN_STARTS = 3  # local optimisations (racing the best) made even when the first converged
# a further start, racing a converged one, is finished only if after RACE_ITERATIONS
# BFGS iterations it is within RACE_MARGIN log-likelihood units of it (or better); it is
# not judged before it has used RACE_EVAL_SHARE of the first start's evaluations (a start
# that converges to a better optimum may need a few dozen iterations before it falls),
# and it is stopped after RACE_TIME_FACTOR times the first start's time
RACE_ITERATIONS = 8
RACE_MARGIN = 2.0
RACE_EVAL_SHARE = 0.5
RACE_TIME_FACTOR = 4.0
# seconds; 0.25 until the twenty-second session, when racers of ordinary fits (0.1-0.3 s
# each) ran past it with three processes on two cores, and the results of censored
# laplace_asymmetric and truncpareto fits changed with the machine's load
RACE_TIME_FLOOR = 1.0
# share of an unconverged first start's evaluations after which a later start must be
# below that start's value to go on (three starts creeping towards a limit of the family
# spent three whole budgets, for a likelihood that no start could raise much further)
UNCONVERGED_RACE_SHARE = 0.25
# a polish from the profile likelihood's maximum over loc (loc_profile): its budget per
# parameter, and the relative NLL change within which it confirms the profile's point
PROFILE_POLISH_EVALS = 40
PROFILE_AGREE = 1e-11
# the least gap between the data and an end of the support, in ulps of the largest |x|:
# what rounding in the map back to the user's units may take (and the final check
# nudges the edge outward by an ulp or two where it did); a wider floor costs likelihood
# where the density is singular at the edge and the data resolve it (arcsine at 5e7)
GAP_ULPS = 2.0
GAP_TINY = 1e-300  # (a floor above 0 where every observation is 0)
GAP_ABSOLUTE = 1e-10  # standard units: the least gap, the same at every magnitude
GAP_NEIGHBOUR = 10  # ... or, where the data are finer at an extreme, the distance to
GAP_RELATIVE = 1e-8  # its 10th distinct neighbour times this
PSEUDO_COMPLETE = "censored_as_exact"  # the start of a censored fit from its pseudo-data
# relative: a fit with a shape on a closed end of its domain replaces an interior one
# as likely to rounding (the same maximum, approached; reported at the same point at every
# magnitude)
CLOSED_END_SLACK = 1e-12
SUFFICIENT_SIZE = 100_000  # from this size, fits that follow from a few sums skip the rest
# the method of moments' objective (weighted squared errors of the raw moments of the
# standardised data) at or below which the moment equations count as solved: residuals
# ~1e-7, where converged runs end at 1e-15..1e-21. No later start can do better, and
# each costs as much as the first (argus and halfgennorm integrate their moments: a
# minute per start on 300 points)
MOMENTS_MATCHED = 1e-14


class _Local(NamedTuple):
    """What one local optimisation from a start (:func:`_optimize_from`) ended with."""

    theta: np.ndarray | None  # standardised parameters (None: the start was infeasible)
    value: float  # on the likelihood (or moment objective) optimised
    success: bool
    message: str
    hess_inv: np.ndarray | None
    abandoned: bool  # a racer that stopped: it cannot beat the best so far
    attempt: Attempt


class _Best(NamedTuple):
    """The best local optimum so far."""

    nll: float  # on all the data
    theta: np.ndarray  # standardised parameters
    success: bool  # its optimiser's convergence test passed
    start: str  # the start strategy that led to it
    message: str
    value: float  # on the likelihood optimised (all the data or a subsample)
    hess_inv: np.ndarray | None  # inverse Hessian estimate in the optimiser's coordinates

    @classmethod
    def of(cls, res: _Local, nll: float, start: str, message: str | None = None,
           success: bool | None = None) -> _Best:
        """The optimum a local optimisation ``res`` ended at, with its NLL on all data."""
        return cls(nll, res.theta, res.success if success is None else success, start,
                   res.message if message is None else message, res.value, res.hess_inv)


def fit(dist, data, *args, nan_policy: str = "raise", rng=None, **kwds) -> FitResult:
    """Fit a continuous scipy.stats distribution; a drop-in for ``dist.fit``.

    Parameters
    ----------
    dist : scipy.stats.rv_continuous
        The distribution, e.g. ``scipy.stats.gamma`` (or a subclass instance of your own).
    data : array_like or scipy.stats.CensoredData
        One-dimensional sample.
    *args : float
        Starting guesses for the shape parameters, as in ``dist.fit``.
    nan_policy : {"raise", "omit"}
        What to do with NaN/inf observations: raise naming the count and the first index,
        or drop them (the count is kept in ``result.n_omitted``).
    rng : None, int or numpy.random.Generator
        Seeds the subsampling used for very large samples (results are deterministic
        for a given seed; the default is a fixed seed).
    **kwds
        ``loc=``, ``scale=`` (guesses); ``floc``, ``fscale``, ``f0``.., ``f<shape>``,
        ``fix_<shape>`` (fixed values); ``method="MLE"`` or ``"MM"``;
        ``optimizer=`` as ``dist.fit`` takes it, ``optimizer(func, x0, args=(),
        disp=0)`` returning the free parameters: called once from robustfit's optimum,
        on the same objective in standardised coordinates; a lower point it finds is
        polished and kept (start ``"user_optimizer"``), and its outcome, or the error
        it raised, is recorded in ``attempts``. Like scipy's closed-form fits, an exact
        MLE does not call it.

    Returns
    -------
    FitResult
        A tuple of the parameters in scipy's order (shapes, loc, scale) with the
        diagnostics attached: ``params``, ``nll``, ``aic``, ``bic``, ``success``,
        ``message``, ``start`` (the strategy that won), ``attempts``.

    Notes
    -----
    The data are standardised by their median and interquartile range, so the result is
    equivariant: fitting ``a*x + b`` returns ``(shapes, a*loc + b, a*scale)``. Starting
    points come from exact MLEs where they exist, the method of moments, quantile
    matching and scipy's ``_fitstart``; the best few by likelihood are optimised in
    unconstrained coordinates in which data never leave the support.

    Examples
    --------
    Maxwell speeds at a scale of 1e4, where ``scipy.stats.maxwell.fit`` starts from
    scale = 1 and fails:

    >>> import numpy as np
    >>> from scipy import stats
    >>> import robustfit
    >>> x = stats.maxwell.rvs(scale=10455, size=2000, random_state=1)
    >>> loc, scale = robustfit.fit(stats.maxwell, x, floc=0)
    >>> bool(np.isclose(scale, np.sqrt(np.mean(x**2) / 3)))
    True
    """
    spec = parse_fit_arguments(dist, args, kwds)
    if is_circular(spec.dist) and spec.method == "MLE" and not isinstance(
            data, stats.CensoredData):
        return _circular_fit(spec, data, nan_policy)
    quick = _sufficient_statistics_path(spec, data)
    if quick is not None:
        return quick
    fd = read_fit_data(data, nan_policy)
    _check_enough_data(spec, fd)
    if fd.censored:
        _check_censored_support(spec)
    # (the method of moments needs no support: its estimate's message says where it
    # leaves observations outside)
    mle = spec.method == "MLE"
    standard = _fixed_standard_support(spec) if mle else None
    if mle:
        _check_fixed_support(spec, fd, standard)
    std = Standardizer.from_data(fd.finite_values())
    if spec.loc_index in spec.fixed:
        std = std.centred_near(fd.finite_values(), spec.fixed[spec.loc_index])
    # sorted: sums then run in one order whatever the order of the data, so the fit is
    # exactly invariant to permutations (and to the ties between equal values)
    zd = fd.transformed(std.data_to_z).sorted()
    fixed_z = _fixed_to_z(spec, std)
    rng = np.random.default_rng(0 if rng is None else rng)
    gap_floor = _gap_floor(fd, std)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        # the sorted-spacing ceiling of the log-likelihood, once for both coordinates
        # (spacings scale with the data: the user's is n log(spread) lower)
        ceiling = None if fd.censored else plausible_ceiling(zd.uncensored)
        with budget_scope():
            # (the guesses too go to the standardised coordinates: a loc= or scale=
            # guess had been used there as given, and a density NaN outside its
            # undeclared support, whose only usable start was the user's, gave NaN)
            theta_z, nll_z, success, message, start, attempts = _fit_standardized(
                replace(spec, guesses=_to_z(spec.guesses, spec, std)), zd, fixed_z, rng,
                gap_floor, ceiling, _ulp_gap_floor(fd, std),
                log_spread=math.log(std.spread))
        theta = std.theta_from_z(theta_z)
        for i, v in spec.fixed.items():
            theta[i] = v  # exactly the user's values, not a round trip through z
        if start in ("closed_form", LIMIT_START) and mle and not fd.censored:
            theta = _closed_form_in_user_units(spec, fd.uncensored, theta,
                                               limit=start == LIMIT_START)
        if mle:
            _check_on_fixed_edges(spec, fd, standard, theta)
            if not np.all(np.isfinite(theta_z[list(spec.free)])):
                _check_fixed_width(spec, fd, standard, failed=True)
        nll = std.nll_from_z(nll_z, fd.uncensored.size)
        if np.isfinite(nll) and not fd.censored and fd.n <= VERIFY_SIZE:
            # the likelihood the user will compute, in the user's coordinates
            user_nll = CompleteNLL(spec.dist, np.sort(fd.uncensored),
                                   ceiling=ceiling - fd.uncensored.size * math.log(std.spread))
            nll = user_nll(theta)
            if not np.isfinite(nll) and mle:
                theta, nll = _nudge_into_support(spec, theta, user_nll)
                if not np.isfinite(nll):
                    success = False
                    message = "the optimum lies on the edge of the support in float64"
            if UNBOUNDED_AT_EDGE in message and mle:
                closer = end_one_spacing_out(spec.dist, theta, spec.free, user_nll.z,
                                             user_nll, _refit_at_loc(spec, user_nll.z,
                                                                     theta))
                if closer is not None:
                    attempts.append(Attempt("edge_spacing", "polish", tuple(theta),
                                            tuple(closer[0]), closer[1], False,
                                            "loc one float64 spacing beyond the extreme "
                                            "observation, the rest fitted there", 1))
                    theta, nll = closer
                    message += ("; loc is put one float64 spacing beyond the extreme "
                                "observation, where the likelihood is highest in float64")
        elif np.isfinite(nll) and fd.censored and fd.n <= VERIFY_SIZE:
            # (likewise: an exact observation 3e-11 scales from a singular end read
            # 3.5e-6 units off in standardised coordinates, powerlaw right-censored)
            user_value = CensoredNLL(spec.dist, fd.uncensored, fd.left, fd.right, fd.lo,
                                     fd.hi)(theta)
            if np.isfinite(user_value):
                nll = user_value
        one_sided = _one_sided_censoring(fd) if mle else None
        if success and one_sided:
            side, past = one_sided
            success = False
            message = (f"no maximum of the likelihood exists: every observation is "
                       f"{side}-censored, so the likelihood keeps growing as the "
                       f"distribution's mass moves {past} them all; the point reported "
                       f"is where the optimiser stopped ({message})")
        mass = density_mass(spec.dist, theta[:spec.n_shapes])
        if success and mass_is_off(mass):
            success = False
            message = (f"the density at these shapes integrates to {mass:.4g}, not 1: "
                       f"scipy's formulas lose precision there, and the likelihood with "
                       f"them ({message})")
    return FitResult(theta, dist=spec.dist, names=spec.names, nll=nll, success=success,
                     message=message, method=spec.method, start=start, attempts=attempts,
                     n_obs=fd.n, n_omitted=fd.n_omitted,
                     free=tuple(spec.names[i] for i in spec.free), data=fd.uncensored
                     if not fd.censored else data)


# a closed form computed on the user's numbers replaces the one computed in standardised
# coordinates where the two agree to this (relative; loc relative to the scale too)
USER_UNITS_RTOL = 1e-12


def _closed_form_in_user_units(spec: FitSpec, x: np.ndarray, theta: np.ndarray,
                               limit: bool = False) -> np.ndarray:
    """``theta`` (a closed-form MLE found in standardised coordinates and mapped back),
    or the same closed form evaluated on the user's data ``x``, in the user's order,
    where it agrees with ``theta`` to :data:`USER_UNITS_RTOL`: then the estimate is to
    the bit what the formula gives on the user's numbers -- what scipy's own
    closed-form fits return and what a user checking ``np.median(x)`` or
    ``np.sum(np.abs(x - loc)) / n`` computes -- instead of the same value off by the
    round trip through the standardised coordinates and the sorted sums (so the
    order of the data moves such an estimate by an ulp, as it moves those sums).
    Where the formula fails on the user's numbers (squares that overflow at 1e200, or
    underflow into subnormals at 1e-160; a root finder that does not converge there),
    the two disagree or it raises, and ``theta`` stays.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from robustfit.fitting.spec import parse_fit_arguments
    >>> x = stats.laplace.rvs(size=100, random_state=1)
    >>> spec = parse_fit_arguments(stats.laplace, (), {"floc": 2.0})
    >>> near = np.array([2.0, np.mean(np.abs(x - 2.0)) * (1 + 1e-15)])
    >>> bool(_closed_form_in_user_units(spec, x, near)[1] == np.sum(np.abs(x - 2.0)) / 100)
    True
    """
    try:
        if limit:  # (a limit in closed form, closed_form_limit: its loc must be the
            # extreme observation itself, which its far shape cannot be a rounding from)
            found = closed_form_limit(spec.dist, x, dict(spec.fixed))
            raw = None if found is None else found[0]
        else:
            exact = exact_candidate(spec.dist, x, dict(spec.fixed))
            raw = None if exact is None else exact.theta
    except Exception:  # (a root finder that cannot converge on the user's numbers:
        return theta  # gumbel's score at 1e-250 x, brentq's RuntimeError)
    if raw is None or raw.shape != theta.shape:
        return theta
    scale = abs(float(theta[spec.loc_index + 1]))
    ref = np.abs(theta)
    ref[spec.loc_index] = max(ref[spec.loc_index], scale)
    if not np.all(np.abs(raw - theta) <= USER_UNITS_RTOL * ref):
        return theta
    return raw


def _refit_at_loc(spec: FitSpec, x: np.ndarray, theta):
    """``loc -> (theta, nll)``: the fit of ``x`` with ``loc`` held there (the user's
    fixed values kept, the rest started from ``theta``)."""
    def refit(loc: float):
        kwds = {f"f{j}": v for j, v in spec.fixed.items() if j < spec.n_shapes}
        if spec.scale_index in spec.fixed:
            kwds["fscale"] = spec.fixed[spec.scale_index]
        else:
            kwds["scale"] = float(theta[-1])
        try:
            res = fit(spec.dist, x, *(float(v) for v in theta[:spec.n_shapes]), floc=loc,
                      **kwds)
        except RobustFitError:  # (a refit that cannot be made leaves the estimate)
            return tuple(theta), math.inf
        return tuple(res), res.nll
    return refit


def _one_sided_censoring(fd: FitData) -> tuple[str, str] | None:
    """``("right", "above")`` or ``("left", "below")`` where every observation is
    censored on that side (no exact value, no interval, none censored on the other
    side): the likelihood's supremum is then approached as the distribution moves
    past them all, and no maximum exists (scipy's expon fitted to 200 right-censored
    values returned a scale of 7e-19)."""
    if fd.uncensored.size or fd.lo.size:
        return None
    if fd.right.size and not fd.left.size:
        return "right", "above"
    if fd.left.size and not fd.right.size:
        return "left", "below"
    return None


def _circular_fit(spec: FitSpec, data, nan_policy: str) -> FitResult:
    """scipy's circular ``vonmises``: its closed-form fit on the circle (see
    :mod:`.circular`), scale 1."""
    fd = read_fit_data(data, nan_policy)
    if fd.n == 0:
        raise InsufficientDataError("no observations to fit; pass at least one.")
    theta = np.array(circular_vonmises_fit(fd.uncensored, spec.fixed.get(0),
                                           spec.fixed.get(1), spec.fixed.get(2)))
    note = "; optimizer= not called" if spec.optimizer is not None else ""
    message = ("closed-form MLE on the circle (data wrapped to [0, 2 pi), loc their "
               "circular mean, scale 1, as scipy's vonmises.fit)")
    attempt = Attempt("closed_form", "exact", tuple(theta), tuple(theta), np.nan, True,
                      message + note, 0)
    return FitResult(theta, dist=spec.dist, names=spec.names,
                     nll=lambda: CompleteNLL(spec.dist, fd.uncensored, plausible=False)(
                         theta), success=True, message=message, method="MLE",
                     start="closed_form", attempts=(attempt,), n_obs=fd.n,
                     n_omitted=fd.n_omitted, free=tuple(
                         spec.names[i] for i in spec.free if i != spec.scale_index),
                     data=fd.uncensored)


def _sufficient_statistics_path(spec: FitSpec, data) -> FitResult | None:
    """Big samples whose MLE follows from a few sums: a few passes, no optimisation.

    Declines (returns None) for censored data, the method of moments, user guesses that
    could matter, small samples (the general path is cheap there and checks more), and
    whenever the sums are not finite, so the general path also raises the right errors.
    """
    if spec.method != "MLE" or isinstance(data, stats.CensoredData):
        return None
    try:
        x = as_float_array(data, "data", ndim=1)
    except RobustFitError:
        return None
    if x.size < SUFFICIENT_SIZE:
        return None
    found = sufficient_statistic_fit(spec.dist, x, spec.fixed)
    if found is None:
        return None
    theta = found.theta
    note = "; optimizer= not called" if spec.optimizer is not None else ""
    attempt = Attempt("sufficient_statistics", "exact", tuple(theta), tuple(theta),
                      np.nan, True, f"exact MLE from {found.statistics}{note}", 0)
    return FitResult(theta, dist=spec.dist, names=spec.names,
                     nll=lambda: CompleteNLL(spec.dist, x, plausible=False)(theta),
                     success=True,
                     message=f"closed-form MLE from sufficient statistics "
                     f"({found.statistics})", method="MLE", start="sufficient_statistics",
                     attempts=(attempt,), n_obs=x.size, n_omitted=0,
                     free=tuple(spec.names[i] for i in spec.free), data=x)


def _nudge_into_support(spec: FitSpec, theta, nll):
    """Move a free loc / scale outward where rounding of the map back to user units left
    an extreme observation on (or past) an edge of the support; steps grow from one ulp.
    Where they cannot, the shapes that set an end try (:func:`_widen_by_shapes`)."""
    free_loc = spec.loc_index not in spec.fixed
    free_scale = spec.scale_index not in spec.fixed
    if not (free_loc or free_scale):
        return _widen_by_shapes(spec, theta, nll)
    cur = np.array(theta, dtype=float)
    a, b = support(spec.dist, tuple(cur[:-2]))
    loc, scale = cur[-2], cur[-1]
    # loc fixed and a lower end loc + a*scale above it (pareto's a = 1): the scale must
    # shrink to take the smallest observation back inside (pareto with floc at 1e8
    # came back one ulp too wide, NLL inf)
    shrink = free_scale and not free_loc and np.isfinite(a) and a > 0
    if free_loc and np.isfinite(a):
        loc = min(loc, nll.zmin - a * scale)
    elif shrink:
        scale = min(scale, (nll.zmin - loc) / a)
    elif free_scale and np.isfinite(a) and a < 0:
        scale = max(scale, (nll.zmin - loc) / a)
    if free_scale and not shrink and np.isfinite(b) and b > 0:
        scale = max(scale, (nll.zmax - loc) / b)
    elif free_loc and np.isfinite(b):
        loc = max(loc, nll.zmax - b * scale)
    eps = np.finfo(float).eps
    for k in range(40):
        step = eps * 2.0 ** k
        trial = cur.copy()
        lower_side = np.isfinite(a) and not np.isfinite(b)
        trial[-2] = loc - step * max(abs(loc), abs(nll.zmin)) if free_loc and lower_side \
            else loc + step * max(abs(loc), abs(nll.zmax)) if free_loc and np.isfinite(b) \
            and not np.isfinite(a) else loc
        trial[-1] = scale * (1 - step) if shrink else scale * (1 + step) if free_scale \
            else scale
        if free_loc and np.isfinite(a) and np.isfinite(b):
            # both ends finite: widen the interval [loc + a*scale, loc + b*scale] at both
            # ends (moving loc alone would pull the other end in when |loc| >> scale)
            width = step * max(abs(nll.zmin), abs(nll.zmax), scale)
            lo_end = min(loc + a * scale, nll.zmin) - width
            hi_end = max(loc + b * scale, nll.zmax) + width
            if free_scale:
                trial[-1] = (hi_end - lo_end) / (b - a)
                trial[-2] = lo_end - a * trial[-1]
            else:
                # the scale fixed: loc moves away from whichever end holds an
                # observation (down for the lower end; up for the upper: powerlaw with
                # a = 1.8 and fscale=0.1 ended with its upper end an ulp below the
                # largest observation, moved down, and reported an infinite NLL)
                up = loc + b * scale <= nll.zmax and loc + a * scale < nll.zmin
                trial[-2] = loc + (1.0 if up else -1.0) * step * max(
                    abs(loc), abs(nll.zmin), abs(nll.zmax), scale)
        val = nll(trial)
        if np.isfinite(val):
            return trial, val
    return _widen_by_shapes(spec, theta, nll)


def _widen_by_shapes(spec: FitSpec, theta, nll):
    """Move free shapes that set an end of the support (truncnorm's a and b,
    truncpareto's c) outward, in steps growing from one ulp, where loc and scale could
    not take an extreme observation back inside: with the scale fixed at a large
    magnitude, or both ends on extreme observations (then a free scale shrinks with
    them where it alone sets the lower end's gap)."""
    cur = np.array(theta, dtype=float)
    n_shapes = cur.size - 2
    try:
        a, b = support(spec.dist, tuple(cur[:n_shapes]))
    except Exception:
        return theta, nll(theta)
    outward = {}
    upper_rate = {}  # how fast the upper end moves with the shape (standard units)
    for j in range(n_shapes):
        if j in spec.fixed:
            continue
        for sign in (1.0, -1.0):
            probe = cur[:n_shapes].copy()
            delta = 1e-6 * max(1.0, abs(probe[j]))
            probe[j] += sign * delta
            try:
                a2, b2 = support(spec.dist, tuple(probe))
            except Exception:
                continue
            if (a2 < a and not b2 < b) or (b2 > b and not a2 > a):
                outward[j] = sign
                if b2 > b and np.isfinite(b2 - b):
                    upper_rate[j] = (b2 - b) / delta
                break
    if not outward:
        return theta, nll(theta)
    loc, scale = cur[-2], cur[-1]
    # with loc fixed, a lower end at loc + a*scale (a > 0) comes back below the smallest
    # observation as the scale shrinks (truncpareto: scale *is* the lower end's gap)
    shrink = (spec.scale_index not in spec.fixed and spec.loc_index in spec.fixed
              and np.isfinite(a) and a > 0 and not loc + a * scale < nll.zmin)
    # with loc free, the lower end goes below it with loc, the shapes keeping the upper
    lower_loc = (spec.loc_index not in spec.fixed and np.isfinite(a)
                 and not loc + a * scale < nll.zmin)
    eps = np.finfo(float).eps
    for k in range(40):
        step = eps * 2.0 ** k
        trial = cur.copy()
        for j, sign in outward.items():
            trial[j] = cur[j] + sign * step * max(1.0, abs(cur[j]))
        if shrink:
            trial[-1] = min(scale, (nll.zmin - loc) / a) * (1.0 - step)
        val = nll(trial)
        if np.isfinite(val):
            return trial, val
        if lower_loc:
            trial[-2] = (min(loc, nll.zmin - a * scale)
                         - step * max(abs(loc), abs(nll.zmin), scale))
            # the upper end loc + b*scale comes down with loc: the shapes that set b go
            # out by as much more (truncpareto with fscale at loc -1e-3, scale 1e-6: a
            # step of loc relative to |loc| is 200 times the upper end's ulps)
            drop = (loc - trial[-2]) / scale
            for j, rate in upper_rate.items():
                trial[j] += outward[j] * 2.0 * drop / rate
            val = nll(trial)
            if np.isfinite(val):
                return trial, val
    return theta, nll(theta)


def _gap_floor(fd: FitData, std: Standardizer) -> float:
    """Smallest standardised gap between data and a support edge while optimising: the
    larger of :func:`_ulp_gap_floor` and :data:`GAP_ABSOLUTE`, the same at every
    magnitude, so that where the likelihood is unbounded at the edge the estimate is
    the same too. Where the data are much finer near an extreme than their spread
    (a heavy tail sets the spread), :data:`GAP_ABSOLUTE` gives way to
    :data:`GAP_RELATIVE` of the distance from that extreme to its
    :data:`GAP_NEIGHBOUR`-th distinct neighbour, also the same at every magnitude.
    (An optimum on the edge with a finite density there is moved closer afterwards, to
    the ulp floor: :func:`.edges.snapped_to_edge`.)

    pareto(0.1) puts 100 values between 1.03 and 1.3e21 above a lower edge near 1: the
    spread is 1.5e7, and 1e-10 standard units were 1.5e-3 of the scale 1; with the
    largest ``|x|`` read for the ulps, the floor was 0.02 standard units. loc ended 5e5
    below the data, 650 log-likelihood units short."""
    floor = _ulp_gap_floor(fd, std)
    reach = _extreme_reaches(fd.finite_values())
    local = min(reach) if reach is not None else 1.0
    return max(floor, min(GAP_ABSOLUTE, GAP_RELATIVE * float(local) / std.spread))


def _extreme_reaches(x: np.ndarray) -> tuple[float, float] | None:
    """The distances from the smallest and the largest value of ``x`` to their
    :data:`GAP_NEIGHBOUR`-th distinct neighbours (distinct: rounded data tie at the
    extremes), from the values at the two ends alone (one partition, no sort of a big
    sample); None where there are not that many distinct values."""
    k = GAP_NEIGHBOUR
    head = 8 * (k + 1)
    if 2 * head < x.size:
        ends = np.partition(x, [head - 1, x.size - head])
        low, high = np.unique(ends[:head]), np.unique(ends[-head:])
        if low.size > k and high.size > k:
            return float(low[k] - low[0]), float(high[-1] - high[-1 - k])
    distinct = np.unique(x)
    if distinct.size <= k:
        return None
    return float(distinct[k] - distinct[0]), float(distinct[-1] - distinct[-1 - k])


def _ulp_gap_floor(fd: FitData, std: Standardizer) -> float:
    """The least standardised gap that survives the map back to the user's units: a
    few ulps of the magnitudes at the edge, the centre's and the extreme observation's,
    whichever extreme is smaller (an edge lies at one of them; the other may be far
    bigger, and the final nudge widens an edge that rounding still put on an
    observation)."""
    x = fd.finite_values()
    if not x.size:
        return GAP_TINY
    near = min(abs(float(np.min(x))), abs(float(np.max(x))))
    biggest = max(abs(std.center), near)
    return max(GAP_TINY, GAP_ULPS * np.finfo(float).eps * biggest / std.spread)


def _check_enough_data(spec: FitSpec, fd: FitData) -> None:
    n_free = len(spec.free)
    if fd.n < n_free:
        raise InsufficientDataError(
            f"{fd.n} observation(s) cannot determine {n_free} free parameters of "
            f"{spec.dist.name} {tuple(spec.names[i] for i in spec.free)}; pass more data "
            "or fix some parameters (f0.., floc, fscale)."
        )
    values = fd.finite_values()
    if spec.loc_index not in spec.fixed and spec.scale_index not in spec.fixed:
        if values.size and values.min() == values.max():
            raise InsufficientDataError(
                f"all {values.size} observations equal {values[0]!r}: location and scale "
                "cannot both be estimated from a sample with no spread; fix one of them."
            )


def _fixed_standard_support(spec: FitSpec) -> tuple[float, float] | None:
    """The standard support ``(a, b)`` at the fixed shapes (free ones at 1), where loc
    or scale is fixed and free shapes cannot move it; None otherwise. Read once a fit:
    the checks of the data against a fixed support share it."""
    if spec.loc_index not in spec.fixed and spec.scale_index not in spec.fixed:
        return None
    try:
        a, b = support(spec.dist, tuple(spec.fixed.get(j, 1.0)
                                        for j in range(spec.n_shapes)))
    except Exception:
        return None
    shape_free = spec.n_shapes > len([j for j in spec.fixed if j < spec.n_shapes])
    if shape_free and _support_varies_with_shapes(spec):
        return None  # free shapes move the support (loguniform's a, b): nothing to check
    return a, b


def _fixed_support_bounds(spec: FitSpec, standard) -> tuple[float, float] | None:
    """``(lo, hi)``: the ends of the support a fixed loc (and scale) imply, from the
    ``standard`` support (:func:`_fixed_standard_support`); an end the free scale may
    move is infinite. None where loc is free or ``standard`` is None."""
    if standard is None or spec.loc_index not in spec.fixed:
        return None
    a, b = standard
    loc = spec.fixed[spec.loc_index]
    scale = spec.fixed.get(spec.scale_index)
    if scale is None:
        # only the sign of the bound is reliable when the scale may move it
        lo = loc if np.isfinite(a) and a >= 0 else -np.inf
        hi = loc if np.isfinite(b) and b <= 0 else np.inf
    else:
        lo = loc + a * scale if np.isfinite(a) else -np.inf
        hi = loc + b * scale if np.isfinite(b) else np.inf
    return lo, hi


def _check_fixed_support(spec: FitSpec, fd: FitData, standard) -> None:
    """Data outside the support implied by a fixed loc (and scale) get a clear error,
    and so does a fixed scale whose support is narrower than the data's range."""
    _check_fixed_width(spec, fd, standard)
    bounds = _fixed_support_bounds(spec, standard)
    if bounds is None:
        return
    lo, hi = bounds
    x = fd.finite_values()
    below, above = x < lo, x > hi
    for mask, side, bound, extreme in ((below, "below", lo, np.min), (above, "above", hi,
                                                                          np.max)):
        if mask.any():
            # (scipy's FitDataError's opening first, which its tests of fit match)
            raise OutOfSupportError(
                f"Invalid values in `data`.  Maximum likelihood estimation with "
                f"{spec.dist.name!r} requires "
                f"every observation inside the support the fixed parameters imply: "
                f"{int(mask.sum())} observation(s) lie {side} {bound!r}, the edge of the "
                f"support of {spec.dist.name} with {_fixed_description(spec)} (most "
                f"extreme: {extreme(x[mask])!r}); change the fixed values or the data."
            )


def _check_fixed_width(spec: FitSpec, fd: FitData, standard, failed: bool = False
                       ) -> None:
    """A fixed scale whose support (both ends finite, not moved by free shapes) is
    narrower than the range of the data: no loc takes them all in (scipy's
    ``powerlaw.fit(x, fscale=...)`` raises there too). ``failed``: after a fit that
    found no finite likelihood, a support exactly as wide as the data too (both
    extremes on its ends, where powerlaw's density is zero or infinite)."""
    scale = spec.fixed.get(spec.scale_index)
    if standard is None or scale is None or spec.loc_index in spec.fixed:
        return
    a, b = standard
    x = fd.finite_values()
    if not (np.isfinite(a) and np.isfinite(b)) or x.size < 2:
        return
    width, spread = scale * (b - a), float(np.ptp(x))
    if width < spread or (failed and width <= spread):
        raise OutOfSupportError(
            f"Invalid values in `data`.  The support of {spec.dist.name} with "
            f"{_fixed_description(spec)} is {width!r} wide, and the data span {spread!r}: "
            f"`fscale` must be greater than the range of data (over {b - a!r}); "
            f"raise fscale or leave it free."
        )


def _check_on_fixed_edges(spec: FitSpec, fd: FitData, standard, theta) -> None:
    """Observations exactly on an end of the fixed support (beta with ``floc=0,
    fscale=1`` and data ``[0, 0.5, 1]``; powerlaw with ``floc`` at the smallest value)
    get the clear error scipy's ``FitDataError`` gives there, where the density at that
    end is zero or infinite near the fit's shapes (or no start had a finite
    likelihood): the likelihood is then zero, or unbounded, on every side of the
    estimate, and powerlaw "converged" to the one shape with a finite density there,
    ``a = 1``. (A finite density on the end is no error: expon with an observation on
    loc.)"""
    bounds = _fixed_support_bounds(spec, standard)
    if bounds is None:
        return
    x = fd.uncensored  # (an interval or a censored value may end on an edge)
    on = [(int(np.count_nonzero(x == end)), end) for end in bounds if np.isfinite(end)]
    on = [(count, end) for count, end in on if count]
    if not on or not _degenerate_at(spec, theta, [end for _, end in on]):
        return
    where = " and ".join(f"{count} on {end!r}" for count, end in on)
    raise OutOfSupportError(
        f"Invalid values in `data`.  Maximum likelihood estimation with "
        f"{spec.dist.name!r} requires the observations inside the support: with "
        f"{_fixed_description(spec)} observations lie on its edge ({where}), where its "
        f"density is zero or infinite near the estimate (or no start had a finite "
        f"likelihood), so the likelihood has no maximum; widen the fixed support or "
        f"leave loc or scale free."
    )


def _degenerate_at(spec: FitSpec, theta, ends) -> bool:
    """Whether the log-density at ``ends`` is not finite at ``theta`` (no estimate:
    NaN) or at its free shapes moved by 0.1% either way."""
    theta = np.asarray(theta, dtype=float)
    if not np.all(np.isfinite(theta[list(spec.free)])):
        return True
    probes = [theta]
    for j in (j for j in spec.free if j < spec.n_shapes):
        for factor in (1 - 1e-3, 1 + 1e-3):
            moved = theta.copy()
            moved[j] *= factor
            probes.append(moved)
    with np.errstate(all="ignore"):
        for point in probes:
            if not valid_shapes(spec.dist, tuple(point[:spec.n_shapes])):
                continue
            values = spec.dist.logpdf(np.asarray(ends), *point)
            if not np.all(np.isfinite(values)):
                return True
    return False


def _fixed_description(spec: FitSpec) -> str:
    return ", ".join(f"{spec.names[i]}={v!r}" for i, v in spec.fixed.items())


def _support_varies_with_shapes(spec: FitSpec) -> bool:
    """Whether the standard support changes across a grid of the free shapes."""
    from .guesses import shape_grid

    seen = set()
    for shapes in shape_grid(spec.dist, spec.n_shapes, spec.fixed, 3)[:30]:
        try:
            seen.add(support(spec.dist, shapes))
        except Exception:
            continue
    return len(seen) > 1


# private methods from which scipy's cdf and sf can be had without recursing: a
# subclass with none of them (a _logpdf alone) has a default _pdf that differentiates
# the cdf, whose default integrates the _pdf
_CDF_SOURCES = ("_pdf", "_cdf", "_sf", "_logcdf", "_logsf", "_ppf", "_isf")


def _check_censored_support(spec: FitSpec) -> None:
    """Censored observations need the distribution's cdf or sf: refuse, clearly, a
    subclass that defines none of :data:`_CDF_SOURCES` (its fit had returned NaN
    parameters, "no starting point gave a finite likelihood")."""
    if any(has_own(spec.dist, name) for name in _CDF_SOURCES):
        return
    raise UnsupportedDistributionError(
        f"censored data need the cdf or sf of {spec.dist.name}, and its class defines "
        f"only a log-density (none of {', '.join(_CDF_SOURCES)}), from which scipy "
        f"cannot compute them; define _pdf (or _cdf) in the subclass, or fit the "
        f"uncensored values.")


def _fixed_to_z(spec: FitSpec, std: Standardizer) -> dict:
    return _to_z(spec.fixed, spec, std)


def _to_z(values: dict[int, float], spec: FitSpec, std: Standardizer) -> dict:
    """Parameter values by index (fixed ones, guesses) in the standardised
    coordinates: loc and scale mapped, shapes as they are."""
    out = dict(values)
    if spec.loc_index in out:
        out[spec.loc_index] = std.loc_to_z(out[spec.loc_index])
    if spec.scale_index in out:
        out[spec.scale_index] = std.scale_to_z(out[spec.scale_index])
    return out


def _cheaper_target(full: CompleteNLL, probe: CompleteNLL, theta, rng) -> CompleteNLL:
    """The likelihood to optimise on: all the data, or -- where one evaluation on all of
    it would take more than EXPENSIVE_EVAL_S (irwinhall's pdf builds a B-spline per
    observation: 35 us each) -- a stratified subsample that costs about that much,
    of at least SCORE_SIZE observations; the result is then polished on all the data."""
    per_obs = _least_time(probe, theta, 3) / max(probe.n, 1)
    if per_obs * full.n <= EXPENSIVE_EVAL_S:
        return full
    size = max(SCORE_SIZE, int(EXPENSIVE_EVAL_S / per_obs))
    if size >= full.n:
        return full
    return CompleteNLL(full.dist, _stratified(full.z, size, rng))


def _stratified(z: np.ndarray, size: int, rng) -> np.ndarray:
    """An evenly spaced set of order statistics (min and max included)."""
    if z.size <= size:
        return z
    base = z if z.size <= 10 * OPTIMIZE_SIZE else np.concatenate(
        [rng.choice(z, 10 * OPTIMIZE_SIZE, replace=False), [z.min(), z.max()]])
    s = np.sort(base)
    return s[np.linspace(0, s.size - 1, size).round().astype(int)]


def _fit_standardized(spec: FitSpec, zd: FitData, fixed_z: dict, rng, gap_floor: float,
                      ceiling: float | None = None, edge_floor: float | None = None,
                      log_spread: float = 0.0, for_user: bool = True):
    # (log_spread: log of the factor that maps the standardised scale back to the
    # user's, for parameters that must stay representable there; for_user: the fit is
    # reported to the user, not a start of another fit -- see _limit_as_scipy_computes)
    if absorbs_fixed_scale(spec.dist, fixed_z, spec.n_shapes):
        # loguniform with fscale: the shapes absorb any scale, so the fixed one constrains
        # nothing; held, it left the likelihood unbounded towards the support's lower end
        # and the fit stopped 192 units above the truth. Fitted free, then moved along
        # the ridge of identical distributions to the fixed scale
        target = fixed_z[spec.n_shapes + 1]
        free = {k: v for k, v in fixed_z.items() if k != spec.n_shapes + 1}
        theta, nll, success, message, start, attempts = _fit_standardized(
            spec, zd, free, rng, gap_floor, edge_floor=edge_floor, log_spread=log_spread,
            for_user=for_user)
        return (at_scale(spec.dist, theta, target), nll, success,
                f"{message}; moved along the family's scale symmetry to the fixed scale",
                start, attempts)
    dist = spec.dist
    n_shapes = spec.n_shapes
    z_all = zd.finite_values()
    if spec.method == "MLE" and not zd.censored:
        exact = exact_candidate(dist, z_all, fixed_z)
        nll = CompleteNLL(dist, zd.uncensored, ceiling=ceiling)(exact.theta) if exact else None
        if exact is not None and np.isfinite(nll):  # no other start can do better
            # (nor can a user's optimizer=: like scipy's closed-form fits, not called)
            note = "; optimizer= not called" if spec.optimizer is not None else ""
            return exact.theta, nll, True, "closed-form MLE", exact.start, [
                Attempt(exact.start, "exact", tuple(exact.theta), tuple(exact.theta), nll,
                        True, f"closed-form maximum-likelihood estimate{note}", 1)]
        limit = closed_form_limit(dist, z_all, fixed_z) if exact is None else None
        if limit is not None:
            # no maximum, proven in closed form: the supremum is a limit of the family
            # (laplace_asymmetric on exponential-looking data, where the optimiser had
            # crawled towards it for 1600 evaluations and stopped 0.23 units short)
            theta, why = limit
            nll = CompleteNLL(dist, zd.uncensored, ceiling=ceiling)(theta)
            if np.isfinite(nll):
                return theta, nll, False, f"{NO_MAXIMUM}: {why}", LIMIT_START, [
                    Attempt(LIMIT_START, "exact", tuple(theta), tuple(theta), nll, False,
                            why, 1)]
    summary = SampleSummary.from_data(z_all)
    if zd.censored:
        full = CensoredNLL(dist, zd.uncensored, zd.left, zd.right, zd.lo, zd.hi)
        opt_nll = full
        score_nll = full
    else:
        z = zd.uncensored
        full = CompleteNLL(dist, z, ceiling=ceiling)
        zs = _stratified(z, OPTIMIZE_SIZE, rng)
        opt_nll = full if zs is z else CompleteNLL(dist, zs)
        score_nll = CompleteNLL(dist, _stratified(zs, SCORE_SIZE, rng))

    candidates = generate_candidates(dist, fixed_z, spec.guesses, summary, z_all, n_shapes,
                                     gap_floor, inside=spec.method == "MLE")
    attempts: list[Attempt] = []
    if zd.censored and spec.method == "MLE":
        pseudo = _censored_as_exact(spec, zd, fixed_z, rng, gap_floor, full, attempts,
                                    log_spread)
        if pseudo is not None:
            candidates.insert(0, pseudo)
    if not zd.censored and opt_nll is full and candidates and full.n > SCORE_SIZE:
        opt_nll = _cheaper_target(full, score_nll, candidates[0].theta, rng)
    # one converged start suffices where every local maximum is the global one
    single = spec.method == "MLE" and not zd.censored and single_maximum(spec, fixed_z)
    profile = profile_cand = None
    if (spec.method == "MLE" and not zd.censored and not single
            and not any(c.exact for c in candidates)):
        profile = loc_profile_start(opt_nll, fixed_z, spec.loc_index)
        if profile is not None:
            profile_cand = Candidate("loc_profile", profile.theta)
            candidates.insert(0, profile_cand)
    # the method of moments scores its starts on its own objective: its estimate need
    # not have a finite likelihood
    objective = moment_objective(
        dist, z_all, len(spec.free), [c.theta[:n_shapes] for c in candidates[:6]],
        spec.loc_index not in fixed_z, summary.mean, summary.std) if spec.method == "MM" \
        else None
    scored = []
    for cand in candidates:
        if objective is not None:
            val, note = objective(cand.theta), "moment equations' objective"
        else:
            val = score_nll(cand.theta) / score_nll.n if score_nll.n else full(cand.theta)
            note = f"scored on {score_nll.n} observations"
        scored.append((val, cand))
        attempts.append(Attempt(cand.start, "start", tuple(cand.theta), tuple(cand.theta),
                                float(val), bool(np.isfinite(val)), note, 1))
    scored.sort(key=lambda p: p[0])
    if objective is None and not (scored and np.isfinite(scored[0][0])):
        for cand in _starts_beyond_the_data(spec, [c for _, c in scored], fixed_z,
                                            summary):
            val = score_nll(cand.theta) / score_nll.n if score_nll.n else full(cand.theta)
            scored.append((val, cand))
            attempts.append(Attempt(cand.start, "start", tuple(cand.theta),
                                    tuple(cand.theta), float(val), bool(np.isfinite(val)),
                                    f"scored on {score_nll.n} observations", 1))
        scored.sort(key=lambda p: p[0])
    if not scored or not np.isfinite(scored[0][0]):
        if objective is not None:  # (its starts, inside the support this time)
            inside = generate_candidates(dist, fixed_z, spec.guesses, summary, z_all,
                                         n_shapes, gap_floor)
            return _without_moments(spec, inside, full, fixed_z, attempts)
        return _no_valid_start(spec, fixed_z, attempts)

    best: _Best | None = None
    # (an exact MLE with a finite likelihood returned above; one that was not finite
    # stays among the candidates as a start)
    min_starts = 1 if single else MIN_STARTS
    ranked = [c for v, c in scored if np.isfinite(v)]
    chosen = distinct(ranked, N_OPTIMIZED, n_shapes)
    if len(chosen) < len(ranked):
        covered = cover_regimes(chosen, ranked, dist, n_shapes, fixed_z)
        if len(covered) > len(chosen):  # every one of them is run, converged or not
            min_starts = max(min_starts, len(covered))
        chosen = covered
    trusted = profile_cand if profile is not None and profile.interior else None
    marching = profile is not None and profile.towards_limit
    if trusted is not None or marching:
        # the profile's maximum over loc is the global one (within its grid): it goes
        # first, and once it converges no rival start is needed; where it rises towards
        # a limit of the family, the start nearest that limit leads the race there
        chosen = [profile_cand] + [c for c in chosen if c is not profile_cand]
        chosen = chosen[:N_OPTIMIZED]
        if trusted is not None:
            min_starts = 1
    target = opt_nll
    _start_time_budget(target if objective is None else objective, chosen[0].theta,
                       len(chosen) * EVALS_PER_PARAMETER * (len(spec.free) + 1))
    first_seconds, first_nfev, first_maxfev = None, 0, 0
    edge = None  # the likeliest run that ended on a singular edge, where it is not best
    for k, cand in enumerate(chosen):
        race = deadline = None
        crawled = first_nfev >= first_maxfev / 2
        if best is not None and best.success and objective is None and not crawled:
            race = (best.value + max(RACE_MARGIN, 1e-3 * abs(best.value)), best.value,
                    int(RACE_EVAL_SHARE * first_nfev), True)
            deadline = _race_deadline(first_seconds)
        elif best is not None and objective is None and (crawled or marching):
            # the first start spent most of its budget, unconverged or converging only
            # at the end of a long crawl (a likelihood that rises towards a limit of the
            # family -- the profile over loc may have said so already -- or a kink;
            # nct on 80 points: df and nc to 180 and 400, where one density costs 0.16
            # s, and two racers crawled the same ridge for 1300 evaluations each): a
            # later one continues past UNCONVERGED_RACE_SHARE of its evaluations only
            # while below its value
            race = (best.value, best.value, int(UNCONVERGED_RACE_SHARE * first_nfev), False)
            deadline = _race_deadline(first_seconds)
        started = time.monotonic()
        res = _optimize_from(spec, cand, target, objective, fixed_z, summary, gap_floor,
                             race=race, hess_inv0=None if race is None else best.hess_inv,
                             deadline=deadline, maxfev=PROFILE_POLISH_EVALS * (
                                 len(spec.free) + 1) if cand is trusted else None,
                             polish_at_budget=cand is trusted)
        if cand is trusted:
            res = _certified_by_profile(res, profile.nll)
        if first_seconds is None:
            first_seconds, first_nfev = time.monotonic() - started, res.attempt.nfev
            first_maxfev = EVALS_PER_PARAMETER * (len(spec.free) + 1)
        attempts.append(res.attempt)
        if res.theta is not None and not res.abandoned:  # an abandoned racer keeps the rival
            nll_full = full(res.theta) if target is not full else res.value
            if best is None or _better(objective, res, nll_full, best):
                best = _Best.of(res, nll_full, cand.start)
            if UNBOUNDED_AT_EDGE in res.message and (edge is None or nll_full < edge.nll):
                edge = _Best.of(res, nll_full, cand.start)
        if best is not None and best.success and k + 1 >= min_starts:
            break  # enough starts, one converged
        if objective is not None and best is not None and best.success \
                and best.value <= MOMENTS_MATCHED:
            break  # the moment equations solved: no start can do better
    if best is None:
        return _no_valid_start(spec, fixed_z, attempts)
    if objective is None and spec.optimizer is None:
        best = _through_lognormal_member(spec, best, target, full, zd, fixed_z, gap_floor,
                                         attempts, log_spread)
    if spec.optimizer is not None:
        best = _after_user_optimizer(spec, best, target, full, objective, fixed_z, summary,
                                     gap_floor, attempts)
    if objective is None and not zd.censored:
        best = _off_domain_ends(spec, best, target, full, fixed_z, summary, gap_floor,
                                attempts)
        # (ends held on the data: an optimum on the edge, where the ulp floor serves)
        best = _with_tight_shape_ends(spec, best, target, full, fixed_z,
                                      gap_floor if edge_floor is None else edge_floor)

    if target is not full:
        # integral shapes (irwinhall's n) are chosen on the subsample: each integer tried
        # is a re-fit, and the polish below keeps the shape at the integer found
        theta = _round_integral_shapes(spec, best.theta, target, fixed_z, summary, gap_floor)
        if not np.array_equal(theta, best.theta):
            best = best._replace(nll=full(theta), theta=theta, value=target(theta),
                                 hess_inv=None)

    if target is not full or (objective is None and _support_kind_varies(dist, spec,
                                                                         fixed_z)):
        # polish on the full data; where the kind of support changes with the shapes
        # (genextreme, genpareto, ...), from a free location that can cross between kinds
        best = _edge_polished_too(spec, best, edge, target, full, fixed_z, summary,
                                  gap_floor, attempts)
        cand = Candidate(best.start, best.theta)
        polish = _optimize_from(spec, cand, full, objective, fixed_z, summary, gap_floor,
                                bounded=target is not full,
                                hess_inv0=best.hess_inv if target is not full else None)
        attempts.append(polish.attempt)
        if polish.theta is not None and (polish.value < best.value if objective is not None
                                      else polish.value <= best.nll):
            nll_full = full(polish.theta)
            success, message = polish.success or best.success, polish.message
            if UNBOUNDED_AT_EDGE in best.message:
                # a polish next to a singular edge converges to where float64 lets the
                # edge come, not to a maximum: there is none
                success, message = False, f"{best.message}; polish: {polish.message}"
            best = _Best.of(polish, nll_full, best.start, message, success)

    if objective is None and spec.loc_index not in fixed_z and vanishes_at_loc(
            dist, best.theta[:spec.n_shapes]):
        best = _scan_location(spec, best, target, full, fixed_z, summary, gap_floor,
                              attempts, first_seconds)
    if objective is None:
        best = _off_singular_observation(spec, best, target, full, fixed_z, summary,
                                         gap_floor, attempts)
        if not zd.censored:
            best = _with_knots_on_observations(spec, best, full, fixed_z, gap_floor,
                                               attempts)
        best = _onto_closed_ends(spec, best, full, fixed_z, summary, gap_floor, attempts)
        best = _towards_open_ends(spec, best, full, fixed_z, summary, gap_floor, attempts,
                                  first_seconds, for_user=for_user)
        best = _loc_centred_if_free(spec, best, full, fixed_z, summary, gap_floor,
                                    attempts)
        if not zd.censored:
            best = _towards_limit_laws(spec, best, target, full, fixed_z, summary,
                                       gap_floor, attempts, for_user=for_user)

    theta = best.theta
    if target is full:
        theta = _round_integral_shapes(spec, theta, full, fixed_z, summary, gap_floor)
    if objective is None:
        theta = _canonical(spec, theta, full, fixed_z, summary, gap_floor, attempts)
    else:
        return _moment_estimate(spec, theta, objective, full, fixed_z, best, attempts)
    nll = full(theta)
    valid = bool(np.isfinite(nll) and np.all(np.isfinite(theta)))
    success = valid and best.success
    message = ("converged" if success else _why_unconverged(best.message) if valid
               else "no parameters with a finite likelihood were found")
    integral = [j for j in spec.free if j < spec.n_shapes and shape_integrality(dist, j)]
    if valid and integral:
        # (scipy's own fit of erlang returns a non-integer shape, with a warning)
        message += "; " + ", ".join(f"{spec.names[j]} held at the integer {theta[j]:g}"
                                    for j in integral) + f" (an integer for {dist.name})"
    spike = _spike_within_reach(spec, theta, fixed_z, zd) if success else None
    if spike is not None:
        success, message = False, spike
    if success and not zd.censored and singular_end_on_observation(dist, theta, full,
                                                                    spec.free):
        success, message = False, (f"{UNBOUNDED_AT_EDGE}: no maximum exists, the "
                                   "estimate puts the edge next to the extreme "
                                   "observation")
    elif success and not zd.censored and singular_end_within_reach(dist, theta,
                                                                   spec.free):
        success, message = False, (f"{UNBOUNDED_AT_EDGE}: the density at the shapes "
                                   "found is infinite at an end of the support, which "
                                   "loc (or the scale) moves onto the extreme "
                                   "observation, so no "
                                   "maximum exists; reported: where the optimiser "
                                   "stopped")
    elif success and not zd.censored:
        snapped = snapped_to_edge(dist, theta, full, spec.free,
                                  gap_floor if edge_floor is None else edge_floor)
        if snapped is not None:
            theta, nll = snapped, full(snapped)
            message += "; an end of the support moved to its least gap from the data"
    return theta, nll, success, f"{message} ({best.message})", best.start, attempts


NO_MAXIMUM = "no maximum of the likelihood exists"
LIMIT_START = "closed_form_limit"  # (the start of a limit proven in closed form)


def _why_unconverged(detail: str) -> str:
    """The lead of an unconverged fit's message, from its stages' ``detail``: the
    reason a user acts on first (no maximum exists; the time budget ran out), where
    they found one; else that the optimiser did not report convergence."""
    if RUNS_AWAY in detail or UNBOUNDED in detail or RISES_TO_LIMIT_LAW in detail:
        return NO_MAXIMUM
    if TIME_BUDGET_SPENT in detail:
        return "the fit's time budget ran out before the optimiser converged"
    return "optimiser did not report convergence"


LIMIT_LAW_START = "limit_law"  # (the start of a member standing for a limit law)


def _towards_limit_laws(spec: FitSpec, best, target, full, fixed_z: dict, summary,
                        gap_floor: float, attempts: list, for_user: bool = True):
    """With every parameter free (exact data): ``best``, or, where a law that the
    family reaches only in a limit (:mod:`.limit_laws`; robustfit's own fit of the
    law's family, loc free) is more likely, the member that stands for that law,
    ``success=False``: the likelihood has no maximum there. A local run from that
    member that climbs to a more likely point away from the limit (an interior
    maximum) replaces it."""
    laws = limit_laws(spec.dist)
    if not laws or fixed_z or spec.optimizer:
        return best
    z = full.z
    third = float(np.mean((z - np.mean(z)) ** 3))
    found = []
    for law in laws:
        if law.skew_sign is not None and third != 0 and np.sign(third) != law.skew_sign:
            continue
        try:
            law_fit = fit(law.dist, law.side * z)
        except RobustFitError:  # (data the law's family refuses: the fit stands)
            continue
        # (converged or not: only its likelihood counts, checked below -- the Weibull
        # standing for burr12's limit on 12 points has no maximum itself, its own
        # supremum the Gumbel)
        theta = law.member(np.asarray(law_fit), z) if np.isfinite(law_fit.nll) else None
        if theta is None:
            continue
        value = full(theta)
        # (its likelihood must be the law's: the family's formula at that member)
        if abs(value - law_fit.nll) <= 1e-9 * max(1.0, abs(law_fit.nll)):
            found.append((value, theta, law))
    tol = BETTER_RTOL * max(1.0, abs(best.nll))
    if not found:
        return best
    value, theta, law = min(found, key=lambda v: v[0])
    # (as likely to rounding as an unconverged fit -- a walk that crept towards the same
    # limit and stopped somewhere, burr's d at 1e11 at one magnitude and 1e12 at
    # another -- the member is reported too: the same at every magnitude. Not for a fit
    # that is another's start: burr12's pseudo-observations of an interval-censored
    # sample gave the member, d = 1e14, where the censored likelihood is flat to
    # rounding, and its fit "converged" there)
    as_likely = for_user and not best.success and value <= best.nll + tol
    if not (value < best.nll - tol or as_likely):
        return best
    attempts.append(Attempt(LIMIT_LAW_START, "start", tuple(theta), tuple(theta), value,
                            True, law.name, 1))
    res = _optimize_from(spec, Candidate(LIMIT_LAW_START, theta), target, None, fixed_z,
                         summary, gap_floor)
    attempts.append(res.attempt)
    if res.theta is not None and not res.abandoned:
        inner = full(res.theta) if target is not full else res.value
        if inner < value - tol and not law.at_limit(res.theta, z):
            return _Best.of(res, inner, LIMIT_LAW_START)  # an interior maximum beyond it
    message = (f"{RISES_TO_LIMIT_LAW}: {law.name}; reported at the member that stands "
               f"for it, whose density is that law's to rounding ({best.message})")
    return _Best(value, theta, False, LIMIT_LAW_START, message,
                 value if target is full else target(theta), None)


# relative: a point reached by another route (Prentice's coordinates, a limit law)
# must beat the fit's likelihood by this much to replace it
BETTER_RTOL = 1e-12


def _through_lognormal_member(spec: FitSpec, best, target, full, zd: FitData,
                              fixed_z: dict, gap_floor: float, attempts: list,
                              log_spread: float = 0.0):
    """scipy's gengamma with ``a``, ``c`` and ``scale`` free: the maximum sought again in
    Prentice's coordinates (:mod:`.generalized_gamma`), where the lognormal member,
    which scipy's parameters reach only as ``a -> inf``, is an interior point (exact or
    censored data). From the fit's optimum and from that lognormal member; kept where
    it is more likely, or where it converged and the fit did not. Where its ``Q`` is
    too small for scipy's parameters to express (the scale leaves float64, in the
    standardised or the user's units), the nearest member they express
    (:func:`.nearest_expressible`) is reported where it is more likely than the fit's,
    ``success=False`` either way, with the reason."""
    if type(spec.dist) is not type(stats.gengamma) or any(
            i in fixed_z for i in (0, 1, spec.scale_index)):
        return best
    li = spec.loc_index
    q, mu, sigma = to_prentice(*best.theta[[0, 1, 3]])
    loc = float(best.theta[li])
    # (a large sample is optimised on its subsample, as the fit's own runs are; the
    # polish on all of it follows)
    exact_values = target.z if target is not full else zd.uncensored
    nll = PrenticeNLL(exact_values, zd.left, zd.right, zd.lo, zd.hi)
    # (the lognormal member's start from the logs of the exact values, or of every value)
    values = zd.uncensored if zd.uncensored.size > 1 else zd.finite_values()
    with np.errstate(all="ignore"):
        log_y = np.log(values[values > loc] - loc)
    starts = [(q, mu, sigma, loc), (0.0, float(np.mean(log_y)), float(np.std(log_y)), loc)]
    # the scale must stay inside float64 in the user's units too (times the spread)
    bounds = (max(-LOG_SCALE_LIMIT, -USER_LOG_SCALE_LIMIT - log_spread),
              min(LOG_SCALE_LIMIT, USER_LOG_SCALE_LIMIT - log_spread))
    maxfev = EVALS_PER_PARAMETER * (len(spec.free) + 1)
    found = prentice_refit(nll, starts, fixed_z.get(li), gap_floor, maxfev=maxfev,
                           log_scale_bounds=bounds)
    on_all = nll if target is full else PrenticeNLL(zd.uncensored)
    if found is not None and target is not full:
        # polished on all of it in the same coordinates (scipy's are ill-conditioned
        # there: a polish in them from this point stopped 0.014 units short on 200,000),
        # so that its likelihood compares with the fit's, which is on all of it
        found = prentice_refit(on_all, [(found.q, found.mu, found.sigma, found.loc)],
                               fixed_z.get(li), gap_floor, maxfev=maxfev,
                               log_scale_bounds=bounds)
    if found is None:
        return best
    tol = BETTER_RTOL * max(1.0, abs(best.nll))
    note = (f"in Prentice's coordinates (Q = {found.q:.4g}; Q = 0 is the lognormal "
            f"member): {found.message}")
    if found.theta is None:
        attempts.append(Attempt(best.start, "polish", tuple(best.theta), tuple(best.theta),
                                float(found.nll), False, note, found.nfev))
        if not found.nll < best.nll - tol:
            return best
        why = (f"the likelihood is highest towards gengamma's lognormal member, at "
               f"Q = {found.q:.3g} in Prentice's coordinates, where scipy's parameters "
               "cannot follow (the scale leaves float64)")
        near = nearest_expressible(on_all, found, fixed_z.get(li), gap_floor, maxfev,
                                   bounds)
        value = math.inf if near is None else full(near.theta)
        if not value < best.nll - tol:
            return best._replace(success=False, message=(
                f"{best.message}; {why}: {best.nll - found.nll:.3g} log-likelihood "
                "units above this point"))
        attempts.append(Attempt(best.start, "polish", tuple(best.theta), tuple(near.theta),
                                float(value), False, f"Q held at {near.q:.4g}: "
                                f"{near.message}", near.nfev))
        message = (f"{why}; reported: the nearest member they express, Q = {near.q:.3g}, "
                   f"{value - found.nll:.3g} log-likelihood units below that maximum")
        return _Best(value, near.theta, False, best.start, message,
                     value if target is full else target(near.theta), None)
    value = full(found.theta)
    attempts.append(Attempt(best.start, "polish", tuple(best.theta), tuple(found.theta),
                            float(value), found.success, note, found.nfev))
    better = value < best.nll - tol
    if not (better or (found.success and not best.success and value <= best.nll + tol)):
        return best
    return _Best(value, found.theta, found.success, best.start, note,
                 value if target is full else target(found.theta), None)


def _edge_polished_too(spec: FitSpec, best, edge, target, full, fixed_z: dict, summary,
                       gap_floor: float, attempts: list):
    """``best``, or ``edge`` -- a run that ended on a singular edge of the support,
    less likely than ``best`` before the polish -- polished, where ``best``'s own density
    is infinite at an end that ``loc`` can move onto the data (no maximum anywhere) and
    ``edge`` polished is more likely than ``best``. The polish lets the edge come as
    close as float64 allows, an interior point's likelihood it cannot raise: pearson3
    on 1000 values rounded to whole units (many tied at the largest) had polished the
    interior point, 368 units less likely than the edge's polish. (Called where the fit
    polishes at all: a subsample's optimum, or a support whose kind varies with the
    shapes, as pearson3's does.)"""
    if edge is None or edge.theta is best.theta or not singular_end_within_reach(
            spec.dist, best.theta, spec.free):
        return best
    polish = _optimize_from(spec, Candidate(edge.start, edge.theta), full, None, fixed_z,
                            summary, gap_floor, bounded=target is not full)
    attempts.append(polish.attempt)
    value = full(polish.theta) if polish.theta is not None else math.inf
    if not value < best.nll:
        return best
    message = f"{edge.message}; polish: {polish.message}"
    return _Best(value, polish.theta, False, edge.start, message,
                 value if target is full else target(polish.theta), None)


def _spike_within_reach(spec: FitSpec, theta, fixed_z: dict, zd: FitData) -> str | None:
    """Why no maximum exists where a free shape can make the density infinite at a free
    ``loc`` (dgamma's ``a < 1``, dweibull's ``c < 1``): ``loc`` on any exact observation
    then makes the likelihood infinite, for every sample (:mod:`.singular_loc`); None
    elsewhere. The fit reports the local maximum it found away from those spikes, as it
    does where a run met one (:func:`_off_singular_observation`): whether a run met one
    depended on its path, and the same point came back ``success=True`` at one
    magnitude of the data and ``False`` at another."""
    free_shapes = [j for j in spec.free if j < spec.n_shapes]
    if spec.loc_index in fixed_z or not free_shapes or zd.uncensored.size == 0:
        return None
    value = spikes_within_reach(spec.dist, theta[:spec.n_shapes], free_shapes)
    if value is None:
        return None
    return (f"{_unbounded_at_spikes(f'with a shape at {value:.3g}')}; reported: the "
            "local maximum found away from those spikes")


def _unbounded_at_spikes(where: str) -> str:
    """Why a density infinite at ``loc`` (``where``: at which shapes) leaves no maximum."""
    return (f"{UNBOUNDED}: {where} the density is infinite at loc, and "
            "loc on an observation makes the likelihood infinite, so no maximum exists")


def _moment_estimate(spec: FitSpec, theta, equations, full, fixed_z: dict, best,
                     attempts: list):
    """The method of moments' result from the optimiser's best point: the moment
    equations finished by :meth:`.MomentEquations.solve` (integral shapes held), the
    canonical member reported, and ``success`` only where the equations hold.

    Like scipy's, the estimate may leave observations outside its support (a gamma
    sample whose skewness asks for ``loc`` above the smallest value); the message says
    how many, and the likelihood there is zero (``nll = inf``)."""
    free = [i for i in spec.free if not (i < spec.n_shapes and _integer_only(
        spec.dist, i, theta[:spec.n_shapes]))]
    solved = equations.solve(theta, free)
    if solved is not theta:  # (moved only where that lowered the sum of squares)
        attempts.append(Attempt(best.start, "solve", tuple(theta), tuple(solved),
                                equations(solved), equations.solved(solved),
                                "Levenberg-Marquardt steps on the moment equations", 0))
    theta = _canonical_by_moments(spec, solved, equations, fixed_z)
    nll = full(theta)
    finite = bool(np.all(np.isfinite(theta)) and valid_shapes(
        spec.dist, tuple(theta[:spec.n_shapes])) and theta[-1] > 0)
    # (the moments once: where scipy integrates them, each call costs 0.1-0.3 s)
    residual = float(np.max(np.abs(equations.residuals(theta)))) if finite else np.inf
    success = finite and residual <= SOLVED_RESIDUAL
    if success:
        message = f"moment equations solved (largest weighted residual {residual:.1e})"
    elif finite:
        message = (f"the moment equations were not solved: the closest point found "
                   f"leaves a weighted residual of {residual:.2g} (the family may have no "
                   f"member with these moments)")
    else:
        message = "no parameters with finite moments were found"
    if finite and not np.isfinite(nll):
        outside = _observations_outside(spec.dist, theta, full)
        if outside:
            message += (f"; {outside} observation(s) lie outside the support of this "
                        f"estimate, where its likelihood is zero (the method of moments "
                        f"does not keep them inside)")
    return theta, nll, success, f"{message} ({best.message})", best.start, attempts


def _observations_outside(dist, theta, full) -> int:
    """How many of the exact observations of ``full`` lie outside the support of
    ``dist(*theta)`` (standardised coordinates)."""
    z = full.complete.z if isinstance(full, CensoredNLL) else full.z
    try:
        a, b = support(dist, tuple(theta[:-2]))
    except Exception:
        return 0
    lo, hi = theta[-2] + theta[-1] * a, theta[-2] + theta[-1] * b
    return int(np.count_nonzero((z < lo) | (z > hi)))


def _censored_as_exact(spec: FitSpec, zd: FitData, fixed_z: dict, rng, gap_floor: float,
                       full, attempts: list, log_spread: float = 0.0) -> Candidate | None:
    """A start for a censored sample: the complete-data fit of its pseudo-observations
    (each interval at its midpoint, each censored value at its bound), as
    ``fitdistrplus``'s ``fitdistcens`` starts. Where few observations are censored,
    or narrowly, the censored likelihood is nearly the complete one, and this start
    brings the complete-data fit's whole machinery (closed forms, the profile over loc,
    shapes off their domain's ends) to it: the censored likelihood's own starts had
    left truncweibull_min 7.7 units short with 15 of 1000 observations in intervals of
    +-1% (scipy's acceptance test). None where that fit has no finite censored
    likelihood."""
    pseudo = np.sort(np.concatenate([zd.uncensored, 0.5 * (zd.lo + zd.hi), zd.left,
                                     zd.right]))
    empty = pseudo[:0]
    with budget_scope():  # (its own time budget, within the censored fit's)
        theta, _, success, message, start, _ = _fit_standardized(  # (the user's optimizer
            replace(spec, optimizer=None),                       # runs on the censored
            FitData(pseudo, empty, empty, empty, empty, 0), fixed_z, rng, gap_floor,  # fit)
            log_spread=log_spread, for_user=False)
    value = full(theta)  # (inf where the fit found no parameters: NaN)
    attempts.append(Attempt(start, "start", tuple(theta), tuple(theta), float(value),
                            bool(success and np.isfinite(value)),
                            f"complete-data fit of the pseudo-observations ({message})", 1))
    if not np.isfinite(value):
        return None
    return Candidate(PSEUDO_COMPLETE, np.asarray(theta, dtype=float))


def _after_user_optimizer(spec: FitSpec, best, target, full, objective, fixed_z: dict,
                          summary, gap_floor: float, attempts: list):
    """``best``, or the optimum polished from the point the user's ``optimizer=`` found
    from it where that is lower (see :mod:`.user_optimizer`)."""
    if objective is None:
        on = full
    else:  # the method of moments
        on = objective
    found = run_user_optimizer(spec.optimizer, best.theta, on, spec.free)
    attempts.append(found.attempt)
    if found.theta is None:
        return best
    res = _optimize_from(spec, Candidate(USER_OPTIMIZER, found.theta), target, objective,
                         fixed_z, summary, gap_floor)
    attempts.append(res.attempt)
    if res.theta is None or res.abandoned:
        return best
    nll_full = full(res.theta) if target is not full else res.value
    if not _better(objective, res, nll_full, best):
        return best
    message = f"{res.message}; from the point the user's optimizer found ({best.message})"
    return _Best.of(res, nll_full, USER_OPTIMIZER, message)


SPIKE_FREE_RUNS = 3  # local runs resumed from the best points away from the spikes


def _off_singular_observation(spec: FitSpec, best, target, full, fixed_z: dict, summary,
                              gap_floor: float, attempts: list):
    """``best``, or, where its density is infinite at ``loc`` and ``loc`` sits on an
    observation (an unbounded likelihood: see :mod:`.singular_loc`), the best point
    found away from such spikes, with ``success=False`` either way.

    The shape that makes the density infinite is held on a grid from the least value
    at which it is finite (the rest re-fitted): the profile has no spikes there. From
    the best of those fits and of the fit's earlier regular optima, local runs resume;
    one that converges off the spikes, or else the best held fit, is reported. (Runs
    that stopped where the density at loc is infinite lead back to the spikes: they are
    not resumed.) With censored data the spikes are on the exact observations."""
    exact = full.complete.z if isinstance(full, CensoredNLL) else full.z
    if not on_singular_observation(spec.dist, best.theta, exact):
        return best
    unbounded = _unbounded_at_spikes(
        f"at shapes {np.round(best.theta[:spec.n_shapes], 4).tolist()}")
    regular = []  # (value on the target, _Local, start label)
    for j in range(spec.n_shapes):
        floor = None if j in fixed_z else regular_floor(
            spec.dist, best.theta[:spec.n_shapes], j)
        for factor in REGULAR_GRID if floor is not None else ():
            res = _refit_with_shape_held(spec, best.theta, j, floor * factor, "spike_free",
                                         target, fixed_z, summary, gap_floor)
            if res is not None and res.theta is not None and np.isfinite(res.value):
                attempts.append(res.attempt)
                regular.append((res.value, res, "spike_free"))
    starts = [(value, res.theta, label) for value, res, label in regular]
    for a in attempts:
        theta = np.asarray(a.params, dtype=float)
        if (a.stage == "optimize" and np.isfinite(a.nll) and theta.size == best.theta.size
                and not singular_at_loc(spec.dist, theta[:spec.n_shapes])):
            starts.append((a.nll, theta, a.start))
    starts.sort(key=lambda s: s[0])
    for _, theta, label in starts[:SPIKE_FREE_RUNS]:
        res = _optimize_from(spec, Candidate(label, theta), target, None, fixed_z, summary,
                             gap_floor)
        attempts.append(res.attempt)
        if (res.theta is not None and res.success and np.isfinite(res.value)
                and not on_singular_observation(spec.dist, res.theta, exact)):
            regular.append((res.value, res, label))
    if not regular:
        return best._replace(success=False, message=f"{unbounded} ({best.message})")
    _, res, label = min(regular, key=lambda r: r[0])
    value = full(res.theta) if target is not full else res.value
    message = (f"{unbounded}; reported: the best point found away from the observations' "
               f"spikes ({res.message})")
    return _Best.of(res, value, label, message, success=False)


def _refit_with_shape_held(spec, theta, j: int, value: float, start: str, target,
                           fixed_z: dict, summary, gap_floor: float,
                           maxfev: int | None = None, deadline: float | None = None):
    """The optimum from ``theta`` with shape ``j`` held at ``value`` (the other free
    parameters re-fitted, within ``maxfev`` evaluations where given), or None where no
    start with it lies around the data."""
    held = {**fixed_z, j: value}
    cand = np.array(theta, dtype=float)
    cand[j] = value
    cand = fit_into_support(spec.dist, cand, held, summary, gap_floor)
    if cand is None:
        return None
    return _optimize_from(spec, Candidate(start, cand), target, None, held, summary,
                          gap_floor, maxfev=maxfev, deadline=deadline)


def _off_domain_ends(spec, best, target, full, fixed_z, summary, gap_floor, attempts):
    """Where the best point has a shape on an end of its domain, profile that shape at a
    few interior values (the other parameters re-fitted with it held) and resume from the
    best of them if it beats the end: a boundary maximum can hide a better interior
    one (see :mod:`.domain_ends`)."""
    for j, end, direction in shapes_on_domain_end(spec.dist, best.theta, fixed_z,
                                                  spec.n_shapes):
        inside = None  # (value on the target, theta)
        for v in interior_values(spec.dist, j, end, direction):
            res = _refit_with_shape_held(spec, best.theta, j, v, "domain_end", target,
                                         fixed_z, summary, gap_floor)
            if res is None:
                continue
            attempts.append(res.attempt)
            if res.theta is not None and (inside is None or res.value < inside[0]):
                inside = (res.value, res.theta)
        if inside is None or not inside[0] < best.value - 1e-9 * max(1.0, abs(best.value)):
            continue  # the end is the better place
        res = _optimize_from(spec, Candidate("domain_end", inside[1]), target, None,
                             fixed_z, summary, gap_floor)
        attempts.append(res.attempt)
        if res.theta is not None and res.value < best.value:
            nll_full = full(res.theta) if target is not full else res.value
            message = (f"{res.message}; from inside the domain of shape {j}, whose end held "
                       f"the best start's optimum ({best.message})")
            best = _Best.of(res, nll_full, "domain_end", message)
    return best


def _onto_closed_ends(spec: FitSpec, best, full, fixed_z: dict, summary, gap_floor: float,
                      attempts):
    """``best``, or the fit with a shape held exactly on a closed end of its domain
    where that is as likely (to rounding) or more: the optimiser only approaches such an
    end, and stops short of it where the likelihood flattens (see :mod:`.closed_ends`)."""
    for j, end in closed_ends_near(spec.dist, best.theta, fixed_z, spec.n_shapes):
        res = _refit_with_shape_held(spec, best.theta, j, end, "closed_end", full, fixed_z,
                                     summary, gap_floor)
        if res is None:
            continue
        attempts.append(res.attempt)
        if res.theta is None or not res.success:
            continue
        slack = CLOSED_END_SLACK * max(1.0, abs(best.nll))
        if res.value <= best.nll + slack:
            message = (f"{res.message}; shape {j} held on the end {end:g} of its domain, "
                       f"where the likelihood is no lower than inside ({best.message})")
            best = _Best.of(res, res.value, best.start, message)
    return best


def _towards_open_ends(spec: FitSpec, best, full, fixed_z: dict, summary, gap_floor: float,
                       attempts: list, first_seconds: float | None = None,
                       for_user: bool = True):
    """``best``, or, where the likelihood rises towards an end that a shape's domain
    excludes while the other parameters settle, the fit at the last probe of the
    approach, the same at every magnitude: the supremum of the likelihood, which the
    family reaches only in the limit (see :mod:`.open_ends`). Where the shapes absorb
    the scale, not along that ridge (there a shape runs to an end of its domain with
    nothing changing: loguniform's ``a`` and ``b`` to 1e-11 together while the scale
    grows) but on its canonical member, the scale held (:func:`.canonical_scale`): a
    walk there is a real limit of the family (genexpon's ``b -> inf, c -> 0`` with
    ``b c`` held, the law of linear hazard, which its 200-point acceptance sample asks
    for), and it had been skipped. The walks of a fit share a
    deadline (:func:`_walk_deadline`): where the density grows costly towards the limit
    (ncf's at dfn = 1e5 to 1e7: 30 ms an evaluation, 40 times the start's price; its
    walk took 21 s after a fit of 1.6 s) the walk ends there, with no verdict."""
    canon = canonical_scale(spec.dist, best.theta, fixed_z) if shapes_absorb_scale(
        spec.dist) else None
    if canon is not None:  # (None also where a fixed value pins the point on the ridge:
        nll = full(canon)  # the walks then run as for any family)
        if not nll <= best.nll + CLOSED_END_SLACK * max(1.0, abs(best.nll)):
            return best
        best = best._replace(theta=canon, nll=nll, value=nll, hess_inv=None)
        fixed_z = {**fixed_z, spec.n_shapes + 1: float(canon[-1])}
    deadline = _walk_deadline(first_seconds)
    limit = None  # (shape, end) of the last walk that settled at a limit
    for j, end, direction in open_ends_near(spec.dist, best.theta, fixed_z, spec.n_shapes):
        if spent():  # (the fit's time budget: see _walk_to_open_end)
            break
        walked = _walk_to_open_end(spec, best, j, end, direction, full, fixed_z, summary,
                                   gap_floor, attempts, deadline)
        if walked is None:
            break  # (the deadline passed, no probe more likely than the fit)
        if walked is not best:  # (a limit reached, or a runaway reported at a probe)
            limit = (j, end) if walked.start == "open_end" and walked.message.startswith(
                (RISES_TO_EXCLUDED_END, RUNS_AWAY)) else None
        best = walked
        if deadline is not None and time.monotonic() >= deadline:
            break
    # (a fit that is only another's start keeps the ladder's member: genexpon's
    # pseudo-observations of an interval-censored sample, reported at b = 1e6, started
    # the censored fit short on its ridge, which then "converged" 3.4e-4 units short)
    if limit is not None and for_user and not spent():
        best = _limit_as_scipy_computes(spec, best, *limit, full, fixed_z, summary,
                                        gap_floor, attempts)
    return best


def _walk_to_open_end(spec: FitSpec, best, j: int, end: float, direction: float, full,
                      fixed_z: dict, summary, gap_floor: float, attempts: list,
                      deadline: float | None):
    """One walk of shape ``j`` towards ``end`` (see :func:`_towards_open_ends`): the fit
    it leads to, or None where the deadline cut the walk short with no probe more likely
    than ``best`` (nothing judged).

    - settled: the ladder's last probe, the limit (:func:`_at_end_of_ladder`);
    - a probe less likely than the one before, after probes more likely than ``best``:
      the optimiser had stopped short of a maximum between them; the fit resumes from
      the best probe;
    - the others ran away while every probe was more likely: no maximum,
      ``success=False``, at the point where the optimiser stopped; where they ran away
      while every probe was as likely as the fit to rounding (the limit reached to
      float64's precision: lomax on 40 points stopped at ``c = 1e13``), no maximum
      either, at the most likely probe (a ladder decade, the same at every magnitude);
    - no verdict (re-fits that stopped short of converging, on a ridge too steep for
      them; others still moving at the last probe; rises that did not shrink) but a
      probe more likely than ``best``: that probe, ``success=False`` (skewnorm on
      half-normal data had stopped 0.42 units short of the half-normal limit, which its
      probes reach; F on 200 points of its own, mapped to 1e200 x, "converged" at
      ``dfn = 560``, 1.3e-4 units short of probes at 1e4 to 1e6, whose rises shrank by
      less than half a decade apart); the same where the deadline cut the walk short
      (ncf on scipy's acceptance sample, n = 1000, had reported "converged" at
      ``dfn = 5330``, ``6789`` and ``5672`` at three magnitudes, 2e-5 units short of the
      walk's first probe at ``dfn = 1e5``, which the deadline then ended)."""
    ladder = probe_values(best.theta[j], end, direction)
    # (a ladder that starts behind the fit's point, which was already deep, does not
    # compare its first probe with it)
    walk = EndApproach(j, spec.n_shapes, best.nll if nearer_end(
        ladder[0], best.theta[j], end) else math.inf)
    theta, closest, likeliest, cut, unjudged = best.theta, None, None, False, False
    beyond = None  # the unconverged, less likely probe the walk stopped at
    # (from the last probe, a settling limit's next one is a few iterations away; one
    # that needs more is a walk that drags the others along: stop there)
    maxfev = PROBE_EVALS_PER_PARAMETER * len(spec.free)
    both_free = spec.loc_index not in fixed_z and spec.loc_index + 1 not in fixed_z
    for k, value in enumerate(ladder):
        if spent():
            # the fit's time budget ran out (its densities grew costly): a re-fit would
            # still pay for its start, and one density at the next rung may cost
            # seconds (nct's at nc = 1e4: 5 s for 60 points, then an overflow)
            cut = True
            break
        start = _transported(spec, theta, j, value) if both_free else None
        res = _refit_with_shape_held(spec, theta if start is None else start, j, value,
                                     "open_end", full, fixed_z, summary, gap_floor,
                                     maxfev=maxfev, deadline=deadline)
        # (a probe with no start around the data, or no finite re-fit, ends the walk
        # with no verdict; the probes before it still count: pareto on 20 points whose
        # limit is the exponential, at shape 1e9 with loc and scale ~1e9, had no start
        # inside the support to float64's precision, and the fit was kept, "converged"
        # at shape 1.8e6, below probes at 1e7 and 1e8 more likely than it)
        if res is None:
            unjudged = k == 0 and math.isinf(end)
            break
        attempts.append(res.attempt)
        if deadline is not None and time.monotonic() >= deadline:
            cut = True
            if res.theta is not None and np.isfinite(res.value) and (
                    likeliest is None or res.value <= likeliest.value):
                likeliest = res
            break
        # (a re-fit from a start that kept the moments may stop short of converging on
        # a ridge that drags loc and scale along -- lognorm's towards the normal -- and
        # still show the walk running away; from any other start, not)
        if res.theta is None or not np.isfinite(res.value):
            # (no start to re-fit from: a first probe never tried leaves the fit's point
            # unjudged; an infinite one -- a start not carried along, gengamma's scale
            # at a = 1e3 -- says nothing either way, as before)
            unjudged = k == 0 and res.theta is None and math.isinf(end)
            break
        if not (res.success or start is not None):
            return best
        if likeliest is None or res.value <= likeliest.value + rounding_of(
                likeliest.value):  # (the deepest of equals)
            likeliest = res
        verdict = walk.add(res.value, res.theta, converged=res.success)
        if verdict == "stop" and not res.success and likeliest is not res:
            beyond = value  # (less likely, unconverged: maybe past a maximum, maybe not)
        if verdict == "stop" and k == 0 and not res.success and math.isinf(end) \
                and _weak_claim(best.message):
            # (the first probe towards an infinite end, less likely but not re-fitted to
            # convergence, judges nothing, and a claim that rests on a simplex or on
            # precision loss is no certificate either: a hand-written Pareto "converged"
            # at b = 8.6e7 and 6.6e8, where loc and scale ~1e8 hold the support's end to
            # ~1e-8, and its probe at 1e9 could not re-fit them; invgamma's profile
            # maximum at a = 2e4 stands)
            unjudged = True
        if verdict == "stop":
            # (a probe less likely than the one before where the density no longer
            # integrates to 1 -- scipy's loggamma at c = 1e12 has mass 1.003 -- turned
            # in rounding, not in the likelihood: no maximum is bracketed)
            if walk.turned and closest is not None and closest.value < best.nll and \
                    not _density_off(spec, res.theta):
                return _resumed_from_probe(spec, best, closest, full, fixed_z, summary,
                                           gap_floor, attempts, j)
            if walk.runaway and closest is not None and closest.value < best.nll:
                return best._replace(success=False, message=(
                    f"{RUNS_AWAY} (shape {j} towards {end:g}; the probes at "
                    f"{ladder[0]:.0e} to {value:.0e} were each more likely than the "
                    f"last); reported where the optimiser stopped ({best.message})"))
            if walk.level_runaway and likeliest is not None and likeliest.value <= (
                    best.nll + rounding_of(best.nll)) and not _density_off(
                    spec, likeliest.theta):
                # (at the most likely probe, a decade of the ladder: the same point at
                # every magnitude, where the optimiser stopped anywhere on the level)
                return _Best.of(likeliest, likeliest.value, "open_end", (
                    f"{RUNS_AWAY} (shape {j} towards {end:g}; at the probes "
                    f"{ladder[0]:.0e} to {value:.0e} the likelihood is the same to "
                    f"rounding as where the optimiser stopped: the limit, reached to "
                    f"float64's precision); reported at the most likely probe, shape {j} "
                    f"held at {likeliest.theta[j]:.6g} ({best.message})"), success=False)
            if walk.turned:
                return best
            break  # (no verdict: a probe more likely than the fit is reported, below)
        theta, closest = res.theta, res
        if verdict == "settled":
            return _at_end_of_ladder(spec, best, res, ladder[k + 1:], j, end, full,
                                     fixed_z, summary, gap_floor, attempts)
    if unjudged and best.success:
        # (not even the first probe could be re-fitted: a point this deep towards the
        # end is no maximum shown -- pareto's exponential limit, mapped to 1e-6 x, had
        # "converged" at shape 7.7e8, the probe at 1e10 outside float64's reach)
        return best._replace(success=False, message=(
            f"no maximum shown: shape {j} stopped at {best.theta[j]:.6g} on its way "
            f"towards {end:g}, an end its domain excludes, and no probe nearer that end "
            f"could be re-fitted ({best.message})"))
    if likeliest is None or not likeliest.value < best.nll - rounding_of(best.nll) \
            or _density_off(spec, likeliest.theta):
        return None if cut else best
    if beyond is not None and not cut:
        inner = _maximum_between(spec, best, likeliest, beyond, j, full, fixed_z, summary,
                                 gap_floor, attempts)
        if inner is not None:
            return inner
    why = ("was cut short by its time budget (the density grew costly towards the end)"
           if cut else "reached no verdict (re-fits short of converging, or the others or "
           "the rises not shrinking by the last probe)")
    message = (f"{RISES_TO_EXCLUDED_END} (shape {j} towards {end:g}), but the walk there "
               f"{why}: reported at its most likely probe, shape {j} held at "
               f"{likeliest.theta[j]:.6g} ({likeliest.message}) ({best.message})")
    return _Best.of(likeliest, likeliest.value, "open_end", message, success=False)


def _maximum_between(spec: FitSpec, best, probe, beyond: float, j: int, full,
                     fixed_z: dict, summary, gap_floor: float, attempts: list):
    """The optimum from ``probe`` (the walk's most likely probe) where it converges by
    its gradient, is more likely still, and has shape ``j`` strictly between the
    probe's value and ``beyond`` (the next probe, less likely but not re-fitted to
    convergence): a maximum bracketed by the walk; else None. (invweibull on 12 points
    peaks between its probes at 1e5 and 1e6; a Nelder-Mead "convergence", or one
    outside the bracket -- pareto on 20 points at 1e6 x, resumed from 1e8 to 9.7e7 where
    loc and scale ~1e8 hold the support's end to ~1e-8 -- is no maximum shown.)"""
    res = _optimize_from(spec, Candidate("open_end", probe.theta), full, None, fixed_z,
                         summary, gap_floor)
    attempts.append(res.attempt)
    if res.theta is None or not res.success or NELDER_MEAD in res.message:
        return None
    lo, hi = sorted((float(probe.theta[j]), float(beyond)))
    if not (res.value < probe.value and lo < res.theta[j] < hi) or _density_off(
            spec, res.theta):
        return None
    message = (f"{res.message}; a maximum between the walk's probes at {lo:g} and "
               f"{hi:g} of shape {j}, from the more likely one ({best.message})")
    return _Best.of(res, res.value, "open_end", message)


NELDER_MEAD = "Nelder-Mead"  # (in a local run's message: its last stage claimed it)
PRECISION_LOSS = "precision loss"  # (a line search that found no decrease)


def _weak_claim(message: str) -> bool:
    """Whether a fit's convergence rests on a Nelder-Mead simplex or followed a line
    search's precision loss (its message says which stages ran)."""
    return NELDER_MEAD in message or PRECISION_LOSS in message


def _transported(spec: FitSpec, theta, j: int, value: float):
    """A probe's start: ``theta`` with shape ``j`` at ``value`` and loc and scale moved
    to keep its mean and variance, or, where the family states none, its quartiles;
    None where neither can be had."""
    moved = moment_transported(spec.dist, theta, j, value, spec.n_shapes)
    if moved is None:
        moved = quantile_transported(spec.dist, theta, j, value, spec.n_shapes)
    return moved


WALK_TIME_FACTOR = 0.5  # a fit's walks towards open ends may take this many times its
WALK_TIME_FLOOR = 0.5  # first local optimisation's time, and at least this (seconds)


def _walk_deadline(first_seconds: float | None) -> float | None:
    """When a fit's walks towards open ends stop: after WALK_TIME_FACTOR times its
    first local optimisation's time, at least WALK_TIME_FLOOR seconds -- a bound that
    ordinary walks (tens of milliseconds) never meet, so their results do not depend on
    the machine."""
    if first_seconds is None:
        return None
    return time.monotonic() + max(WALK_TIME_FLOOR, WALK_TIME_FACTOR * first_seconds)


def _at_end_of_ladder(spec: FitSpec, best, settled, rest: list, j: int, end: float, full,
                      fixed_z: dict, summary, gap_floor: float, attempts: list):
    """The fit reported for a limit at an excluded end, from the probe ``settled``: the
    ladder's last probe (one re-fit from ``settled``), where no less likely than it to
    rounding and its density still integrates to 1, else ``settled``; ``best`` where
    that is not as likely as ``best``, or its density is off too."""
    final = settled
    if rest:
        res = _refit_with_shape_held(spec, settled.theta, j, rest[-1], "open_end", full,
                                     fixed_z, summary, gap_floor)
        if res is not None:
            attempts.append(res.attempt)
            if (res.theta is not None and res.success
                    and res.value <= settled.value + rounding_of(settled.value)
                    and not _density_off(spec, res.theta)):
                final = res
    # (scipy's formulas may fail that far out: dpareto_lognorm's at b = 1.4e22 has mass
    # 2.4, and a probe's likelihood means nothing there)
    if not final.value <= best.nll + rounding_of(best.nll) or _density_off(spec,
                                                                            final.theta):
        return best
    value = final.theta[j]
    message = (f"{RISES_TO_EXCLUDED_END}: as shape {j} approaches {end:g} the other "
               f"parameters settle, and the likelihood with them; the supremum is that "
               f"limit, reported with the shape held at {value:.6g} ({final.message}) "
               f"({best.message})")
    return _Best.of(final, final.value, "open_end", message)


# a limit's member is reported where scipy's public logpdf, which a user will evaluate,
# gives the likelihood: scipy's F density at dfd = 1e12 is 1.3e-3 off per observation and
# a fit whose likelihood was the limit's to 1e-13 read 0.13 units less likely by scipy's
# numbers; exponnorm's at K = 1e-12 read 1.3e10 units. Where scipy's log-densities differ
# from the accurate ones by more than this on average (per observation: the NLL's own
# size moves with the data's units), the decades back towards the fit are tried
PUBLIC_AGREE_PER_OBSERVATION = 3e-9
AGREEING_PROBES = 10  # re-fits tried back from the ladder's end for such a member (its span)


def _decades_back(rung: float, end: float, count: int) -> list[float]:
    """``count`` probes a decade apart from ``rung`` away from ``end`` (the ladder of
    :func:`.open_ends.probe_values` continued backwards)."""
    unit = 1.0 if math.isinf(end) else max(1.0, abs(end))
    away = rung if math.isinf(end) else rung - end
    decade = round(math.log10(abs(away) / unit))
    step = -1 if math.isinf(end) else 1
    values = [math.copysign(10.0 ** (decade + step * k) * unit, away)
              for k in range(1, count + 1)]
    return values if math.isinf(end) else [end + v for v in values]


def _scipy_offset(spec: FitSpec, full, theta) -> float | None:
    """How far scipy's public ``logpdf`` at ``theta`` is from the log-densities ``full``
    uses (an accurate replacement, :mod:`.accurate_logpdf`): the sum over observations
    of the absolute differences, a bound on the error of a user's NLL (their signed
    sum cancels by chance, and swung about a threshold between the magnitudes of one
    sample; the absolute sum varies by a few percent). Censored data: their exact
    observations (the censored ones' probabilities are scipy's own formulas here).
    None where there is nothing to compare (no replacement) or scipy's raises."""
    exact = getattr(full, "complete", full)
    z = getattr(exact, "z", None)
    if z is None or z.size == 0 or accurate_logpdf(spec.dist) is None:
        return None
    n = spec.n_shapes
    shapes, loc, scale = tuple(theta[:n]), float(theta[n]), float(theta[n + 1])
    try:
        with np.errstate(all="ignore"):
            public = spec.dist.logpdf(z, *shapes, loc=loc, scale=scale) + math.log(scale)
            ours = exact.logpdf_at((z - loc) / scale, shapes)
            off = float(np.sum(np.abs(public - ours)))
    except Exception:
        return None
    return off if math.isfinite(off) else math.inf


def _limit_as_scipy_computes(spec: FitSpec, best, j: int, end: float, full, fixed_z: dict,
                             summary, gap_floor: float, attempts: list):
    """``best`` (a limit, or a runaway's likeliest probe, reported with shape ``j`` held
    on the ladder towards ``end``), or, where scipy's ``logpdf`` is off there by more than
    :data:`PUBLIC_AGREE_PER_OBSERVATION` an observation (:func:`_scipy_offset`), the
    re-fit at the decade back (of the first :data:`AGREEING_PROBES`) where the
    likelihood's shortfall from the limit plus scipy's offset is least: the most a
    user's NLL can be above the limit's. Shortfalls grow and offsets shrink tenfold or
    more a decade back, so the decade is the same at every magnitude but where two
    decades nearly tie (F(29, 18) on 200 points, dfn: at 1e6 shortfall 5e-11, offset
    3e-7; at 1e5 4e-9 and 2e-8, reported; at 1e4 4e-7 and 6e-10)."""
    off = _scipy_offset(spec, full, best.theta)
    if off is None or off <= PUBLIC_AGREE_PER_OBSERVATION * full.n:
        return best
    chosen, least = None, off
    start = best.theta
    for value in _decades_back(float(best.theta[j]), end, AGREEING_PROBES):
        res = _refit_with_shape_held(spec, start, j, value, "open_end", full, fixed_z,
                                     summary, gap_floor)
        if res is None or res.theta is None or not np.isfinite(res.value):
            break
        attempts.append(res.attempt)
        shortfall = max(0.0, res.value - best.nll)
        if shortfall >= least:
            break  # (nearer the fit, the likelihood only falls further from the limit)
        start = res.theta
        if not res.success or _density_off(spec, res.theta):
            continue
        offset = _scipy_offset(spec, full, res.theta)
        if offset is not None and shortfall + offset < least:
            chosen, least = (res, value), shortfall + offset
    if chosen is None:
        return best
    res, value = chosen
    return _Best.of(res, res.value, "open_end", (
        f"{best.message}; reported with shape {j} held at {value:.6g} instead, where the "
        f"likelihood's shortfall from the limit plus the difference of scipy's own "
        f"logpdf is least ({least:.2g})"), success=best.success and res.success)


def _density_off(spec: FitSpec, theta) -> bool:
    """Whether the density at ``theta``'s shapes no longer integrates to 1 (checked for
    extreme shapes only, see :mod:`.normalization`): its likelihood means nothing."""
    return mass_is_off(density_mass(spec.dist, theta[:spec.n_shapes]))


def _resumed_from_probe(spec: FitSpec, best, probe, full, fixed_z: dict, summary,
                        gap_floor: float, attempts: list, j: int):
    """``best``, or the optimum from ``probe`` (a fit with shape ``j`` held nearer an
    excluded end, more likely than ``best``) where that is lower still."""
    res = _optimize_from(spec, Candidate("open_end", probe.theta), full, None, fixed_z,
                         summary, gap_floor)
    attempts.append(res.attempt)
    if res.theta is None or not np.isfinite(res.value) or not res.value < best.nll:
        return best
    if _density_off(spec, res.theta):
        return best  # (a run into shapes where scipy's density is rounding garbage)
    message = (f"{res.message}; from a fit with shape {j} held nearer the end of its "
               f"domain, more likely than where the optimiser had stopped ({best.message})")
    return _Best.of(res, res.value, "open_end", message)


def _with_tight_shape_ends(spec: FitSpec, best, target, full, fixed_z: dict,
                           gap_floor: float):
    """``best``, or the profile with the shapes that are ends of the support tight
    against the data where that is lower (loc or scale fixed; see
    :mod:`.tight_ends`)."""
    # (the ends against every observation's extremes, where the target is a subsample)
    out = tighten_shape_ends(spec.dist, best.theta, target, fixed_z, spec.n_shapes,
                             full.zmin, full.zmax, gap_floor)
    if out is None:
        return best
    theta, value, converged = out
    slack = 1e-9 * max(1.0, abs(best.value))
    if not (value < best.value - slack
            or (converged and not best.success and value <= best.value + slack)):
        return best  # (a converged profile as good as an unconverged optimum replaces it)
    nll_full = full(theta) if target is not full else value
    if not np.isfinite(nll_full):
        return best
    message = (f"the support's ends held at the extreme observations, the other free "
               f"parameters optimised ({'converged' if converged else 'not converged'}); "
               f"before: {best.message}")
    return best._replace(nll=nll_full, theta=theta, value=value, success=converged,
                         start=best.start, message=message, hess_inv=None)


KNOT_SLACK = 1e-12  # relative: the knots' optimum replaces one as low to rounding
# evaluations of each fit with the knots held (a knot on the support's end leaves the
# end's gap creeping to its floor, at one evaluation budget per position tried)
KNOT_EVALS_PER_PARAMETER = 100


def _with_knots_on_observations(spec: FitSpec, best, full, fixed_z: dict, gap_floor: float,
                                attempts):
    """``best``, or the optimum with the density's knots held on observations (see
    :mod:`.knots`) where that is as likely to rounding (it replaces a fit whose knots
    BFGS left in a kink, within ~1e-6 of the optimum, or on a worse observation)."""
    knots = knot_shapes(spec.dist, fixed_z, spec.n_shapes)
    if not knots:
        return best
    runs = []

    def minimize(f, t0):
        res = minimize_local(f, t0, maxfev=KNOT_EVALS_PER_PARAMETER * (t0.size + 1))
        runs.append(res)
        return res.t, res.fun

    out = knots_on_observations(best.theta, full.z, knots, full, minimize, gap_floor,
                                fixed=[j for j in range(spec.n_shapes) if j in fixed_z])
    if out is None:
        return best
    theta, value = out
    nll = full(theta)
    if not nll <= best.nll + KNOT_SLACK * max(1.0, abs(best.nll)):
        return best
    converged = any(r.success for r in runs)
    message = (f"knots held on observations ({len(runs)} local runs, "
               f"{'converged' if converged else 'not converged'}); before: {best.message}")
    attempts.append(Attempt(best.start, "knots", tuple(best.theta), tuple(theta), nll,
                            converged, message, sum(r.nfev for r in runs)))
    return best._replace(nll=nll, theta=theta, value=nll, success=best.success or converged,
                         message=message, hess_inv=None)


def _loc_centred_if_free(spec: FitSpec, best, full, fixed_z: dict, summary, gap_floor,
                         attempts):
    """``best`` with ``loc`` at the centre of the stretch between observations where the
    likelihood is flat in it (see :mod:`.flat_loc`), and the scale polished with loc and
    the shapes held: the same likelihood to rounding, and the same point at every
    magnitude of the data and with or without censoring. (The scale is polished because
    BFGS in the kinks of such a likelihood left Laplace-like scales ~1e-6 off; the
    shapes are held because a shape that moves can end the flatness: dgamma's ``a``,
    held at 1 by :func:`_off_singular_observation`, would go below 1, where the centre
    is a minimum in loc between two spikes.)"""
    if spec.loc_index in fixed_z:
        return best
    if isinstance(full, CensoredNLL):
        points = np.concatenate([full.complete.z, full.left, full.right, full.lo, full.hi])
    else:
        points = full.z
    theta = centre_of_flat_stretch(best.theta, spec.loc_index, points, full)
    if theta is None:
        return best
    nll = full(theta)
    held = {**fixed_z, **{j: float(theta[j]) for j in range(spec.loc_index + 1)}}
    if len(held) < theta.size:
        polish = _optimize_from(spec, Candidate("flat_loc", theta), full, None, held,
                                summary, gap_floor)
        attempts.append(polish.attempt)
        if (polish.theta is not None and polish.value <= nll and centre_of_flat_stretch(
                polish.theta, spec.loc_index, points, full) is not None):
            theta, nll = polish.theta, polish.value
    return best._replace(theta=theta, nll=nll, value=nll, hess_inv=None)


def _canonical(spec: FitSpec, theta, full, fixed_z: dict, summary, gap_floor, attempts):
    """The reported member of a family whose shapes absorb the scale (see
    :mod:`.symmetries`): the same distribution, so the same likelihood to rounding
    (checked), and the same point at every magnitude of the data. Polished there with
    the scale held: on the ridge the full Hessian is singular, so the Newton polish that
    makes other fits exact to ~1e-10 could not run, and BFGS left ~1e-6 across it."""
    canon = canonical_scale(spec.dist, theta, fixed_z)
    if canon is None:
        return theta
    before, after = full(theta), full(canon)
    if not after <= before + 1e-10 * max(1.0, abs(before)):
        return theta
    held = {**fixed_z, spec.n_shapes + 1: float(canon[-1])}
    polish = _optimize_from(spec, Candidate("canonical", canon), full, None, held, summary,
                            gap_floor)
    attempts.append(polish.attempt)
    if polish.theta is not None and polish.value <= after:
        return polish.theta
    return canon


def _canonical_by_moments(spec: FitSpec, theta, objective, fixed_z: dict):
    """The method of moments' estimate as the member :func:`_canonical` reports: the
    same distribution, so the same moments (checked to rounding). Without it a
    loguniform fitted by moments came back as ``(1.32, 170, 0.0003, 0.0073)`` for data
    drawn from ``(0.01, 1.25, 0, 1)``, the member the optimiser happened to end on."""
    canon = canonical_scale(spec.dist, theta, fixed_z)
    if canon is None:
        return theta
    before, after = objective(theta), objective(canon)
    if not after <= before + 1e-10 * max(before, 1e-12):
        return theta
    return canon


def _certified_by_profile(res: _Local, profile_nll: float) -> _Local:
    """A local polish from the profile's interior maximum that finds nothing better
    (beyond rounding) confirms it: the point maximises the likelihood over loc, and the
    rest exactly at that loc, so it is a stationary point however ill-conditioned the
    joint coordinates are (lognorm with s ~ 0.01, invgamma with a ~ 1e4)."""
    if res.success or res.theta is None or res.abandoned:
        return res
    if not res.value >= profile_nll - PROFILE_AGREE * max(1.0, abs(profile_nll)):
        return res  # the polish improved on the profile: it was not the optimum
    message = (f"maximum of the profile likelihood over loc (exact MLE of the rest at "
               f"each loc); the local polish found no better point ({res.message})")
    return res._replace(success=True, message=message,
                        attempt=replace(res.attempt, success=True, message=message))


def _start_time_budget(objective, theta, evaluations: int) -> None:
    """Start the fit's time budget (:mod:`.time_budget`): ``evaluations`` at the price
    of ``objective`` at ``theta`` (the least of two timings), times its slack."""
    start_budget(budget_seconds(_least_time(objective, theta, 2, budget_clock),
                                evaluations))


def _least_time(fn, theta, repeats: int, clock=time.perf_counter) -> float:
    """The least of ``repeats`` timings of ``fn(theta)``, in seconds of ``clock`` (a
    pause of the machine is not a cost)."""
    seconds = math.inf
    for _ in range(repeats):
        started = clock()
        fn(theta)
        seconds = min(seconds, clock() - started)
    return seconds


def _race_deadline(first_seconds: float | None) -> float | None:
    """When a racing start is abandoned: after RACE_TIME_FACTOR times the first local
    optimisation's time (at least RACE_TIME_FLOOR seconds). Ordinary racers take less
    than the first start; this stops only those stuck where each evaluation is slow."""
    if first_seconds is None:
        return None
    return time.monotonic() + max(RACE_TIME_FACTOR * first_seconds, RACE_TIME_FLOOR)


# starts with loc shifted by these fractions of the scale, after the gaps' (which see a few
# gaps either side only where the sample is large: on 50,000 dgamma points the gaps'
# starts alone ended 17 units less likely than these shifts, which reach farther)
LOCATION_SHIFTS = (-0.3, -0.15, -0.08, -0.04, -0.02, 0.02, 0.04, 0.08, 0.15, 0.3)
SCAN_GAPS = 64  # the gaps between observations nearest loc that are scanned
SCAN_STARTS = 4  # the gaps whose best point scores highest: racing starts
_SCAN_FRACTIONS = np.array([0.25, 0.5, 0.75])


def _gap_starts(spec, best, target) -> list[np.ndarray]:
    """Starts in the likeliest gaps between neighbouring observations (none where
    ``target`` does not expose its standardised data ``z`` and density ``logpdf_at``).

    Where the density vanishes at ``loc`` (dgamma's ``a > 1``) every observation is a
    zero of the likelihood as ``loc`` crosses it: one local maximum per gap. The
    :data:`SCAN_GAPS` gaps nearest ``loc`` (all of a small sample's) are read at a
    quarter, half and three quarters of their width, the other parameters held, in one
    vectorised call; the :data:`SCAN_STARTS` likeliest gaps start from their best
    point. (Ten starts shifted by fixed fractions of the scale
    had missed the best gap: dgamma on 300 points of its own ended 0.54 units short,
    and on 500 and 2000 points 0.16 and 0.18; on 40 samples of dgamma and dweibull
    these starts end where Nelder-Mead from each of the 80 nearest gaps ends, but for
    two where Nelder-Mead ended on an observation with ``a < 1``, a spike. 64 gaps
    read at 3 points cost 3 ms on 1000 observations, a quarter of the fit.)"""
    z, logpdf_at = getattr(target, "z", None), getattr(target, "logpdf_at", None)
    if z is None or logpdf_at is None:
        return []
    li, si = spec.loc_index, spec.scale_index
    loc, scale = float(best.theta[li]), float(best.theta[si])
    distinct = np.unique(z)
    i = int(np.searchsorted(distinct, loc))
    first = max(0, min(i - SCAN_GAPS // 2, distinct.size - 1 - SCAN_GAPS))
    last = min(distinct.size - 1, first + SCAN_GAPS)
    left, right = distinct[first:last], distinct[first + 1:last + 1]
    # (not the gap the best point lies in: its maximum is the best point)
    keep = ~((left < loc) & (loc < right))
    left, right = left[keep], right[keep]
    if left.size == 0:
        return []
    locs = (left[:, None] + (right - left)[:, None] * _SCAN_FRACTIONS).ravel()
    thetas = np.repeat(np.asarray(best.theta, dtype=float)[None, :], locs.size, axis=0)
    thetas[:, li] = locs
    # (one call of the density on every loc's standardised sample: the scale and the
    # shapes are held, so the NLLs differ by the log-density sums alone)
    with np.errstate(all="ignore"):
        sums = np.sum(logpdf_at((z[None, :] - locs[:, None]) / scale,
                                tuple(best.theta[:spec.n_shapes])), axis=1)
    values = np.where(np.isfinite(sums), -sums, np.inf).reshape(left.size, -1)
    top = np.argmin(values, axis=1)
    score = values[np.arange(left.size), top]
    order = [k for k in np.argsort(score, kind="stable")[:SCAN_STARTS]
             if np.isfinite(score[k])]
    return [thetas[k * _SCAN_FRACTIONS.size + top[k]] for k in order]


def _scan_location(spec, best, target, full, fixed_z, summary, gap_floor, attempts,
                   first_seconds=None):
    """Starts in the likeliest gaps between observations (:func:`_gap_starts`), then at
    :data:`LOCATION_SHIFTS`, each racing the best: the way out of the local maxima of a
    likelihood that is multimodal in ``loc``."""
    starts = _gap_starts(spec, best, target)
    for shift in LOCATION_SHIFTS:
        theta = np.array(best.theta, dtype=float)
        theta[spec.loc_index] += shift * theta[spec.scale_index]
        starts.append(theta)
    for theta in starts:
        race = (best.value + max(RACE_MARGIN, 1e-3 * abs(best.value)), best.value, 0, True)
        res = _optimize_from(spec, Candidate("location_scan", theta), target, None, fixed_z,
                             summary, gap_floor, race=race, hess_inv0=best.hess_inv,
                             deadline=_race_deadline(first_seconds))
        attempts.append(res.attempt)
        if res.theta is not None and res.success:
            nll_full = full(res.theta) if target is not full else res.value
            if nll_full < best.nll:
                best = _Best.of(res, nll_full, best.start)
    return best


def _support_kind_varies(dist, spec: FitSpec, fixed_z: dict) -> bool:
    """Whether the support's finite ends change across a grid of shape values."""
    from .guesses import shape_grid

    kinds = set()
    for shapes in shape_grid(dist, spec.n_shapes, fixed_z, 5)[:50]:
        try:
            a, b = support(dist, shapes)
        except Exception:
            continue
        kinds.add((bool(np.isfinite(a)), bool(np.isfinite(b))))
    return len(kinds) > 1


def _better(objective, res, nll_full, best) -> bool:
    if objective is None:
        return nll_full < best.nll
    return res.value < best.value


def _optimize_from(spec, cand: Candidate, nll, objective, fixed_z, summary, gap_floor,
                   bounded=True, hess_inv0=None, race=None, deadline=None, maxfev=None,
                   escape: bool = True, polish_at_budget: bool = False):
    n_shapes = spec.n_shapes
    # shapes that must be integers (irwinhall's n) are held at the nearest integer: the
    # unconstrained map would hand the density 11.000000000000002
    held = {j: float(np.round(cand.theta[j])) for j in range(n_shapes)
            if j not in fixed_z and _integer_only(spec.dist, j, cand.theta[:n_shapes])}
    if held:
        fixed_z = {**fixed_z, **held}
        theta0 = np.array(cand.theta, dtype=float)
        theta0[list(held)] = list(held.values())
        cand = Candidate(cand.start, theta0, cand.exact)
    stage = "optimize" if bounded else "polish"
    if bounded and _unbounded_support(spec.dist, cand.theta[:n_shapes]):
        # a map for an unbounded support has no gaps to keep: bounded, it would only
        # refuse shapes that bound the support. A start on the family's member where
        # the kind changes (kappa4 at h = 0 or k = 0, the Gumbel) could not move, and
        # one nudged off it stopped at k = -7e-10, short of the optimum at k = 7.6e-4
        bounded = False
    # (the method of moments solves its equations wherever their root lies, as scipy's
    # does: it does not keep the data inside the support, so loc is free)
    par = Parameterization(spec.dist, fixed_z, n_shapes + 2, nll.zmin if hasattr(
        nll, "zmin") else summary.zmin, nll.zmax if hasattr(nll, "zmax") else summary.zmax,
        cand.theta[:n_shapes], bounded=bounded and objective is None, gap_floor=gap_floor)
    t0 = par.to_t(cand.theta)
    if t0 is None and bounded:
        # an optimum reached under other constraints (a shape held, another target) may
        # sit on the support's edge, where rounding leaves an observation outside once
        # the parameterisation changes: truncweibull_min at n = 1e4 and loc 1e6 lost 65
        # units when the run freed from a held shape was refused as outside the support
        inside = fit_into_support(spec.dist, cand.theta, fixed_z, summary, gap_floor)
        if inside is not None:
            t0 = par.to_t(inside)
    if t0 is None:
        return _Local(None, np.inf, False, "start outside the parameterisation", None, False,
                      Attempt(cand.start, stage, tuple(cand.theta), tuple(cand.theta),
                              np.inf, False, "start violates the support", 0))
    scale = max(nll.n, 1)

    if objective is None:
        def f(t):
            theta = par.theta_values(t)
            return math.inf if theta is None else nll(theta) / scale

        if hasattr(nll, "many"):
            def many(ts):
                thetas = [par.theta_values(t) for t in ts]
                values = iter(nll.many([th for th in thetas if th is not None]))
                return [math.inf if th is None else next(values) / scale for th in thetas]
            f.many = many
    else:
        def f(t):
            theta = par.to_theta(t)
            return math.inf if theta is None else objective(theta)

    per_obs = 1 if objective is not None else scale
    maxfev = maxfev or EVALS_PER_PARAMETER * (t0.size + 1)
    race_spec = race  # (as given: a further run from another start takes it again)
    if race is not None:
        race = Race(RACE_ITERATIONS, race[0] / per_obs, race[1] / per_obs, race[2],
                    race[3])
    res = minimize_local(f, t0, maxfev=maxfev, hess_inv0=hess_inv0, race=race,
                         edge=(par.gap_positions(), np.log(EDGE_GAP)), deadline=deadline,
                         polish_at_budget=polish_at_budget)
    if not res.abandoned:
        # (a singular density at the edge is read as such only against exact extremes)
        exact = isinstance(nll, CompleteNLL) and objective is None
        settled = settle_on_edge(par, f, res, maxfev, race=race, deadline=deadline,
                                 exact_extremes=exact)
        if res.heading_for_edge and settled is res:
            # the edge is not the optimum after all (it lies just inside): resume
            more = minimize_local(f, res.t, maxfev=maxfev, race=race, deadline=deadline)
            more = replace(more, nfev=res.nfev + more.nfev,
                           message=f"{res.message}; resumed: {more.message}")
            settled = more if more.abandoned else settle_on_edge(
                par, f, more, maxfev, race=race, deadline=deadline, exact_extremes=exact)
        res = settled
    theta = par.to_theta(res.t)
    value = res.fun * (1 if objective is not None else scale)
    attempt = Attempt(cand.start, stage, tuple(cand.theta), tuple(theta) if theta is not
                      None else tuple(cand.theta), float(value), res.success, res.message,
                      res.nfev, tuple(res.warnings))
    out = _Local(theta, value, res.success, res.message, res.hess_inv, res.abandoned, attempt)
    if escape and objective is None and theta is not None and not res.abandoned \
            and NELDER_MEAD in res.message:
        out = _along_a_wall(spec, cand, out, nll, fixed_z, summary, gap_floor, bounded,
                            race_spec, deadline, maxfev)
        theta, value = out.theta, out.value
    if escape and objective is None and theta is not None and out.success \
            and not res.abandoned:
        start = off_shape_plateau(spec.dist, nll, theta, n_shapes, fixed_z, value)
        if start is not None:
            # converged on a plateau of a shape the likelihood does not see (see
            # shape_plateau): another run from the grid value that is lower
            more = _optimize_from(spec, Candidate(cand.start, start), nll, objective,
                                  fixed_z, summary, gap_floor, bounded=bounded,
                                  race=race_spec, deadline=deadline, maxfev=maxfev,
                                  escape=False)
            if more.theta is not None and more.value < value:
                note = f"{res.message}; off a shape's plateau: {more.message}"
                out = more._replace(message=note, attempt=replace(
                    more.attempt, initial=tuple(cand.theta), message=note,
                    nfev=res.nfev + more.attempt.nfev))
    return out


# the relative move of each parameter, either way, that checks a Nelder-Mead optimum
# for a wall of infeasible points with descent left along it ...
WALL_STEP = 1e-6
# ... lower by more than this (relative to the NLL) is descent
WALL_RTOL = 1e-10


def _along_a_wall(spec, cand, out, nll, fixed_z, summary, gap_floor, bounded, race,
                  deadline, maxfev):
    """``out`` (where Nelder-Mead ran last), or the optimum along the wall it stopped at.

    A simplex also shrinks onto a wall of infeasible points -- a user's density NaN
    outside a support it does not declare, loc on the smallest observation -- where
    the optimiser's coordinates (loc / scale) cross the wall diagonally and no simplex
    step stays feasible, though a parameter along the wall still descends: the fit
    claimed success with the scale 7% off (or ran out of evaluations against the wall,
    with 30 observations). Where moving one parameter either way meets
    the wall (no finite NLL inside the declared support) and moving another lowers the
    NLL, the parameters at the wall are held and the others re-fitted; the result
    stands where it is lower, its success the re-fit's."""
    theta, value = np.asarray(out.theta, dtype=float), out.value
    free = [i for i in range(theta.size) if i not in fixed_z]
    walls, descends = [], False
    for i in free:
        for moved in _moved_either_way(theta, i):
            moved_value = nll(moved)
            if not np.isfinite(moved_value):
                if _inside_declared_support(nll, moved):
                    walls.append(i)  # (the declared support's ends are the map's job)
            elif moved_value < value - WALL_RTOL * max(1.0, abs(value)):
                descends = True
    walls = sorted(set(walls))
    # (an unconverged run is re-fitted along the wall even where no step of the check
    # descends: 30 observations ran Nelder-Mead out of evaluations 1.5e-5 off the scale)
    if not walls or len(walls) == len(free) or not (descends or not out.success):
        return out
    held = {**fixed_z, **{i: float(theta[i]) for i in walls}}
    more = _optimize_from(spec, Candidate(cand.start, theta), nll, None, held, summary,
                          gap_floor, bounded=bounded, race=race, deadline=deadline,
                          maxfev=maxfev, escape=False)
    if more.theta is None or not (more.value < value or (
            not out.success and more.success and more.value <= value)):
        return out
    if more.success and _descends_off_the_wall(nll, more.theta, more.value, walls):
        more = more._replace(success=False)  # (the wall is not where the optimum is)
    names = ", ".join(spec.names[i] for i in walls)
    note = (f"{out.message}; on a wall of infeasible points, {names} held there and the "
            f"rest re-fitted: {more.message}")
    return more._replace(message=note, attempt=replace(
        more.attempt, initial=out.attempt.initial, message=note,
        nfev=out.attempt.nfev + more.attempt.nfev))


def _inside_declared_support(nll, theta) -> bool:
    """Whether ``theta`` is valid and keeps the data inside the support the family
    declares (where the likelihood is still not finite, the wall is the density's)."""
    admits = getattr(nll, "admits", None)  # (a censored likelihood has no such walls)
    return admits is not None and admits(np.asarray(theta, dtype=float).tolist())


def _descends_off_the_wall(nll, theta, value: float, walls: list[int]) -> bool:
    """Whether moving a parameter held at a wall either way (one side is the wall)
    lowers the NLL by more than :data:`WALL_RTOL`."""
    theta = np.asarray(theta, dtype=float)
    return any(nll(moved) < value - WALL_RTOL * max(1.0, abs(value))
               for i in walls for moved in _moved_either_way(theta, i))


def _moved_either_way(theta: np.ndarray, i: int) -> list[np.ndarray]:
    """``theta`` with parameter ``i`` moved up and down by :data:`WALL_STEP` (of itself
    for the scale, of ``max(1, |value|)`` for loc and shapes: standardised units)."""
    step = WALL_STEP * (theta[i] if i == theta.size - 1 else max(1.0, abs(theta[i])))
    out = []
    for sign in (1.0, -1.0):
        moved = theta.copy()
        moved[i] += sign * step
        out.append(moved)
    return out


def _unbounded_support(dist, shapes) -> bool:
    try:
        a, b = support(dist, tuple(float(v) for v in shapes))
    except Exception:
        return False
    return not (math.isfinite(a) or math.isfinite(b))


def _integer_only(dist, j: int, shapes) -> bool:
    """Whether shape ``j`` must be an integer: integral in scipy's shape info, and a
    value half-way between integers fails the distribution's own argument check."""
    if not shape_integrality(dist, j):
        return False
    probe = np.array(shapes, dtype=float)
    probe[j] = np.floor(probe[j]) + 0.5
    return not valid_shapes(dist, tuple(probe))


INTEGER_STEPS = 64  # the farthest an integral shape moves from its rounded value


def _round_integral_shapes(spec, theta, nll, fixed_z, summary, gap_floor):
    """Integer-valued shapes (erlang's a, irwinhall's n): from the neighbouring
    integers, move up and down while the likelihood improves, re-fitting the other free
    parameters with the shape held at each integer tried, and keep the best.

    The moves double (1, 2, 4, ... up to :data:`INTEGER_STEPS`) until one is worse,
    and the best integer between the last two improving ones and that one is then found
    by bisection on the sign of the profile's step, as a walk one integer at a time
    would find it on a profile with one maximum. irwinhall on 1000 points of
    ``irwinhall(10)``, whose likelihood rises towards the normal limit, walked all 64
    steps, a re-fit each (a minute and a half at 25 ms an evaluation): now 8 re-fits.
    """
    best = np.array(theta, dtype=float)
    for j in range(spec.n_shapes):
        if j in spec.fixed or not shape_integrality(spec.dist, j):
            continue

        def refit(v, start, j=j):
            shapes = np.array(start[:spec.n_shapes], dtype=float)
            shapes[j] = v
            if not valid_shapes(spec.dist, tuple(shapes)):
                return np.inf, None
            cand = np.array(start, dtype=float)
            cand[j] = v
            options = [(nll(cand), cand)]
            held = {**fixed_z, j: v}
            if len(held) < len(cand):  # something left to re-fit
                res = _optimize_from(spec, Candidate("integer", cand), nll, None, held,
                                     summary, gap_floor)
                if res.theta is not None:
                    options.append((nll(res.theta), res.theta))
            return min(options, key=lambda p: p[0])

        v0 = best[j]
        tried = {v: refit(v, best) for v in {float(np.floor(v0)), float(np.ceil(v0))}}
        val, cand = min(tried.values(), key=lambda p: p[0])
        if cand is None or not np.isfinite(val):
            continue
        for step in (-1.0, 1.0):
            here_val, here = _integer_search(refit, tried, cand, val, j, step)
            if here_val < val:
                val, cand = here_val, here
        best = cand
    return best


def _integer_search(refit, tried: dict, cand, val, j: int, step: float):
    """The best ``(value, theta)`` found moving shape ``j`` from ``cand`` in the
    direction ``step`` (see :func:`_round_integral_shapes`); ``tried`` caches
    ``refit`` by the shape's value, and each re-fit starts from the nearest better
    point."""
    origin = cand[j]
    points = {0: (val, cand)}  # offset -> (value, theta)

    def at(d):
        v = origin + step * d
        if v not in tried:
            near = min((k for k in points if points[k][1] is not None),
                       key=lambda k: (abs(k - d), points[k][0]))
            tried[v] = refit(v, points[near][1])
        points[d] = tried[v]
        return points[d][0]  # (inf where the shape is invalid)

    best_d, previous_d, worse_d = 0, 0, None
    d = 1
    while d <= INTEGER_STEPS:
        if at(d) < points[best_d][0]:
            previous_d, best_d = best_d, d
            d *= 2
        else:
            worse_d = d
            break
    if worse_d is None and best_d > 1 and at(best_d - 1) < points[best_d][0]:
        worse_d = best_d  # the reach is past the best integer
    if worse_d is not None:
        lo, hi = previous_d, worse_d  # the best integer lies strictly between
        while hi - lo > 2:
            mid = (lo + hi) // 2
            if at(mid + 1) < at(mid):
                lo = mid
            else:
                hi = mid + 1
        for d in range(lo + 1, hi):
            at(d)
    return min((p for p in points.values() if p[1] is not None), key=lambda p: p[0])


def _without_moments(spec: FitSpec, candidates: list, full, fixed_z: dict,
                     attempts: list):
    """The method of moments where no start has the moments it matches (cauchy,
    levy, kappa3 with ``a <= 1``: they do not exist): the start with the highest
    likelihood (quantile matching, as a rule), reported with ``success=False``, rather
    than no estimate at all."""
    values = [full(c.theta) for c in candidates]
    k = int(np.argmin(values)) if values else 0
    if not values or not np.isfinite(values[k]):
        return _no_valid_start(spec, fixed_z, attempts)
    message = (f"{_NO_MOMENTS}; reported: the start '{candidates[k].start}', the most "
               f"likely of the starts")
    return candidates[k].theta, values[k], False, message, candidates[k].start, attempts


_NO_MOMENTS = ("no starting point has finite moments of the orders matched (a family "
               "without them, as cauchy, cannot be fitted by moments)")


BEYOND_STARTS = 3  # shape vectors whose starts beyond the data are tried
BEYOND_OFFSET = 0.5  # ... loc this many standard deviations beyond the extreme


def _starts_beyond_the_data(spec: FitSpec, candidates: list, fixed_z: dict,
                            summary) -> list[Candidate]:
    """Starts with loc beyond either extreme observation (scale the data's standard
    deviation), for the shapes of the first :data:`BEYOND_STARTS` candidates, where no
    candidate has a finite likelihood: a user's density NaN or zero outside a support
    it does not declare (``np.where(x >= 0, exp(-x), nan)``) is finite only with loc
    below the data, and a fit without a ``loc=`` guess had found no start at all."""
    li, si = spec.n_shapes, spec.n_shapes + 1
    if li in fixed_z:
        return []
    shape_sets = [tuple(c.theta[:li]) for c in candidates[:BEYOND_STARTS]] or [
        tuple(1.0 for _ in range(li))]
    scale = fixed_z.get(si, summary.std if summary.std > 0 else 1.0)
    out = []
    for shapes in shape_sets:
        shapes = tuple(fixed_z.get(j, v) for j, v in enumerate(shapes))
        if not valid_shapes(spec.dist, shapes):
            continue
        for loc in (summary.zmin - BEYOND_OFFSET * scale, summary.zmax + BEYOND_OFFSET * scale):
            out.append(Candidate("beyond_data", np.array([*shapes, loc, scale], dtype=float)))
    return out


def _no_valid_start(spec, fixed_z, attempts):
    theta = np.full(spec.n_shapes + 2, np.nan)
    for i, v in fixed_z.items():
        theta[i] = v
    reason = ("no starting point gave a finite likelihood" if spec.method == "MLE" else
              _NO_MOMENTS)
    return theta, np.inf, False, reason, "", attempts
