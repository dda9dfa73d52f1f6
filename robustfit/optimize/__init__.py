"""Guarded minimisation (``robustfit.robust_minimize``)."""

from .minimize import robust_minimize

__all__ = ["robust_minimize"]
