"""Public entry points: dispatch by backend, reductions and ``nan_policy``."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from .._validation import NAN_POLICIES, check_choice
from ..errors import (
    BackendUnavailableError,
    InvalidInputError,
    NonFiniteGradientError,
    RobustFitWarning,
    UnexpectedArgumentError,
)
from . import _tree
from ._namespace import array_namespace
from .info import GradSqInfo
from .specs import DenseModel

REDUCTIONS = ("mean", "sum", "none")
BACKENDS = ("auto", "jax", "cupy", "numpy")


def per_sample_grad_sq(
    loss: Callable[[Any, Any], Any],
    params: Any,
    batch: Any,
    *,
    reduction: str = "mean",
    backend: str = "auto",
    chunk_size: int | None = None,
    nan_policy: str = "raise",
    grad_fn: Callable[[Any, Any], Any] | None = None,
    fast_path: bool = True,
    memory_budget: int | None = None,
    return_info: bool = False,
    **unexpected: Any,
) -> Any:
    r"""Per-sample squared gradients, reduced over the batch without an O(batch²) loop.

    With :math:`g_i = \nabla_\theta \ell(\theta, x_i)` the gradient of one sample's loss,
    returns :math:`\frac1n\sum_i g_i^2` (``"mean"``, the diagonal of the empirical
    Fisher), :math:`\sum_i g_i^2` (``"sum"``) or every :math:`g_i^2` (``"none"``),
    elementwise, as a pytree shaped like ``params``.

    Parameters
    ----------
    loss : callable or DenseModel
        ``loss(params, sample) -> scalar`` for one sample (JAX-traceable for the JAX
        backend), or a model spec such as :func:`robustfit.grad.mlp`.
    params : pytree of arrays
        Parameters (dicts, lists, tuples; any JAX pytree on the JAX backend).
    batch : pytree of arrays
        Samples, each leaf with the same leading batch size ``n >= 1``.
    reduction : {"mean", "sum", "none"}
        ``"none"`` returns each leaf with a leading batch axis (without the rows of
        samples dropped by ``nan_policy="omit"``; ``info.omitted`` lists them).
    backend : {"auto", "jax", "cupy", "numpy"}
        ``"auto"``: CuPy for CuPy arrays, else JAX when installed, else NumPy. The NumPy
        and CuPy backends need a model spec as ``loss`` or a ``grad_fn``.
    chunk_size : int, optional
        Samples per vectorised chunk; by default the largest chunk whose per-sample
        gradients fit in ``memory_budget``.
    nan_policy : {"raise", "omit", "propagate"}
        Samples with a non-finite loss or gradient: raise
        :class:`~robustfit.NonFiniteGradientError` naming their indices (``.indices``);
        drop them (the mean is over the remaining samples; a
        :class:`~robustfit.RobustFitWarning` names them); or let NaN/inf through.
        Naming samples makes every call wait for the device (a GPU's result comes back
        to the host); ``"propagate"`` without ``return_info`` does not wait, as
        ``jit(grad)`` does not.
    grad_fn : callable, optional
        ``grad_fn(params, batch) -> per-sample gradients``, a pytree shaped like
        ``params`` with a leading batch axis, e.g. your own vectorised CuPy gradient.
    fast_path : bool
        Use model specs' closed forms and the dense identity on leaves found in the
        jaxpr of ``loss``; False sends every leaf through chunked ``vmap(grad)``.
    memory_budget : int, optional
        Bytes one chunk's per-sample intermediates may take (default 256 MiB).
    return_info : bool
        Also return a :class:`~robustfit.grad.GradSqInfo` saying which path each leaf
        took, the chunk size, and which samples were non-finite or omitted.

    Returns
    -------
    pytree, or (pytree, GradSqInfo) with ``return_info=True``
        Accumulated in float32 or wider (bfloat16/float16 parameters give float32).

    Notes
    -----
    For a weight used once as ``z = a @ W`` the per-sample gradient is
    :math:`a_i \delta_i^T` with :math:`\delta_i = \partial\ell_i/\partial z_i`, so
    :math:`\sum_i g_i^2 = (A^2)^T (\Delta^2)`: one matrix product, the cost of one
    backward pass. Every other leaf is computed by ``vmap(grad)`` in chunks of
    ``chunk_size`` samples.

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> import robustfit
    >>> def loss(p, s):
    ...     x, y = s
    ...     return 0.5 * (x @ p["w"] + p["b"] - y) ** 2
    >>> params = {"w": jnp.array([1.0, -1.0]), "b": jnp.array(0.5)}
    >>> batch = (jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([0.0, 1.0]))
    >>> sq, info = robustfit.per_sample_grad_sq(loss, params, batch, return_info=True)
    >>> # residuals -0.5 and -1.5: g_w = -0.5 * [1, 2] and -1.5 * [3, 4]
    >>> [float(v) for v in sq["w"]]  # mean of [0.25, 1] and [20.25, 36]
    [10.25, 18.5]
    >>> info.paths
    {'b': 'bias', 'w': 'dense'}
    """
    _check_unexpected(unexpected, per_sample_grad_sq)
    check_choice(reduction, "reduction", REDUCTIONS)
    stat = {"none": "squares", "sum": "sum", "mean": "mean"}[reduction]
    value, unflatten, info = _run(
        loss, params, batch, stat, backend, chunk_size, nan_policy, grad_fn, fast_path,
        memory_budget, return_info,
    )
    result = unflatten(value)
    return (result, info) if return_info else result


def per_sample_grad_norms(
    loss: Callable[[Any, Any], Any],
    params: Any,
    batch: Any,
    *,
    backend: str = "auto",
    chunk_size: int | None = None,
    nan_policy: str = "raise",
    grad_fn: Callable[[Any, Any], Any] | None = None,
    fast_path: bool = True,
    memory_budget: int | None = None,
    return_info: bool = False,
    **unexpected: Any,
) -> Any:
    r"""Per-sample gradient L2 norms :math:`\|g_i\|_2` over all leaves, shape (batch,).

    Same arguments as :func:`per_sample_grad_sq`. Dense weights use
    :math:`\|a_i \delta_i^T\|^2 = \|a_i\|^2 \|\delta_i\|^2`, so no per-sample gradient
    of a dense layer is formed. With ``nan_policy="omit"`` the non-finite samples are
    dropped from the result (their indices are in ``info.omitted``).

    Examples
    --------
    >>> import jax.numpy as jnp
    >>> import robustfit
    >>> loss = lambda p, s: 0.5 * (s[0] @ p - s[1]) ** 2
    >>> batch = (jnp.array([[3.0, 4.0], [0.0, 1.0]]), jnp.array([1.0, 0.0]))
    >>> norms = robustfit.per_sample_grad_norms(loss, jnp.zeros(2), batch)
    >>> [float(v) for v in norms]
    [5.0, 0.0]
    """
    _check_unexpected(unexpected, per_sample_grad_norms)
    value, _, info = _run(
        loss, params, batch, "norms", backend, chunk_size, nan_policy, grad_fn, fast_path,
        memory_budget, return_info,
    )
    xp = array_namespace(value)
    norms = xp.sqrt(value)
    return (norms, info) if return_info else norms


def _run(
    loss: Any, params: Any, batch: Any, stat: str, backend: str, chunk_size: Any,
    nan_policy: str, grad_fn: Any, fast_path: bool, memory_budget: Any, return_info: bool,
) -> tuple[Any, Callable, GradSqInfo]:
    """Validate, dispatch, apply ``nan_policy``; return (leaves or norms, unflatten, info).

    With ``nan_policy="propagate"`` and no ``info`` asked for, nothing needs the sample
    mask, so the JAX backend returns without waiting for the device (as ``jit(grad)``
    does); ``info`` then lists no non-finite samples and is not returned.
    """
    check_choice(backend, "backend", BACKENDS)
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    _check_bool(fast_path, "fast_path")
    _check_bool(return_info, "return_info")
    _check_callable(loss, grad_fn)
    chunk_size = _check_positive_int(chunk_size, "chunk_size")
    memory_budget = _check_positive_int(memory_budget, "memory_budget")
    param_leaves, batch_leaves = _leaves(params), _leaves(batch)
    n = _batch_size(batch_leaves)
    _check_params(param_leaves)
    backend = _resolve_backend(backend, loss, param_leaves + batch_leaves, grad_fn)
    mask = nan_policy != "propagate"
    if backend == "jax" and grad_fn is None:
        from .jax_backend import jax_statistics

        value, finite, unflatten, route = jax_statistics(
            loss, params, batch, n=n, stat=stat, chunk_size=chunk_size,
            mask_nonfinite=mask, memory_budget=memory_budget, fast_path=fast_path,
            wait=mask or return_info,
        )
        paths, chunk = unflatten(list(route.paths)), route.chunk_size
    else:
        from .array_backend import array_statistics

        xp = importlib.import_module("cupy") if backend == "cupy" else None
        if xp is None:
            xp = array_namespace(*_tree.flatten(params)[0])
        value, finite, unflatten, chunk = array_statistics(
            loss, params, batch, n=n, stat=stat, chunk_size=chunk_size,
            mask_nonfinite=mask, xp=xp, grad_fn=grad_fn, memory_budget=memory_budget,
        )
        kind = "grad_fn" if grad_fn is not None else "spec"
        paths = unflatten([kind] * len(_tree.flatten(params)[0]))
    if finite is None:  # not waited for: propagate, and no info asked for
        return value, unflatten, GradSqInfo(backend, paths, chunk, n, n)
    bad = np.flatnonzero(~finite)
    info = GradSqInfo(backend, paths, chunk, n, n, nonfinite=bad)
    info = _apply_nan_policy(info, nan_policy)
    if nan_policy == "omit" and len(info.omitted) and stat in ("squares", "norms"):
        value = _drop_rows(value, info.omitted, n)
    return value, unflatten, info


def _drop_rows(value: Any, omitted: np.ndarray, n: int) -> Any:
    keep = np.setdiff1d(np.arange(n), omitted)
    if isinstance(value, list):
        xp = array_namespace(*value)
        return [v[xp.asarray(keep)] for v in value]
    return value[array_namespace(value).asarray(keep)]


def _apply_nan_policy(info: GradSqInfo, nan_policy: str) -> GradSqInfo:
    bad = info.nonfinite
    if len(bad) == 0 or nan_policy == "propagate":
        return info
    shown = ", ".join(map(str, bad[:10])) + (", ..." if len(bad) > 10 else "")
    what = f"{len(bad)} of {info.n_samples} samples have a non-finite loss or gradient"
    if nan_policy == "raise" or len(bad) == info.n_samples:
        fix = "pass nan_policy='omit' to drop them" if nan_policy == "raise" else (
            "no sample is left to average"
        )
        raise NonFiniteGradientError(
            f"{what} (batch indices {shown}); inspect those samples, or {fix}.", indices=bad
        )
    warnings.warn(
        f"{what}; omitted batch indices {shown} (see info.omitted).",
        RobustFitWarning, stacklevel=4,
    )
    return GradSqInfo(
        info.backend, info.paths, info.chunk_size, info.n_samples,
        info.n_samples - len(bad), omitted=bad, nonfinite=bad,
    )


def _check_callable(loss: Any, grad_fn: Any) -> None:
    if not callable(loss):
        raise InvalidInputError(
            f"loss must be callable as loss(params, sample) -> scalar, got "
            f"{type(loss).__name__}."
        )
    if grad_fn is not None and not callable(grad_fn):
        raise InvalidInputError("grad_fn must be callable as grad_fn(params, batch).")


def _check_unexpected(unexpected: dict, fn: Callable) -> None:
    if unexpected:
        names = [k for k, p in inspect.signature(fn).parameters.items()
                 if p.kind is inspect.Parameter.KEYWORD_ONLY]
        raise UnexpectedArgumentError(
            f"{fn.__name__} got unexpected keyword argument(s) {sorted(unexpected)}; its "
            f"keywords are {', '.join(names)}."
        )


def _check_bool(value: Any, name: str) -> None:
    # (a string such as "no" is truthy: fast_path="no" had taken the fast path)
    if not isinstance(value, (bool, np.bool_)):
        raise InvalidInputError(f"{name} must be True or False, got {value!r}.")


def _check_positive_int(value: Any, name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
        raise InvalidInputError(f"{name} must be a positive integer or None, got {value!r}.")
    return int(value)


def _batch_size(leaves: list) -> int:
    if not leaves:
        raise InvalidInputError("batch holds no arrays; pass e.g. (X, y) with X.shape[0] == n.")
    sizes = []
    for i, leaf in enumerate(leaves):
        shape = getattr(leaf, "shape", np.shape(leaf))
        if len(shape) == 0:
            raise InvalidInputError(
                f"batch leaf {i} is a scalar; every leaf of batch needs a leading batch "
                "axis (add one with x[None] for a single sample)."
            )
        sizes.append(int(shape[0]))
        if _non_numeric(getattr(leaf, "dtype", None)):
            raise InvalidInputError(
                f"batch leaf {i} has dtype {leaf.dtype}; batch leaves must be numeric arrays "
                "(convert with np.asarray(..., dtype=float))."
            )
    if len(set(sizes)) > 1:
        raise InvalidInputError(
            f"batch leaves have different leading (batch) sizes {sizes}; every leaf must "
            "hold the same number of samples along axis 0."
        )
    if sizes[0] == 0:
        raise InvalidInputError(
            "batch is empty (leading axis of size 0); pass at least one sample."
        )
    return sizes[0]


def _check_params(leaves: list) -> None:
    if not leaves:
        raise InvalidInputError("params holds no arrays; pass a pytree of float arrays.")
    for i, leaf in enumerate(leaves):
        dtype = getattr(leaf, "dtype", None)
        if dtype is None:
            dtype = np.asarray(leaf).dtype
        if not _is_float(dtype):
            raise InvalidInputError(
                f"params leaf {i} has dtype {dtype}; gradients need floating-point "
                "parameters (convert with .astype(float))."
            )


def _non_numeric(dtype: Any) -> bool:
    """Whether ``dtype`` holds objects or strings (an object array of ``None`` had
    reached JAX, whose TypeError escaped). Not numpy's "void" kind: bfloat16 is one."""
    if dtype is None:
        return False
    try:
        return np.dtype(dtype).kind in "OSU"
    except TypeError:  # (a dtype numpy cannot describe: not one of these)
        return False


