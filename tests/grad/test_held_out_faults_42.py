"""Faults a second held-out hunt found in per_sample_grad_sq (forty-second session: bound
methods, overflow in the dense identity, saturated sigmoids, namedtuples on the array
backend, accumulation over many chunks, unchecked keywords), each against a loop of
``jax.grad``."""

from __future__ import annotations

import collections
import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import robustfit
from robustfit import per_sample_grad_norms, per_sample_grad_sq
from robustfit.grad import least_squares, mlp
from tests.grad.test_held_out_faults import _loop_mean_sq


def _loop(loss, params, batch, n):
    return [jax.grad(loss)(params, jax.tree_util.tree_map(lambda v, i=i: v[i], batch))
            for i in range(n)]


class _Scaled:
    def __init__(self):
        self.scale = 1.0

    def loss(self, p, s):
        return self.scale * jnp.sum((s[0] @ p["w"] - s[1]) ** 2)


def test_a_bound_method_is_traced_again_after_its_instance_changes():
    # a plan cached for m.loss (equal to the next m.loss while m is the same object) was
    # replayed after m.scale changed: 1/9 of the right value; and the cache's reference
    # kept JAX's own trace alive, so that jax.jit(m.loss) returned the old value too
    params = {"w": jnp.asarray([[0.5, -1.0], [0.3, 0.2]], jnp.float32)}
    batch = (jnp.asarray([[1.0, 2.0], [0.5, -1.0], [2.0, 0.1]], jnp.float32),
             jnp.zeros((3, 2), jnp.float32))
    m = _Scaled()
    per_sample_grad_sq(m.loss, params, batch)
    m.scale = 3.0
    got = per_sample_grad_sq(m.loss, params, batch)
    want = _loop_mean_sq(m.loss, params, batch, 3)
    np.testing.assert_allclose(np.asarray(got["w"]), want["w"], rtol=1e-5)
    sample = (batch[0][0], batch[1][0])
    assert float(jax.jit(m.loss)(params, sample)) == pytest.approx(float(m.loss(params, sample)))


def test_the_dense_identity_does_not_overflow_where_the_gradient_is_ordinary():
    # sum_i a_i^2 delta_i^2 with a feature of 2e19 in float32: a^2 = inf, delta^2 = 0,
    # inf * 0 = NaN, returned silently under nan_policy="raise"
    x = jnp.asarray([[2e19, 1.0], [3e19, 2.0], [1.0, 1.0]], jnp.float32)
    y = jnp.asarray([0.0, 0.0, 1.0], jnp.float32)
    params = {"w": jnp.asarray([-2.5e-18, 0.1], jnp.float32)}

    def loss(p, s):
        z = s[0] @ p["w"]
        return jax.nn.softplus(z) - s[1] * z

    got, info = per_sample_grad_sq(loss, params, (x, y), return_info=True)
    assert info.paths["w"] == "dense"
    want = _loop_mean_sq(loss, params, (x, y), 3)
    np.testing.assert_allclose(np.asarray(got["w"]), want["w"], rtol=1e-5)
    grads = _loop(loss, params, (x, y), 3)
    norms = [np.linalg.norm(np.asarray(g["w"], np.float64)) for g in grads]
    np.testing.assert_allclose(np.asarray(per_sample_grad_norms(loss, params, (x, y))),
                               norms, rtol=1e-5)


def test_a_saturated_sigmoid_unit_keeps_its_small_gradient():
    # the spec's slope h * (1 - h) is exactly 0 once sigmoid(z) rounds to 1 (z > 17 in
    # float32); jax.grad of the spec's own loss keeps ~e^-z
    model = mlp(("sigmoid",), loss="squared")
    rng = np.random.default_rng(9)
    params = [{"w": jnp.asarray(rng.standard_normal((3, 4)), jnp.float32),
               "b": jnp.full((4,), 20.0, jnp.float32)},
              {"w": jnp.asarray(rng.standard_normal(4), jnp.float32), "b": jnp.float32(0.0)}]
    batch = (jnp.asarray(rng.uniform(0.5, 1.0, (16, 3)), jnp.float32),
             jnp.asarray(rng.standard_normal(16), jnp.float32))
    got, info = per_sample_grad_sq(model, params, batch, return_info=True)
    assert info.paths[0]["b"] == "spec"
    want = _loop_mean_sq(model, params, batch, 16)
    assert np.all(np.asarray(got[0]["b"]) > 0)
    for layer in range(2):
        for key in ("w", "b"):
            np.testing.assert_allclose(np.asarray(got[layer][key]), want[layer][key],
                                       rtol=1e-4)


