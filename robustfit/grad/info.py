"""What a per-sample gradient computation did, returned with ``return_info=True``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass(frozen=True)
class GradSqInfo:
    """How a call to :func:`per_sample_grad_sq` or :func:`per_sample_grad_norms` ran.

    Attributes
    ----------
    backend : str
        "jax", "numpy" or "cupy".
    paths : pytree of str
        Shaped like ``params``; per leaf, how its per-sample gradients were obtained:
        "dense" (the identity ``(A**2).T @ Delta**2`` on a weight found in the jaxpr),
        "bias" (per-sample output gradients of a bias found in the jaxpr), "spec" (a
        robustfit model spec), "grad_fn" (the user's vectorised gradient function) or
        "generic" (chunked ``vmap(grad)``).
    chunk_size : int
        Samples per chunk.
    n_samples : int
        Batch size.
    n_used : int
        Samples that entered the result (``n_samples`` minus the omitted ones).
    omitted : numpy.ndarray
        Indices of samples with a non-finite loss or gradient dropped by
        ``nan_policy="omit"`` (empty otherwise).
    nonfinite : numpy.ndarray
        Indices of all samples with a non-finite loss or gradient, whatever the policy.
    """

    backend: str
    paths: Any
    chunk_size: int
    n_samples: int
    n_used: int
    omitted: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
    nonfinite: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.intp))
