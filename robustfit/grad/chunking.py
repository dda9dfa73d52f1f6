"""How many samples one chunk holds: the largest number whose per-sample intermediates
fit in the memory budget, split evenly. Shared by the JAX and the array backends."""

from __future__ import annotations

import math
from typing import Any

__all__ = ["DEFAULT_MEMORY_BUDGET", "choose_chunk_size", "spec_elements"]

#: Default bytes the per-sample gradients of one chunk may occupy.
DEFAULT_MEMORY_BUDGET = 256 * 2**20
# Per-sample bytes are itemsize x (this many copies of each generic leaf): the gradient,
# its square and XLA temporaries.
_COPIES = 3


def choose_chunk_size(
    per_sample_elements: int, itemsize: int, n: int, budget: int | None
) -> int:
    """Chunk size whose per-sample intermediates fit in ``budget`` bytes (at least 1).

    The batch is split into the fewest chunks that fit, of equal size, so that padding
    the last chunk wastes fewer than one sample per chunk.

    Examples
    --------
    >>> choose_chunk_size(1000, 4, 10_000, 12_000 * 100)   # 100 samples fit
    100
    >>> choose_chunk_size(1000, 4, 150, 12_000 * 100)      # two chunks of 75, not 100 + 50
    75
    """
    budget = DEFAULT_MEMORY_BUDGET if budget is None else budget
    per_sample = max(1, _COPIES * per_sample_elements * itemsize)
    largest = int(min(n, max(1, budget // per_sample)))
    return math.ceil(n / math.ceil(n / largest))


def spec_elements(layers: list[Any]) -> int:
    """Per-sample elements a model spec's backward pass keeps for one sample: each
    layer's input, and its output's pre-activation, activation and gradient (the
    layers as :meth:`DenseModel.layer_params` lists them)."""
    total = 0
    for layer in layers:
        shape = tuple(layer["w"].shape)
        d_in = shape[0]
        d_out = shape[1] if len(shape) > 1 else 1
        total += d_in + 3 * d_out
    return total
