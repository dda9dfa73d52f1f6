"""Faults a held-out check of per_sample_grad_sq on realistic models found (forty-third
session: CNNs, a transformer block, recurrent nets, embeddings, weight decay inside the
per-sample loss, calls under jax.jit), each against a loop of ``jax.grad``."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import robustfit
from robustfit import per_sample_grad_sq
from robustfit.grad.signals import FullSignal
from robustfit.grad.statistics import chunk_statistics
from tests.grad.test_held_out_faults import _loop_mean_sq


def _softmax_regression():
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((16, 4)), jnp.float32)
    y = jnp.asarray(rng.integers(0, 3, 16), jnp.int32)
    params = {"w": jnp.asarray(rng.standard_normal((4, 3)), jnp.float32),
              "b": jnp.zeros(3, jnp.float32)}

    def loss(p, s):
        z = s[0] @ p["w"] + p["b"]
        return jax.nn.logsumexp(z) - z[s[1]]

    return loss, params, (x, y)


def test_the_generic_path_weights_samples_in_the_backward_pass():
    # multiplied by a 0/1 mask on the first pass, XLA on a CPU fused the mask into
    # vmap(grad) inside the chunks' scan: an MLP 784-512-512-10 at batch 128 ran 26x
    # slower than vmap(grad) alone (11.6 s against 0.45 s), an embedding bag 10-60x;
    # a select instead cost an MLP of 1e5 parameters at batch 512 1.9x (0.95x before).
    # The samples now weight the backward pass (cotangent 1 or 0): no pass over the
    # per-sample gradients masks them
    grads = jnp.ones((4, 3), jnp.float32)

    def reduce(g, valid):
        value, _ = chunk_statistics(jnp.zeros(4), [FullSignal(g)], [jnp.float32],
                                    stat="sum", valid=valid, mask_nonfinite=True,
                                    check_gradients=False, xp=jnp, premasked=True)
        return value[0]

    jaxpr = str(jax.make_jaxpr(reduce)(grads, jnp.ones(4, bool)))
    assert "select_n" not in jaxpr and jaxpr.count(" mul ") == 1  # (the square alone)
    # and what it computes: a sample with a NaN loss dropped, in chunks of 3
    loss, params, (x, y) = _softmax_regression()

    def poisoned(p, s):
        return loss(p, s) + jnp.where(s[0][0] > 1.5, jnp.nan, 0.0)

    bad = np.asarray(x[:, 0]) > 1.5
    assert 0 < bad.sum() < 16
    with pytest.warns(robustfit.RobustFitWarning):
        got = per_sample_grad_sq(poisoned, params, (x, y), fast_path=False, chunk_size=3,
                                 nan_policy="omit")
    keep = jnp.asarray(np.flatnonzero(~bad))
    want = _loop_mean_sq(loss, params, (x[keep], y[keep]), int(keep.size))
    for name in ("w", "b"):
        np.testing.assert_allclose(np.asarray(got[name]), want[name], rtol=1e-5)


def test_a_call_under_jit_says_what_works_there():
    # the default nan_policy, "omit" and return_info need the samples' finiteness on the
    # host: under jax.jit and jax.vmap they failed inside JAX ("'copy_to_host_async'
    # is not available on traced array")
    loss, params, batch = _softmax_regression()
    for kwargs in ({}, {"nan_policy": "omit"},
                   {"nan_policy": "propagate", "return_info": True}):
        with pytest.raises(robustfit.InvalidInputError, match="nan_policy='propagate'"):
            jax.jit(lambda p, kw=kwargs: per_sample_grad_sq(loss, p, batch, **kw))(params)
    with pytest.raises(ValueError, match="traced"):
        jax.vmap(lambda p: per_sample_grad_sq(loss, p, batch))(
            jax.tree_util.tree_map(lambda v: jnp.stack([v, v]), params))
    # what the message offers works, and agrees with the call outside jit
    inside = jax.jit(lambda p: per_sample_grad_sq(loss, p, batch, nan_policy="propagate"))(
        params)
    outside = per_sample_grad_sq(loss, params, batch)
    want = _loop_mean_sq(loss, params, batch, 16)
    for name in ("w", "b"):
        np.testing.assert_allclose(np.asarray(inside[name]), np.asarray(outside[name]),
                                   rtol=1e-6)
        np.testing.assert_allclose(np.asarray(inside[name]), want[name], rtol=1e-5)


@pytest.mark.parametrize("fast_path", [True, False])
def test_a_mean_over_chunks_does_not_overflow_where_the_mean_is_finite(fast_path):
    # float32 squares of 8.1e37 summed over 8 chunks, then divided: inf, silently, where
    # one chunk gave the mean, 8.1e37
    n = 64
    x = jnp.full((n, 1), 3e18, jnp.float32)

    def loss(p, s):
        return 0.5 * (s[0] @ p["w"] * 1e-18) ** 2 * 1e18

    params = {"w": jnp.ones(1, jnp.float32)}
    one = per_sample_grad_sq(loss, params, (x,), fast_path=fast_path)
    eight = per_sample_grad_sq(loss, params, (x,), fast_path=fast_path, chunk_size=8)
    assert np.isfinite(float(eight["w"][0]))
    np.testing.assert_allclose(float(eight["w"][0]), float(one["w"][0]), rtol=1e-6)
    np.testing.assert_allclose(float(eight["w"][0]), 8.1e37, rtol=1e-6)


def test_a_mean_over_chunks_on_the_array_backend_does_not_overflow():
    from robustfit.grad import least_squares

    n = 64
    x = np.full((n, 1), 3e18, np.float32)
    y = np.zeros(n, np.float32)
    params = [{"w": np.full((1, 1), 1e-18, np.float32)}]
    # per sample: r = x w - y = 3, d/dw = 2 r x = 1.8e19, squared 3.24e38 (float32 max
    # 3.4e38): a sum of two overflows
    one = per_sample_grad_sq(least_squares(), params, (x, y))
    eight = per_sample_grad_sq(least_squares(), params, (x, y), chunk_size=8)
    assert np.isfinite(eight[0]["w"]).all()
    np.testing.assert_allclose(eight[0]["w"], one[0]["w"], rtol=1e-6)
