"""Optima on an edge of the support, and likelihoods unbounded there.

Where the support is bounded by ``loc`` (or ``loc + scale``), the optimiser works with the
gap ``exp(t)`` between the extreme observation and the edge. An optimum *on* the edge
(t -> -inf) is only approached by BFGS; these helpers put the gap at its floor and tell
a finite limit from a singular density (no maximum at all).
"""

from __future__ import annotations

import itertools
from dataclasses import replace

import numpy as np

from .likelihood import support
from .optimizer import LocalResult, minimize_local
from .parameterization import Parameterization

EDGE_GAP = 1e-3  # a gap (standardised units) this small means "heading for the edge"
UNBOUNDED = "the likelihood is unbounded"  # (the lead of every such reason)
UNBOUNDED_AT_EDGE = f"{UNBOUNDED} at the support's edge"
# a rise over two decades of the gap this close to the rise over four is a step, not
# a logarithm's growth (whose ratio is 1/2)
STEP_RATIO = 0.8
_AT_EDGE_T = -80.0  # exp(-80) ~ 2e-35: the gap is then its floor, for every magnitude
# standard distances from an end of the support (relative to its width, or 1) at which
# the density is read to tell an infinite one there from a finite one
END_PROBES = (1e-4, 1e-8, 1e-12)


def _unbounded_at_edge(par: Parameterization, f, res, exact_extremes: bool = True) -> bool:
    """Whether the objective keeps falling like log(gap) as the gaps at the edge shrink
    (a singular density there), rather than settling linearly (a finite one).

    Read from the likelihood as the gaps widen a hundred- and ten-thousandfold from
    their floor; or, where that is inconclusive, from the density itself at those ends
    (:func:`singular_density_at_end`) while widening lowers the likelihood. The floor
    is a few float64 spacings of the data's magnitude: on data of 1e6 + 1e-3 x it is
    1e-6 of the spread, and ten thousand floors reach past the gaps between the extreme
    observations, whose densities then change too (powerlaw with ``a = 0.5`` rose 0.018
    and 0.10 per observation, not 1 : 2, and was reported converged where at unit scale
    no maximum exists). The density decides only where the extremes are ``exact``
    observations: a censored one at the edge contributes a probability, which a
    singular density does not make infinite."""
    at_edge = [p for p in par.gap_positions() if res.t[p] <= _AT_EDGE_T]
    if not at_edge:
        return False
    floor = max(par.gap_floor, 1e-300)
    rise = []
    for factor in (1e2, 1e4):
        t = np.array(res.t, dtype=float)
        t[at_edge] = np.log(factor * floor)
        rise.append(f(t) - res.fun)
    # singular: equal rises per decade (ratio 1/2); finite density: ratio ~ 1/100; a
    # step (ratio ~ 1: an observation crossing a jump of a piecewise density, such as
    # an rv_histogram's bin edge, as soon as the gap leaves its floor) is not a rise
    # that goes on
    if rise[1] > 1e-12 and 0.2 * rise[1] < rise[0] < STEP_RATIO * rise[1]:
        return True
    theta = par.theta_values(res.t) if exact_extremes else None
    if theta is None or not rise[0] > 0.0:
        return False
    shapes = tuple(theta[:par.n_shapes])
    return any(singular_density_at_end(par.dist, shapes, par.gap_end(p)) for p in at_edge)


def singular_density_at_end(dist, shapes, side: int) -> bool:
    """Whether the standard density at ``shapes`` is infinite at the lower (``side``
    0) or upper (1) end of its support: its log rises by equal amounts (to a factor
    of two) over the decades to :data:`END_PROBES` from the end, as a power ``d^(k-1)``
    with ``k < 1`` does (a finite density settles: its rises shrink ten thousandfold
    from one span to the next; one that vanishes there falls).

    Examples
    --------
    >>> from scipy import stats
    >>> singular_density_at_end(stats.powerlaw, (0.5,), 0)
    True
    >>> singular_density_at_end(stats.powerlaw, (2.0,), 0)  # zero at 0
    False
    >>> singular_density_at_end(stats.powerlaw, (2.0,), 1)  # finite at 1
    False
    """
    try:
        ends = support(dist, shapes)
        end = float(ends[side])
        if not np.isfinite(end):
            return False
        width = float(ends[1] - ends[0]) if np.all(np.isfinite(ends)) else 1.0
        inward = 1.0 if side == 0 else -1.0
        u = end + inward * width * np.asarray(END_PROBES)
        with np.errstate(all="ignore"):
            values = np.asarray(dist.logpdf(u, *shapes), dtype=float)
    except Exception:
        return False
    if values.shape != u.shape or not np.all(np.isfinite(values)):
        return False
    first, second = values[1] - values[0], values[2] - values[1]
    noise = 1e-9 * max(1.0, float(np.max(np.abs(values))))
    return bool(first > noise and second > noise and 0.5 < first / second < 2.0)


