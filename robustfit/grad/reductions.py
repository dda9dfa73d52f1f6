"""Quantities built from backward signals: squares, sums of squares, squared norms.

Written once against an array namespace ``xp`` (``numpy``, ``cupy`` or ``jax.numpy``),
these never differentiate anything; see :mod:`robustfit.grad.signals` for the inputs.
Every reduction takes ``keep``, a (batch,) boolean array: samples with ``keep == False``
contribute exactly zero, even when their values are NaN or infinite (``where``, never a
multiplication by zero). Masking inside the reduction lets XLA fuse it with the squares.
"""

from __future__ import annotations

from typing import Any

from .signals import DenseSignal, FullSignal

Signal = DenseSignal | FullSignal


def _rows(x: Any, xp: Any) -> Any:
    """View per-sample values as a (batch, features) matrix."""
    return xp.reshape(x, (x.shape[0], -1))


def _masked(x: Any, keep: Any, xp: Any) -> Any:
    """``x`` with the rows of dropped samples set to zero; ``x`` is (batch, ...)."""
    return xp.where(xp.reshape(keep, (-1,) + (1,) * (x.ndim - 1)), x, 0)


def _dense_parts(signal: DenseSignal, keep: Any, xp: Any, dtype: Any) -> tuple[Any, Any]:
    a = _masked(_rows(signal.inputs, xp), keep, xp).astype(dtype)
    d = _masked(_rows(signal.deltas, xp), keep, xp).astype(dtype)
    return a, d


def finite_rows(signal: Signal, xp: Any) -> Any:
    """Boolean (batch,) array: True where the sample's gradient is finite."""
    if isinstance(signal, DenseSignal):
        a, d = _rows(signal.inputs, xp), _rows(signal.deltas, xp)
        return xp.all(xp.isfinite(a), axis=1) & xp.all(xp.isfinite(d), axis=1)
    return xp.all(xp.isfinite(_rows(signal.grads, xp)), axis=1)


def sum_of_squares(signal: Signal, keep: Any, xp: Any, dtype: Any) -> Any:
    """``sum_i g_i**2`` over kept samples, leaf-shaped, accumulated in ``dtype``.

    For a dense weight this is ``(A**2).T @ (Delta**2)`` -- one matrix product, no
    per-sample gradient is formed.
    """
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, keep, xp, dtype)
        out = (a * a).T @ (d * d)
        return xp.reshape(out.T if signal.transposed else out, signal.shape)
    g = signal.grads.astype(dtype)
    return xp.sum(_masked(g * g, keep, xp), axis=0)


def squared_norms(signal: Signal, keep: Any, xp: Any, dtype: Any) -> Any:
    """``||g_i||**2`` per sample, shape (batch,); zero for dropped samples.

    For a dense weight ``||a_i (x) delta_i||**2 = ||a_i||**2 * ||delta_i||**2``.
    """
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, keep, xp, dtype)
        return xp.sum(a * a, axis=1) * xp.sum(d * d, axis=1)
    g = _rows(signal.grads, xp).astype(dtype)
    return _masked(xp.sum(g * g, axis=1), keep, xp)


def squares(signal: Signal, keep: Any, xp: Any, dtype: Any) -> Any:
    """``g_i**2`` per sample, shape (batch, *leaf.shape) -- materialises every sample."""
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, keep, xp, dtype)
        outer = (a * a)[:, :, None] * (d * d)[:, None, :]
        if signal.transposed:
            outer = xp.swapaxes(outer, 1, 2)
        return xp.reshape(outer, (a.shape[0], *signal.shape))
    g = signal.grads.astype(dtype)
    return _masked(g * g, keep, xp)
