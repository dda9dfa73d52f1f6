"""Catalogue of per-sample-gradient models, shared by tests/grad and benchmarks/per_sample.py.

Every case is a plain ``jax.numpy`` per-sample loss (what a user writes) plus a parameter
and batch generator; cases with a robustfit model spec of the same parameter layout name
it, so the spec path, the automatic dense path and the generic path can be compared on the
same numbers. The float64 reference is an explicit Python loop over samples with
``jax.grad`` under x64 -- it shares no code with robustfit.grad.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from robustfit.grad import least_squares, logistic_regression, mlp, softmax_regression


@dataclass(frozen=True)
class Case:
    """A per-sample loss and how to draw parameters and a batch for it."""

    name: str
    loss: Callable[[Any, Any], Any]
    make: Callable[[np.random.Generator, int, Any], tuple[Any, Any]]
    spec: Any = None
    #: leaves the jaxpr analysis should find dense ("dense"/"bias"), by path string
    expected_paths: dict | None = None


def _softplus(z: Any) -> Any:
    return jnp.logaddexp(0.0, z)


def least_squares_loss(p: dict, s: tuple) -> Any:
    x, y = s
    return 0.5 * (x @ p["w"] - y) ** 2


def logistic_loss(p: dict, s: tuple) -> Any:
    x, y = s
    z = x @ p["w"] + p["b"]
    return _softplus(z) - y * z


def softmax_loss(p: dict, s: tuple) -> Any:
    x, y = s
    z = x @ p["w"] + p["b"]
    return jax.nn.logsumexp(z) - z[y]


def mlp_loss(p: list, s: tuple) -> Any:
    x, y = s
    h = jnp.tanh(x @ p[0]["w"] + p[0]["b"])
    h = jax.nn.relu(h @ p[1]["w"] + p[1]["b"])
    z = h @ p[2]["w"] + p[2]["b"]
    return 0.5 * jnp.sum((z - y) ** 2)


def transposed_mlp_loss(p: dict, s: tuple) -> Any:
    """Weights stored (out, in) and applied as ``W @ x``, as in PyTorch's layout."""
    x, y = s
    h = jnp.tanh(p["hidden"]["W"] @ x + p["hidden"]["b"])
    z = p["out"]["W"] @ h + p["out"]["b"]
    return jax.nn.logsumexp(z) - z[y]


def conv_loss(p: dict, s: tuple) -> Any:
    """1-D convolution, then a dense read-out: the kernel must take the generic path."""
    x, y = s
    h = jnp.tanh(jnp.convolve(x, p["kernel"], mode="valid"))
    return 0.5 * (h @ p["w"] + p["b"] - y) ** 2


def rnn_loss(p: dict, s: tuple) -> Any:
    """Elman RNN over a sequence: input and recurrent weights are shared over time."""
    x, y = s

    def step(h: Any, xt: Any) -> tuple:
        h = jnp.tanh(xt @ p["wx"] + h @ p["wh"])
        return h, None

    h, _ = jax.lax.scan(step, jnp.zeros(p["wh"].shape[0], x.dtype), x)
    z = h @ p["w_out"] + p["b_out"]
    return _softplus(z) - y * z


def _normal(rng: np.random.Generator, shape: tuple, dtype: Any, scale: float = 1.0) -> Any:
    return (scale * rng.standard_normal(shape)).astype(dtype)


def make_least_squares(rng: np.random.Generator, n: int, dtype: Any, d: int = 5) -> tuple:
    batch = (_normal(rng, (n, d), dtype), _normal(rng, (n,), dtype))
    return {"w": _normal(rng, (d,), dtype)}, batch


def make_logistic(rng: np.random.Generator, n: int, dtype: Any, d: int = 6) -> tuple:
    params = {"w": _normal(rng, (d,), dtype), "b": _normal(rng, (), dtype)}
    return params, (_normal(rng, (n, d), dtype), rng.integers(0, 2, n).astype(dtype))


def make_softmax(rng: np.random.Generator, n: int, dtype: Any, d: int = 5, k: int = 4) -> tuple:
    params = {"w": _normal(rng, (d, k), dtype), "b": _normal(rng, (k,), dtype)}
    return params, (_normal(rng, (n, d), dtype), rng.integers(0, k, n).astype(np.int32))


