"""Automatic dense fast path for plain ``jax.numpy`` losses, found in the loss's jaxpr.

A parameter leaf ``W`` qualifies when the jaxpr of ``loss(params, sample)`` uses it
exactly once, in a ``dot_general`` with a 1-D per-sample operand ``a`` and no batch
dimensions (``a @ W``, ``W @ a``, ``a @ w``). Then the chain rule gives the per-sample
gradient ``a_i (x) delta_i`` with ``delta_i`` the gradient of the loss with respect to
the product's output, whatever else the loss does. A leaf ``b`` used exactly once in an
``add``/``sub`` with an operand of its own shape (a bias) has per-sample gradient
``+-delta_i`` of that sum. Any other use -- a weight shared over a sequence (``a`` 2-D),
a convolution, a second use, a dtype conversion -- leaves the leaf to the generic path;
if in doubt, the analysis says no.

The ``delta_i`` are obtained by re-evaluating the jaxpr with zero-valued *taps* added to
the outputs of those equations and differentiating with respect to the taps, vmapped
over samples: a (batch, width) array per tap, never a (batch, parameters) one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
from jax.extend import core as jcore

from .signals import DenseSignal, FullSignal

#: How a parameter leaf's per-sample gradient is obtained.
DENSE, BIAS, GENERIC = "dense", "bias", "generic"


@dataclass(frozen=True)
class Tap:
    """A zero added to the output of equation ``eqn`` of the loss's jaxpr."""

    eqn: int
    leaf: int
    kind: str  # DENSE or BIAS
    other: int  # position in eqn.invars of the activation (DENSE) or the summand (BIAS)
    transposed: bool = False
    sign: float = 1.0


@dataclass(frozen=True)
class DensePlan:
    """Which leaves take the dense identity, and how to evaluate the tapped loss."""

    closed_jaxpr: Any
    kinds: tuple[str, ...]
    taps: tuple[Tap, ...]

    @property
    def generic_leaves(self) -> list[int]:
        return [i for i, k in enumerate(self.kinds) if k == GENERIC]


def _uses(jaxpr: Any) -> dict:
    uses: dict = {}
    for e, eqn in enumerate(jaxpr.eqns):
        for pos, v in enumerate(eqn.invars):
            if not isinstance(v, jcore.Literal):
                uses.setdefault(v, []).append((e, pos))
    return uses


def _dense_tap(eqn: Any, e: int, pos: int, leaf: int) -> Tap | None:
    (lc, rc), (lb, rb) = eqn.params["dimension_numbers"]
    if lb or rb or len(eqn.invars) != 2:
        return None
    other = 1 - pos
    w_aval, a_aval = eqn.invars[pos].aval, eqn.invars[other].aval
    w_contract, a_contract = (lc, rc) if pos == 0 else (rc, lc)
    if len(a_aval.shape) != 1 or tuple(a_contract) != (0,) or len(w_contract) != 1:
        return None
    if len(w_aval.shape) == 1 and tuple(w_contract) == (0,):
        return Tap(e, leaf, DENSE, other)
    if len(w_aval.shape) == 2 and tuple(w_contract) in ((0,), (1,)):
        return Tap(e, leaf, DENSE, other, transposed=tuple(w_contract) == (1,))
    return None


def _bias_tap(eqn: Any, e: int, pos: int, leaf: int) -> Tap | None:
    if len(eqn.invars) != 2:
        return None
    other = 1 - pos
    shape = eqn.invars[pos].aval.shape
    if eqn.invars[other].aval.shape != shape or eqn.outvars[0].aval.shape != shape:
        return None
    sign = -1.0 if eqn.primitive.name == "sub" and pos == 1 else 1.0
    return Tap(e, leaf, BIAS, other, sign=sign)


def _through_identity_casts(jaxpr: Any, uses: dict, var: Any, outputs: set) -> Any:
    """Follow a leaf through casts that change only the weak type (``jnp.array(0.5)``)."""
    while len(uses.get(var, [])) == 1 and var not in outputs:
        eqn = jaxpr.eqns[uses[var][0][0]]
        if eqn.primitive.name != "convert_element_type":
            break
        if eqn.params["new_dtype"] != var.aval.dtype:
            break
        var = eqn.outvars[0]
    return var


