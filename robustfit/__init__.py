"""robustfit: scipy-style fitting, minimisation and per-sample gradients that do not fail.

The public API, re-exported; nothing else lives here.
"""

from .errors import (
    BackendUnavailableError,
    InsufficientDataError,
    InvalidInputError,
    InvalidParameterError,
    NonFiniteDataError,
    NonFiniteGradientError,
    OutOfSupportError,
    RobustFitError,
    RobustFitWarning,
    UnsupportedDistributionError,
)

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailableError",
    "InsufficientDataError",
    "InvalidInputError",
    "InvalidParameterError",
    "NonFiniteDataError",
    "NonFiniteGradientError",
    "OutOfSupportError",
    "RobustFitError",
    "RobustFitWarning",
    "UnsupportedDistributionError",
    "__version__",
]
