"""Array-generic backend: model specs and user ``grad_fn`` on NumPy or CuPy (or JAX) arrays.

The same code runs with ``xp = numpy`` and ``xp = cupy``; samples are processed in
chunks of ``chunk_size`` in a Python loop so memory stays bounded by the chunk.
"""

from __future__ import annotations

import contextlib
import math
from collections import OrderedDict
from collections.abc import Callable
from typing import Any

import numpy as np

from ..errors import InvalidInputError
from . import _tree
from .chunking import choose_chunk_size, spec_elements
from .derivatives import backward
from .signals import FullSignal
from .specs import DenseModel
from .statistics import accumulation_dtype, all_finite, chunk_statistics


def _take(batch_leaves: list, start: int, stop: int) -> list:
    return [leaf[start:stop] for leaf in batch_leaves]


def spec_signals(model: DenseModel, params: Any, batch: Any, xp: Any) -> tuple[Any, list]:
    """Per-sample losses and backward signals of a :class:`DenseModel`, leaf-ordered."""
    x, y = batch
    losses, per_layer = backward(model, model.layer_params(params), xp.asarray(x), y, xp)
    tree = per_layer[0] if isinstance(params, dict) else per_layer
    return losses, _tree.flatten(_ordered_like(params, tree))[0]


def _ordered_like(template: Any, tree: Any) -> Any:
    """``tree`` (dicts of signals) with the ``OrderedDict``s of ``template`` (the
    params) in their key order: ``params`` is flattened in that order, by JAX's tree and
    by :mod:`._tree` alike, and a plain dict of signals is flattened sorted."""
    if isinstance(template, OrderedDict) and isinstance(tree, dict):
        return OrderedDict((k, _ordered_like(template[k], tree[k])) for k in template)
    if isinstance(template, dict) and isinstance(tree, dict):
        return {k: _ordered_like(template[k], tree[k]) for k in tree}
    if isinstance(template, (list, tuple)) and isinstance(tree, (list, tuple)):
        return [_ordered_like(t, s) for t, s in zip(template, tree, strict=True)]
    return tree


def grad_fn_signals(grad_fn: Callable, params: Any, batch: Any, n: int) -> list:
    """Call a user's vectorised per-sample gradient function and check its output."""
    param_leaves, _ = _tree.flatten(params)
    grads, _ = _tree.flatten(grad_fn(params, batch))
    if len(grads) != len(param_leaves):
        raise InvalidInputError(
            f"grad_fn returned {len(grads)} leaves but params has {len(param_leaves)}; it "
            "must return a pytree shaped like params with a leading batch axis."
        )
    for g, p in zip(grads, param_leaves, strict=True):
        if tuple(g.shape) != (n, *p.shape):
            raise InvalidInputError(
                f"grad_fn returned a leaf of shape {tuple(g.shape)} where {(n, *p.shape)} "
                "(batch size first, then the parameter's shape) was expected."
            )
    return [FullSignal(g) for g in grads]


def array_statistics(
    loss: Any,
    params: Any,
    batch: Any,
    *,
    n: int,
    stat: str,
    chunk_size: int | None,
    mask_nonfinite: bool,
    xp: Any,
    grad_fn: Callable | None = None,
    memory_budget: int | None = None,
) -> tuple[Any, np.ndarray, Callable, int]:
    """Statistic ``stat`` over the batch; return ``(value, finite, unflatten, chunk)``.

    ``value`` is a list of leaves for "sum", "mean" (over the samples used) and
    "squares" (rebuild with ``unflatten``) and a (batch,) array of squared norms for
    "norms"; ``finite`` is a NumPy boolean array; ``chunk`` the samples per chunk:
    ``chunk_size``, or the most whose intermediates fit in ``memory_budget`` (a spec's
    layer inputs and outputs, or the full gradients a ``grad_fn`` returns).
    """
    param_leaves, unflatten = _tree.flatten(params)
    batch_leaves, rebuild_batch = _tree.flatten(batch)
    dtypes = [accumulation_dtype(p.dtype, xp) for p in param_leaves]
    if chunk_size is None:
        per_sample = (spec_elements(loss.layer_params(params))
                      if grad_fn is None and isinstance(loss, DenseModel)
                      else sum(int(np.prod(p.shape)) for p in param_leaves))
        itemsize = max(np.dtype(d).itemsize for d in dtypes)
        chunk_size = choose_chunk_size(per_sample, itemsize, n, memory_budget)
    chunk = min(chunk_size, n)
    mean = stat == "mean"
    stat = "sum" if mean else stat
    parts, finite_parts = [], []
    quiet = np.errstate(all="ignore") if xp is np else contextlib.nullcontext()
    with quiet:  # non-finite samples are detected and handled below, by nan_policy
        for start in range(0, n, chunk):
            stop = min(start + chunk, n)
            sub = rebuild_batch(_take(batch_leaves, start, stop))
            if grad_fn is not None:
                losses, signals = None, grad_fn_signals(grad_fn, params, sub, stop - start)
            else:
                losses, signals = spec_signals(loss, params, sub, xp)
            for check in (False, True):
                value, finite = chunk_statistics(
                    losses, signals, dtypes, stat=stat, valid=None,
                    mask_nonfinite=mask_nonfinite, check_gradients=check, xp=xp,
                    average=mean and chunk == n, eager=True,
                    divisor=n if mean and chunk < n else None,  # (see jax_backend)
                )
                if bool(all_finite(value, xp)):  # one wait for the device
                    break
            parts.append(value)
            finite_parts.append(finite)
    finite = np.concatenate([_to_numpy(f) for f in finite_parts])
    if stat == "sum":
        value = [sum(leaf) for leaf in zip(*parts, strict=True)]
        if mean and chunk < n and mask_nonfinite:  # over the samples in the sums
            used = int(finite.sum())
            value = [v * (n / used) if used else v * math.nan for v in value]
    elif stat == "squares":
        value = [xp.concatenate(leaf) for leaf in zip(*parts, strict=True)]
    else:
        value = xp.concatenate(parts)
    return value, finite, unflatten, chunk


def _to_numpy(x: Any) -> np.ndarray:
    return x.get() if hasattr(x, "get") else np.asarray(x)