def settle_on_edge(par: Parameterization, f, res, maxfev: int, race=None,
                   deadline: float | None = None, exact_extremes: bool = True):
    """Where the optimum is on an edge of the support (genpareto's loc at the smallest
    observation), BFGS only creeps towards gap -> 0: put small gaps at their floor and
    re-fit the rest, so every magnitude ends at the same point. If the likelihood keeps
    growing on the way to the edge (beta with b < 1), no maximum exists: say so.

    ``race`` and ``deadline`` are passed on to :func:`minimize_local` (a racing start
    stays one here too); ``exact_extremes``: whether the data's extremes are exact
    observations (see :func:`_unbounded_at_edge`).
    """
    small = [p for p in par.gap_positions() if _AT_EDGE_T < res.t[p] < np.log(EDGE_GAP)]
    best = res
    abandoned = None
    for k in range(1, len(small) + 1):
        for subset in itertools.combinations(small, k):
            edge = _fit_with_gaps_at_edge(f, res.t, list(subset), maxfev, race, deadline)
            if edge.abandoned:  # a racer that cannot beat its rival on the edge either
                abandoned = edge
            elif edge.fun <= best.fun:
                best = replace(edge, message=f"{res.message}; on the support's edge: "
                               f"{edge.message}", nfev=res.nfev + edge.nfev,
                               success=edge.success or res.success)
    if best is res and abandoned is not None:
        return replace(res, abandoned=True, success=False, nfev=res.nfev + abandoned.nfev,
                       message=f"{res.message}; on the support's edge: {abandoned.message}")
    if best is not res:
        best = _inside_the_edge(par, f, best, maxfev, race, deadline)
    # (also where the run itself reached the edge, its gap at or below _AT_EDGE_T, with
    # nothing left to settle: the check of a singular density was skipped there)
    if _unbounded_at_edge(par, f, best, exact_extremes):
        return replace(best, success=False, message=f"{best.message}; {UNBOUNDED_AT_EDGE}: "
                       "no maximum exists, the estimate puts the edge at the extreme "
                       "observation")
    return best


# gaps, in units of the floor, at which a fit put on the edge is checked for a maximum
# just inside it
INSIDE_FACTORS = (1e2, 1e4, 1e6)


def _inside_the_edge(par: Parameterization, f, edge, maxfev: int, race, deadline):
    """``edge`` (a fit with gaps held at the edge), or the optimum from just inside it
    where widening those gaps from their floor lowers the objective: the maximum lies
    next to the edge, not on it. With a scale fixed 20 times too small, maxwell's and
    rayleigh's loc ran towards the smallest observation (the squares of the rest fall
    much faster than the log of the nearest rises), was put on the edge -- where the
    density is zero -- and "converged" there, 10-23 units short of the optimum a
    hundred-thousandth of the scale inside."""
    held = [p for p in par.gap_positions() if edge.t[p] <= _AT_EDGE_T]
    if not held:
        return edge
    floor = max(par.gap_floor, 1e-300)
    trials = []
    for factor in INSIDE_FACTORS:
        t = np.array(edge.t, dtype=float)
        t[held] = np.log(factor * floor)
        trials.append((f(t), t))
    value, start = min(trials, key=lambda p: p[0])
    if not value < edge.fun - 1e-12 * max(1.0, abs(edge.fun)):
        return edge
    inside = minimize_local(f, start, maxfev=maxfev, race=race, deadline=deadline)
    if inside.abandoned or not inside.fun < edge.fun:
        return edge
    return replace(inside, nfev=edge.nfev + inside.nfev, message=(
        f"{edge.message}; just inside the edge, more likely than on it: {inside.message}"))


def _fit_with_gaps_at_edge(f, t, at_edge: list[int], maxfev: int, race, deadline):
    """Minimise over the other coordinates with the gaps ``at_edge`` held at the edge
    (their curvature there is ~0: left free they only spoil the Hessian)."""
    base = np.array(t, dtype=float)
    base[at_edge] = _AT_EDGE_T
    keep = [i for i in range(base.size) if i not in at_edge]
    if not keep:
        return LocalResult(base, f(base), True, "every free parameter on the edge", 1)

    def embedded(u):
        full = base.copy()
        full[keep] = u
        return full

    def reduced(u):
        return f(embedded(u))

    batch = getattr(f, "many", None)
    if batch is not None:  # (finite-difference gradients in one vectorised call)
        reduced.many = lambda us: batch([embedded(u) for u in us])

    edge = minimize_local(reduced, base[keep], maxfev=maxfev, race=race, deadline=deadline)
    full_t = base.copy()
    full_t[keep] = edge.t
    hess_inv = None
    if edge.hess_inv is not None:  # embedded, unit steps for the gaps held at the edge
        hess_inv = np.eye(base.size)
        hess_inv[np.ix_(keep, keep)] = edge.hess_inv
    return replace(edge, t=full_t, hess_inv=hess_inv)


