"""Quantities built from backward signals: squares, sums of squares, squared norms.

Written once against an array namespace ``xp`` (``numpy``, ``cupy`` or ``jax.numpy``),
these never differentiate anything; see :mod:`robustfit.grad.signals` for the inputs.
Every reduction takes ``keep``, a (batch,) boolean array: samples with ``keep == False``
contribute exactly zero, even when their values are NaN or infinite (``where``, never a
multiplication by zero). Masking inside the reduction lets XLA fuse it with the squares.
``keep=None`` keeps every sample without masking (no ``where`` pass, which on NumPy and
CuPy is a separate operation).
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
    if keep is None:
        return x
    rows = xp.reshape(keep, (-1,) + (1,) * (x.ndim - 1))
    if keep.dtype != bool:  # 0/1 weights: NaN * 0 stays NaN
        return x * rows
    return xp.where(rows, x, 0)


def _widened(x: Any, dtype: Any) -> Any:
    """``x`` in ``dtype``, without a copy when it already is."""
    return x if x.dtype == dtype else x.astype(dtype)


def _dense_parts(signal: DenseSignal, keep: Any, xp: Any, dtype: Any) -> tuple[Any, Any]:
    a = _widened(_masked(_rows(signal.inputs, xp), keep, xp), dtype)
    d = _widened(_masked(_rows(signal.deltas, xp), keep, xp), dtype)
    return _balanced(a, d, xp)


def _balanced(a: Any, d: Any, xp: Any) -> tuple[Any, Any]:
    """``a_i / s_i`` and ``d_i * s_i``, ``s_i`` the power of two nearest the largest
    ``|a_i|`` of each sample (exact: the outer products are unchanged). The identity
    squares the factors apart, and ``a**2`` overflows (or ``d**2`` underflows) where the
    gradient ``a * d`` itself is ordinary: a float32 feature of 2e19 gave
    ``inf * 0 = NaN`` for a weight whose per-sample gradients are ~0.07, silently."""
    if not a.shape[1]:
        return a, d
    top = xp.max(xp.abs(a), axis=1, keepdims=True)
    top = xp.where(xp.isfinite(top) & (top > 0), top, xp.ones_like(top))
    _, exponent = xp.frexp(top)
    s = xp.ldexp(xp.ones_like(top), exponent)
    return a / s, d * s


def finite_rows(signal: Signal, xp: Any) -> Any:
    """Boolean (batch,) array: True where the sample's gradient is finite."""
    if isinstance(signal, DenseSignal):
        a, d = _rows(signal.inputs, xp), _rows(signal.deltas, xp)
        return xp.all(xp.isfinite(a), axis=1) & xp.all(xp.isfinite(d), axis=1)
    return xp.all(xp.isfinite(_rows(signal.grads, xp)), axis=1)


def sum_of_squares(
    signal: Signal, keep: Any, xp: Any, dtype: Any, scale: Any = None
) -> Any:
    """``scale * sum_i g_i**2`` over kept samples, leaf-shaped, accumulated in ``dtype``.

    For a dense weight this is ``(A**2).T @ (Delta**2)`` -- one matrix product, no
    per-sample gradient is formed. ``scale`` (a 0-d array, e.g. ``1 / n``) multiplies
    the squares before they are summed, where a compiler fuses it with the squaring.
    """
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, keep, xp, dtype)
        d2 = d * d if scale is None else d * d * scale
        out = (a * a).T @ d2
        return xp.reshape(out.T if signal.transposed else out, signal.shape)
    g = _widened(signal.grads, dtype)
    g2 = g * g if scale is None else g * g * scale
    return xp.sum(_masked(g2, keep, xp), axis=0)


def squared_norms(signal: Signal, keep: Any, xp: Any, dtype: Any) -> Any:
    """``||g_i||**2`` per sample, shape (batch,); zero for dropped samples.

    For a dense weight ``||a_i (x) delta_i||**2 = ||a_i||**2 * ||delta_i||**2``.
    """
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, keep, xp, dtype)
        return xp.sum(a * a, axis=1) * xp.sum(d * d, axis=1)
    g = _widened(_rows(signal.grads, xp), dtype)
    return _masked(xp.sum(g * g, axis=1), keep, xp)


def squares(signal: Signal, keep: Any, xp: Any, dtype: Any) -> Any:
    """``g_i**2`` per sample, shape (batch, *leaf.shape) -- materialises every sample."""
    if isinstance(signal, DenseSignal):
        a, d = _dense_parts(signal, keep, xp, dtype)
        outer = (a * a)[:, :, None] * (d * d)[:, None, :]
        if signal.transposed:
            outer = xp.swapaxes(outer, 1, 2)
        return xp.reshape(outer, (a.shape[0], *signal.shape))
    g = _widened(signal.grads, dtype)
    return _masked(g * g, keep, xp)
