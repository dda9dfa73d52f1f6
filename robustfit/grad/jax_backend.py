"""JAX backend: chunked, jitted ``vmap(grad)`` with the dense identity where it applies.

The batch is split into chunks of ``chunk_size`` samples (padded to a whole number of
chunks; padding rows are masked out) and reduced with ``lax.scan``, so memory is bounded
by ``chunk_size x n_generic_params`` rather than ``batch x n_params``. Compiled functions
are cached per (loss, shapes, dtypes, settings), so a training loop compiles once.
"""

from __future__ import annotations

import inspect
import math
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from ..errors import InvalidInputError
from . import jaxpr_dense
from .array_backend import spec_signals
from .chunking import choose_chunk_size, spec_elements
from .signals import FullSignal
from .specs import DenseModel
from .statistics import accumulation_dtype, all_finite, chunk_statistics

_CACHE: OrderedDict = OrderedDict()
_CACHE_SIZE = 64


@dataclass(frozen=True)
class Route:
    """How each leaf is computed: "spec", "dense", "bias" or "generic", and the chunk."""

    paths: tuple[str, ...]
    chunk_size: int
    plan: Any = None


def _signature(leaves: list, treedef: Any) -> tuple:
    # weak types too: a Python float traces as a weakly typed scalar, which promotes to
    # its partner's dtype (bfloat16 times 1.37 stays bfloat16), and an array of the same
    # shape and dtype does not; a plan traced for one replayed for the other computed in
    # the wrong precision (1.2% off a loop of jax.grad)
    return (treedef, tuple((x.shape, x.dtype, bool(getattr(x, "weak_type", False)))
                           for x in leaves))


def _as_jax(tree: Any) -> tuple[list, Any]:
    """Leaves of ``tree`` as JAX arrays (converted only where they are not yet), treedef."""
    leaves, treedef = jax.tree_util.tree_flatten(tree)
    return [x if isinstance(x, jax.Array) else jnp.asarray(x) for x in leaves], treedef


def _check_scalar_loss(loss: Any, params: Any, sample: Any) -> None:
    out = jax.eval_shape(loss, params, sample)
    shape = getattr(out, "shape", None)
    if shape != () or not jnp.issubdtype(out.dtype, jnp.floating):
        raise InvalidInputError(
            f"loss must return a scalar float for one sample, got "
            f"{getattr(out, 'dtype', type(out).__name__)}{list(shape or [])}; loss(params, "
            "sample) is called per sample (batch leaves without their leading axis), so "
            "do not average over a batch inside it."
        )


def plan_route(
    loss: Any, params: Any, batch: Any, n: int, chunk_size: int | None,
    budget: int | None, fast_path: bool,
) -> Route:
    """Decide the path of every leaf and the chunk size."""
    leaves, treedef = jax.tree_util.tree_flatten(params)
    itemsize = max(np.dtype(x.dtype).itemsize for x in leaves)
    if isinstance(loss, DenseModel) and fast_path:
        chunk = chunk_size or choose_chunk_size(
            spec_elements(loss.layer_params(params)), itemsize, n, budget)
        return Route(("spec",) * len(leaves), min(chunk, n))
    sample = jax.tree_util.tree_map(lambda x: x[0], batch)
    _check_scalar_loss(loss, params, sample)
    plan = None
    if fast_path:
        plan = jaxpr_dense.analyse(
            loss, leaves, lambda ls: jax.tree_util.tree_unflatten(treedef, ls), sample
        )
        if not plan.taps:
            plan = None
    if plan is None:
        paths = (jaxpr_dense.GENERIC,) * len(leaves)
        per_sample = sum(int(np.prod(x.shape)) for x in leaves)
    else:
        paths = plan.kinds
        eqns = plan.closed_jaxpr.jaxpr.eqns
        tap_sizes = [  # per tap: the output gradient, plus the input of a dense product
            int(np.prod(eqns[t.eqn].outvars[0].aval.shape))
            + (int(np.prod(eqns[t.eqn].invars[t.other].aval.shape)) if t.kind == "dense" else 0)
            for t in plan.taps
        ]
        per_sample = sum(int(np.prod(leaves[i].shape)) for i in plan.generic_leaves)
        per_sample += sum(tap_sizes)
    chunk = chunk_size or choose_chunk_size(per_sample, itemsize, n, budget)
    return Route(paths, min(chunk, n), plan)