def singular_end_within_reach(dist, theta, free) -> bool:
    """Whether the standard density at ``theta``'s shapes is infinite at a finite end of
    the support while ``loc`` is free (``free``: indices of free parameters): ``loc``
    then moves that end onto the extreme observation, every other observation staying
    inside, and the likelihood of exact data grows without bound, wherever the end lies
    now: the point found is reported, not a maximum. pearson3(-1.95) samples had
    "converged" at skew -2.05 to -2.18 (gamma shapes below 1) with the end on the
    largest observation or 2e-7 scales from it, where the check of the likelihood's rise
    as the gap closes (:func:`singular_end_on_observation`) saw no gap left, or no rise
    at float64's floor.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> singular_end_within_reach(stats.gamma, np.array([0.8, 0.0, 1.0]), [0, 1, 2])
    True
    >>> singular_end_within_reach(stats.gamma, np.array([0.8, 0.0, 1.0]), [0, 2])
    False
    >>> singular_end_within_reach(stats.genpareto, np.array([-1.5, 0.0, 1.0]), [0, 2])
    True
    >>> singular_end_within_reach(stats.gamma, np.array([1.5, 0.0, 1.0]), [0, 1, 2])
    False
    """
    theta = np.asarray(theta, dtype=float)
    n_shapes = theta.size - 2
    loc_free, scale_free = n_shapes in free, n_shapes + 1 in free
    if not (loc_free or scale_free):
        return False
    shapes = tuple(theta[:n_shapes])
    try:
        ends = support(dist, shapes)
    except Exception:
        return False
    return any(np.isfinite(ends[side]) and (loc_free or _scale_closes(ends, side))
               and singular_density_at_end(dist, shapes, side) for side in (0, 1))


def _scale_closes(ends, side: int) -> bool:
    """Whether the scale alone (loc held) can close end ``side`` of the standard support
    ``ends`` onto the extreme observation with every other observation kept inside: the
    end is not at loc, and the other end is infinite or on the same side of loc, so it
    moves away from the data as the end closes in. genpareto with ``c < -1`` and
    ``floc`` has its density infinite at the upper end ``-scale / c``: fits "converged"
    with that end an ulp above the largest observation, where no narrower gap could be
    tried, at ``c`` from -1.75 to -1.97 by the data's magnitude."""
    end, other = float(ends[side]), float(ends[1 - side])
    return end != 0.0 and (not np.isfinite(other) or other * end >= 0.0)


def singular_end_on_observation(dist, theta, nll, free) -> bool:
    """Whether the likelihood at ``theta`` keeps growing without bound as an end of the
    support closes on the extreme observation: an end within :data:`EDGE_GAP` of it,
    where widening the gap a hundredfold and ten-thousandfold lowers the likelihood by
    about equal amounts per decade (a density infinite at the end, the gap's ``log``
    term), not a hundred times less (a finite one, an optimum on the edge), and where a
    gap ten times narrower is no less likely (else the maximum lies inside: fatiguelife
    with ``c = 29`` fixed peaks a thousandth of its scale from the edge, and farther out
    its likelihood falls by equal steps per decade as well).

    It complements :func:`settle_on_edge`, which sees ends expressed as gaps: with
    the scale fixed, a support bounded on both sides maps loc logistically between its
    limits, and powerlaw with ``a = 0.5`` and loc the only free parameter converged
    next to the smallest observation, where that map flattens, claiming a maximum.
    The end is moved by ``loc`` where it is free (``free``: indices of free parameters),
    else by the scale; where both are free and the support has a finite other end, that
    end is held where it is (see :func:`_end_moved`).
    """
    theta = np.asarray(theta, dtype=float)
    n_shapes = theta.size - 2
    loc, scale = float(theta[-2]), float(theta[-1])
    try:
        ends = support(dist, tuple(theta[:n_shapes]))
    except Exception:
        return False
    base = nll(theta)
    if not np.isfinite(base):
        return False
    sides = ((ends[0], ends[1], nll.zmin, -1.0), (ends[1], ends[0], nll.zmax, 1.0))
    for end, other, extreme, outward in sides:
        if not np.isfinite(end):
            continue
        gap = outward * (loc + scale * end - extreme)
        if not 0.0 < gap <= EDGE_GAP:
            continue
        rise = []
        for factor in (0.1, 1e2, 1e4):
            # (the other end held: on the data too -- powerlaw with loc and scale free
            # -- moving loc alone put the largest observation outside, the likelihood
            # zero, and the singular end went unseen)
            moved = _end_moved(theta, free, end, outward * (factor - 1.0) * gap,
                               keep=other)
            if moved is None:
                break
            rise.append(nll(moved) - base)
        if not (len(rise) == 3 and np.all(np.isfinite(rise[1:]))
                and rise[0] <= 1e-12 * abs(base)):
            continue
        if rise[2] > 1e-12 and 0.2 * rise[2] < rise[1] < STEP_RATIO * rise[2]:
            return True
        # (the widened gaps may reach past the next observations where the end's
        # least gap is wide on the data's scale -- data of 1e6 + 1e-3 x: see
        # _unbounded_at_edge -- then the density at the end decides)
        side = 0 if outward < 0 else 1
        if rise[1] > 0.0 and singular_density_at_end(dist, tuple(theta[:n_shapes]), side):
            return True
    return False


