"""Derivatives of dense layers, activations and per-sample losses (array-generic).

These functions compute the forward pass of a :class:`~robustfit.grad.specs.DenseModel`
on a batch and its backward signals -- per layer, the inputs ``A`` and the per-sample
output gradients ``Delta`` -- for any array namespace ``xp`` (``numpy``, ``cupy``,
``jax.numpy``). They never square or sum gradients: that is the job of
:mod:`robustfit.grad.reductions`.
"""

from __future__ import annotations

from typing import Any

from .signals import DenseSignal, FullSignal

ACTIVATIONS = ("identity", "tanh", "relu", "sigmoid", "softplus")
LOSSES = ("squared", "logistic", "softmax_cross_entropy")


def sigmoid(z: Any, xp: Any) -> Any:
    """Logistic function without overflow for large ``|z|``."""
    e = xp.exp(-xp.abs(z))
    return xp.where(z >= 0, 1 / (1 + e), e / (1 + e))


def softplus(z: Any, xp: Any) -> Any:
    """``log(1 + exp(z))`` without overflow."""
    return xp.maximum(z, 0) + xp.log1p(xp.exp(-xp.abs(z)))


def activate(name: str, z: Any, xp: Any) -> Any:
    """Apply activation ``name`` elementwise."""
    if name == "identity":
        return z
    if name == "tanh":
        return xp.tanh(z)
    if name == "relu":
        return xp.maximum(z, 0)
    if name == "sigmoid":
        return sigmoid(z, xp)
    return softplus(z, xp)


def activation_slope(name: str, z: Any, h: Any, xp: Any) -> Any:
    """Derivative of activation ``name`` at pre-activation ``z`` (``h`` is its output)."""
    if name == "identity":
        return xp.ones_like(z)
    if name == "tanh":
        return 1 - h * h
    if name == "relu":
        # 1/2 at a tie, the slope jax.grad gives the forward max(z, 0) there: each is a
        # subgradient, and with 0 a sample at z = 0 (a zero input, zero biases) read 0
        # where jax.grad of the model's own loss reads 1/4 squared
        return (z > 0).astype(z.dtype) + 0.5 * (z == 0).astype(z.dtype)
    if name == "sigmoid":
        # from z, not as h * (1 - h): once the logistic rounds to 1 (z > 17 in float32)
        # that is exactly 0, and a saturated unit's gradients, ~e^-z, read 0
        e = xp.exp(-xp.abs(z))
        return e / ((1 + e) * (1 + e))
    return sigmoid(z, xp)


def _logsumexp(z: Any, xp: Any) -> Any:
    m = xp.max(z, axis=1, keepdims=True)
    m = xp.where(xp.isfinite(m), m, 0)
    return xp.log(xp.sum(xp.exp(z - m), axis=1)) + m[:, 0]


def _one_hot(y: Any, k: int, xp: Any, dtype: Any) -> Any:
    return (xp.reshape(y, (-1, 1)) == xp.arange(k)[None, :]).astype(dtype)


def loss_values(name: str, z: Any, y: Any, xp: Any) -> Any:
    """Per-sample loss, shape (batch,), for network outputs ``z`` and targets ``y``.

    ``squared``: ``0.5 * ||z - y||**2``; ``logistic``: ``softplus(z) - y * z`` with
    ``y`` in {0, 1}; ``softmax_cross_entropy``: ``logsumexp(z) - z[y]`` with integer ``y``.
    """
    if name == "squared":
        r = xp.reshape(z - xp.reshape(y, z.shape).astype(z.dtype), (z.shape[0], -1))
        return 0.5 * xp.sum(r * r, axis=1)
    if name == "logistic":
        return softplus(z, xp) - xp.reshape(y, z.shape).astype(z.dtype) * z
    onehot = _one_hot(y, z.shape[1], xp, z.dtype)
    return _logsumexp(z, xp) - xp.sum(onehot * z, axis=1)


def loss_slopes(name: str, z: Any, y: Any, xp: Any) -> Any:
    """Per-sample ``dL_i/dz_i``, shaped like ``z``."""
    if name == "squared":
        return z - xp.reshape(y, z.shape).astype(z.dtype)
    if name == "logistic":
        return sigmoid(z, xp) - xp.reshape(y, z.shape).astype(z.dtype)
    m = xp.max(z, axis=1, keepdims=True)
    e = xp.exp(z - xp.where(xp.isfinite(m), m, 0))
    return e / xp.sum(e, axis=1, keepdims=True) - _one_hot(y, z.shape[1], xp, z.dtype)


def forward(model: Any, layers: list[dict], x: Any, xp: Any) -> tuple[list, list, list]:
    """Run ``model`` on a batch; return per-layer inputs, pre-activations, outputs."""
    inputs, pre, post = [], [], []
    a = xp.reshape(x, (x.shape[0], -1))
    for spec, p in zip(model.layers, layers, strict=True):
        inputs.append(a)
        z = a @ p["w"]
        if spec.bias:
            z = z + p["b"]
        h = activate(spec.activation, z, xp)
        pre.append(z)
        post.append(h)
        a = h
    return inputs, pre, post


def backward(model: Any, layers: list[dict], x: Any, y: Any, xp: Any) -> tuple[Any, list]:
    """Per-sample losses and backward signals of every layer.

    Returns ``(losses, signals)`` where ``signals[l]`` is a dict with a
    :class:`DenseSignal` under ``"w"`` and, for layers with a bias, a
    :class:`FullSignal` under ``"b"``.
    """
    inputs, pre, post = forward(model, layers, x, xp)
    losses = loss_values(model.loss, post[-1], y, xp)
    delta = loss_slopes(model.loss, post[-1], y, xp)
    signals: list[dict] = [{} for _ in layers]
    for i in reversed(range(len(layers))):
        spec, w = model.layers[i], layers[i]["w"]
        delta = delta * activation_slope(spec.activation, pre[i], post[i], xp)
        rows = xp.reshape(delta, (delta.shape[0], -1))
        signals[i]["w"] = DenseSignal(inputs[i], rows, tuple(w.shape))
        if spec.bias:
            signals[i]["b"] = FullSignal(xp.reshape(delta, (delta.shape[0], *layers[i]["b"].shape)))
        if i:
            delta = rows @ xp.reshape(w, (w.shape[0], -1)).T
    return losses, signals
