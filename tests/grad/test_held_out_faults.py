"""Faults a held-out hunt found in per_sample_grad_sq (forty-first session: 69 losses of
real-model shape, each against a loop of ``jax.grad``)."""

from __future__ import annotations

from collections import OrderedDict

import jax
import jax.numpy as jnp
import numpy as np

from robustfit import per_sample_grad_sq
from robustfit.grad import linear_regression, mlp


def _loop_mean_sq(loss, params, batch, n):
    grads = [jax.grad(loss)(params, jax.tree_util.tree_map(lambda v, i=i: v[i], batch))
             for i in range(n)]
    return jax.tree_util.tree_map(
        lambda *g: np.mean([np.asarray(x, np.float64) ** 2 for x in g], axis=0), *grads)


def test_a_spec_with_ordereddict_params_keeps_each_leaf_its_own_value():
    # the spec's signals were laid out with sorted keys (b, w) and read back through
    # JAX's tree, which keeps an OrderedDict's insertion order (w, b): values swapped
    model = linear_regression()
    params = OrderedDict(w=jnp.array([1.0, -1.0]), b=jnp.array(0.5))
    batch = (jnp.array([[1.0, 2.0], [3.0, 4.0]]), jnp.array([0.0, 1.0]))
    want = _loop_mean_sq(model, params, batch, 2)
    for chunk in (None, 1):  # (chunk_size=1 had raised a scan-carry TypeError)
        got = per_sample_grad_sq(model, params, batch, chunk_size=chunk)
        assert list(got) == ["w", "b"]
        for key in params:
            np.testing.assert_allclose(np.asarray(got[key]), want[key], rtol=1e-6)
    got = per_sample_grad_sq(model, OrderedDict((k, np.asarray(v)) for k, v in params.items()),
                             tuple(np.asarray(v) for v in batch), backend="numpy")
    for key in params:
        np.testing.assert_allclose(np.asarray(got[key]), want[key], rtol=1e-12)


def test_a_relu_spec_at_a_tie_agrees_with_jax_grad_of_its_own_loss():
    # a zero input with zero biases: the spec's slope at z = 0 was 0, jax.grad's 1/2
    model = mlp(("relu",))
    params = [{"w": jnp.ones((2, 2)), "b": jnp.zeros(2)},
              {"w": jnp.ones(2), "b": jnp.zeros(())}]
    batch = (jnp.array([[0.0, 0.0], [1.0, -2.0]]), jnp.array([1.0, 0.5]))
    want = _loop_mean_sq(model, params, batch, 2)
    got, info = per_sample_grad_sq(model, params, batch, return_info=True)
    assert info.paths[0]["b"] == "spec"
    for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want),
                    strict=True):
        np.testing.assert_allclose(np.asarray(g), w, rtol=1e-6)
    # fast_path=False sends a spec's leaves through vmap(grad), as documented
    _, info = per_sample_grad_sq(model, params, batch, fast_path=False, return_info=True)
    assert set(info.paths[0].values()) == {"generic"}


def test_a_python_float_parameter_and_an_array_one_get_their_own_plans():
    # the plan cache ignored weak types: after a call with scale = 1.37 (a Python float,
    # which stays bfloat16 next to a bfloat16 product), a call with a float32 array
    # replayed that plan, 1.2% off the loop
    rng = np.random.default_rng(0)
    x = jnp.asarray(rng.standard_normal((8, 6)), jnp.bfloat16)
    y = jnp.asarray(rng.standard_normal((8, 3)), jnp.float32)

    def loss(p, sample):
        xi, yi = sample
        z = (xi @ p["w"]) * p["scale"] + p["b"]
        return 0.5 * jnp.sum((z.astype(jnp.float32) - yi) ** 2)

    w = jnp.asarray(rng.standard_normal((6, 3)) / 2, jnp.bfloat16)
    b = jnp.asarray(rng.standard_normal(3), jnp.float32)
    per_sample_grad_sq(loss, {"w": w, "scale": 1.37, "b": b}, (x, y))
    strong = {"w": w, "scale": jnp.asarray(1.37, jnp.float32), "b": b}
    got = per_sample_grad_sq(loss, strong, (x, y))
    want = _loop_mean_sq(jax.jit(loss), strong, (x, y), 8)
    for key in ("scale", "b"):
        np.testing.assert_allclose(np.asarray(got[key]), want[key], rtol=1e-5)


def test_mixed_float64_and_float32_leaves_chunk_without_widening():
    # the first pass's 0/1 mask took the first leaf's dtype (float64), widened a float32
    # leaf's squares with it, and the scan's carry changed type between chunks
    def loss(p, sample):
        xi, yi = sample
        return 0.5 * (jnp.sum(jnp.tanh(p["w"] * xi * p["w"])) + p["a"] - yi) ** 2

    with jax.enable_x64(True):
        params = {"a": jnp.asarray(0.1, jnp.float64), "w": jnp.ones(3, jnp.float32)}
        batch = (jnp.asarray(np.linspace(-1, 1, 12).reshape(4, 3), jnp.float32),
                 jnp.zeros(4, jnp.float32))
        want = _loop_mean_sq(loss, params, batch, 4)
        for kwargs in ({}, {"chunk_size": 2}, {"memory_budget": 1}):
            got = per_sample_grad_sq(loss, params, batch, **kwargs)
            assert got["w"].dtype == jnp.float32 and got["a"].dtype == jnp.float64
            np.testing.assert_allclose(np.asarray(got["w"]), want["w"], rtol=1e-5)
            np.testing.assert_allclose(np.asarray(got["a"]), want["a"], rtol=1e-12)


def test_specs_keep_to_the_memory_budget_on_both_backends():
    # a spec's chunk was the whole batch whatever memory_budget said (and info reported
    # a chunk_size larger than the batch)
    model = mlp(("tanh",))
    rng = np.random.default_rng(0)
    params = model.init_params([4, 8, 1], rng)
    batch = (rng.standard_normal((100, 4)), rng.standard_normal(100))
    want = per_sample_grad_sq(model, params, batch, backend="numpy", chunk_size=100)
    for backend in ("numpy", "jax"):
        if backend == "jax":
            params = jax.tree_util.tree_map(jnp.asarray, params)
            batch = tuple(jnp.asarray(v) for v in batch)
        for kwargs, most in (({"memory_budget": 3000}, 10), ({"chunk_size": 1000}, 100)):
            got, info = per_sample_grad_sq(model, params, batch, backend=backend,
                                           return_info=True, **kwargs)
            assert 1 <= info.chunk_size <= most
            for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want),
                            strict=True):
                np.testing.assert_allclose(np.asarray(g), w, rtol=1e-5, atol=1e-12)


def test_a_logistic_spec_with_several_outputs_gets_a_clear_error():
    import pytest

    from robustfit import InvalidInputError
    from robustfit.grad import Dense, DenseModel

    model = DenseModel((Dense("identity"),), loss="logistic")
    params = {"w": np.ones((3, 2)), "b": np.zeros(2)}
    batch = (np.ones((5, 3)), np.zeros(5))
    with pytest.raises(InvalidInputError, match="softmax_cross_entropy"):
        per_sample_grad_sq(model, params, batch, backend="numpy")