_Batch = collections.namedtuple("_Batch", "x y")
_Params = collections.namedtuple("_Params", "w")


@jax.tree_util.register_dataclass
@dataclasses.dataclass
class _DataclassBatch:
    x: np.ndarray
    y: np.ndarray


def test_namedtuples_and_registered_classes_on_the_array_backend():
    # its own tree took a namedtuple for one leaf: chunks sliced its fields (a raw
    # ValueError), grad_fn's output was misread, a registered dataclass raised TypeError
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((20, 3)), rng.standard_normal(20)
    w = rng.standard_normal(3)
    residual = x @ w - y
    want = np.mean((residual[:, None] * x) ** 2, axis=0)

    def grad_fn(p, b):
        return {"w": (b[0] @ p["w"] - b[1])[:, None] * b[0]}

    for kwds in ({"chunk_size": 7}, {"memory_budget": 200}):
        got = per_sample_grad_sq(least_squares(), {"w": w}, _Batch(x, y), backend="numpy",
                                 **kwds)
        np.testing.assert_allclose(got["w"], want, rtol=1e-12)
    got = per_sample_grad_sq(least_squares(), {"w": w}, _Batch(x, y), grad_fn=grad_fn,
                             chunk_size=7)
    np.testing.assert_allclose(got["w"], want, rtol=1e-12)
    got = per_sample_grad_sq(least_squares(), _Params(w), (x, y), grad_fn=lambda p, b: _Params(
        (b[0] @ p.w - b[1])[:, None] * b[0]))
    assert isinstance(got, _Params)
    np.testing.assert_allclose(got.w, want, rtol=1e-12)
    got = per_sample_grad_sq(least_squares(), {"w": w}, _DataclassBatch(x, y),
                             grad_fn=lambda p, b: grad_fn(p, (b.x, b.y)), chunk_size=7)
    np.testing.assert_allclose(got["w"], want, rtol=1e-12)


def test_sums_over_many_chunks_keep_float32_accuracy():
    # carried in plain float32 from chunk to chunk: 2e4 chunks of one sample drifted
    # from a float64 reference by far more than one chunk does
    rng = np.random.default_rng(8)
    params = {"w": jnp.asarray(rng.standard_normal((3, 2)), jnp.float32)}
    n = 20_000
    x = rng.standard_normal((n, 3))
    y = rng.standard_normal((n, 2))

    def loss(p, s):
        return jnp.sum((jnp.tanh(s[0] @ p["w"]) - s[1]) ** 2)

    batch = (jnp.asarray(x, jnp.float32), jnp.asarray(y, jnp.float32))
    got = np.asarray(per_sample_grad_sq(loss, params, batch, chunk_size=1)["w"], np.float64)
    # the reference in float64, by hand: d/dW of sum((tanh(xW) - y)^2)
    w = np.asarray(params["w"], np.float64)
    h = np.tanh(x @ w)
    delta = 2 * (h - y) * (1 - h * h)
    want = np.mean((x[:, :, None] * delta[:, None, :]) ** 2, axis=0)
    assert np.max(np.abs(got - want) / want) < 1e-5


@pytest.mark.parametrize("kwds, error", [
    ({"fast_path": "no"}, robustfit.errors.InvalidInputError),
    ({"fast_path": None}, robustfit.errors.InvalidInputError),
    ({"return_info": "no"}, robustfit.errors.InvalidInputError),
    ({"reductions": "sum"}, robustfit.errors.UnexpectedArgumentError),
])
def test_keywords_are_checked(kwds, error):
    params = {"w": jnp.ones(3)}
    batch = (jnp.ones((4, 3)), jnp.zeros(4))

    def loss(p, s):
        return (s[0] @ p["w"] - s[1]) ** 2

    with pytest.raises(error, match=next(iter(kwds))):
        per_sample_grad_sq(loss, params, batch, **kwds)
    if "reductions" in kwds:
        with pytest.raises(TypeError):
            per_sample_grad_norms(loss, params, batch, **kwds)


def test_an_object_batch_leaf_gets_a_clear_error():
    params = {"w": jnp.ones(3)}
    batch = (np.ones((4, 3)), np.array([None] * 4, dtype=object))
    with pytest.raises(robustfit.errors.InvalidInputError, match="batch leaf 1"):
        per_sample_grad_sq(lambda p, s: jnp.sum(s[0] @ p["w"]), params, batch)
