"""The pipeline's stage cache: what its stages derived from a result's entity graph alone,
kept from one run of a job to the next.

When a capture or an estimate changes but the model does not, a job's next
document carries the very same entities with new breakdowns. Validating the
graph, collapsing it, deriving its code lines, indexing it for projection and
putting it in canonical form then give what they gave last time. A
``PipelineMemo`` (held by the caller, one per job: the daemon's
``scheduler.memo_policy``; the core keeps no state of its own) remembers those
products, and only the pipeline (``core.pipeline``, ``core.validation``) reads it:

* ``same`` *interns* a result's entity list and kind declarations: when one is
  written exactly as last time (same JSON values of the same types, keys in the
  same order, so ``5``, ``5.0`` and ``true`` stay apart), the last run's list
  object is used in its place. Every later stage then sees the same objects as
  last time. A list handed over by a reader that kept it from last run
  (``core.known_structure_reading``) is the interned one already: no comparison.
* ``recall`` returns a stage's remembered product when every key item is the
  remembered one (identity, or equality for small settings such as rules),
  else computes, remembers and returns it. Stages are pure functions of their
  keys and no stage mutates its input, so a recalled product is exactly what
  computing it again would give.
* ``state`` keeps a stage's own memo per result (the projection's
  ``ProjectionMemo``, which checks for itself what it may reuse);
* ``known_lists`` / ``keep_lists``: the canonical form of the structure lists, so
  that the canonical pass takes last run's form of a list it canonicalized before.

One product is kept per (result index, stage): memory is one run's structure.
Cost: one ``marshal`` serialization (format 0: no back-references) of a result's
entity list when one of the same length must be compared, then identity checks.
Equal bytes mean equal values of equal types in the same order (marshal is faithful).
The memo changes time, never answers: ``tests/core/pipeline/test_structure_memo.py``.
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")

#: The fields of a result that make its structure.
STRUCTURE_FIELDS = ("entities", "entity_kinds")


class PipelineMemo:
    """Structure-only stage products of the last run of one job."""

    def __init__(self) -> None:
        self._interned: dict[tuple[int, str], tuple[bytes | None, list[Any]]] = {}
        self._products: dict[tuple[int, str], tuple[tuple[Any, ...], Any]] = {}
        self._lists: dict[tuple[int, str], dict[str, tuple[list[Any], list[Any]]]] = {}
        self._states: dict[tuple[int, str], Any] = {}
        #: Products recalled and computed since creation (what tests observe).
        self.recalled = 0
        self.computed = 0

    def same(self, result_index: int, field: str, values: list[Any]) -> list[Any]:
        """``values``, or last run's list of this result's ``field`` when written exactly alike.

        Lists are compared by their ``marshal`` form, made only when a comparison needs it:
        a list of another length is not the last one, a list that is last run's very
        object needs none, and a list kept after such a run (a new graph) has its form
        made at the next comparison, if one comes."""
        slot = (result_index, field)
        known = self._interned.get(slot)
        if known is not None and known[1] is values:
            return values  # last run's list, handed over as it is
        if known is None or len(known[1]) != len(values):
            self._interned[slot] = (None, values)
            return values
        try:
            # marshal writes types, -0.0 and key order as they are, and fast; format 0
            # has no back-references, whose use hangs on reference counts
            written = marshal.dumps(values, 0)
            kept = known[0] if known[0] is not None else marshal.dumps(known[1], 0)
        except ValueError:
            self._interned.pop(slot, None)
            return values
        if kept == written:
            self._interned[slot] = (kept, known[1])
            return known[1]
        self._interned[slot] = (written, values)
        return values

    def recall(
        self,
        result_index: int,
        stage: str,
        key: Sequence[Any],
        compute: Callable[P, T],
        *args: P.args,
        **kwargs: P.kwargs,
    ) -> T:
        """The product of ``stage`` for ``key``: remembered when the key is the same,
        else ``compute(*args, **kwargs)`` (a function of the key's items)."""
        slot = (result_index, stage)
        known = self._products.get(slot)
        if known is not None and _same_key(known[0], key):
            self.recalled += 1
            product: T = known[1]
            return product
        value = compute(*args, **kwargs)
        self.computed += 1
        self._products[slot] = (tuple(key), value)
        return value

    def knows(self, result_index: int, stage: str, key: Sequence[Any]) -> bool:
        """Whether ``recall`` would return the remembered product for ``key`` (so a caller
        need not prepare what only a computation would use)."""
        known = self._products.get((result_index, stage))
        return known is not None and _same_key(known[0], key)

    def state(self, result_index: int, stage: str, make: Callable[[], T]) -> T:
        """The object a stage keeps for one result between runs (made by ``make`` the
        first time); the stage itself checks what it may reuse from it."""
        slot = (result_index, stage)
        known = self._states.get(slot)
        if known is None:
            known = self._states[slot] = make()
        kept: T = known
        return kept

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
