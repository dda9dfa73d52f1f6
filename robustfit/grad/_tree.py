"""A minimal pytree (dict / list / tuple / namedtuple) for the array backends, which run
without JAX.

Dict keys are visited in sorted order and an ``OrderedDict``'s in insertion order, as
``jax.tree_util`` does, so leaf orders agree between backends (a model spec's leaves are
laid out by this module and read back through JAX's tree on the JAX backend: an
``OrderedDict`` of ``w`` then ``b`` had its two leaves' values swapped).
"""

from __future__ import annotations

import sys
from collections import OrderedDict
from collections.abc import Callable
from typing import Any


def flatten(tree: Any) -> tuple[list[Any], Callable[[list[Any]], Any]]:
    """Return the leaves of ``tree`` and a function that rebuilds it from new leaves.

    Where JAX is loaded, its own tree functions do it (every pytree it knows: registered
    dataclasses and classes, with the same leaf order as the JAX backend); else dicts,
    lists, tuples and namedtuples (a namedtuple batch had been taken for one leaf, and
    chunks were cut by slicing its fields)."""
    jax = sys.modules.get("jax")
    if jax is not None:
        jax_leaves, treedef = jax.tree_util.tree_flatten(tree)
        return jax_leaves, lambda new: jax.tree_util.tree_unflatten(treedef, list(new))
    leaves: list[Any] = []
    spec = _flatten(tree, leaves)

    def unflatten(new_leaves: list[Any]) -> Any:
        it = iter(new_leaves)
        return _build(spec, it)

    return leaves, unflatten


def _flatten(tree: Any, leaves: list[Any]) -> Any:
    if isinstance(tree, OrderedDict):
        keys = list(tree)
        return ("ordered", keys, [_flatten(tree[k], leaves) for k in keys])
    if isinstance(tree, dict):
        keys = sorted(tree)
        return ("dict", keys, [_flatten(tree[k], leaves) for k in keys])
    if isinstance(tree, tuple) and hasattr(tree, "_fields"):  # a namedtuple
        return ("named", type(tree), [_flatten(t, leaves) for t in tree])
    if isinstance(tree, (list, tuple)):
        return (type(tree), None, [_flatten(t, leaves) for t in tree])
    if tree is None:
        return ("none", None, [])
    leaves.append(tree)
    return ("leaf", None, [])


def _build(spec: Any, it: Any) -> Any:
    kind, keys, children = spec
    if kind == "leaf":
        return next(it)
    if kind == "none":
        return None
    built = [_build(c, it) for c in children]
    if kind == "dict":
        return dict(zip(keys, built, strict=True))
    if kind == "ordered":
        return OrderedDict(zip(keys, built, strict=True))
    if kind == "named":
        return keys(*built)
    return kind(built)
