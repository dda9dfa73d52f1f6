"""nan_policy, input errors, dtypes, caching and the NumPy / grad_fn backends."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from benchmarks.per_sample_cases import CASES, reference_per_sample_grads
from robustfit import (
    BackendUnavailableError,
    InvalidInputError,
    NonFiniteGradientError,
    RobustFitWarning,
    per_sample_grad_norms,
    per_sample_grad_sq,
)
from robustfit.grad import jax_backend, logistic_regression, mlp


def _log_loss(p, s):
    """A loss that is NaN for samples with x <= 0 (log of a non-positive number)."""
    x, y = s
    return (jnp.log(x) @ p["w"] + p["b"] - y) ** 2


def _nan_batch(n=10, bad=(2, 7)):
    rng = np.random.default_rng(0)
    x = rng.uniform(0.5, 2.0, (n, 3)).astype(np.float32)
    x[list(bad), 1] = -1.0
    return {"w": np.ones(3, np.float32), "b": np.float32(0.5)}, (x, np.zeros(n, np.float32))


@pytest.mark.parametrize("fast_path", [True, False])
def test_raise_names_the_nonfinite_samples(fast_path):
    params, batch = _nan_batch()
    with pytest.raises(NonFiniteGradientError, match=r"2 of 10 samples.*indices 2, 7") as err:
        per_sample_grad_sq(_log_loss, params, batch, chunk_size=4, fast_path=fast_path)
    assert list(err.value.indices) == [2, 7]
    assert isinstance(err.value, FloatingPointError)


@pytest.mark.parametrize("fast_path", [True, False])
def test_omit_excludes_and_counts(fast_path):
    params, batch = _nan_batch()
    keep = np.array([i for i in range(10) if i not in (2, 7)])
    ref = reference_per_sample_grads(_log_loss, params, (batch[0][keep], batch[1][keep]))
    with pytest.warns(RobustFitWarning, match="omitted batch indices 2, 7"):
        got, info = per_sample_grad_sq(
            _log_loss, params, batch, nan_policy="omit", chunk_size=3,
            fast_path=fast_path, return_info=True,
        )
    assert info.n_used == 8 and list(info.omitted) == [2, 7]
    for g, r in zip(jax.tree_util.tree_leaves(got), ref, strict=True):
        np.testing.assert_allclose(np.asarray(g), (r**2).mean(0), rtol=2e-5)
    with pytest.warns(RobustFitWarning):
        norms = per_sample_grad_norms(_log_loss, params, batch, nan_policy="omit")
    want = np.sqrt(sum((r.reshape(8, -1) ** 2).sum(1) for r in ref))
    np.testing.assert_allclose(np.asarray(norms), want, rtol=2e-5)


def test_propagate_lets_nan_through_and_still_reports():
    params, batch = _nan_batch()
    got, info = per_sample_grad_sq(
        _log_loss, params, batch, nan_policy="propagate", return_info=True
    )
    assert np.isnan(np.asarray(got["w"])).any()
    assert list(info.nonfinite) == [2, 7] and len(info.omitted) == 0
    squares = per_sample_grad_sq(_log_loss, params, batch, nan_policy="propagate",
                                 reduction="none")
    rows = np.isnan(np.asarray(squares["w"])).any(axis=1)
    assert list(np.flatnonzero(rows)) == [2, 7]


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize("chunk_size", [None, 3])
def test_omit_drops_a_sample_whose_loss_alone_is_infinite(fast_path, chunk_size):
    """A finite gradient of a sample whose loss is inf must not enter the mean."""
    x = np.arange(1.0, 13.0, dtype=np.float32).reshape(6, 2)
    offset = np.array([0, 0, np.inf, 0, 0, 0], np.float32)

    def loss(p, s):
        xi, c = s
        return 0.5 * (xi @ p["w"]) ** 2 + c  # c = inf: loss inf, gradient finite

    params = {"w": np.array([0.3, -0.2], np.float32)}
    with pytest.warns(RobustFitWarning, match="omitted batch indices 2"):
        got, info = per_sample_grad_sq(loss, params, (x, offset), nan_policy="omit",
                                       chunk_size=chunk_size, fast_path=fast_path,
                                       return_info=True)
    keep = np.array([0, 1, 3, 4, 5])
    g = (x[keep] @ params["w"])[:, None] * x[keep]
    np.testing.assert_allclose(np.asarray(got["w"]), (g**2).mean(0), rtol=1e-5)
    assert list(info.omitted) == [2]


@pytest.mark.parametrize("fast_path", [True, False])
@pytest.mark.parametrize("return_info", [True, False])
def test_propagate_keeps_an_infinite_sum_infinite(fast_path, return_info):
    """Padding repeats sample 0; with an infinite sample 0 the sum stays inf, not NaN."""
    x = np.ones((6, 2), np.float32)
    x[0, 0] = np.inf

    def loss(p, s):
        return 0.5 * (s @ p["w"]) ** 2

    out = per_sample_grad_sq(loss, {"w": np.array([1.0, 1.0], np.float32)}, x,
                             nan_policy="propagate", chunk_size=4, fast_path=fast_path,
                             return_info=return_info)
    got = np.asarray((out[0] if return_info else out)["w"])
    assert np.all(np.isposinf(got)), got


@pytest.mark.parametrize("chunk_size", [None, 4])
def test_propagate_without_info_returns_the_same_numbers(chunk_size):
    """Without info the JAX backend does not wait for the sample mask; same result."""
    params, batch = _nan_batch()
    batch = (batch[0].copy(), batch[1])
    batch[0][:, 1] = np.abs(batch[0][:, 1])  # all samples finite now
    for b in (batch, _nan_batch()[1]):
        for reduction in ("mean", "sum", "none"):
            fast = per_sample_grad_sq(_log_loss, params, b, nan_policy="propagate",
                                      reduction=reduction, chunk_size=chunk_size)
            waited, _ = per_sample_grad_sq(_log_loss, params, b, nan_policy="propagate",
                                           reduction=reduction, chunk_size=chunk_size,
                                           return_info=True)
            for k in ("w", "b"):
                np.testing.assert_array_equal(np.asarray(fast[k]), np.asarray(waited[k]))
        norms = per_sample_grad_norms(_log_loss, params, b, nan_policy="propagate")
        np.testing.assert_array_equal(
            np.asarray(norms),
            np.asarray(per_sample_grad_norms(_log_loss, params, b, nan_policy="propagate",
                                             return_info=True)[0]),
        )


def test_omit_with_every_sample_bad_raises():
    params, batch = _nan_batch(n=2, bad=(0, 1))
    with pytest.raises(NonFiniteGradientError, match="no sample is left"):
        per_sample_grad_sq(_log_loss, params, batch, nan_policy="omit")


def test_numpy_backend_names_nonfinite_samples():
    model = logistic_regression()
    params = {"w": np.ones(3), "b": np.array(0.0)}
    x = np.ones((6, 3))
    x[4, 0] = np.inf
    batch = (x, np.zeros(6))
    with pytest.raises(NonFiniteGradientError) as err:
        per_sample_grad_sq(model, params, batch, backend="numpy")
    assert list(err.value.indices) == [4]
    with pytest.warns(RobustFitWarning):
        got = per_sample_grad_sq(model, params, batch, backend="numpy", nan_policy="omit")
    clean = per_sample_grad_sq(model, params, (np.delete(x, 4, 0), np.zeros(5)), backend="numpy")
    np.testing.assert_allclose(got["w"], clean["w"], rtol=1e-12)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"reduction": "avg"}, "reduction='avg' is not valid"),
        ({"backend": "torch"}, "backend='torch' is not valid"),
        ({"nan_policy": "ignore"}, "nan_policy='ignore'"),
        ({"chunk_size": 0}, "chunk_size must be a positive integer"),
        ({"memory_budget": -1}, "memory_budget must be a positive integer"),
        ({"backend": "numpy"}, "cannot differentiate an arbitrary loss"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    params, batch = _nan_batch()
    with pytest.raises(InvalidInputError, match=match):
        per_sample_grad_sq(_log_loss, params, batch, **kwargs)


def test_bad_batches_are_named():
    params = {"w": np.ones(3, np.float32), "b": np.float32(0)}
    with pytest.raises(InvalidInputError, match=r"different leading \(batch\) sizes \[4, 3\]"):
        per_sample_grad_sq(_log_loss, params, (np.ones((4, 3)), np.ones(3)))
    with pytest.raises(InvalidInputError, match="batch is empty"):
        per_sample_grad_sq(_log_loss, params, (np.ones((0, 3)), np.ones(0)))
    with pytest.raises(InvalidInputError, match="leading batch axis"):
        per_sample_grad_sq(_log_loss, params, (np.ones((4, 3)), np.float32(1)))
    with pytest.raises(InvalidInputError, match="floating-point"):
        per_sample_grad_sq(_log_loss, {"w": np.ones(3, int)}, (np.ones((4, 3)), np.ones(4)))
    with pytest.raises(InvalidInputError, match="loss must be callable"):
        per_sample_grad_sq("mse", params, (np.ones((4, 3)), np.ones(4)))
    with pytest.raises(ValueError, match="must return a scalar"):
        per_sample_grad_sq(lambda p, s: s[0] * p["w"], params, (np.ones((4, 3)), np.ones(4)))


def test_missing_backend_is_backend_unavailable(monkeypatch):
    import importlib.util

    from robustfit.grad import api

    monkeypatch.setattr(
        api, "_installed",
        lambda name: name != "cupy" and importlib.util.find_spec(name) is not None,
    )
    params, batch = _nan_batch()
    with pytest.raises(BackendUnavailableError, match=r"needs cupy.*pip install") as err:
        per_sample_grad_sq(logistic_regression(), params, batch, backend="cupy")
    assert isinstance(err.value, ImportError)


def test_half_precision_accumulates_in_float32():
    case = CASES["mlp"]
    params, batch = case.make(np.random.default_rng(0), 16, np.float32)
    p16 = jax.tree_util.tree_map(lambda a: jnp.asarray(a, jnp.bfloat16), params)
    b16 = jax.tree_util.tree_map(lambda a: jnp.asarray(a, jnp.bfloat16), batch)
    got = per_sample_grad_sq(case.loss, p16, b16)
    assert all(x.dtype == jnp.float32 for x in jax.tree_util.tree_leaves(got))
    ref = reference_per_sample_grads(case.loss, p16, b16)
    for g, r in zip(jax.tree_util.tree_leaves(got), ref, strict=True):
        # bfloat16 forward/backward: ~3 significant digits
        np.testing.assert_allclose(np.asarray(g), (r**2).mean(0), rtol=0.1,
                                   atol=0.05 * np.abs(r**2).mean(0).max())


def test_compiled_once_per_shape():
    case = CASES["logistic"]
    params, batch = case.make(np.random.default_rng(0), 12, np.float32)
    jax_backend._CACHE.clear()
    per_sample_grad_sq(case.loss, params, batch, chunk_size=5)
    assert len(jax_backend._CACHE) == 1
    params2, batch2 = case.make(np.random.default_rng(1), 12, np.float32)
    per_sample_grad_sq(case.loss, params2, batch2, chunk_size=5)
    assert len(jax_backend._CACHE) == 1
    per_sample_grad_sq(case.loss, params2, (batch2[0][:7], batch2[1][:7]), chunk_size=5)
    assert len(jax_backend._CACHE) == 2
    # matrix-product precision changes the compiled code (TF32 or not on GPUs)
    with jax.default_matmul_precision("highest"):
        per_sample_grad_sq(case.loss, params2, batch2, chunk_size=5)
    assert len(jax_backend._CACHE) == 3


def test_chunk_size_follows_memory_budget():
    case = CASES["conv"]
    params, batch = case.make(np.random.default_rng(0), 100, np.float32)
    _, info = per_sample_grad_sq(case.loss, params, batch, fast_path=False,
                                 memory_budget=3 * 4 * 14 * 10, return_info=True)
    # 14 params x 4 bytes x 3 copies per sample: 10 per chunk, 100 samples in 10 chunks
    assert info.chunk_size == 10
    _, info = per_sample_grad_sq(case.loss, params, batch, return_info=True)
    assert info.chunk_size == 100


@pytest.mark.parametrize("xp_arrays", [np.asarray, jnp.asarray], ids=["numpy", "jax"])
def test_user_grad_fn_array_generic(xp_arrays):
    """A user's vectorised gradient (here hand-written logistic) on the array-generic path."""
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((9, 4)), rng.integers(0, 2, 9).astype(float)

    def grad_fn(p, b):
        xb, yb = b
        r = 1 / (1 + np.exp(-(np.asarray(xb) @ np.asarray(p["w"]) + float(p["b"])))) - yb
        return {"w": xp_arrays(r[:, None] * np.asarray(xb)), "b": xp_arrays(np.asarray(r))}

    with jax.enable_x64(True):
        params = {"w": xp_arrays(rng.standard_normal(4)), "b": xp_arrays(np.array(0.3))}
        batch = (xp_arrays(x), xp_arrays(y))
        got, info = per_sample_grad_sq(logistic_regression(), params, batch,
                                       grad_fn=grad_fn, chunk_size=4, return_info=True)
        ref = reference_per_sample_grads(CASES["logistic"].loss, params, batch)
    assert info.paths == {"w": "grad_fn", "b": "grad_fn"}
    np.testing.assert_allclose(np.asarray(got["w"]), (ref[1] ** 2).mean(0), rtol=1e-10)
    np.testing.assert_allclose(np.asarray(got["b"]), (ref[0] ** 2).mean(0), rtol=1e-10)


def test_grad_fn_with_wrong_shape_is_named():
    params = {"w": np.ones(3)}
    with pytest.raises(InvalidInputError, match="grad_fn returned a leaf of shape"):
        per_sample_grad_sq(mlp(), params, (np.ones((4, 3)),), backend="numpy",
                           grad_fn=lambda p, b: {"w": np.ones(3)})


def test_import_robustfit_does_not_import_jax_or_cupy():
    import subprocess
    import sys

    code = (
        "import sys, robustfit, robustfit.grad; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('jax', 'cupy')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
