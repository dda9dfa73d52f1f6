"""Reading ``dist.fit``-style arguments into one checked description of the problem."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from ..errors import (
    AllParametersFixedError,
    InvalidInputError,
    InvalidParameterError,
    UnexpectedArgumentError,
    UnsupportedDistributionError,
)
from .shape_domains import probed_integrality, probed_shape_domain

FIT_METHODS = ("MLE", "MM")


@dataclass(frozen=True)
class FitSpec:
    """What to fit: the distribution, its parameter names, fixed values and guesses.

    Parameter vectors follow scipy's order: shapes, then ``loc``, then ``scale``.
    ``fixed`` and ``guesses`` map a parameter's index in that order to a value in the
    user's (original) coordinates.
    """

    dist: stats.rv_continuous
    names: tuple[str, ...]
    fixed: dict[int, float]
    guesses: dict[int, float]
    method: str
    # ``optimizer=`` as in ``dist.fit``: called from robustfit's optimum (see
    # :mod:`.user_optimizer`); None: robustfit's own optimisation only
    optimizer: Callable | None = None

    @property
    def n_shapes(self) -> int:
        return len(self.names) - 2

    @property
    def free(self) -> tuple[int, ...]:
        return tuple(i for i in range(len(self.names)) if i not in self.fixed)

    @property
    def loc_index(self) -> int:
        return len(self.names) - 2

    @property
    def scale_index(self) -> int:
        return len(self.names) - 1


def check_distribution(dist) -> stats.rv_continuous:
    """Return ``dist`` if it is a continuous scipy.stats distribution, else raise."""
    if isinstance(dist, str):
        candidate = getattr(stats, dist, None)
        if isinstance(candidate, stats.rv_continuous):
            return candidate
        raise UnsupportedDistributionError(
            f"dist={dist!r} is not the name of a continuous scipy.stats distribution."
        )
    if isinstance(dist, stats.rv_discrete):
        raise UnsupportedDistributionError(
            f"dist={dist.name!r} is discrete; robustfit.fit fits continuous distributions "
            "only (use scipy.stats.fit for discrete ones)."
        )
    if hasattr(dist, "dist") and isinstance(dist.dist, stats.rv_continuous):
        raise UnsupportedDistributionError(
            "dist is a frozen distribution; pass the distribution itself, e.g. "
            "scipy.stats.gamma, not scipy.stats.gamma(2)."
        )
    if not isinstance(dist, stats.rv_continuous):
        raise UnsupportedDistributionError(
            f"dist must be a continuous scipy.stats distribution (an rv_continuous "
            f"instance such as scipy.stats.norm), got {type(dist).__name__}."
        )
    return dist


def shape_names(dist: stats.rv_continuous) -> tuple[str, ...]:
    if not dist.shapes:
        return ()
    return tuple(s.strip() for s in dist.shapes.split(","))


def _real_scalar(value, what: str) -> float:
    try:
        out = float(value)
    except (TypeError, ValueError) as exc:
        raise InvalidParameterError(f"{what} must be a real number, got {value!r}.") from exc
    if not np.isfinite(out):
        raise InvalidParameterError(f"{what} must be finite, got {value!r}.")
    return out


def parse_fit_arguments(dist, args: tuple, kwds: dict) -> FitSpec:
    """Interpret positional shape guesses and keywords exactly as ``dist.fit`` does.

    Shape ``j`` named ``s`` is fixed by ``f{j}``, ``f{s}`` or ``fix_{s}``; ``floc`` and
    ``fscale`` fix location and scale; ``loc=`` and ``scale=`` are starting guesses.
    """
    dist = check_distribution(dist)
    kwds = dict(kwds)
    shapes = shape_names(dist)
    names = shapes + ("loc", "scale")
    if len(args) > len(shapes):
        raise UnexpectedArgumentError(  # (scipy's opening first: its tests match it)
            f"Too many positional arguments. {dist.name} has {len(shapes)} shape "
            f"parameter(s) {shapes}, but "
            f"{len(args)} positional guesses were given; pass loc= and scale= by keyword."
        )
    method = kwds.pop("method", "MLE")
    method = method.upper() if isinstance(method, str) else method
    if method not in FIT_METHODS:
        raise InvalidInputError(f"method={method!r} is not valid; use 'MLE' or 'MM'.")

    optimizer = kwds.pop("optimizer", None)
    if optimizer is not None and not callable(optimizer):
        raise InvalidInputError(
            f"optimizer={optimizer!r} is not callable; pass a function called as "
            "optimizer(func, x0, args=(), disp=0) that returns the parameters, as "
            "dist.fit expects (e.g. scipy.optimize.fmin), or leave it out."
        )

    fixed: dict[int, float] = {}
    for j, name in enumerate(shapes):
        keys = [k for k in (f"f{j}", f"f{name}", f"fix_{name}") if k in kwds]
        if len(keys) > 1:
            raise InvalidInputError(
                f"shape {name!r} is fixed more than once ({', '.join(keys)}); keep one."
            )
        if keys:
            fixed[j] = _real_scalar(kwds.pop(keys[0]), keys[0])
    for key, idx in (("floc", len(shapes)), ("fscale", len(shapes) + 1)):
        if key in kwds and kwds[key] is not None:
            fixed[idx] = _real_scalar(kwds.pop(key), key)
        kwds.pop(key, None)

    guesses: dict[int, float] = {}
    for j, value in enumerate(args):
        guesses[j] = _real_scalar(value, f"guess for shape {shapes[j]!r}")
    for key, idx in (("loc", len(shapes)), ("scale", len(shapes) + 1)):
        if key in kwds and kwds[key] is not None:
            guesses[idx] = _real_scalar(kwds.pop(key), f"{key} guess")
        kwds.pop(key, None)
    if kwds:
        raise UnexpectedArgumentError(  # (scipy's opening first: its tests match it)
            f"Unknown keyword arguments: {sorted(kwds)}, for fitting {dist.name}; shape "
            f"parameters are {shapes or 'none'} (fix them with f0/f<name>/fix_<name>)."
        )
    if len(fixed) == len(names):
        raise AllParametersFixedError(
            "All parameters fixed. There is nothing to optimize. Leave at least one of "
            f"{names} free (drop its f0.., floc or fscale)."
        )
    _check_fixed_values(dist, names, fixed)
    return FitSpec(dist, names, fixed, guesses, method, optimizer)


def _check_fixed_values(dist, names, fixed: dict[int, float]) -> None:
    n_shapes = len(names) - 2
    if n_shapes + 1 in fixed and fixed[n_shapes + 1] <= 0:
        raise InvalidParameterError(  # (scipy's opening first: its tests match it)
            f"Negative or zero `fscale` is outside the range allowed by the distribution: "
            f"fscale={fixed[n_shapes + 1]!r} must be positive.")
    if n_shapes and all(j in fixed for j in range(n_shapes)):
        shapes = [fixed[j] for j in range(n_shapes)]
        with np.errstate(all="ignore"):
            ok = bool(np.all(dist._argcheck(*map(np.asarray, shapes))))
        if not ok:
            raise InvalidParameterError(
                f"the fixed shape values {dict(zip(names, shapes, strict=False))} are not "
                f"valid for "
                f"{dist.name}; check its documented parameter domain."
            )
    for j in range(n_shapes):
        if j in fixed:
            lo, hi = shape_domain(dist, j)
            if not lo <= fixed[j] <= hi:
                raise InvalidParameterError(
                    f"fixed {names[j]}={fixed[j]!r} is outside its domain [{lo}, {hi}] for "
                    f"{dist.name}."
                )


def shape_domain(dist, j: int) -> tuple[float, float]:
    """Closed domain ``(lo, hi)`` of shape ``j`` from scipy's shape info, or, for a
    distribution without it, as its ``_argcheck`` accepts (:mod:`.shape_domains`)."""
    try:
        info = dist._shape_info()[j]
        lo, hi = (float(v) for v in info.domain)
    except (AttributeError, IndexError, NotImplementedError, TypeError):
        lo, hi = probed_shape_domain(dist, j)
    return lo, hi


def shape_integrality(dist, j: int) -> bool:
    """Whether shape ``j`` takes integer values: from scipy's shape info, or, for a
    distribution without it, where its ``_argcheck`` takes only integers
    (:func:`.shape_domains.probed_integrality`): a hand-written Erlang had stayed at its
    start's integer, claiming success 10 log-likelihood units short."""
    try:
        return bool(dist._shape_info()[j].integrality)
    except (AttributeError, IndexError, NotImplementedError, TypeError):
        return probed_integrality(dist, j)
