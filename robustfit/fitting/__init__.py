"""Robust distribution fitting (``robustfit.fit``)."""

from .fit import fit
from .result import Attempt, FitResult

__all__ = ["fit", "FitResult", "Attempt"]
