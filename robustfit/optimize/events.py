"""The run's event log: what each stage did and every kind of trouble met on the way."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import Any

__all__ = ["EventLog"]


class EventLog:
    """An append-only list of ``dict`` events with a cap per repeated kind.

    Each event has at least ``stage`` (which part of the run produced it) and ``kind``
    (what happened). Repetitive kinds (bad points, skipped updates) are stored in full
    only the first ``keep`` times; afterwards they are only counted, so a run that meets
    a million NaNs does not hold a million dicts. :meth:`as_list` appends one summary
    event per capped kind.

    Examples
    --------
    >>> log = EventLog(keep=1)
    >>> log.add("bfgs", "bad_point", reason="nan")
    >>> log.add("bfgs", "bad_point", reason="nan")
    >>> [e["kind"] for e in log.as_list()]
    ['bad_point', 'suppressed']
    """

    def __init__(self, keep: int = 5):
        self.keep = keep
        # values the optimiser measured in a unit, and from an offset, of its own (see
        # GuardedObjective.set_unit) are recorded in the user's units
        self.value_unit = 1.0
        self.value_offset = 0.0
        self._events: list[dict[str, Any]] = []
        self.counts: Counter[str] = Counter()
        # where set, every "stage_end" event records the evaluations spent so far
        self.evaluations: Callable[[], int] | None = None

    def add(self, stage: str, kind: str, **info: Any) -> None:
        """Record one event; repeated kinds beyond ``keep`` are only counted."""
        self.counts[kind] += 1
        if kind in _CAPPED and self.counts[kind] > self.keep:
            return
        if kind == "stage_end" and self.evaluations is not None:
            info.setdefault("nfev", self.evaluations())
        if self.value_unit != 1.0 or self.value_offset != 0.0:
            for key in _VALUE_KEYS.intersection(info):
                info[key] = info[key] * self.value_unit + self.value_offset
        self._events.append({"stage": stage, "kind": kind, **info})

    def as_list(self) -> list[dict[str, Any]]:
        """The events, plus a ``suppressed`` summary for each capped kind."""
        out = list(self._events)
        for kind in _CAPPED:
            extra = self.counts[kind] - self.keep
            if extra > 0:
                out.append({"stage": "summary", "kind": "suppressed", "of": kind,
                            "total": self.counts[kind], "not_listed": extra})
        return out


_VALUE_KEYS = frozenset({"f", "f_start", "f_best"})
_CAPPED = ("bad_point", "bad_gradient", "curvature_skip", "hessian_reset")