def _signals_fn(loss: Any, route: Route, treedef: Any, batch_treedef: Any) -> Callable:
    """(param leaves, chunk of batch leaves) -> (losses, signals)."""
    if route.paths[0] == "spec":
        def spec(leaves: list, chunk: list) -> tuple:
            params = jax.tree_util.tree_unflatten(treedef, leaves)
            batch = jax.tree_util.tree_unflatten(batch_treedef, chunk)
            return spec_signals(loss, params, batch, jnp)
        return spec
    if route.plan is not None:
        return lambda leaves, chunk: jaxpr_dense.plan_signals(route.plan, leaves, chunk)

    def one(ls: list, sample: list) -> Any:
        return loss(
            jax.tree_util.tree_unflatten(treedef, ls),
            jax.tree_util.tree_unflatten(batch_treedef, sample),
        )

    def generic(leaves: list, chunk: list, valid: Any = None) -> tuple:
        if valid is None:
            losses, grads = jax.vmap(jax.value_and_grad(one), in_axes=(None, 0))(
                leaves, chunk)
            return losses, [FullSignal(g) for g in grads]

        # the samples kept (valid, with a finite loss) weight the backward pass itself:
        # each sample's cotangent is 1 or 0, and no pass over the per-sample gradients
        # masks them (a NaN that 0 * inf lets through sends the call to the checked pass)
        def weighted(sample: list, keep: Any) -> tuple:
            value, pullback = jax.vjp(lambda ls: one(ls, sample), leaves)
            weight = jnp.where(keep & jnp.isfinite(value), 1, 0).astype(value.dtype)
            return value, pullback(weight)[0]
        losses, grads = jax.vmap(weighted)(chunk, valid)
        return losses, [FullSignal(g) for g in grads]
    return generic


def _all_generic(route: Route) -> bool:
    """Whether every leaf of ``route`` takes the generic path (no spec, no dense plan):
    its signals function then takes the chunk's ``valid`` rows to weight the samples."""
    return route.paths[0] != "spec" and route.plan is None


def _compile(
    loss: Any, route: Route, leaves: list, treedef: Any, batch_leaves: list,
    batch_treedef: Any, n: int, stat: str, mask: bool, check: bool,
) -> Callable:
    dtypes = [accumulation_dtype(x.dtype, jnp) for x in leaves]
    signals_of = _signals_fn(loss, route, treedef, batch_treedef)
    chunk = route.chunk_size
    n_chunks = math.ceil(n / chunk)
    mean = stat == "mean"
    stat = "sum" if mean else stat

    # the first pass of a generic route weights its samples in the backward pass
    weighted = mask and not check and _all_generic(route)

    def reduce_chunk(leaves: list, chunk_leaves: list, valid: Any, average: bool = False):
        if weighted:
            losses, signals = signals_of(leaves, chunk_leaves, valid)
        else:
            losses, signals = signals_of(leaves, chunk_leaves)
        return chunk_statistics(
            losses, signals, dtypes, stat=stat, valid=valid, mask_nonfinite=mask,
            check_gradients=check, xp=jnp, average=average, premasked=weighted,
            # (a mean over chunks: each chunk's squares divided by n before the sums,
            # which then stay finite where the mean is; summed first, 64 squares of
            # 8.1e37 overflowed float32 over 8 chunks, silently, one chunk gave 8.1e37)
            divisor=n if mean and n_chunks > 1 else None,
        )

    def run(leaves: list, batch_leaves: list) -> tuple:
        if n_chunks == 1:  # a mean is divided inside the reductions
            value, finite = reduce_chunk(leaves, batch_leaves, jnp.ones((n,), bool), mean)
        else:
            value, finite = reduce_all(leaves, batch_leaves)
            if mean and mask:  # over the samples that entered the sums (divided by n)
                used = jnp.sum(finite)
                value = [v * (jnp.asarray(n, v.dtype) / jnp.asarray(used, v.dtype))
                         for v in value]
        # one array, so that the host waits for one transfer: the mask, then the flag
        return value, jnp.concatenate([finite, all_finite(value, jnp)[None]])

    def reduce_all(leaves: list, batch_leaves: list) -> tuple:
        pad = n_chunks * chunk - n
        # Pad by repeating sample 0, which the loss is known to accept; padding is masked.
        padded = [
            jnp.concatenate([x, jnp.repeat(x[:1], pad, axis=0)]) if pad else x
            for x in batch_leaves
        ]
        shaped = [jnp.reshape(x, (n_chunks, chunk, *x.shape[1:])) for x in padded]
        valid = jnp.reshape(jnp.arange(n_chunks * chunk) < n, (n_chunks, chunk))
        if stat == "sum":
            # compensated (Kahan) sums across chunks: carried plainly in float32, 2e5
            # chunks of one sample drifted 2.7e-4 from a float64 loop (one chunk: 9e-7)
            def step(acc: tuple, xs: tuple) -> tuple:
                value, finite = reduce_chunk(leaves, *xs)
                sums, lost = zip(*[_compensated(a, c, v) for a, c, v in zip(
                    *acc, value, strict=True)], strict=True)
                return (list(sums), list(lost)), finite
            zeros = [jnp.zeros(x.shape, d) for x, d in zip(leaves, dtypes, strict=True)]
            (value, _), finite = jax.lax.scan(step, (zeros, zeros), (shaped, valid))
        else:
            value, finite = jax.lax.map(lambda xs: reduce_chunk(leaves, *xs), (shaped, valid))
            value = jax.tree_util.tree_map(
                lambda v: jnp.reshape(v, (n_chunks * chunk, *v.shape[2:]))[:n], value
            )
        return value, jnp.reshape(finite, (-1,))[:n]

    return jax.jit(run)


