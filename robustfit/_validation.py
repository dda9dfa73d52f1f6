"""Turning user input into checked arrays; shared by fitting, optimize and grad."""

from __future__ import annotations

import numpy as np

from .errors import InvalidInputError, NonFiniteDataError

NAN_POLICIES = ("raise", "omit", "propagate")


def check_choice(value: str, name: str, choices: tuple[str, ...]) -> str:
    """Return ``value`` if it is one of ``choices``, else raise naming ``name``."""
    if not isinstance(value, str) or value not in choices:
        raise InvalidInputError(
            f"{name}={value!r} is not valid; use one of {', '.join(map(repr, choices))}."
        )
    return value


def as_float_array(x, name: str, *, ndim: int | None = None) -> np.ndarray:
    """Convert ``x`` to a float array (float64 unless already a wider float).

    float16/float32 input is promoted to float64 so that sums do not overflow or lose
    precision; integer and boolean input become float64. Complex, object and string input
    is refused with an error naming ``name``. The masked entries of a masked array become
    NaN (missing values, which ``nan_policy`` then handles): ``np.asarray`` would keep
    the values under the mask, as ``scipy.stats`` fits silently do.

    Examples
    --------
    >>> import numpy as np
    >>> as_float_array(np.ma.masked_array([1, 2, 3], mask=[0, 1, 0]), "data")
    array([ 1., nan,  3.])
    """
    mask = np.ma.getmaskarray(x) if np.ma.isMaskedArray(x) else None
    try:
        arr = np.asarray(np.ma.getdata(x) if mask is not None else x)
    except Exception as exc:  # ragged lists and the like
        raise InvalidInputError(f"{name} could not be converted to an array: {exc}") from exc
    if arr.dtype.kind in "biu":
        arr = arr.astype(np.float64)
    elif arr.dtype.kind == "f":
        if arr.dtype.itemsize < 8:
            arr = arr.astype(np.float64)
        elif mask is not None and mask.any():
            arr = arr.copy()  # (the NaN below must not reach the user's array)
    else:
        raise InvalidInputError(
            f"{name} must hold real numbers, got dtype {arr.dtype}; convert it with "
            f"np.asarray({name}, dtype=float) after removing non-numeric entries."
        )
    if mask is not None and mask.any():
        arr[mask] = np.nan  # (arr is a copy here)
    if ndim is not None and arr.ndim != ndim:
        if ndim == 1 and arr.ndim == 0:
            arr = arr.reshape(1)
        elif ndim == 1 and arr.ndim == 2 and 1 in arr.shape:
            arr = arr.ravel()
        else:
            raise InvalidInputError(
                f"{name} must be {ndim}-dimensional, got shape {arr.shape}; "
                f"pass a single column, e.g. {name}.ravel()."
            )
    return arr


def handle_nonfinite(arr: np.ndarray, name: str, nan_policy: str) -> tuple[np.ndarray, int]:
    """Apply ``nan_policy`` to a 1-D array; return (array, number of omitted values).

    ``"raise"`` raises :class:`NonFiniteDataError` naming the count and first index;
    ``"omit"`` drops the non-finite values; ``"propagate"`` returns ``arr`` unchanged.
    """
    check_choice(nan_policy, "nan_policy", NAN_POLICIES)
    bad = ~np.isfinite(arr)
    n_bad = int(bad.sum())
    if n_bad == 0 or nan_policy == "propagate":
        return arr, 0
    if nan_policy == "raise":
        first = int(np.flatnonzero(bad)[0])
        # (scipy's own sentence first, which its tests of fit match)
        raise NonFiniteDataError(
            f"The {name} contains non-finite values: {n_bad} non-finite or masked "
            f"value(s) (NaN, inf, or a masked "
            f"array's masked entries); the first is at "
            f"index {first} ({arr[first]!r}). Clean the data or pass nan_policy='omit'."
        )
    return arr[~bad], n_bad


def as_finite_1d(x, name: str = "data", nan_policy: str = "raise") -> tuple[np.ndarray, int]:
    """Checked 1-D float64 data: (array, number of non-finite values omitted)."""
    arr = as_float_array(x, name, ndim=1)
    return handle_nonfinite(arr, name, nan_policy)
