"""A fit's time budget, set from what its evaluations cost at the start.

Some of scipy's densities grow far costlier in parts of their parameter space than
where a fit starts: ``nct``'s pdf sums a hypergeometric series whose length grows with
``df`` and ``nc`` (0.2 ms for 120 points at the start, 0.16 s for 80 points at
``df = 180, nc = 400``). A likelihood that rises towards such a limit of the family
draws every local run there, and a fit whose evaluation budget is counted in
evaluations takes minutes to hours (nct on 150 right-censored points: 1,054 s, scipy
1.2 s).

So a fit gets a budget in seconds, :data:`SLACK` times what its evaluation budget
would cost at the start's price (at least :data:`FLOOR_S`). Where evaluations keep
their price the budget never binds and results do not depend on the machine; where it
binds, each local run still going stops as if its evaluations were spent (unconverged,
the best point kept), and the fit reports it.

Examples
--------
>>> import time
>>> with budget_scope():
...     start_budget(10.0)
...     spent()
False
>>> with budget_scope():
...     start_budget(0.0)
...     time.sleep(0.001)
...     spent()
True
>>> spent()  # (outside: no budget)
False
"""

from __future__ import annotations

import contextvars
import math
import time
from collections.abc import Iterator
from contextlib import contextmanager

__all__ = ["FLOOR_S", "SLACK", "budget_scope", "budget_seconds", "spent", "start_budget"]

SLACK = 20.0  # the budget, in units of the evaluation budget's cost at the start's price
FLOOR_S = 10.0  # no budget is shorter (timers and caches make tiny costs noisy)

_DEADLINE: contextvars.ContextVar[float] = contextvars.ContextVar(
    "robustfit_fit_deadline", default=math.inf)


def budget_seconds(seconds_per_evaluation: float, evaluations: int) -> float:
    """The budget of a fit whose ``evaluations`` would cost ``seconds_per_evaluation``
    each at the start's price."""
    return max(FLOOR_S, SLACK * seconds_per_evaluation * evaluations)


@contextmanager
def budget_scope() -> Iterator[None]:
    """Within: a budget set by :func:`start_budget` holds, until the scope ends (an
    enclosing scope's deadline, if any, holds as well: a fit nested in another keeps
    the outer deadline)."""
    token = _DEADLINE.set(_DEADLINE.get())
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def start_budget(seconds: float) -> None:
    """From now, :func:`spent` is True once ``seconds`` have passed, or the enclosing
    deadline, whichever comes first (call it within :func:`budget_scope`)."""
    _DEADLINE.set(min(_DEADLINE.get(), time.monotonic() + seconds))


def spent() -> bool:
    """Whether the innermost time budget has run out (False outside any)."""
    deadline = _DEADLINE.get()
    return deadline != math.inf and time.monotonic() > deadline
