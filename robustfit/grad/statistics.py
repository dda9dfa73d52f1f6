"""One chunk of samples -> the statistics the public functions return.

Given per-sample losses and backward signals for a chunk, apply the sample mask (padding
and, unless ``nan_policy='propagate'``, non-finite samples) and reduce with
:mod:`robustfit.grad.reductions`. Array-generic: the JAX backend calls it inside a jitted
scan, the NumPy/CuPy backend in a Python loop.

Checking every per-sample gradient for NaN costs passes over the signals (on a GPU, a
kernel or two per leaf), so the backends first run with ``check_gradients=False``, which
screens samples by their loss alone, and rerun with the full check only when the result
is not finite -- the rare case that needs it. The first pass misses nothing: every
statistic here is built from squares, and a NaN or inf entry in one sample's gradient
makes its square, and every sum or product of squares it enters, NaN or inf (``inf * 0``
is NaN), so it reaches the result.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from . import reductions
from .signals import DenseSignal

#: "sum": sums of squares per leaf; "norms": per-sample squared L2 norms over all leaves;
#: "squares": per-sample squares per leaf.
STATISTICS = ("sum", "norms", "squares")


def accumulation_dtype(dtype: Any, xp: Any) -> Any:
    """float32 or wider: half-precision parameters accumulate in float32."""
    return xp.result_type(dtype, xp.float32)


def chunk_statistics(
    losses: Any,
    signals: list,
    dtypes: list,
    *,
    stat: str,
    valid: Any,
    mask_nonfinite: bool,
    check_gradients: bool,
    xp: Any,
    average: bool = False,
    eager: bool = False,
    divisor: int | None = None,
    premasked: bool = False,
) -> tuple[Any, Any]:
    """Reduce one chunk; return ``(statistic, finite)``.

    ``finite`` is a (chunk,) boolean array, False for real samples found to have a
    non-finite loss or, when ``check_gradients``, gradient (padding rows count as
    finite). Samples with ``valid == False`` (padding) never contribute; non-finite
    samples are dropped when ``mask_nonfinite`` and propagate otherwise; ``valid=None``
    means that every row is a real sample. ``average``
    (``stat="sum"`` only) divides the sums by the number of samples kept, inside the
    reductions; ``divisor`` (``stat="sum"`` only, without ``average``) divides them by
    that number instead (a batch's size, for a mean summed over its chunks: squares
    divided before they are summed do not overflow where their mean does not).
    ``eager`` (NumPy, CuPy: never under a JAX trace) skips the masking when every
    sample is kept, at the cost of one wait for the device. ``premasked``: the
    per-sample gradients (not the dense factors) of dropped samples are zero already
    (the backward pass weighted them by 0), and are not masked again.
    """
    finite = xp.isfinite(losses) if losses is not None else None
    if check_gradients:
        for s in signals:
            rows = reductions.finite_rows(s, xp)
            finite = rows if finite is None else finite & rows
    if valid is None:  # every row is a real sample
        if finite is None:
            finite = xp.ones((_chunk_length(signals),), dtype=bool)
        keep = finite if mask_nonfinite else None
    else:
        finite = (xp.ones(valid.shape, dtype=bool) if finite is None else finite) | ~valid
        keep = valid & finite if mask_nonfinite else valid
    weights = keep  # (the mask of the dense leaves: see below)
    dense = any(isinstance(s, DenseSignal) for s in signals)
    if mask_nonfinite and not check_gradients and not eager and dense:
        # first pass under a trace: the dense leaves' factors are masked by a product
        # with 0/1, which XLA fuses where it does not fuse a select; a NaN it lets
        # through sends the call to the checked pass. Not with nan_policy="propagate",
        # whose first pass may be the result: there inf * 0 would turn an infinite sum
        # into NaN. In the narrowest of the leaves' dtypes (0 and 1 are exact in each):
        # a float64 mask widened float32 leaves with it, and the scan's carry then
        # changed type from one chunk to the next. Per-sample gradients are not
        # multiplied: XLA on a CPU fused such a mask into vmap(grad) inside the chunks'
        # scan (an MLP 784-512-512-10 at batch 128: 26 times vmap(grad) alone); beside
        # dense leaves they take the select, and a route of generic leaves alone weights
        # its samples in the backward pass instead (``premasked``: a select cost an MLP
        # of 1e5 parameters at batch 512 1.9x vmap(grad), the weights 0.95x)
        weights = keep.astype(min(dtypes, key=lambda d: np.dtype(d).itemsize))
    scales: dict = {}
    if eager:  # a Python int, and no mask where every sample is kept
        used = int(xp.sum(keep)) if keep is not None else _chunk_length(signals)
        if keep is not None and used == keep.shape[0]:
            keep = None
        if average:
            scales = {d: 1 / used if used else math.nan for d in dtypes}  # nan: none left
    elif average:
        used = xp.sum(keep)
        scales = {d: 1 / used.astype(d) for d in set(dtypes)}
    if divisor is not None:
        scales = {d: xp.asarray(1.0 / divisor, dtype=d) for d in set(dtypes)}
    if eager:
        weights = keep
    pairs = [(s, d, weights if isinstance(s, DenseSignal) else None if premasked else keep)
             for s, d in zip(signals, dtypes, strict=True)]
    if stat == "sum":
        out: Any = [
            reductions.sum_of_squares(s, k, xp, d, scales.get(d))
            for s, d, k in pairs
        ]
    elif stat == "squares":
        out = [reductions.squares(s, k, xp, d) for s, d, k in pairs]
    else:
        wide = xp.result_type(*dtypes)
        out = sum(reductions.squared_norms(s, k, xp, wide) for s, _, k in pairs)
    return out, finite


def _chunk_length(signals: list) -> int:
    s = signals[0]
    return int((s.inputs if isinstance(s, DenseSignal) else s.grads).shape[0])


def all_finite(value: Any, xp: Any) -> Any:
    """Whether a statistic (list of leaves or one array) holds only finite numbers.

    A 0-d boolean array of ``xp``: the caller decides when to wait for the device. The
    leaves are checked as one vector (a parameter-sized copy, cheap next to the chunk's
    work), so that CuPy launches one reduction instead of one per leaf.
    """
    leaves = value if isinstance(value, list) else [value]
    return xp.all(xp.isfinite(xp.concatenate([xp.reshape(v, (-1,)) for v in leaves])))
