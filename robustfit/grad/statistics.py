"""One chunk of samples -> the statistics the public functions return.

Given per-sample losses and backward signals for a chunk, apply the sample mask (padding
and, unless ``nan_policy='propagate'``, non-finite samples) and reduce with
:mod:`robustfit.grad.reductions`. Array-generic: the JAX backend calls it inside a jitted
scan, the NumPy/CuPy backend in a Python loop.

Checking every materialised per-sample gradient for NaN costs a second pass over
``chunk x params`` values, so the backends first run with ``check_gradients=False``
(samples are screened by their loss and by the cheap dense signals) and rerun with the
full check only when the result is not finite -- the rare case that needs it.
"""

from __future__ import annotations

from typing import Any

from . import reductions
from .signals import FullSignal

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
) -> tuple[Any, Any]:
    """Reduce one chunk; return ``(statistic, finite)``.

    ``finite`` is a (chunk,) boolean array, False for real samples found to have a
    non-finite loss or gradient (padding rows count as finite). Materialised gradients
    (:class:`FullSignal`) are inspected only when ``check_gradients``. Samples with
    ``valid == False`` (padding) never contribute; non-finite samples are dropped when
    ``mask_nonfinite`` and propagate otherwise.
    """
    finite = xp.ones(valid.shape, dtype=bool)
    if losses is not None:
        finite = finite & xp.isfinite(losses)
    for s in signals:
        if check_gradients or not isinstance(s, FullSignal):
            finite = finite & reductions.finite_rows(s, xp)
    finite = finite | ~valid
    keep = valid & finite if mask_nonfinite else valid
    pairs = list(zip(signals, dtypes, strict=True))
    if stat == "sum":
        out: Any = [reductions.sum_of_squares(s, keep, xp, d) for s, d in pairs]
    elif stat == "squares":
        out = [reductions.squares(s, keep, xp, d) for s, d in pairs]
    else:
        wide = xp.result_type(*dtypes)
        out = sum(reductions.squared_norms(s, keep, xp, wide) for s in signals)
    return out, finite


def all_finite(value: Any, xp: Any) -> bool:
    """Whether a statistic (list of leaves or one array) holds only finite numbers."""
    leaves = value if isinstance(value, list) else [value]
    return all(bool(xp.all(xp.isfinite(v))) for v in leaves)
