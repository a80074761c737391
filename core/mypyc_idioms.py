"""Idioms that make the compiled build (mypyc) of the core run as direct C code.

Each helper means, in plain Python, what its name says; it exists because the
compiled build turns the plain spelling into slower code on a hot path. The
rules they serve are in ``ARCHITECTURE.md`` ("Compiled build"); the forms the
compiled modules must avoid (dataclasses, closures, lambdas, f-strings with a
conversion) are enforced by ``tests/product/layout/test_mypyc_rules.py``.

Cost: each helper is one call; ``int_objects`` is the identity.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, TypeGuard, cast


def int_objects(values: Iterable[int]) -> Iterable[Any]:
    """``values`` typed so that the compiled build hands out their own int objects.

    mypyc unboxes an ``int``-typed loop variable, and every later set or dict
    lookup with it allocates a new int object (any int above 256); an ``Any``
    one is passed on as it is. For loops over node or unit sets whose items
    are only looked up (about 40% faster per item, compiled)."""
    return values


def is_mapping(value: object) -> TypeGuard[Mapping[str, Any]]:
    """``isinstance(value, Mapping)``, answered without the ABC machinery for a
    plain ``dict`` (the JSON case, checked once per entity by every stage)."""
    return type(value) is dict or isinstance(value, Mapping)


def field_of(value: object, key: str) -> Any:
    """``value.get(key)`` for a mapping, ``None`` for anything else; a plain
    ``dict`` (the JSON case) is read without a generic method call."""
    if type(value) is dict:
        return cast(dict[str, Any], value).get(key)
    if isinstance(value, Mapping):
        return value.get(key)
    return None
