"""The exceptions and warnings robustfit raises.

Every error derives from :class:`RobustFitError` *and* from the built-in exception it
refines, so ``except ValueError`` in user code keeps working.
"""

from __future__ import annotations

__all__ = [
    "RobustFitError",
    "InvalidInputError",
    "NonFiniteDataError",
    "InsufficientDataError",
    "OutOfSupportError",
    "InvalidParameterError",
    "AllParametersFixedError",
    "UnexpectedArgumentError",
    "UnsupportedDistributionError",
    "BackendUnavailableError",
    "NonFiniteGradientError",
    "RobustFitWarning",
]


class RobustFitError(Exception):
    """Base class of every error raised by robustfit."""


class InvalidInputError(RobustFitError, ValueError):
    """An argument has the wrong shape, dtype or value."""


class NonFiniteDataError(InvalidInputError):
    """Input data hold NaN or infinite values and ``nan_policy='raise'``."""


class InsufficientDataError(InvalidInputError):
    """Too few observations for the number of free parameters."""


try:  # scipy's own error for data outside a fixed support (its closed-form fits)
    from scipy.stats._continuous_distns import FitDataError as _ScipyFitDataError
except ImportError:  # (a private name: where scipy moves it, ValueError alone)
    _ScipyFitDataError = ValueError


class OutOfSupportError(InvalidInputError, _ScipyFitDataError):
    """Data lie outside the support implied by the fixed parameters.

    Also scipy's ``FitDataError`` (a :class:`ValueError`), which ``dist.fit`` raises
    there: ``except FitDataError`` around a drop-in call keeps working."""

    def __init__(self, message: str):
        Exception.__init__(self, message)  # (not FitDataError's (distr, lower, upper))


class InvalidParameterError(InvalidInputError):
    """A fixed or initial parameter value is not valid for the distribution."""


class AllParametersFixedError(InvalidInputError, RuntimeError):
    """Every parameter is fixed, so there is nothing to fit. A :class:`RuntimeError`
    too: scipy's closed-form fits raise one there (``halfnorm.fit(x, floc=0,
    fscale=1)``), its generic fit a :class:`ValueError`, both with the message
    "All parameters fixed. There is nothing to optimize.", which this one starts with."""


class UnexpectedArgumentError(InvalidInputError, TypeError):
    """A call got an argument it does not take: an unknown keyword, or more positional
    arguments than it has places for. A :class:`TypeError` as well, as Python and
    ``dist.fit`` raise there (scipy's own test of ``fit`` expects one)."""


class UnsupportedDistributionError(RobustFitError, TypeError):
    """The distribution object is not a continuous scipy.stats distribution, or cannot
    serve the request (censored data with a subclass that defines only a log-density)."""


class BackendUnavailableError(RobustFitError, ImportError):
    """An optional backend (JAX, CuPy, matplotlib) is requested but not installed."""


class NonFiniteGradientError(RobustFitError, FloatingPointError):
    """Some samples have a non-finite loss or gradient and ``nan_policy='raise'``.

    Attributes
    ----------
    indices : numpy.ndarray
        Batch indices of the offending samples.
    """

    def __init__(self, message: str, indices=None):
        super().__init__(message)
        self.indices = indices


class RobustFitWarning(UserWarning):
    """Something the user should know about, that did not stop the computation."""
