"""Knots of a piecewise density held on observations.

triang's mode ``loc + c*scale`` and trapezoid's corners ``loc + c*scale`` and
``loc + d*scale`` are knots: the log-density has a kink there, so the likelihood has one
wherever a knot crosses an observation, and its maximum over the knot's position lies
on an observation (a classical result for the triangular distribution). BFGS converges
into such a kink only to ~1e-6 of the other parameters: the fits of triang at three
magnitudes of the same sample ended 5e-6 apart, and trapezoid's 3e-3 apart with the
knots on different observations.

Here each knot is held exactly on the observation nearest to where the optimiser left
it (often on it already, or near it where the optimiser stopped short in the kinks) --
the support's ends are the free coordinates and the knot shapes follow from them -- so
the likelihood is smooth in what is left and the local optimiser (with its Newton
polish) reaches the optimum to rounding; then each knot moves to a neighbouring
observation (or to the end of the support beyond the extreme one: trapezoid with
``c = 0`` has no rising part) while that lowers the likelihood. The caller keeps the
result only where it is at least as likely as the optimum it started from.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from .families import scipy_family_entry

__all__ = ["KNOT_SHAPES", "knot_shapes", "knots_on_observations"]

# scipy families whose shapes (these indices) are knots: fractions of the support
KNOT_SHAPES: dict[str, tuple[int, ...]] = {"triang": (0,), "trapezoid": (0, 1)}
MAX_MOVES = 20  # moves of a knot to a neighbouring observation
SCAN_POINTS = 11  # observations (evenly spaced in rank) a knot is tried at, and the ends


def knot_shapes(dist, fixed: dict, n_shapes: int) -> tuple[int, ...]:
    """The free knot shapes of ``dist`` where loc and scale are free too; () otherwise
    (for scipy's own families only: a subclass may define another density)."""
    knots = scipy_family_entry(dist, KNOT_SHAPES, ())
    if n_shapes in fixed or n_shapes + 1 in fixed:
        return ()
    return tuple(j for j in knots if j not in fixed)


def knots_on_observations(theta, z: np.ndarray, knots: tuple[int, ...], nll: Callable,
                          minimize: Callable, gap_floor: float, fixed=()):
    """``(theta, value)``: the optimum with the knots at ``knots`` held on the
    observations they are closest to, then on the best positions of a scan over the
    support and on neighbouring observations while that lowers ``nll``; None where
    nothing feasible was found.

    ``theta``: standardised parameters (shapes, loc, scale) at a converged optimum;
    ``z``: the data; ``minimize(f, t0) -> (t, value)`` a local optimiser of ``f``;
    ``fixed``: the indices of fixed shapes (held at their values in ``theta``).
    """
    z = np.sort(np.asarray(z, dtype=float))
    theta = np.asarray(theta, dtype=float)
    loc, scale = float(theta[-2]), float(theta[-1])
    on = [int(np.argmin(np.abs(z - (loc + theta[j] * scale)))) for j in knots]
    if on != sorted(on):
        return None
    best = _pinned_optimum(theta, z, knots, on, nll, minimize, gap_floor, fixed)
    if best is None:
        return None
    # a scan of each knot in turn over the support (its ends and observations evenly
    # spaced in rank), then moves to a neighbouring observation while one lowers the
    # likelihood: it is multimodal in a knot's position, with a kink at every
    # observation (trapezoid(0, 0.5), 50 points: a corner left at the 13th
    # observation, 1.2 units above the optimum with the corner on the support's lower
    # end). Where several positions are about as likely (a trapezoid with corners 0.4
    # and 0.4: 4e-3 units apart), magnitudes of one sample may still end on different
    # observations
    grid = sorted({-1, z.size, *np.round(np.linspace(0, z.size - 1, SCAN_POINTS)).astype(int)})
    for i in range(len(knots)):
        for k in grid:
            trial = list(on)
            trial[i] = int(k)
            if trial == on or trial != sorted(trial):
                continue
            out = _pinned_optimum(best[0], z, knots, trial, nll, minimize, gap_floor, fixed)
            if out is not None and out[1] < best[1]:
                on, best = trial, out
    for _ in range(MAX_MOVES):
        moved = None
        for i in range(len(knots)):
            for step in (-1, 1):
                trial = list(on)
                trial[i] += step
                if not -1 <= trial[i] <= z.size or trial != sorted(trial):
                    continue
                out = _pinned_optimum(best[0], z, knots, trial, nll, minimize, gap_floor, fixed)
                if out is not None and out[1] < best[1] and (
                        moved is None or out[1] < moved[1][1]):
                    moved = (trial, out)
        if moved is None:
            break
        on, best = moved
    return best


def _pinned_optimum(theta, z, knots, on, nll, minimize, gap_floor, fixed):
    """The optimum over the support's ends (gaps beyond the extreme observations, on a
    log scale) and the other free shapes (those in ``fixed`` held), with knot
    ``knots[i]`` on observation ``on[i]``."""
    zmin, zmax = float(z[0]), float(z[-1])
    # position -1 is the support's lower end (the knot shape 0), z.size its upper end (1)
    points = [float(z[k]) if 0 <= k < z.size else None for k in on]
    ends = {-1: 0.0, z.size: 1.0}
    loc, scale = float(theta[-2]), float(theta[-1])
    lo_gap, hi_gap = zmin - loc, loc + scale - zmax
    if not (lo_gap > gap_floor and hi_gap > gap_floor):
        return None
    others = [j for j in range(theta.size - 2) if j not in knots and j not in fixed]
    t0 = np.array([math.log(lo_gap - gap_floor), math.log(hi_gap - gap_floor),
                   *theta[others]])

    def to_theta(t):
        try:
            lo = zmin - gap_floor - math.exp(t[0])
            hi = zmax + gap_floor + math.exp(t[1])
        except OverflowError:
            return None
        width = hi - lo
        if not (math.isfinite(width) and width > 0):
            return None
        out = np.array(theta, dtype=float)
        out[-2], out[-1] = lo, width
        for j, p, k in zip(knots, points, on, strict=True):
            out[j] = ends[k] if p is None else (p - lo) / width
        out[others] = t[2:]
        return out

    def f(t):
        full = to_theta(t)
        return math.inf if full is None else nll(full) / z.size

    t, value = minimize(f, t0)
    full = to_theta(t)
    if full is None or not math.isfinite(value):
        return None
    return full, value * z.size
