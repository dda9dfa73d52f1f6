"""Tables keyed by scipy family name, which apply to scipy's own instances only.

Several modules hold facts about particular scipy.stats families (a support scipy does
not declare, a density computed more accurately, knots of a piecewise density, shapes
that absorb the scale). A user's subclass of ``rv_continuous`` may reuse a family's
``name`` with a density of its own, so an entry applies only where the instance comes
from scipy itself.
"""

from __future__ import annotations

from typing import Any, TypeVar

__all__ = ["scipy_family_entry"]

T = TypeVar("T")


def scipy_family_entry(dist: Any, table: dict[str, T], default: Any = None) -> T | Any:
    """``table[dist.name]`` where ``dist`` is an instance from scipy itself and its name
    is in ``table``; ``default`` otherwise.

    Examples
    --------
    >>> from scipy import stats
    >>> scipy_family_entry(stats.triang, {"triang": (0,)}, ())
    (0,)
    >>> class MyTriang(stats.rv_continuous):
    ...     pass
    >>> scipy_family_entry(MyTriang(name="triang"), {"triang": (0,)}, ())
    ()
    """
    entry = table.get(getattr(dist, "name", None))
    if entry is None or not type(dist).__module__.startswith("scipy."):
        return default
    return entry