@functools.cache
def _is_float(dtype: Any) -> bool:
    return "float" in str(dtype)  # bfloat16 and float8 types too, unlike np.floating


@functools.cache
def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _leaves(tree: Any) -> list:
    if _installed("jax"):
        import jax

        return jax.tree_util.tree_leaves(tree)
    return _tree.flatten(tree)[0]


def _resolve_backend(backend: str, loss: Any, arrays: list, grad_fn: Any) -> str:
    closed_form = isinstance(loss, DenseModel) or grad_fn is not None
    if backend == "auto":
        if array_namespace(*arrays).__name__ == "cupy":
            backend = "cupy"
        elif grad_fn is not None:
            backend = "numpy" if array_namespace(*arrays) is np else "jax"
        elif _installed("jax"):
            backend = "jax"
        elif closed_form:
            backend = "numpy"
        else:
            raise BackendUnavailableError(
                "per_sample_grad_sq needs JAX to differentiate an arbitrary loss: "
                "pip install 'robustfit[jax]', or pass a model spec (robustfit.grad.mlp, ...) "
                "or grad_fn=."
            )
    module = {"jax": "jax", "cupy": "cupy"}.get(backend)
    if module and not _installed(module):
        extra = "jax" if module == "jax" else "cupy"
        raise BackendUnavailableError(
            f"backend={backend!r} needs {module}, which is not installed: "
            f"pip install 'robustfit[{extra}]', or pass backend='auto'."
        )
    if backend in ("numpy", "cupy") and not closed_form:
        raise InvalidInputError(
            f"backend={backend!r} cannot differentiate an arbitrary loss; pass a model spec "
            "(robustfit.grad.mlp, logistic_regression, ...) as loss, or grad_fn=, or use "
            "backend='jax'."
        )
    return backend
