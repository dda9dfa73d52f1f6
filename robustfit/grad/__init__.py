"""Per-sample gradient statistics: squared gradients, Fisher diagonal, per-sample norms."""

from .api import per_sample_grad_norms, per_sample_grad_sq
from .info import GradSqInfo
from .specs import (
    Dense,
    DenseModel,
    least_squares,
    linear_regression,
    logistic_regression,
    mlp,
    softmax_regression,
)

__all__ = [
    "per_sample_grad_sq",
    "per_sample_grad_norms",
    "GradSqInfo",
    "Dense",
    "DenseModel",
    "least_squares",
    "linear_regression",
    "logistic_regression",
    "mlp",
    "softmax_regression",
]
