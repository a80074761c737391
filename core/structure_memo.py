"""Reuse, between runs of one job, of what was derived from a result's entity graph alone.

When a capture or an estimate changes but the model does not, a job's next
document carries the very same entities with new breakdowns. Validating the
graph, collapsing it, deriving its code lines, indexing it for projection and
putting it in canonical form then give what they gave last time. A
``StructureMemo`` (held by the caller, one per job; the core keeps no state of
its own) remembers those products:

* ``same`` *interns* a result's entity list and kind declarations: when one is
  written exactly as last time (same JSON values of the same types, keys in the
  same order, so ``5``, ``5.0`` and ``true`` stay apart), the last run's list
  object is used in its place. Every later stage then sees the same objects as
  last time.
* ``recall`` returns a stage's remembered product when every key item is the
  remembered one (identity, or equality for small settings such as rules),
  else computes, remembers and returns it. Stages are pure functions of their
  keys and no stage mutates its input, so a recalled product is exactly what
  computing it again would give.

One product is kept per (result index, stage): memory is one run's structure.
Cost: one walk over each result's entity list per run (stopping at the first
difference), then identity checks.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class StructureMemo:
    """Structure-only stage products of the last run of one job."""

    def __init__(self) -> None:
        self._interned: dict[tuple[int, str], list[Any]] = {}
        self._products: dict[tuple[int, str], tuple[tuple[Any, ...], Any]] = {}
        self._lists: dict[tuple[int, str], dict[str, tuple[list[Any], list[Any]]]] = {}
        #: Products recalled and computed since creation (for tests and timing logs).
        self.recalled = 0
        self.computed = 0

    def same(self, result_index: int, field: str, values: list[Any]) -> list[Any]:
        """``values``, or last run's list of this result's ``field`` when written exactly alike."""
        slot = (result_index, field)
        known = self._interned.get(slot)
        if known is not None and written_alike(known, values):
            return known
        self._interned[slot] = values
        return values

    def recall(
        self,
        result_index: int,
        stage: str,
        key: Sequence[Any],
        compute: Callable[[], T],
    ) -> T:
        """The product of ``stage`` for ``key``: remembered when the key is the same."""
        slot = (result_index, stage)
        known = self._products.get(slot)
        if known is not None and _same_key(known[0], key):
            self.recalled += 1
            product: T = known[1]
            return product
        value = compute()
        self.computed += 1
        self._products[slot] = (tuple(key), value)
        return value

    def known_lists(self, result_index: int, stage: str) -> dict[str, tuple[list[Any], list[Any]]]:
        """Lists whose canonical form ``keep_lists`` remembered: field -> (list, form)."""
        return self._lists.get((result_index, stage), {})

    def keep_lists(
        self,
        result_index: int,
        stage: str,
        given: Mapping[str, Any],
        canonical: Mapping[str, Any],
    ) -> None:
        """Remember the canonical form of ``given``'s entity list and kind declarations."""
        kept: dict[str, tuple[list[Any], list[Any]]] = {}
        for field in STRUCTURE_FIELDS:
            values = given.get(field)
            form = canonical.get(field)
            if type(values) is list and type(form) is list:
                kept[field] = (values, form)
        self._lists[(result_index, stage)] = kept


#: The fields of a result that make its structure.
STRUCTURE_FIELDS = ("entities", "entity_kinds")


def written_alike(first: Any, second: Any) -> bool:
    """Whether two JSON values would be written alike: same types (``1``, ``1.0`` and
    ``true`` differ, so do ``0.0`` and ``-0.0``), same values, object keys in the same
    order. Iterative: any depth."""
    pending: list[tuple[Any, Any]] = [(first, second)]
    while pending:
        a, b = pending.pop()
        if a is b:
            continue
        kind = type(a)
        if kind is not type(b):
            return False
        if kind is dict:
            if len(a) != len(b):
                return False
            for (key_a, value_a), (key_b, value_b) in zip(a.items(), b.items(), strict=True):
                if key_a != key_b:
                    return False
                pending.append((value_a, value_b))
        elif kind is list:
            if len(a) != len(b):
                return False
            pending.extend(zip(a, b, strict=True))
        elif kind is float:
            if a != b:
                if a == a or b == b:  # not both NaN
                    return False
            elif a == 0.0 and math.copysign(1.0, a) != math.copysign(1.0, b):
                return False
        elif kind is str or kind is int or kind is bool or a is None:
            if a != b:
                return False
        else:
            return False  # not a JSON value: never taken for another
    return True


def _same_key(known: tuple[Any, ...], key: Sequence[Any]) -> bool:
    if len(known) != len(key):
        return False
    for old, new in zip(known, key, strict=True):
        if old is new:
            continue
        if isinstance(old, list | dict) or old != new:
            # lists and dicts are whole entity graphs or their parts: the same
            # object or not the same (equality would miss 5 vs 5.0)
            return False
    return True
