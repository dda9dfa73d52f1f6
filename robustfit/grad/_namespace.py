"""Which array library an array belongs to, without importing the optional ones."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np


def array_namespace(*arrays: Any) -> Any:
    """Return ``cupy``, ``jax.numpy`` or ``numpy`` to match the given arrays.

    JAX arrays and tracers map to ``jax.numpy``, CuPy arrays to ``cupy``; anything else
    (NumPy arrays, scalars, lists) to ``numpy``. The optional libraries are imported only
    when one of their arrays is present, so they are already importable.
    """
    for x in arrays:
        module = type(x).__module__.split(".")[0]
        if module in ("jax", "jaxlib"):
            return importlib.import_module("jax.numpy")
        if module == "cupy":
            return importlib.import_module("cupy")
    return np
