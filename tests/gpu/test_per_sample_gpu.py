"""per_sample_grad_sq on a CUDA GPU: the CuPy backend and JAX on GPU.

Skipped, with the reason, where CuPy or a CUDA device is missing.
"""

from __future__ import annotations

import numpy as np
import pytest

from benchmarks.per_sample_cases import CASES, reference_per_sample_grads
from robustfit import per_sample_grad_norms, per_sample_grad_sq

pytestmark = pytest.mark.gpu

SPEC_CASES = [n for n in sorted(CASES) if CASES[n].spec is not None]


def _cupy():
    cp = pytest.importorskip("cupy", reason="CuPy is not installed (pip install cupy-cuda12x)")
    try:
        if cp.cuda.runtime.getDeviceCount() < 1:
            pytest.skip("CuPy is installed but no CUDA device is present")
    except cp.cuda.runtime.CUDARuntimeError as exc:
        pytest.skip(f"CuPy is installed but CUDA is unavailable: {exc}")
    return cp


def _jax_gpu():
    jax = pytest.importorskip("jax", reason="JAX is not installed")
    if not any(d.platform == "gpu" for d in jax.devices()):
        pytest.skip("JAX sees no GPU (CPU-only jaxlib or no CUDA device)")
    return jax


@pytest.mark.parametrize("name", SPEC_CASES)
def test_cupy_specs_match_float64_loop(name):
    cp = _cupy()
    case = CASES[name]
    params, batch = case.make(np.random.default_rng(0), 37, np.float64)
    ref = reference_per_sample_grads(case.loss, params, batch)
    to_gpu = lambda t: {k: cp.asarray(v) for k, v in t.items()} if isinstance(t, dict) else [  # noqa: E731
        {k: cp.asarray(v) for k, v in p.items()} for p in t
    ]
    got, info = per_sample_grad_sq(
        case.spec, to_gpu(params), tuple(cp.asarray(b) for b in batch), chunk_size=16,
        return_info=True,
    )
    assert info.backend == "cupy"
    import jax

    for g, r in zip(jax.tree_util.tree_leaves(got), ref, strict=True):
        assert isinstance(g, cp.ndarray)
        np.testing.assert_allclose(cp.asnumpy(g), (r**2).mean(0), rtol=1e-10)
    norms = per_sample_grad_norms(case.spec, to_gpu(params), tuple(cp.asarray(b) for b in batch))
    want = np.sqrt(sum((r.reshape(37, -1) ** 2).sum(1) for r in ref))
    np.testing.assert_allclose(cp.asnumpy(norms), want, rtol=1e-10)


def test_cupy_user_grad_fn():
    cp = _cupy()
    rng = np.random.default_rng(1)
    x = cp.asarray(rng.standard_normal((20, 3)))
    y = cp.asarray(rng.standard_normal(20))
    params = {"w": cp.asarray(rng.standard_normal(3))}

    def grad_fn(p, b):
        xb, yb = b
        return {"w": (xb @ p["w"] - yb)[:, None] * xb}

    got = per_sample_grad_sq(CASES["least_squares"].spec, params, (x, y), grad_fn=grad_fn)
    g = cp.asnumpy(grad_fn(params, (x, y))["w"])
    np.testing.assert_allclose(cp.asnumpy(got["w"]), (g**2).mean(0), rtol=1e-12)


@pytest.mark.parametrize("name", ["mlp", "rnn"])
def test_jax_on_gpu_matches_float64_loop(name):
    """Float32 accuracy needs full-precision matrix products on GPUs with TensorFloat-32.

    A first call at JAX's default precision (TF32 on Ampere and Hopper: ~1e-3 relative)
    must not leave a compiled function that the "highest" call reuses.
    """
    jax = _jax_gpu()
    case = CASES[name]
    params, batch = case.make(np.random.default_rng(2), 64, np.float32)
    ref = reference_per_sample_grads(case.loss, params, batch)
    per_sample_grad_sq(case.loss, params, batch, chunk_size=24)
    with jax.default_matmul_precision("highest"):
        got = per_sample_grad_sq(case.loss, params, batch, chunk_size=24)
    for g, r in zip(jax.tree_util.tree_leaves(got), ref, strict=True):
        assert g.devices().pop().platform == "gpu"
        scale = np.abs((r**2).mean(0)).max()
        np.testing.assert_allclose(np.asarray(g), (r**2).mean(0), atol=1e-5 * scale, rtol=0)
