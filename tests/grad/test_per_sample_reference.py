"""Every path of per_sample_grad_sq against an explicit float64 per-sample loop."""

from __future__ import annotations

import functools

import jax
import numpy as np
import pytest

from benchmarks.per_sample_cases import CASES, reference_per_sample_grads
from robustfit import per_sample_grad_norms, per_sample_grad_sq

RTOL = {np.float32: 2e-5, np.float64: 1e-10}


@functools.cache
def _data(name, seed, n, dtype):
    """Parameters, batch and float64 loop reference, computed once per module."""
    case = CASES[name]
    params, batch = case.make(np.random.default_rng(seed), n, dtype)
    return case, params, batch, reference_per_sample_grads(case.loss, params, batch)


def _leaves(tree):
    return [np.asarray(x) for x in jax.tree_util.tree_leaves(tree)]


def _close(got, want, dtype):
    for g, w in zip(got, want, strict=True):
        scale = max(np.max(np.abs(w)), 1e-30)
        np.testing.assert_allclose(g, w, rtol=0, atol=RTOL[dtype] * scale)


def _run(dtype, fn, *args, **kwargs):
    if dtype == np.float64:
        with jax.enable_x64(True):
            return fn(*args, **kwargs)
    return fn(*args, **kwargs)


@pytest.mark.parametrize(
    "name, fast_path, dtype",
    [(m, f, np.float32) for m in sorted(CASES) for f in (True, False)]
    + [(m, True, np.float64) for m in ("mlp", "rnn", "logistic")]
    + [pytest.param(m, True, np.float64, marks=pytest.mark.slow)
       for m in sorted(CASES) if m not in ("mlp", "rnn", "logistic")]
    + [pytest.param(m, False, np.float64, marks=pytest.mark.slow) for m in sorted(CASES)],
    ids=lambda v: {True: "auto", False: "generic"}.get(v, getattr(v, "__name__", str(v))),
)
def test_mean_and_sum_match_float64_loop(name, fast_path, dtype):
    case, params, batch, ref = _data(name, 0, 13, dtype)
    mean, info = _run(
        dtype, per_sample_grad_sq, case.loss, params, batch, chunk_size=5,
        fast_path=fast_path, return_info=True,
    )
    _close(_leaves(mean), [(g**2).mean(0) for g in ref], dtype)
    assert all(np.asarray(x).dtype == dtype for x in _leaves(mean))
    total = _run(
        dtype, per_sample_grad_sq, case.loss, params, batch, reduction="sum", chunk_size=5,
        fast_path=fast_path,
    )
    _close(_leaves(total), [(g**2).sum(0) for g in ref], dtype)
    assert info.chunk_size == 5 and info.n_used == 13


@pytest.mark.parametrize("name", sorted(CASES))
def test_paths_found_in_jaxpr(name):
    case = CASES[name]
    params, batch = case.make(np.random.default_rng(1), 4, np.float32)
    _, info = per_sample_grad_sq(case.loss, params, batch, return_info=True)
    paths = {jax.tree_util.keystr(k): v for k, v in
             jax.tree_util.tree_flatten_with_path(info.paths)[0]}
    assert paths == case.expected_paths


@pytest.mark.parametrize("name", sorted(CASES))
def test_none_and_norms_match_float64_loop(name):
    case, params, batch, ref = _data(name, 2, 9, np.float32)
    squares = per_sample_grad_sq(case.loss, params, batch, reduction="none", chunk_size=4)
    _close(_leaves(squares), [g**2 for g in ref], np.float32)
    norms = per_sample_grad_norms(case.loss, params, batch, chunk_size=4)
    want = np.sqrt(sum((g.reshape(9, -1) ** 2).sum(1) for g in ref))
    np.testing.assert_allclose(np.asarray(norms), want, rtol=2e-5)


SIZES = [(1, None), (7, 3), (10, 4)]
MORE_SIZES = [(1, 3), (8, 8), (10, 1), (5, 64), (33, 32)]


@pytest.mark.parametrize(
    "name, n, chunk",
    [(m, n, c) for m in ("mlp", "rnn") for n, c in SIZES]
    + [pytest.param(m, n, c, marks=pytest.mark.slow)
       for m in ("mlp", "rnn", "conv") for n, c in MORE_SIZES],
)
def test_batch_sizes_and_chunks(name, n, chunk):
    case, params, batch, ref = _data(name, 3, n, np.float32)
    for fast_path in (True, False):
        got = per_sample_grad_sq(case.loss, params, batch, chunk_size=chunk, fast_path=fast_path)
        _close(_leaves(got), [(g**2).mean(0) for g in ref], np.float32)


def test_auto_path_equals_generic_path_to_rounding():
    case = CASES["mlp"]
    params, batch = case.make(np.random.default_rng(4), 50, np.float32)
    with jax.enable_x64(True):
        params64 = jax.tree_util.tree_map(lambda a: np.asarray(a, np.float64), params)
        x, y = batch
        batch64 = (np.asarray(x, np.float64), np.asarray(y, np.float64))
        fast = per_sample_grad_sq(case.loss, params64, batch64)
        slow = per_sample_grad_sq(case.loss, params64, batch64, fast_path=False)
    for f, s in zip(_leaves(fast), _leaves(slow), strict=True):
        np.testing.assert_allclose(f, s, rtol=1e-12, atol=0)


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if CASES[n].spec is not None])
@pytest.mark.parametrize("backend", ["numpy", "jax"])
def test_model_specs_match_float64_loop(name, backend):
    case, params, batch, ref = _data(name, 5, 11, np.float64)
    with jax.enable_x64(True):
        got, info = per_sample_grad_sq(
            case.spec, params, batch, backend=backend, chunk_size=4 if backend == "numpy" else None,
            return_info=True,
        )
        norms = per_sample_grad_norms(case.spec, params, batch, backend=backend)
        squares = per_sample_grad_sq(case.spec, params, batch, backend=backend, reduction="none")
    assert set(jax.tree_util.tree_leaves(info.paths)) == {"spec"}
    assert info.backend == backend
    _close(_leaves(got), [(g**2).mean(0) for g in ref], np.float64)
    _close(_leaves(squares), [g**2 for g in ref], np.float64)
    want = np.sqrt(sum((g.reshape(11, -1) ** 2).sum(1) for g in ref))
    np.testing.assert_allclose(np.asarray(norms), want, rtol=1e-10)
    if backend == "numpy":
        assert all(isinstance(x, np.ndarray) for x in _leaves(got))


@pytest.mark.parametrize("name", [n for n in sorted(CASES) if CASES[n].spec is not None])
def test_spec_is_the_same_loss_as_plain_jax(name):
    case = CASES[name]
    params, batch = case.make(np.random.default_rng(6), 3, np.float64)
    sample = jax.tree_util.tree_map(lambda a: a[1], batch)
    with jax.enable_x64(True):
        want = float(case.loss(params, sample))
        via_jax = float(case.spec(jax.tree_util.tree_map(jax.numpy.asarray, params), sample))
    assert float(case.spec(params, sample)) == pytest.approx(want, rel=1e-12)
    assert via_jax == pytest.approx(want, rel=1e-12)
