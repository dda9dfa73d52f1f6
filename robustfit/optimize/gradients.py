"""Choosing the gradient source: finite differences, the user's ``jac``, or JAX."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..errors import BackendUnavailableError, InvalidInputError
from .events import EventLog

__all__ = ["gradient_source"]


def _jax_gradient(fun: Callable, args: tuple, x0: np.ndarray) -> Callable:
    import jax  # lazily: robustfit must import without JAX

    jax.config.update("jax_enable_x64", True)  # float64 gradients, like the objective
    grad = jax.jit(jax.grad(lambda x: fun(x, *args)))
    g0 = np.asarray(grad(x0), dtype=float)  # traces now, so failures show up here
    if g0.shape != x0.shape:
        raise TypeError(f"jax.grad returned shape {g0.shape}, expected {x0.shape}")
    return lambda x: np.asarray(grad(x), dtype=float)


# scipy's finite-difference schemes for ``jac``: taken as finite differences of
# robustfit's own (forward, then central near convergence). "cs" (complex step) is among
# them: it needs a fun that takes complex x, which a drop-in cannot assume
SCIPY_SCHEMES = ("2-point", "3-point", "cs")


def gradient_source(fun: Callable, args: tuple, jac, x0: np.ndarray,
                    log: EventLog) -> tuple[Callable | None, bool, str]:
    """Return ``(jac_x, returns_grad, name)`` for the ``jac`` argument.

    ``jac_x`` is a callable ``x -> gradient`` or None (finite differences, or the
    gradient comes with the value when ``returns_grad``).
    """
    if jac is None or jac is False or (isinstance(jac, str) and jac in SCIPY_SCHEMES):
        return None, False, "finite differences"
    if jac is True:
        return None, True, "returned by fun"
    if callable(jac):
        return (lambda x: jac(x, *args)), False, "jac"
    if jac in ("jax", "auto"):
        try:
            return _jax_gradient(fun, args, x0), False, "jax"
        except ImportError as exc:
            if jac == "jax":
                raise BackendUnavailableError(
                    "jac='jax' needs JAX; install it (pip install 'robustfit[jax]') or "
                    "use jac=None for finite differences.") from exc
            log.add("start", "gradient_choice", choice="finite differences",
                    reason="jax not installed")
        except Exception as exc:  # fun is not traceable by JAX
            if jac == "jax":
                raise InvalidInputError(
                    f"jac='jax' could not differentiate fun with jax.grad "
                    f"({type(exc).__name__}: {str(exc)[:150]}); write fun with jax.numpy "
                    f"or use jac=None.") from exc
            log.add("start", "gradient_choice", choice="finite differences",
                    reason=f"fun not traceable by JAX: {type(exc).__name__}")
        return None, False, "finite differences"
    raise InvalidInputError(
        f"jac={jac!r} is not valid; use None (finite differences, as scipy's "
        f"'2-point', '3-point' and 'cs' are taken), True (fun returns (f, g)), a callable "
        f"jac(x, *args), 'jax' or 'auto'.")
