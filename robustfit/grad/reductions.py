"""Quantities built from backward signals: squares, sums of squares, squared norms.

Written once against an array namespace ``xp`` (``numpy``, ``cupy`` or ``jax.numpy``),
these never differentiate anything; see :mod:`robustfit.grad.signals` for the inputs.
"""

from __future__ import annotations

from typing import Any

from .signals import DenseSignal, FullSignal

Signal = DenseSignal | FullSignal


def _rows(x: Any, xp: Any) -> Any:
    """View per-sample values as a (batch, features) matrix."""
    return xp.reshape(x, (x.shape[0], -1))


def _dense_parts(signal: DenseSignal, xp: Any) -> tuple[Any, Any]:
    return _rows(signal.inputs, xp), _rows(signal.deltas, xp)


def _to_leaf(matrix: Any, signal: DenseSignal, xp: Any) -> Any:
    """Arrange a (d, k) matrix as the weight is stored."""
    if signal.transposed:
        matrix = matrix.T
    return xp.reshape(matrix, signal.shape)


def zero_rows(signal: Signal, keep: Any, xp: Any) -> Signal:
    """Replace the rows of samples with ``keep == False`` by zeros (NaN-safe)."""
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, xp)
        return DenseSignal(
            xp.where(keep[:, None], a, 0), xp.where(keep[:, None], d, 0),
            signal.shape, signal.transposed,
        )
    g = _rows(signal.grads, xp)
    return FullSignal(xp.reshape(xp.where(keep[:, None], g, 0), signal.grads.shape))


def finite_rows(signal: Signal, xp: Any) -> Any:
    """Boolean (batch,) array: True where the sample's gradient is finite."""
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, xp)
        return xp.all(xp.isfinite(a), axis=1) & xp.all(xp.isfinite(d), axis=1)
    return xp.all(xp.isfinite(_rows(signal.grads, xp)), axis=1)


def sum_of_squares(signal: Signal, xp: Any, dtype: Any) -> Any:
    """``sum_i g_i**2``, leaf-shaped, accumulated in ``dtype``.

    For a dense weight this is ``(A**2).T @ (Delta**2)`` -- one matrix product, no
    per-sample gradient is formed.
    """
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, xp)
        a, d = a.astype(dtype), d.astype(dtype)
        return _to_leaf((a * a).T @ (d * d), signal, xp)
    g = signal.grads.astype(dtype)
    return xp.sum(g * g, axis=0)


def squared_norms(signal: Signal, xp: Any, dtype: Any) -> Any:
    """``||g_i||**2`` per sample, shape (batch,).

    For a dense weight ``||a_i (x) delta_i||**2 = ||a_i||**2 * ||delta_i||**2``.
    """
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, xp)
        a, d = a.astype(dtype), d.astype(dtype)
        return xp.sum(a * a, axis=1) * xp.sum(d * d, axis=1)
    g = _rows(signal.grads, xp).astype(dtype)
    return xp.sum(g * g, axis=1)


def squares(signal: Signal, xp: Any, dtype: Any) -> Any:
    """``g_i**2`` per sample, shape (batch, *leaf.shape) -- materialises every sample."""
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, xp)
        a, d = a.astype(dtype), d.astype(dtype)
        outer = (a * a)[:, :, None] * (d * d)[:, None, :]
        if signal.transposed:
            outer = xp.swapaxes(outer, 1, 2)
        return xp.reshape(outer, (a.shape[0], *signal.shape))
    g = signal.grads.astype(dtype)
    return g * g