def make_mlp(
    rng: np.random.Generator, n: int, dtype: Any, widths: tuple = (6, 8, 7, 2)
) -> tuple:
    params = [
        {
            "w": _normal(rng, (widths[i], widths[i + 1]), dtype, 1 / np.sqrt(widths[i])),
            "b": _normal(rng, (widths[i + 1],), dtype, 0.1),
        }
        for i in range(len(widths) - 1)
    ]
    batch = (_normal(rng, (n, widths[0]), dtype), _normal(rng, (n, widths[-1]), dtype))
    return params, batch


def make_transposed(rng: np.random.Generator, n: int, dtype: Any, d: int = 5) -> tuple:
    params = {
        "hidden": {"W": _normal(rng, (7, d), dtype, 0.5), "b": _normal(rng, (7,), dtype)},
        "out": {"W": _normal(rng, (3, 7), dtype, 0.5), "b": _normal(rng, (3,), dtype)},
    }
    return params, (_normal(rng, (n, d), dtype), rng.integers(0, 3, n).astype(np.int32))


def make_conv(rng: np.random.Generator, n: int, dtype: Any, length: int = 12) -> tuple:
    params = {
        "kernel": _normal(rng, (3,), dtype, 0.5),
        "w": _normal(rng, (length - 2,), dtype, 0.3),
        "b": _normal(rng, (), dtype),
    }
    return params, (_normal(rng, (n, length), dtype), _normal(rng, (n,), dtype))


def make_rnn(rng: np.random.Generator, n: int, dtype: Any, t: int = 5, d: int = 3) -> tuple:
    h = 4
    params = {
        "wx": _normal(rng, (d, h), dtype, 0.5),
        "wh": _normal(rng, (h, h), dtype, 0.5),
        "w_out": _normal(rng, (h,), dtype),
        "b_out": _normal(rng, (), dtype),
    }
    return params, (_normal(rng, (n, t, d), dtype), rng.integers(0, 2, n).astype(dtype))


CASES: dict[str, Case] = {
    c.name: c
    for c in [
        Case("least_squares", least_squares_loss, make_least_squares, least_squares(),
             {"['w']": "dense"}),
        Case("logistic", logistic_loss, make_logistic, logistic_regression(),
             {"['b']": "bias", "['w']": "dense"}),
        Case("softmax", softmax_loss, make_softmax, softmax_regression(),
             {"['b']": "bias", "['w']": "dense"}),
        Case("mlp", mlp_loss, make_mlp, mlp(("tanh", "relu")),
             {f"[{i}]['{k}']": ("dense" if k == "w" else "bias")
              for i in range(3) for k in "bw"}),
        Case("transposed_mlp", transposed_mlp_loss, make_transposed, None,
             {"['hidden']['W']": "dense", "['hidden']['b']": "bias",
              "['out']['W']": "dense", "['out']['b']": "bias"}),
        Case("conv", conv_loss, make_conv, None,
             {"['kernel']": "generic", "['w']": "dense", "['b']": "bias"}),
        Case("rnn", rnn_loss, make_rnn, None,
             {"['wx']": "generic", "['wh']": "generic", "['w_out']": "dense",
              "['b_out']": "bias"}),
    ]
}


def reference_per_sample_grads(loss: Callable, params: Any, batch: Any) -> list[np.ndarray]:
    """Float64 per-sample gradients by an explicit loop: leaves stacked over the batch."""
    def to64(a: Any) -> Any:
        a = np.asarray(a)
        return jnp.asarray(a.astype(np.float64) if a.dtype.kind == "f" else a)

    with jax.enable_x64(True):
        p64 = jax.tree_util.tree_map(to64, params)
        b64 = jax.tree_util.tree_map(to64, batch)
        grad = jax.jit(jax.grad(loss))
        n = jax.tree_util.tree_leaves(batch)[0].shape[0]
        rows = []
        for i in range(n):
            sample = jax.tree_util.tree_map(lambda a, i=i: a[i], b64)
            rows.append([np.asarray(g) for g in jax.tree_util.tree_leaves(grad(p64, sample))])
    return [np.stack(col) for col in zip(*rows, strict=True)]


def mlp_of_size(n_params: int) -> tuple[tuple[int, ...], int]:
    """Widths (input, hidden, hidden, output) of a 2-hidden-layer MLP with ~n_params."""
    # d -> h -> h -> 10 with d = h: 2 h^2 + 10 h ~ n_params
    h = max(4, int((-10 + np.sqrt(100 + 8 * n_params)) / 4))
    return (h, h, h, 10), 2 * h * h + 10 * h + 2 * h + 10
