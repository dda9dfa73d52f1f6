"""Where the time of one ``per_sample_grad_sq`` call goes, next to one batched gradient.

For the benchmark MLP (``mlp_loss``: tanh, relu, linear) of 1e3 and 1e6 parameters,
prints the minimum over repeated calls, in microseconds, of

* ``batched_grad`` -- ``jit(grad)`` of the mean loss, waited for (``block_until_ready``),
* ``compiled``     -- robustfit's compiled function alone (the cached first pass),
* ``compiled_get`` -- the same, then its sample mask brought to the host,
* ``call``         -- the whole public call ``per_sample_grad_sq(loss, params, batch)``,
* ``propagate``    -- the public call with ``nan_policy="propagate"``,

so that the device work (``compiled / batched_grad``), the wait for the device
(``compiled_get - compiled``) and the Python work (``call - compiled_get``) can be told
apart. Results go to ``benchmarks/results/per_sample_overhead_<platform>.json``.

Usage::

    python benchmarks/per_sample_overhead.py [--precision highest]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

from benchmarks.per_sample_cases import make_mlp, mlp_loss, mlp_of_size  # noqa: E402
from robustfit import per_sample_grad_sq  # noqa: E402
from robustfit.grad import jax_backend  # noqa: E402

CONFIGS = ((1_000, 256), (1_000_000, 256), (1_000_000, 4096))


def best_of(fn, repeats: int = 30) -> float:
    """Minimum wall time of ``fn()`` in microseconds, waited for, after one warm-up."""
    jax.block_until_ready(fn())
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        jax.block_until_ready(fn())
        times.append(time.perf_counter() - t0)
    return 1e6 * min(times)


def measure(n_params: int, batch_size: int) -> dict:
    widths, real = mlp_of_size(n_params)
    params, batch = make_mlp(np.random.default_rng(0), batch_size, np.float32, widths)
    params = jax.tree_util.tree_map(jnp.asarray, params)
    batch = jax.tree_util.tree_map(jnp.asarray, batch)
    batched = jax.jit(jax.grad(lambda p, b: jnp.mean(jax.vmap(mlp_loss, (None, 0))(p, b))))
    jax_backend._CACHE.clear()
    per_sample_grad_sq(mlp_loss, params, batch)
    compiled = next(iter(jax_backend._CACHE.values()))[False]
    leaves, batch_leaves = jax.tree_util.tree_leaves(params), jax.tree_util.tree_leaves(batch)
    row = {"n_params": real, "batch": batch_size}
    row["batched_grad_us"] = best_of(lambda: batched(params, batch))
    row["compiled_us"] = best_of(lambda: compiled(leaves, batch_leaves))
    row["compiled_get_us"] = best_of(lambda: np.asarray(compiled(leaves, batch_leaves)[1]))
    row["call_us"] = best_of(lambda: per_sample_grad_sq(mlp_loss, params, batch))
    row["propagate_us"] = best_of(
        lambda: per_sample_grad_sq(mlp_loss, params, batch, nan_policy="propagate")
    )
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--precision", choices=("highest",), default=None)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    if args.precision:
        jax.config.update("jax_default_matmul_precision", args.precision)
    rows = []
    for n_params, batch_size in CONFIGS:
        row = measure(n_params, batch_size)
        rows.append(row)
        print(json.dumps({k: round(v) if isinstance(v, float) else v for k, v in row.items()}),
              flush=True)
    platform = jax.devices()[0].platform
    out = args.out or ROOT / "benchmarks" / "results" / f"per_sample_overhead_{platform}.json"
    out.write_text(json.dumps({
        "command": " ".join(["python benchmarks/per_sample_overhead.py", *sys.argv[1:]]),
        "device": str(jax.devices()[0]), "jax": jax.__version__,
        "precision": args.precision or "default", "rows": rows,
    }, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