def _compensated(total: Any, lost: Any, value: Any) -> tuple[Any, Any]:
    """``(total + value, what the addition lost)`` by Kahan's step (``lost`` is the
    previous step's; it stays 0 where the total is not finite, which then propagates
    as it would uncompensated)."""
    y = value - lost
    t = total + y
    lost = (t - total) - y
    return t, jnp.where(jnp.isfinite(lost), lost, jnp.zeros_like(lost))


def jax_statistics(
    loss: Any, params: Any, batch: Any, *, n: int, stat: str, chunk_size: int | None,
    mask_nonfinite: bool, memory_budget: int | None, fast_path: bool, wait: bool = True,
) -> tuple[Any, np.ndarray | None, Callable, Route]:
    """Statistic ``stat`` over the batch on JAX; return ``(value, finite, unflatten, route)``.

    ``value`` is a list of leaves for "sum", "mean" (the sums over the samples used) and
    "squares", and a (batch,) array for "norms". ``wait=False`` (only without
    ``mask_nonfinite``, where the first pass already gives the result) returns at once,
    with ``finite=None``, leaving the device to finish.
    """
    leaves, treedef = _as_jax(params)
    batch_leaves, batch_treedef = _as_jax(batch)
    if (mask_nonfinite or wait) and any(
            isinstance(x, jax.core.Tracer) for x in leaves + batch_leaves):
        # (naming the samples needs their values on the host: under jax.jit or
        # jax.vmap that failed inside JAX, "'copy_to_host_async' is not available on
        # traced array")
        raise InvalidInputError(
            "per_sample_grad_sq was called on traced arrays (inside jax.jit, jax.vmap "
            "or another JAX transformation), where non-finite samples cannot be named or "
            "dropped: those need the values on the host. Inside a transformation pass "
            "nan_policy='propagate' and return_info=False (NaN then reaches the result), "
            "or call it outside the transformation.")
    key = (
        loss, _signature(leaves, treedef), _signature(batch_leaves, batch_treedef), stat,
        chunk_size, mask_nonfinite, memory_budget, fast_path,
        bool(jax.config.jax_enable_x64), jax.config.jax_default_matmul_precision,
    )
    try:
        hash(key)
    except TypeError:  # an unhashable loss (e.g. a callable with mutable state)
        key = None
    if inspect.ismethod(loss):
        # a bound method is a new object at every access, equal to the last while its
        # instance is the same: a plan traced before the instance changed (``self.scale``
        # set from 1 to 3) was replayed, 1/9 of the right value, and the key's reference
        # kept JAX's own trace of the old method alive, so that ``jax.jit(m.loss)``
        # returned the old value too. Traced afresh each call, as jax.jit(m.loss) is
        key = None
    entry = _CACHE.get(key) if key is not None else None
    if entry is None:
        params = jax.tree_util.tree_unflatten(treedef, leaves)
        batch = jax.tree_util.tree_unflatten(batch_treedef, batch_leaves)
        route = plan_route(loss, params, batch, n, chunk_size, memory_budget, fast_path)
        entry = {"route": route}
        if key is not None:
            _CACHE[key] = entry
            while len(_CACHE) > _CACHE_SIZE:
                _CACHE.popitem(last=False)
    else:
        _CACHE.move_to_end(key)
    route = entry["route"]
    unflatten = lambda ls: jax.tree_util.tree_unflatten(treedef, ls)  # noqa: E731

    def compiled(check: bool) -> Callable:
        if check not in entry:
            entry[check] = _compile(
                loss, route, leaves, treedef, batch_leaves, batch_treedef, n, stat,
                mask_nonfinite, check,
            )
        return entry[check]

    if not wait and not mask_nonfinite:
        return compiled(False)(leaves, batch_leaves)[0], None, unflatten, route
    # First without inspecting every materialised gradient; rerun with the check only
    # when the result is not finite (see robustfit.grad.statistics).
    for check in (False, True):
        value, status = compiled(check)(leaves, batch_leaves)
        # ask for the copy now, so that the device sends the mask as soon as it is done
        # instead of after telling the host it is done (one round trip, not two)
        status.copy_to_host_async()
        status = np.asarray(status)  # the one wait for the device
        if status[-1]:
            break
    return value, status[:-1], unflatten, route
