"""Benchmark per_sample_grad_sq against the baselines it replaces.

For a plain ``jax.numpy`` MLP (no robustfit specs) of 1e3...1e6 parameters and batches of
1...4096, measure wall time and peak memory of

* ``batched_grad`` -- one ``jit(grad)`` of the mean loss (the cost of a training step),
* ``auto``         -- ``per_sample_grad_sq`` (dense identity found in the jaxpr),
* ``generic``      -- ``per_sample_grad_sq(fast_path=False)``: chunked vmap(grad) under the
  default 256 MiB memory budget,
* ``vmap``         -- plain ``jit(vmap(grad))`` then square and mean (skipped above
  ``--vmap-cap`` batch x params elements, where it needs many GB),
* ``loop``         -- a naive Python loop of jitted per-sample gradients (small sizes only).

The ratios ``auto / batched_grad`` and ``generic / vmap`` are timed interleaved in the same
process (after its peak memory is recorded), because separate processes minutes apart see
different load on a shared machine.

Each measurement runs in its own subprocess so that its peak RSS (``ru_maxrss``) is its
own. ``auto`` and ``generic`` also report the relative error against a float64 per-sample
loop. Results go to ``benchmarks/results/per_sample_cpu.json``.

``--gpu`` (on a CUDA machine) writes ``per_sample_gpu.json`` and adds

* ``spec``              -- ``per_sample_grad_sq`` with robustfit's ``mlp`` spec on JAX,
* ``cupy_batched_grad`` -- a hand-written CuPy backward pass of the mean loss (what a
  CuPy user writes for one training step; no robustfit code),
* ``cupy_spec``         -- ``per_sample_grad_sq`` with the ``mlp`` spec on CuPy arrays,

with ``spec / batched_grad`` and ``cupy_spec / cupy_batched_grad`` timed interleaved.
Peak memory on the GPU is JAX's allocator peak (``memory_stats()["peak_bytes_in_use"]``,
preallocation off) or the size CuPy's memory pool grew to; both include the parameters
and the batch. ``--precision highest`` sets ``jax_default_matmul_precision`` in every
measurement, baselines included: on Ampere and Hopper GPUs JAX's default float32 matrix
product rounds its inputs to TensorFloat-32 (about 1e-3 relative).

Usage::

    python benchmarks/per_sample.py            # full grid, a few minutes on 2 cores
    python benchmarks/per_sample.py --quick    # small grid, seconds
    python benchmarks/per_sample.py --gpu      # on a GPU machine
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("batched_grad", "auto", "generic", "vmap", "loop")
GPU_METHODS = ("batched_grad", "auto", "spec", "generic", "vmap", "loop",
               "cupy_batched_grad", "cupy_spec")
#: Each timed method and the baseline its ratio is taken against, interleaved.
PAIRS = {"auto": "batched_grad", "spec": "batched_grad", "generic": "vmap",
         "cupy_spec": "cupy_batched_grad"}


def _rss_mb() -> float:
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _relative_error(got: list, ref: list) -> float:
    import numpy as np

    return max(
        float(np.max(np.abs(np.asarray(g, np.float64) - r)) / max(np.max(np.abs(r)), 1e-300))
        for g, r in zip(got, ref, strict=True)
    )


def _reference_mean_sq(loss, params, batch, loop_reference) -> tuple[list, str]:
    """Float64 mean of squared per-sample gradients, by plain JAX (no robustfit code).

    An explicit per-sample loop up to 512 samples; above, to keep the benchmark short,
    float64 ``vmap(grad)`` over chunks of 128 samples accumulated in NumPy float64.
    """
    import jax
    import numpy as np

    n = jax.tree_util.tree_leaves(batch)[0].shape[0]
    if n <= 512:
        return [(r**2).mean(0) for r in loop_reference(loss, params, batch)], "f64 loop"
    with jax.enable_x64(True):
        to64 = lambda a: np.asarray(a, np.float64) if np.asarray(a).dtype.kind == "f" else a  # noqa: E731
        p64 = jax.tree_util.tree_map(to64, params)
        b64 = jax.tree_util.tree_map(lambda a: to64(np.asarray(a)), batch)
        # squares summed over each chunk on the device, in float64: only parameter-sized
        # arrays come back to the host
        @jax.jit
        def per(p, b):
            grads = jax.vmap(jax.grad(loss), (None, 0))(p, b)
            return [jax.numpy.sum(g * g, axis=0) for g in jax.tree_util.tree_leaves(grads)]

        total = None
        for start in range(0, n, 128):
            part = per(p64, jax.tree_util.tree_map(lambda a, s=start: a[s:s + 128], b64))
            sq = [np.asarray(q, np.float64) for q in part]
            total = sq if total is None else [t + q for t, q in zip(total, sq, strict=True)]
    return [t / n for t in total], "f64 vmap, chunks of 128"


def _cupy_mean_grad(cp, params: list, x, y):
    """Mean-loss gradient of the benchmark MLP (tanh, relu, linear; squared loss) by hand."""
    (w0, b0), (w1, b1), (w2, b2) = ((p["w"], p["b"]) for p in params)
    h1 = cp.tanh(x @ w0 + b0)
    z2 = h1 @ w1 + b1
    h2 = cp.maximum(z2, 0)
    d3 = (h2 @ w2 + b2 - y) / x.shape[0]
    d2 = (d3 @ w2.T) * (z2 > 0)
    d1 = (d2 @ w1.T) * (1 - h1 * h1)
    return [{"w": a.T @ d, "b": d.sum(0)} for a, d in ((x, d1), (h1, d2), (h2, d3))]


def _gpu_memory_mb(cupy_method: bool) -> dict:
    """Peak bytes on the GPU so far: JAX's allocator peak or CuPy's pool size."""
    if cupy_method:
        import cupy as cp

        return {"peak_gpu_mb": cp.get_default_memory_pool().total_bytes() / 2**20}
    import jax

    stats = jax.local_devices()[0].memory_stats() or {}
    return {"peak_gpu_mb": stats.get("peak_bytes_in_use", float("nan")) / 2**20}


def _cached_reference(spec: dict, compute) -> tuple[list, str]:
    """The float64 reference of this (n_params, batch), computed once per benchmark run."""
    import numpy as np

    if not spec.get("ref_dir"):
        return compute()
    path = Path(spec["ref_dir"]) / f"ref_{spec['n_params']}_{spec['batch']}.npz"
    if path.exists():
        with np.load(path) as saved:
            return [saved[f"a{i}"] for i in range(len(saved.files) - 1)], str(saved["how"])
    ref, how = compute()
    np.savez(path, how=how, **{f"a{i}": r for i, r in enumerate(ref)})
    return ref, how


def child(spec: dict) -> dict:
    """Run one (method, n_params, batch) measurement in this process."""
    sys.path.insert(0, str(ROOT))
    import jax
    import jax.numpy as jnp
    import numpy as np

    if spec.get("precision"):
        jax.config.update("jax_default_matmul_precision", spec["precision"])

    from benchmarks.per_sample_cases import (
        make_mlp,
        mlp_loss,
        mlp_of_size,
        reference_per_sample_grads,
    )
    from robustfit import per_sample_grad_sq
    from robustfit.grad import mlp

    widths, n_params = mlp_of_size(spec["n_params"])
    host_params, host_batch = make_mlp(np.random.default_rng(0), spec["batch"], np.float32, widths)
    params = jax.tree_util.tree_map(jnp.asarray, host_params)
    batch = jax.tree_util.tree_map(jnp.asarray, host_batch)
    loss = mlp_loss
    model = mlp(("tanh", "relu"))
    method = spec["method"]
    on_cupy = method.startswith("cupy")
    if on_cupy:
        import cupy as cp

        cp_params = [{k: cp.asarray(v) for k, v in p.items()} for p in host_params]
        cp_batch = tuple(cp.asarray(b) for b in host_batch)
        done = lambda out: cp.cuda.Device().synchronize()  # noqa: E731
    else:
        done = jax.block_until_ready

    def make_run(method: str):
        if method == "batched_grad":
            f = jax.jit(jax.grad(lambda p, b: jnp.mean(jax.vmap(loss, (None, 0))(p, b))))
            return lambda: f(params, batch)
        if method == "auto":
            return lambda: per_sample_grad_sq(loss, params, batch)
        if method == "spec":
            return lambda: per_sample_grad_sq(model, params, batch)
        if method == "generic":
            return lambda: per_sample_grad_sq(loss, params, batch, fast_path=False)
        if method == "cupy_batched_grad":
            return lambda: _cupy_mean_grad(cp, cp_params, *cp_batch)
        if method == "cupy_spec":
            return lambda: per_sample_grad_sq(model, cp_params, cp_batch)
        if method == "vmap":
            f = jax.jit(lambda p, b: jax.tree_util.tree_map(
                lambda g: jnp.mean(g * g, axis=0), jax.vmap(jax.grad(loss), (None, 0))(p, b)
            ))
            return lambda: f(params, batch)
        g = jax.jit(jax.grad(loss))
        acc = jax.jit(lambda a, x: jax.tree_util.tree_map(lambda u, v: u + v * v, a, x))
        n = spec["batch"]

        def loop():
            total = jax.tree_util.tree_map(jnp.zeros_like, params)
            for i in range(n):
                sample = jax.tree_util.tree_map(lambda a, i=i: a[i], batch)
                total = acc(total, g(params, sample))
            return jax.tree_util.tree_map(lambda t: t / n, total)
        return loop

    run = make_run(method)
    rss_setup = _rss_mb()
    t0 = time.perf_counter()
    out = run()
    done(out)
    first = time.perf_counter() - t0
    times = []
    for _ in range(spec["repeats"]):
        t0 = time.perf_counter()
        out = run()
        done(out)
        times.append(time.perf_counter() - t0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    result = {
        **spec, "n_params": n_params, "widths": list(widths), "time_s": min(times),
        "first_call_s": first, "peak_rss_mb": peak, "setup_rss_mb": rss_setup,
    }
    if spec.get("gpu"):
        result.update(_gpu_memory_mb(on_cupy))
    if spec.get("paired"):
        # Timings taken in separate processes minutes apart drift with the machine's
        # load; the ratio that the targets are judged on is timed here, interleaved.
        base = make_run(spec["paired"])
        done(base())
        mine, theirs = [], []
        for _ in range(max(2, spec["repeats"])):
            for fn, into in ((run, mine), (base, theirs)):
                t0 = time.perf_counter()
                done(fn())
                into.append(time.perf_counter() - t0)
        result["paired"] = {"baseline": spec["paired"], "time_s": min(mine),
                            "baseline_time_s": min(theirs), "ratio": min(mine) / min(theirs)}
    if method in ("auto", "spec", "generic", "cupy_spec") and spec.get("error"):
        ref, how = _cached_reference(spec, lambda: _reference_mean_sq(
            loss, params, batch, reference_per_sample_grads))
        got = jax.tree_util.tree_leaves(out)
        got = [cp.asnumpy(g) for g in got] if on_cupy else got
        result["rel_error_vs_f64"] = _relative_error(got, ref)
        result["reference"] = how
    return result


def run_child(spec: dict, timeout: float) -> dict:
    cmd = [sys.executable, __file__, "--child", json.dumps(spec)]
    # Without preallocation JAX's allocator peak is what the method itself needed.
    env = {**os.environ, "PYTHONPATH": str(ROOT), "XLA_PYTHON_CLIENT_PREALLOCATE": "false"}
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {**spec, "skipped": f"timed out after {timeout:.0f} s"}
    if proc.returncode:
        return {**spec, "skipped": f"failed: {proc.stderr.strip().splitlines()[-1:]}"}
    return {**json.loads(proc.stdout.strip().splitlines()[-1]),
            "process_s": time.perf_counter() - t0}


def grid(args: argparse.Namespace) -> list[dict]:
    if args.gpu:  # each measurement starts CUDA afresh: a coarser grid
        sizes = [1_000, 100_000] if args.quick else [1_000, 100_000, 1_000_000]
        batches = [1, 256] if args.quick else [1, 256, 4096]
    else:
        sizes = [1_000, 10_000] if args.quick else [1_000, 10_000, 100_000, 1_000_000]
        batches = [1, 64, 512] if args.quick else [1, 64, 512, 4096]
    sizes = [int(float(v)) for v in args.sizes.split(",")] if args.sizes else sizes
    batches = [int(v) for v in args.batches.split(",")] if args.batches else batches
    methods = GPU_METHODS if args.gpu else METHODS
    methods = [m for m in methods if m in args.methods.split(",")] if args.methods else methods
    vmap_cap = args.vmap_cap or (5e9 if args.gpu else 2.7e8)
    specs = []
    for n_params in sizes:
        for batch in batches:
            elements = n_params * batch
            for method in methods:
                if method == "vmap" and elements > vmap_cap:
                    continue
                if method == "loop" and (batch > (1 if args.gpu else 512) or elements > 2e7):
                    continue
                paired = PAIRS.get(method)
                if paired == "vmap" and elements > vmap_cap:
                    paired = None
                if args.gpu:
                    repeats = 20 if elements < 1e8 else 5
                else:
                    repeats = 1 if elements >= 5e8 else 3
                specs.append({
                    "method": method, "n_params": n_params, "batch": batch,
                    "repeats": repeats, "paired": paired, "gpu": args.gpu,
                    "precision": args.precision,
                    "error": elements <= (
                        args.error_cap / 8 if method == "generic" else args.error_cap
                    ),
                })
    return specs


def summarise(results: list[dict]) -> dict:
    """Ratios per (n_params, batch), e.g. auto / batched_grad and generic / vmap."""
    by = {}
    for r in results:
        if "skipped" in r:  # kept in "results" with the reason, no row of its own
            continue
        by.setdefault((r["n_params"], r["batch"]), {})[r["method"]] = r
    rows = []
    for (n_params, batch), m in sorted(by.items()):
        def t(name, m=m):
            return m.get(name, {}).get("time_s")
        row = {"n_params": n_params, "batch": batch}
        for name, base in PAIRS.items():
            if isinstance(m.get(name, {}).get("paired"), dict):  # interleaved in one process
                row[f"{name}_over_{base}"] = m[name]["paired"]["ratio"]
        if t("loop") and t("auto"):
            row["loop_over_auto"] = t("loop") / t("auto")
        for name in GPU_METHODS:
            for field, key in (("peak_rss_mb", "peak_mb"), ("peak_gpu_mb", "peak_gpu_mb"),
                               ("rel_error_vs_f64", "rel_error")):
                if field in m.get(name, {}):
                    row[f"{name}_{key}"] = m[name][field]
        rows.append(row)
    return {"ratios": rows}


def markdown_table_gpu(payload: dict) -> str:
    """GPU results: JAX and CuPy, times, interleaved ratios, GPU peaks, errors."""
    times = {(r["method"], r["n_params"], r["batch"]): r for r in payload["results"]}
    lines = [
        "| params | batch | batched grad | auto | auto / batched | spec / batched "
        "| batched peak | auto peak | generic / vmap | generic peak | vmap peak "
        "| CuPy grad | CuPy spec / CuPy grad | auto rel. error | CuPy rel. error |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def cell(method, p, b, field, fmt):
        r = times.get((method, p, b), {})
        return fmt(r[field]) if field in r else "--"

    ms = lambda v: f"{1e3 * v:.3g} ms"  # noqa: E731
    mb = lambda v: f"{v:.0f} MB"  # noqa: E731
    sci = lambda v: f"{v:.1e}"  # noqa: E731
    for row in payload["ratios"]:
        p, b = row["n_params"], row["batch"]
        ratio = lambda k, row=row: f"{row[k]:.2f}x" if k in row else "--"  # noqa: E731
        lines.append(
            f"| {p:,} | {b} | {cell('batched_grad', p, b, 'time_s', ms)} "
            f"| {cell('auto', p, b, 'time_s', ms)} | {ratio('auto_over_batched_grad')} "
            f"| {ratio('spec_over_batched_grad')} "
            f"| {cell('batched_grad', p, b, 'peak_gpu_mb', mb)} "
            f"| {cell('auto', p, b, 'peak_gpu_mb', mb)} | {ratio('generic_over_vmap')} "
            f"| {cell('generic', p, b, 'peak_gpu_mb', mb)} "
            f"| {cell('vmap', p, b, 'peak_gpu_mb', mb)} "
            f"| {cell('cupy_batched_grad', p, b, 'time_s', ms)} "
            f"| {ratio('cupy_spec_over_cupy_batched_grad')} "
            f"| {cell('auto', p, b, 'rel_error_vs_f64', sci)} "
            f"| {cell('cupy_spec', p, b, 'rel_error_vs_f64', sci)} |"
        )
    return "\n".join(lines)


def markdown_table(payload: dict) -> str:
    """The results as the Markdown table used in docs/per_sample_gradients.md."""
    times = {(r["method"], r["n_params"], r["batch"]): r for r in payload["results"]}
    lines = [
        "| params | batch | batched grad | auto | auto / batched | auto peak | generic "
        "| vmap | generic / vmap | generic peak | naive loop | auto rel. error |",
        "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
    ]

    def sec(method, p, b):
        r = times.get((method, p, b), {})
        return f"{r['time_s']:.3g} s" if "time_s" in r else "--"

    def peak(method, p, b):
        r = times.get((method, p, b), {})
        return f"{r['peak_rss_mb']:.0f} MB" if "peak_rss_mb" in r else "--"

    for row in payload["ratios"]:
        p, b = row["n_params"], row["batch"]
        auto = times.get(("auto", p, b), {})
        ratio = lambda k, row=row: f"{row[k]:.2f}x" if k in row else "--"  # noqa: E731
        err = auto.get("rel_error_vs_f64")
        lines.append(
            f"| {p:,} | {b} | {sec('batched_grad', p, b)} | {sec('auto', p, b)} "
            f"| {ratio('auto_over_batched_grad')} | {peak('auto', p, b)} "
            f"| {sec('generic', p, b)} | {sec('vmap', p, b)} | {ratio('generic_over_vmap')} "
            f"| {peak('generic', p, b)} | {sec('loop', p, b)} "
            f"| {f'{err:.1e}' if err is not None else '--'} |"
        )
    return "\n".join(lines)


def device_info(gpu: bool) -> dict:
    import jax

    info = {
        "jax": jax.__version__, "devices": [str(d) for d in jax.devices()],
        "python": platform.python_version(), "machine": platform.machine(),
        "cpu_count": os.cpu_count(),
    }
    if gpu:
        try:
            import cupy

            info["cupy"] = cupy.__version__
            props = cupy.cuda.runtime.getDeviceProperties(0)
            info["gpu_name"] = props["name"].decode()
        except ImportError:
            info["cupy"] = None
    return info


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true", help="small grid")
    parser.add_argument("--gpu", action="store_true", help="write per_sample_gpu.json")
    parser.add_argument("--vmap-cap", type=float, default=None,
                        help="largest batch x params for the plain vmap baseline "
                        "(default 2.7e8, with --gpu 5e9)")
    parser.add_argument("--precision", choices=("highest",), default=None,
                        help="jax_default_matmul_precision for every measurement")
    parser.add_argument("--sizes", help="comma-separated parameter counts (default grid)")
    parser.add_argument("--batches", help="comma-separated batch sizes (default grid)")
    parser.add_argument("--methods", help="comma-separated subset of the methods")
    parser.add_argument("--partial", type=Path, default=Path("/tmp/per_sample_partial.json"),
                        help="results so far, rewritten after every measurement")
    parser.add_argument("--error-cap", type=float, default=5e9,
                        help="largest batch x params for the float64-loop error check")
    parser.add_argument("--timeout", type=float, default=300, help="seconds per measurement")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--table", action="store_true",
                        help="print the saved results as a Markdown table and exit")
    args = parser.parse_args()
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if args.table:
        name = "per_sample_gpu.json" if args.gpu else "per_sample_cpu.json"
        path = args.out or ROOT / "benchmarks" / "results" / name
        table = markdown_table_gpu if args.gpu else markdown_table
        print(table(json.loads(path.read_text())))
        return
    if args.child:
        print(json.dumps(child(json.loads(args.child))))
        return
    results = []
    ref_dir = tempfile.mkdtemp(prefix="per_sample_ref_")
    for spec in grid(args):
        spec["ref_dir"] = ref_dir
        r = run_child(spec, args.timeout)
        results.append(r)
        shown = r.get("skipped") or (
            f"{r['time_s']:.4g} s, peak {r['peak_rss_mb']:.0f} MB"
            + (f", GPU peak {r['peak_gpu_mb']:.0f} MB" if "peak_gpu_mb" in r else "")
            + (f", {r['paired']['ratio']:.2f}x {r['paired']['baseline']}"
               if r.get("paired") else "")
            + (f", rel. error {r['rel_error_vs_f64']:.1e}" if "rel_error_vs_f64" in r else "")
        )
        print(f"{spec['method']:>13} params={r['n_params']:>8} batch={r['batch']:>5}: {shown}",
              flush=True)
        args.partial.write_text(json.dumps(results))  # survives a crash mid-grid
    summary = summarise(results)
    for row in summary["ratios"]:
        print(json.dumps({k: float(f"{v:.3g}") if isinstance(v, float) else v
                          for k, v in row.items()}))
    name = "per_sample_gpu.json" if args.gpu else "per_sample_cpu.json"
    out = args.out or ROOT / "benchmarks" / "results" / name
    out.parent.mkdir(parents=True, exist_ok=True)
    payload = {"command": " ".join(["python benchmarks/per_sample.py", *sys.argv[1:]]),
               "device": device_info(args.gpu), **summary, "results": results}
    out.write_text(json.dumps(payload, indent=1))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
