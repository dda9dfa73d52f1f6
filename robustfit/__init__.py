"""robustfit: scipy-style fitting, minimisation and per-sample gradients that do not fail.

The public API, re-exported; nothing else lives here.
"""

from . import moments
from .errors import (
    AllParametersFixedError,
    BackendUnavailableError,
    InsufficientDataError,
    InvalidInputError,
    InvalidParameterError,
    NonFiniteDataError,
    NonFiniteGradientError,
    OutOfSupportError,
    RobustFitError,
    RobustFitWarning,
    UnexpectedArgumentError,
    UnsupportedDistributionError,
)
from .fitting import Attempt, FitResult, fit
from .fitting.bootstrap import BootstrapResult, bootstrap
from .grad import GradSqInfo, per_sample_grad_norms, per_sample_grad_sq
from .optimize import robust_minimize

__version__ = "0.1.0"

__all__ = [
    "fit",
    "FitResult",
    "bootstrap",
    "BootstrapResult",
    "Attempt",
    "moments",
    "robust_minimize",
    "per_sample_grad_sq",
    "per_sample_grad_norms",
    "GradSqInfo",
    "AllParametersFixedError",
    "BackendUnavailableError",
    "InsufficientDataError",
    "InvalidInputError",
    "InvalidParameterError",
    "NonFiniteDataError",
    "NonFiniteGradientError",
    "OutOfSupportError",
    "RobustFitError",
    "RobustFitWarning",
    "UnexpectedArgumentError",
    "UnsupportedDistributionError",
    "__version__",
]