def analyse(loss: Any, param_leaves: Sequence, unflatten: Any, sample: Any) -> DensePlan:
    """Trace ``loss`` on one sample and decide, leaf by leaf, dense / bias / generic."""
    n = len(param_leaves)
    closed = jax.make_jaxpr(lambda leaves, s: loss(unflatten(leaves), s))(
        list(param_leaves), sample
    )
    jaxpr = closed.jaxpr
    uses = _uses(jaxpr)
    outputs = {v for v in jaxpr.outvars if not isinstance(v, jcore.Literal)}
    kinds, taps = [], []
    for leaf, var in enumerate(jaxpr.invars[:n]):
        var = _through_identity_casts(jaxpr, uses, var, outputs)
        use = uses.get(var, [])
        tap = None
        if len(use) == 1 and var not in outputs:
            e, pos = use[0]
            eqn = jaxpr.eqns[e]
            if eqn.primitive.name == "dot_general":
                tap = _dense_tap(eqn, e, pos, leaf)
            elif eqn.primitive.name in ("add", "sub"):
                tap = _bias_tap(eqn, e, pos, leaf)
        if tap is None or any(t.eqn == tap.eqn for t in taps):
            kinds.append(GENERIC)
        else:
            kinds.append(tap.kind)
            taps.append(tap)
    return DensePlan(closed, tuple(kinds), tuple(taps))


def _bind(eqn: Any, invals: list) -> Any:
    params = eqn.primitive.get_bind_params(eqn.params)
    if isinstance(params, tuple):  # older JAX: (subfuns, params)
        subfuns, params = params
        invals = [*subfuns, *invals]
    with eqn.ctx.manager:
        return eqn.primitive.bind(*invals, **params)


def tapped_loss(plan: DensePlan, leaves: list, sample_leaves: list, taps: list) -> tuple:
    """Evaluate the loss's jaxpr with ``taps[j]`` added at ``plan.taps[j]``.

    Returns ``(loss, activations)``; ``activations[j]`` is the per-sample operand of a
    dense tap (``None`` for bias taps).
    """
    jaxpr = plan.closed_jaxpr.jaxpr
    env: dict = {}

    def read(v: Any) -> Any:
        return v.val if isinstance(v, jcore.Literal) else env[v]

    for v, c in zip(jaxpr.constvars, plan.closed_jaxpr.consts, strict=True):
        env[v] = c
    for v, x in zip(jaxpr.invars, [*leaves, *sample_leaves], strict=True):
        env[v] = x
    at = {t.eqn: j for j, t in enumerate(plan.taps)}
    activations: list = [None] * len(plan.taps)
    for e, eqn in enumerate(jaxpr.eqns):
        invals = [read(v) for v in eqn.invars]
        out = _bind(eqn, invals)
        if e in at:
            j = at[e]
            out = out + taps[j]
            if plan.taps[j].kind == DENSE:
                activations[j] = invals[plan.taps[j].other]
        if eqn.primitive.multiple_results:
            for v, x in zip(eqn.outvars, out, strict=True):
                env[v] = x
        else:
            env[eqn.outvars[0]] = out
    return read(jaxpr.outvars[0]), activations


def plan_signals(plan: DensePlan, leaves: list, batch_leaves: list) -> tuple[Any, list]:
    """Per-sample losses and one signal per parameter leaf for a chunk of samples."""
    generic = plan.generic_leaves
    tap_avals = [plan.closed_jaxpr.jaxpr.eqns[t.eqn].outvars[0].aval for t in plan.taps]
    zeros = [jnp.zeros(a.shape, a.dtype) for a in tap_avals]

    def per_sample(generic_vals: list, taps: list, sample_leaves: list) -> tuple:
        full = list(leaves)
        for i, v in zip(generic, generic_vals, strict=True):
            full[i] = v
        return tapped_loss(plan, full, sample_leaves, taps)

    grad = jax.value_and_grad(per_sample, argnums=(0, 1), has_aux=True)
    (losses, acts), (g_generic, deltas) = jax.vmap(grad, in_axes=(None, None, 0))(
        [leaves[i] for i in generic], zeros, batch_leaves
    )
    signals: list = [None] * len(leaves)
    for i, g in zip(generic, g_generic, strict=True):
        signals[i] = FullSignal(g)
    for tap, a, d in zip(plan.taps, acts, deltas, strict=True):
        shape = tuple(leaves[tap.leaf].shape)
        if tap.kind == DENSE:
            rows = jnp.reshape(d, (d.shape[0], -1))
            signals[tap.leaf] = DenseSignal(a, rows, shape, tap.transposed)
        else:
            signals[tap.leaf] = FullSignal(d if tap.sign > 0 else -d)
    return losses, signals
