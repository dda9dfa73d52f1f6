"""Backward signals: what a layer's derivative hands to the reductions.

A per-sample gradient is represented in one of two forms:

* :class:`DenseSignal` -- for a weight that enters the loss only through one dense
  product ``z = a @ W``: the per-sample gradient is the outer product
  ``a_i[:, None] * delta_i[None, :]`` with ``delta_i = dL_i/dz_i``. The outer product is
  never formed; the reductions in :mod:`robustfit.grad.reductions` use the identity
  ``sum_i (a_i (x) delta_i)**2 = (A**2).T @ (Delta**2)``.
* :class:`FullSignal` -- any other leaf: the per-sample gradients themselves, with a
  leading batch axis (biases, whose per-sample gradient is ``delta_i``, are cheap in this
  form).

The derivatives (where signals come from) live in :mod:`~robustfit.grad.derivatives`
and :mod:`~robustfit.grad.jaxpr_dense`; the quantities built from them (squares, sums,
norms) live in :mod:`~robustfit.grad.reductions`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class DenseSignal:
    """Per-sample gradient of a dense weight, as layer inputs and output gradients.

    Attributes
    ----------
    inputs : array, shape (batch, d)
        The per-sample activation ``a_i`` multiplied into the weight.
    deltas : array, shape (batch, k)
        The per-sample gradient of the loss with respect to the product's output.
    shape : tuple of int
        The weight's shape: ``(d, k)``, ``(k, d)`` when ``transposed``, or ``(d,)`` when
        the product is a dot product with a scalar output (then ``k == 1``).
    transposed : bool
        True when the weight is stored ``(k, d)`` (the product was ``W @ a``).
    """

    inputs: Any
    deltas: Any
    shape: tuple[int, ...]
    transposed: bool = False


@dataclass(frozen=True)
class FullSignal:
    """Materialised per-sample gradients, shape ``(batch, *leaf.shape)``."""

    grads: Any