def snapped_to_edge(dist, theta, nll, free, floor: float) -> np.ndarray | None:
    """``theta`` with an end of the support that lies within :data:`EDGE_GAP` of the
    extreme observation moved to ``floor`` from it, where that lowers ``nll``; None
    where no end is that close or moving it does not help.

    An optimum on the edge with a finite density there (powerlaw with ``a = 2``: the
    likelihood rises linearly as the upper end closes on the largest observation) is
    only approached where the optimiser's coordinate for loc is logistic between the
    support's limits (the scale fixed): its slope vanishes towards the end, and the run
    "converged" 2.3e-7 short of it, 2.4e-5 log-likelihood units below scipy's generic
    optimiser. The end is moved by ``loc`` where it is free (``free``: indices of free
    parameters), else by the scale."""
    theta = np.asarray(theta, dtype=float)
    n_shapes = theta.size - 2
    try:
        ends = support(dist, tuple(theta[:n_shapes]))
    except Exception:
        return None
    best, best_value = None, nll(theta)
    if not np.isfinite(best_value):
        return None
    sides = ((ends[0], nll.zmin, -1.0), (ends[1], nll.zmax, 1.0))
    for k, (end, extreme, outward) in enumerate(sides):
        if not np.isfinite(end):
            continue
        current = theta if best is None else best
        loc, scale = float(current[-2]), float(current[-1])
        gap = outward * (loc + scale * end - extreme)
        other, other_extreme, other_outward = sides[1 - k]
        if not floor < gap <= EDGE_GAP:
            continue
        keep = np.inf
        if np.isfinite(other) and other_outward * (loc + scale * other
                                                   - other_extreme) <= EDGE_GAP:
            # both ends on the data: moving loc alone would loosen the other one; with
            # loc and scale free that end is held and the scale takes up the shift
            # (bradford with c fixed: the upper end stayed 1.6e-7 off the largest
            # observation, 5.8e-5 units short, the lower one on its floor)
            n_shapes = current.size - 2
            if not (n_shapes in free and n_shapes + 1 in free):
                continue
            keep = other
        moved = _end_moved(current, free, end, outward * (floor - gap), keep=keep)
        if moved is None:
            continue
        value = nll(moved)
        if value < best_value:
            best, best_value = moved, value
    return best


def _end_moved(theta: np.ndarray, free, end: float, shift: float,
               keep: float = np.inf) -> np.ndarray | None:
    """``theta`` with the end ``loc + scale * end`` of the support moved by ``shift``:
    by loc where it is free (``free``: indices of free parameters), else by the scale
    (not for an end at loc itself); None where neither can move it. Where loc and scale
    are both free and ``keep`` (the standard position of the other end) is finite, the
    other end ``loc + scale * keep`` stays where it is (the scale takes up the shift)."""
    n_shapes = theta.size - 2
    moved = theta.copy()
    if n_shapes in free and n_shapes + 1 in free and np.isfinite(keep) and keep != end:
        held = theta[-2] + theta[-1] * keep
        moved[-1] = theta[-1] + shift / (end - keep)
        if not moved[-1] > 0.0:
            return None
        moved[-2] = held - moved[-1] * keep
    elif n_shapes in free:
        moved[-2] = theta[-2] + shift
    elif n_shapes + 1 in free and end != 0.0:
        moved[-1] = theta[-1] + shift / end
    else:
        return None
    return moved
