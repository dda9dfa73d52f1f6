"""per_sample_grad_sq where leaves take the generic path (chunked vmap(grad)) on models a
user writes: an MLP 784-512-512-10 with softmax cross-entropy (``fast_path=False``), the
same MLP with L2 weight decay inside the per-sample loss (every weight then goes
generic, default call), and an embedding-bag text classifier (a 20000 x 64 table read by
lookup, default call). Each against plain ``jit(vmap(grad))`` then the mean of squares,
and against one ``jit(grad)`` of the mean loss, timed interleaved in one process (the
least of ``--repeats`` calls each), with the per_sample_grad_sq default ``nan_policy``
("raise") and "propagate". The forty-third session's held-out check found the default
call 10-60 times slower than vmap(grad) on these models once the batch spans several
chunks (a 0/1 mask multiplied into the per-sample gradients inside the chunks' scan).

    python benchmarks/per_sample_generic.py [--repeats 5] [--out PATH]

Results: ``benchmarks/results/per_sample_generic_cpu.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

import jax
import jax.numpy as jnp
import numpy as np

import robustfit

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results",
                   "per_sample_generic_cpu.json")


def _mlp(n: int, decay: float):
    rng = np.random.default_rng(6)
    sizes = [784, 512, 512, 10]
    params = [{"w": jnp.asarray(rng.standard_normal((a, b)) / np.sqrt(a), jnp.float32),
               "b": jnp.asarray(rng.standard_normal(b) * 0.05, jnp.float32)}
              for a, b in zip(sizes[:-1], sizes[1:], strict=True)]
    batch = (jnp.asarray(rng.random((n, 784)), jnp.float32),
             jnp.asarray(rng.integers(0, 10, n), jnp.int32))

    def loss(p, s):
        h = s[0]
        for layer in p[:-1]:
            h = jax.nn.relu(h @ layer["w"] + layer["b"])
        z = h @ p[-1]["w"] + p[-1]["b"]
        penalty = decay * sum(jnp.sum(layer["w"] ** 2) for layer in p) if decay else 0.0
        return jax.nn.logsumexp(z) - z[s[1]] + penalty

    return loss, params, batch


def _embedding_bag(n: int):
    rng = np.random.default_rng(0)
    vocabulary, width, length, classes = 20000, 64, 32, 10
    params = {"emb": jnp.asarray(rng.standard_normal((vocabulary, width)) * 0.1, jnp.float32),
              "w": jnp.asarray(rng.standard_normal((width, classes)) * 0.1, jnp.float32),
              "b": jnp.zeros(classes, jnp.float32)}
    batch = (jnp.asarray(rng.integers(0, vocabulary, (n, length)), jnp.int32),
             jnp.asarray(rng.integers(0, classes, n), jnp.int32))

    def loss(p, s):
        z = jnp.mean(p["emb"][s[0]], 0) @ p["w"] + p["b"]
        return jax.nn.logsumexp(z) - z[s[1]]

    return loss, params, batch


CASES = {
    "mlp_softmax_generic": (lambda: _mlp(128, 0.0), {"fast_path": False}),
    "mlp_weight_decay": (lambda: _mlp(128, 1e-4), {}),
    "embedding_bag": (lambda: _embedding_bag(64), {}),
}


def _least(fn, repeats: int) -> float:
    jax.block_until_ready(fn())
    best = np.inf
    for _ in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(fn())
        best = min(best, time.perf_counter() - started)
    return best


def run_case(name: str, repeats: int) -> dict:
    make, kwargs = CASES[name]
    loss, params, batch = make()
    backward = jax.jit(jax.grad(lambda q: jnp.mean(jax.vmap(loss, (None, 0))(q, batch))))
    vmapped = jax.jit(lambda q: jax.tree_util.tree_map(
        lambda g: jnp.mean(g * g, 0), jax.vmap(jax.grad(loss), (None, 0))(q, batch)))
    _, info = robustfit.per_sample_grad_sq(loss, params, batch, return_info=True, **kwargs)
    calls = {
        "backward": lambda: backward(params),
        "vmap": lambda: vmapped(params),
        "default": lambda: robustfit.per_sample_grad_sq(loss, params, batch, **kwargs),
        "propagate": lambda: robustfit.per_sample_grad_sq(loss, params, batch,
                                                          nan_policy="propagate", **kwargs),
    }
    times = {key: np.inf for key in calls}
    for _ in range(repeats):  # interleaved: each round times every call once
        for key, fn in calls.items():
            times[key] = min(times[key], _least(fn, 1))
    got = robustfit.per_sample_grad_sq(loss, params, batch, **kwargs)
    want = vmapped(params)
    error = max(float(jnp.max(jnp.abs(a - b)) / jnp.max(jnp.abs(b)))
                for a, b in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want),
                                strict=True))
    return {"case": name, "kwargs": kwargs, "chunk_size": info.chunk_size,
            "batch": int(jax.tree_util.tree_leaves(batch)[0].shape[0]),
            "paths": sorted(set(jax.tree_util.tree_leaves(info.paths))),
            "seconds": times,
            "default_over_vmap": times["default"] / times["vmap"],
            "propagate_over_vmap": times["propagate"] / times["vmap"],
            "default_over_backward": times["default"] / times["backward"],
            "relative_error_vs_vmap": error}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", default=OUT)
    args = parser.parse_args()
    rows = []
    for name in CASES:
        row = run_case(name, args.repeats)
        rows.append(row)
        print(f"{name:22s} chunk {row['chunk_size']:4d} default/vmap "
              f"{row['default_over_vmap']:5.2f}  propagate/vmap "
              f"{row['propagate_over_vmap']:5.2f}  default/backward "
              f"{row['default_over_backward']:7.1f}  error {row['relative_error_vs_vmap']:.1e}",
              flush=True)
    payload = {"command": "python benchmarks/per_sample_generic.py",
               "device": {"platform": platform.platform(), "jax": jax.__version__,
                          "backend": jax.default_backend()},
               "rows": rows}
    with open(args.out, "w") as fh:
        json.dump(payload, fh, indent=1)


if __name__ == "__main__":
    main()
