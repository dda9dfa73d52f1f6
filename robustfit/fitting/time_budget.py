"""A fit's time budget, set from what its evaluations cost at the start.

Some of scipy's densities grow far costlier in parts of their parameter space than
where a fit starts: ``nct``'s pdf sums a hypergeometric series whose length grows with
``df`` and ``nc`` (0.2 ms for 120 points at the start, 0.16 s for 80 points at
``df = 180, nc = 400``). A likelihood that rises towards such a limit of the family
draws every local run there, and a fit whose evaluation budget is counted in
evaluations takes minutes to hours (nct on 150 right-censored points: 1,054 s, scipy
1.2 s).

So a fit gets a budget in seconds, :data:`SLACK` times what its evaluation budget
would cost at the start's price (at least :data:`FLOOR_S`). Both are seconds of the
fitting thread's CPU time (:func:`clock`), not of the wall: on a loaded machine a
method-of-moments fit of a hand-written beta (n = 2000) ran out of a wall-clock
budget in 2 of 4 runs, unsolved, and solved the equations in the others. Where evaluations keep
their price the budget never binds and results do not depend on the machine; where it
binds, each local run still going stops as if its evaluations were spent (unconverged,
the best point kept), and the fit reports it.

Examples
--------
>>> with budget_scope():
...     start_budget(10.0)
...     spent()
False
>>> with budget_scope():
...     start_budget(0.0)
...     _ = sum(range(100_000))  # (CPU time: a sleep would not spend it)
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

__all__ = ["FLOOR_S", "SLACK", "budget_scope", "budget_seconds", "clock", "spent",
           "start_budget"]

SLACK = 20.0  # the budget, in units of the evaluation budget's cost at the start's price
FLOOR_S = 10.0  # no budget is shorter (timers and caches make tiny costs noisy)
# ... and the wall clock's share: a budget also runs out after this many times its
# seconds of wall time (a density whose cost is not the thread's CPU -- one that waits
# on a device or a pool of threads -- is still bounded; a loaded machine, which slows
# the wall clock two or three times, is not what it bounds)
WALL_FACTOR = 4.0

_NO_DEADLINE = (math.inf, math.inf, math.inf)
# (thread CPU time, wall time) at which the innermost budget runs out, and the wall time
# before which the CPU deadline cannot have come (a thread's CPU time runs no faster than
# the wall clock): until then :func:`spent` reads only the wall clock, ~30x cheaper
_DEADLINE: contextvars.ContextVar[tuple[float, float, float]] = contextvars.ContextVar(
    "robustfit_fit_deadline", default=_NO_DEADLINE)


def clock() -> float:
    """The budget's clock: CPU seconds of the calling thread (a fit runs in one; other
    fits in other threads, and other processes, do not spend its budget)."""
    return time.thread_time()


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
    """From now, :func:`spent` is True once ``seconds`` of this thread's CPU time (or
    :data:`WALL_FACTOR` times as many of the wall's) have passed, or the enclosing
    deadline, whichever comes first (call it within :func:`budget_scope`)."""
    cpu, wall, _ = _DEADLINE.get()
    cpu_now, wall_now = clock(), time.monotonic()
    cpu = min(cpu, cpu_now + seconds)
    _DEADLINE.set((cpu, min(wall, wall_now + WALL_FACTOR * seconds),
                   wall_now + (cpu - cpu_now)))


def spent() -> bool:
    """Whether the innermost time budget has run out (False outside any)."""
    cpu, wall, gate = _DEADLINE.get()
    if wall == math.inf and cpu == math.inf:
        return False
    now = time.monotonic()
    if now > wall:
        return True
    return now >= gate and clock() > cpu
