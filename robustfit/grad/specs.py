"""Small model specs whose per-sample squared gradients have a closed form.

A :class:`DenseModel` is a stack of :class:`Dense` layers and a per-sample loss. Its
parameters are a list of dicts, one per layer, ``{"w": (d, k) or (d,), "b": (k,) or ()}``
(``"b"`` only when the layer has a bias); a single-layer model also accepts the one dict
alone. A sample is a pair ``(x, y)``; a batch is a pair ``(X, Y)`` with a leading batch
axis. A spec is itself a per-sample loss, ``model(params, (x, y)) -> scalar``, usable with
any array library, so the same object runs through the generic and the fast path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import check_choice
from ..errors import InvalidInputError
from ._namespace import array_namespace
from .derivatives import ACTIVATIONS, LOSSES, forward, loss_values


@dataclass(frozen=True)
class Dense:
    """A dense layer ``h = activation(a @ w + b)``.

    Parameters
    ----------
    activation : {"identity", "tanh", "relu", "sigmoid", "softplus"}
    bias : bool
        Whether the layer adds a bias ``b``.
    """

    activation: str = "identity"
    bias: bool = True

    def __post_init__(self) -> None:
        check_choice(self.activation, "activation", ACTIVATIONS)


@dataclass(frozen=True)
class DenseModel:
    """A feed-forward model of :class:`Dense` layers with a per-sample loss.

    Parameters
    ----------
    layers : tuple of Dense
    loss : {"squared", "logistic", "softmax_cross_entropy"}
        ``0.5 * ||z - y||**2``; ``softplus(z) - y z`` for labels in {0, 1} and a scalar
        output; ``logsumexp(z) - z[y]`` for integer labels.

    Examples
    --------
    >>> import numpy as np
    >>> from robustfit.grad import mlp
    >>> model = mlp(("tanh",), loss="squared")
    >>> params = model.init_params([3, 4, 1], np.random.default_rng(0))
    >>> float(model(params, (np.ones(3), np.zeros(1)))) >= 0
    True
    """

    layers: tuple[Dense, ...]
    loss: str = "squared"

    def __post_init__(self) -> None:
        if not self.layers or not all(isinstance(l, Dense) for l in self.layers):
            raise TypeError("DenseModel.layers must be a non-empty tuple of Dense layers.")
        check_choice(self.loss, "loss", LOSSES)

    def __call__(self, params: Any, sample: tuple[Any, Any]) -> Any:
        """Loss of one sample ``(x, y)``."""
        x, y = sample
        layers = self.layer_params(params)
        xp = array_namespace(x, *(p["w"] for p in layers))
        _, _, post = forward(self, layers, xp.reshape(xp.asarray(x), (1, -1)), xp)
        return loss_values(self.loss, post[-1], xp.reshape(xp.asarray(y), (1, -1)), xp)[0]

    def layer_params(self, params: Any) -> list[Mapping]:
        """Return ``params`` as a list of per-layer dicts, checking their structure."""
        layers = [params] if isinstance(params, Mapping) else params
        if not isinstance(layers, Sequence) or len(layers) != len(self.layers):
            raise InvalidInputError(
                f"params must be a list of {len(self.layers)} dict(s) with keys 'w' (and "
                f"'b' for layers with a bias), one per layer; got {type(params).__name__}."
            )
        for i, (spec, p) in enumerate(zip(self.layers, layers, strict=True)):
            want = {"w", "b"} if spec.bias else {"w"}
            if not isinstance(p, Mapping) or set(p) != want:
                raise InvalidInputError(f"params[{i}] must be a dict with keys {sorted(want)}.")
        last = tuple(getattr(layers[-1]["w"], "shape", ()))
        if self.loss == "logistic" and len(last) > 1 and last[1] != 1:
            raise InvalidInputError(
                f"loss='logistic' needs one output (a score for labels 0/1), but the last "
                f"layer's 'w' has shape {last}, {last[1]} outputs: give it shape "
                f"({last[0]},) or ({last[0]}, 1), or use loss='softmax_cross_entropy' for "
                f"{last[1]} classes.")
        return list(layers)

    def init_params(
        self, sizes: Sequence[int], rng: np.random.Generator, dtype: Any = np.float64
    ) -> list[dict] | dict:
        """Glorot-scaled random parameters for layer widths ``sizes`` (input first).

        A final width of 1 with the ``squared`` or ``logistic`` loss gives a vector
        weight ``(d,)`` and a scalar bias, the usual regression layout.
        """
        if len(sizes) != len(self.layers) + 1:
            raise InvalidInputError(f"sizes needs {len(self.layers) + 1} widths, got {len(sizes)}.")
        out = []
        for i, spec in enumerate(self.layers):
            d, k = sizes[i], sizes[i + 1]
            last_scalar = i == len(self.layers) - 1 and k == 1 and self.loss != (
                "softmax_cross_entropy"
            )
            shape = (d,) if last_scalar else (d, k)
            p = {"w": (rng.standard_normal(shape) / np.sqrt(d)).astype(dtype)}
            if spec.bias:
                p["b"] = (0.1 * rng.standard_normal(shape[1:])).astype(dtype)
            out.append(p)
        return out[0] if len(out) == 1 else out


def linear_regression(bias: bool = True) -> DenseModel:
    """Linear model ``x @ w + b`` with loss ``0.5 (x @ w + b - y)**2``."""
    return DenseModel((Dense("identity", bias),), "squared")


def least_squares() -> DenseModel:
    """Least squares ``0.5 ||x @ w - y||**2`` (no intercept)."""
    return linear_regression(bias=False)


def logistic_regression(bias: bool = True) -> DenseModel:
    """Binary logistic regression with labels in {0, 1}."""
    return DenseModel((Dense("identity", bias),), "logistic")


def softmax_regression(bias: bool = True) -> DenseModel:
    """Multinomial logistic regression with integer labels."""
    return DenseModel((Dense("identity", bias),), "softmax_cross_entropy")


def mlp(activations: Sequence[str] = ("tanh",), loss: str = "squared") -> DenseModel:
    """MLP with one hidden layer per entry of ``activations`` and a linear output layer."""
    return DenseModel(tuple(Dense(a) for a in activations) + (Dense("identity"),), loss)
