"""``robustfit demo``: the three jobs robustfit does, each next to plain scipy / a naive loop.

The data are embedded: generated from fixed seeds with numpy's PCG64 generator, whose
streams numpy keeps stable across versions, so every run shows the same numbers. Each
scenario prints what both sides did and ends in one line ``VERDICT <name>: ...``.
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Callable

import numpy as np
from scipy import optimize, stats

__all__ = ["maxwell_speeds", "svm_problem", "mlp_batch", "run_demo", "SCENARIOS"]

MAXWELL_SEED = 20261122
MAXWELL_SCALE = 10455.0
MAXWELL_N = 10_000


def maxwell_speeds(n: int = MAXWELL_N, scale: float = MAXWELL_SCALE,
                   seed: int = MAXWELL_SEED) -> np.ndarray:
    """Speeds ``scale * |N(0, I_3)|``: Maxwell-distributed, the demo's embedded sample."""
    rng = np.random.default_rng(seed)
    return scale * np.linalg.norm(rng.standard_normal((n, 3)), axis=1)


def svm_problem(n: int = 400, seed: int = 7):
    """A linear SVM with hinge loss on two blobs, one feature in units 1000x the other.

    Returns ``(loss, grad, w0)``: ``loss(w) = mean(max(0, 1 - y (X w + b))) +
    lam/2 |w|^2`` is convex but has kinks, which is what trips quasi-Newton methods.
    """
    rng = np.random.default_rng(seed)
    X = np.vstack([rng.normal(-1.0, 1.0, (n // 2, 2)), rng.normal(1.0, 1.0, (n // 2, 2))])
    X[:, 1] *= 1000.0
    y = np.r_[-np.ones(n // 2), np.ones(n // 2)]
    Xb = np.c_[X, np.ones(n)]
    lam = 1e-3

    def loss(w):
        margin = 1.0 - y * (Xb @ w)
        return float(np.mean(np.maximum(margin, 0.0)) + 0.5 * lam * (w[:2] @ w[:2]))

    def grad(w):
        active = (1.0 - y * (Xb @ w)) > 0
        g = -(y[active, None] * Xb[active]).sum(axis=0) / n
        g[:2] += lam * w[:2]
        return g

    return loss, grad, np.zeros(3)


def mlp_batch(n: int = 256, corrupt: int = 137, seed: int = 3):
    """An 8-16-1 tanh MLP (``robustfit.grad.mlp`` layout) and a regression batch in which
    one record holds a NaN feature.

    Returns ``(params, (x, y), corrupt)``: params is ``[{"w": (8, 16), "b": (16,)},
    {"w": (16,), "b": ()}]`` of numpy arrays, ``x`` is ``(n, 8)``, ``y`` is ``(n,)``.
    """
    rng = np.random.default_rng(seed)
    params = [{"w": rng.standard_normal((8, 16)) / np.sqrt(8), "b": 0.1 * rng.standard_normal(16)},
              {"w": rng.standard_normal(16) / 4.0, "b": np.array(0.0)}]
    x = rng.normal(size=(n, 8))
    y = np.sin(x[:, 0]) + 0.1 * rng.normal(size=n)
    x[corrupt, 2] = np.nan  # a sensor dropout in one record
    return params, (x, y), corrupt


def _caught(fn: Callable):
    """Run ``fn`` recording warnings; return (value or exception, warning texts, seconds)."""
    t0 = time.perf_counter()
    with warnings.catch_warnings(record=True) as caught, np.errstate(all="warn"):
        warnings.simplefilter("always")
        try:
            value = fn()
        except Exception as exc:  # what plain scipy does is part of the comparison
            value = exc
    texts = list(dict.fromkeys(f"{w.category.__name__}: {w.message}" for w in caught))
    return value, texts, time.perf_counter() - t0


def scenario_maxwell(say: Callable[[str], None]) -> str:
    import robustfit

    x = maxwell_speeds()
    exact = float(np.sqrt(np.mean(x**2) / 3.0))
    nll = lambda s: float(-np.sum(stats.maxwell.logpdf(x, 0.0, s)))  # noqa: E731
    say(f"{x.size} Maxwell speeds, true scale {MAXWELL_SCALE:g}; fit with loc fixed at 0. "
        f"Exact MLE sqrt(mean(x^2)/3) = {exact:.6g}")

    res, _, t_rf = _caught(lambda: robustfit.fit(stats.maxwell, x, floc=0))
    se = res.stderr["scale"]
    say(f"  robustfit.fit(maxwell, x, floc=0)   scale={res[1]:.6g} +/- {se:.3g}, "
        f"NLL {res.nll:.8g}, success={res.success} ({t_rf:.2f} s)")

    sp, sp_warn, t_sp = _caught(lambda: stats.maxwell.fit(x, floc=0))
    if isinstance(sp, Exception):
        say(f"  scipy maxwell.fit(x, floc=0)        raised {type(sp).__name__}: {sp}")
        sp_ok = False
    else:
        sp_ok = bool(np.isclose(sp[1], exact, rtol=1e-6))
        say(f"  scipy maxwell.fit(x, floc=0)        scale={sp[1]:.6g}, NLL {nll(sp[1]):.8g}"
            f" ({t_sp:.2f} s, {len(sp_warn)} warnings)")
    gen, gen_warn, _ = _caught(lambda: stats.fit(stats.maxwell, x))
    if isinstance(gen, Exception):
        say(f"  scipy.stats.fit(maxwell, x)         raised {type(gen).__name__}: {gen}")
        gen_bad = True
        gen_desc = f"raised {type(gen).__name__}"
    else:
        loc_g, scale_g = gen.params
        gen_nll = float(gen.nllf())
        gen_bad = not np.isclose(scale_g, exact, rtol=1e-3)
        say(f"  scipy.stats.fit(maxwell, x)         loc={loc_g:.6g}, scale={scale_g:.6g}, "
            f"NLL {gen_nll:.8g}, success={gen.success}")
        gen_desc = (f"scipy.stats.fit reported success={gen.success} at scale={scale_g:.3g} "
                    f"(NLL {gen_nll:.3g})" if gen_bad else "scipy.stats.fit agreed")

    rf_ok = bool(res.success and np.isclose(res[1], exact, rtol=1e-9))
    sp_desc = "maxwell.fit(floc=0) agreed" if sp_ok else "maxwell.fit(floc=0) missed it"
    head = "robustfit hit the exact MLE" if rf_ok else "robustfit MISSED the exact MLE"
    return (f"{head} (scale {res[1]:.6g} +/- {se:.2g}); {gen_desc}; {sp_desc}"
            + (f" with {len(sp_warn)} warnings" if sp_warn else ""))


def scenario_svm(say: Callable[[str], None]) -> str:
    loss, grad, w0 = svm_problem()
    say("Linear SVM, hinge loss + L2, 400 points, features in units 1 and 1000 "
        "(kinks + bad scaling)")
    out, warn, t_b = _caught(lambda: optimize.fmin_bfgs(loss, w0, fprime=grad,
                                                        full_output=True, disp=False))
    if isinstance(out, Exception):
        say(f"  scipy fmin_bfgs                     raised {type(out).__name__}: {out}")
        f_b, flag = np.inf, -1
    else:
        f_b, flag = float(out[1]), int(out[6])
        why = {0: "converged", 1: "max iterations", 2: "precision loss",
               3: "NaN encountered"}.get(flag, str(flag))
        say(f"  scipy fmin_bfgs                     f={f_b:.8g}, warnflag={flag} ({why}), "
            f"{len(warn)} warnings ({t_b:.2f} s)")
    try:
        from robustfit import robust_minimize
    except (ImportError, AttributeError):
        say("  robustfit.robust_minimize           not available in this build")
        return "SKIPPED: robustfit.robust_minimize is not available in this build"
    res, rwarn, t_r = _caught(lambda: robust_minimize(loss, w0, jac=grad, rng=0))
    if isinstance(res, Exception):
        say(f"  robust_minimize                     raised {type(res).__name__}: {res}")
        return f"robust_minimize FAILED: {type(res).__name__}"
    say(f"  robustfit.robust_minimize           f={res.fun:.8g}, success={res.success}, "
        f"restarts={res.get('restarts', 0)}, {len(rwarn)} warnings ({t_r:.2f} s)")
    gain = f_b - float(res.fun)
    rel = gain / max(abs(f_b), 1e-300) if np.isfinite(f_b) else np.inf
    if res.fun <= f_b + 1e-12 * max(1.0, abs(f_b)):
        return (f"robust_minimize reached f={res.fun:.8g} (success={res.success}), "
                f"{'lower by %.2g%%' % (100 * rel) if rel > 1e-9 else 'the same value'} "
                f"than fmin_bfgs (warnflag={flag})")
    return f"robust_minimize ended HIGHER than fmin_bfgs ({res.fun:.8g} > {f_b:.8g})"


def _jax_mlp_loss(jnp):
    """The same loss as ``robustfit.grad.mlp(("tanh",))``, written out in jax.numpy."""

    def loss(p, sample):
        x, y = sample
        h = jnp.tanh(x @ p[0]["w"] + p[0]["b"])
        return 0.5 * (h @ p[1]["w"] + p[1]["b"] - y) ** 2

    return loss


def _naive_jax(params, batch, say) -> None:
    """What one does without per-sample tools: a batch gradient, then a Python loop."""
    import jax
    import jax.numpy as jnp

    loss = _jax_mlp_loss(jnp)
    jp = jax.tree_util.tree_map(jnp.asarray, params)
    jx, jy = (jnp.asarray(a) for a in batch)
    mean_grad = jax.grad(lambda p: jnp.mean(jax.vmap(loss, (None, 0))(p, (jx, jy))))(jp)
    n_bad = sum(int(jnp.sum(~jnp.isfinite(g))) for g in jax.tree_util.tree_leaves(mean_grad))
    say(f"  batch-mean jax.grad                 {n_bad} non-finite gradient entries; "
        "which sample? it cannot say")
    g1 = jax.jit(jax.grad(loss))
    t0 = time.perf_counter()
    bad = [i for i in range(jx.shape[0]) if not all(
        bool(jnp.all(jnp.isfinite(g))) for g in jax.tree_util.tree_leaves(
            g1(jp, (jx[i], jy[i]))))]
    say(f"  naive Python loop of jax.grad       non-finite samples {bad} "
        f"({time.perf_counter() - t0:.2f} s)")


def scenario_gradients(say: Callable[[str], None]) -> str:
    params, batch, corrupt = mlp_batch()
    n = batch[0].shape[0]
    say(f"Per-sample squared gradients of an 8-16-1 tanh MLP on {n} samples; one record "
        "holds a NaN")
    try:
        import jax  # noqa: F401
    except ImportError:
        say("  (JAX not installed: the naive JAX comparison is skipped; robustfit uses "
            "its NumPy backend)")
    else:
        _naive_jax(params, batch, say)
    try:
        from robustfit import NonFiniteGradientError, per_sample_grad_sq
        from robustfit.grad import mlp
    except (ImportError, AttributeError):
        say("  robustfit.per_sample_grad_sq        not available in this build")
        return "SKIPPED: robustfit.per_sample_grad_sq is not available in this build"
    times, found = [], None
    for _ in range(2):  # the first call includes compilation (JAX); the second is warm
        t0 = time.perf_counter()
        try:
            per_sample_grad_sq(mlp(("tanh",)), params, batch, nan_policy="raise")
        except NonFiniteGradientError as exc:
            found = [int(i) for i in np.asarray(exc.indices).ravel()]
        times.append(time.perf_counter() - t0)
    if found is not None:
        say(f"  per_sample_grad_sq(nan_policy='raise') NonFiniteGradientError, indices "
            f"{found} ({times[0]:.2f} s first call, {1e3 * times[1]:.1f} ms warm)")
        if found == [corrupt]:
            return f"per_sample_grad_sq named the corrupted sample, index {corrupt}"
        return f"per_sample_grad_sq named {found}, but the corrupted sample is {corrupt}"
    return "per_sample_grad_sq did NOT flag the corrupted sample"


SCENARIOS = {"maxwell": ("Maxwell speeds at scale 1e4, floc=0", scenario_maxwell),
             "svm": ("SVM hinge loss: quasi-Newton on a kinked objective", scenario_svm),
             "gradients": ("Finding the sample that poisons the gradient", scenario_gradients)}


def run_demo(only=None, say: Callable[[str], None] = print) -> dict:
    """Run the scenarios (all, or those named in ``only``); return name -> verdict."""
    verdicts = {}
    t0 = time.perf_counter()
    for k, (name, (title, fn)) in enumerate(SCENARIOS.items(), start=1):
        if only and name not in only:
            continue
        say(f"[{k}/3] {title}")
        try:
            verdict = fn(say)
        except Exception as exc:  # one broken scenario must not hide the others
            verdict = f"ERROR: {type(exc).__name__}: {exc}"
        verdicts[name] = verdict
        say(f"VERDICT {name}: {verdict}")
        say("")
    say(f"demo finished in {time.perf_counter() - t0:.1f} s")
    return verdicts
