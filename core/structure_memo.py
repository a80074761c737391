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
* ``same_text`` does the same from a list's JSON text (a reader that splits a document
  into texts, ``core.known_structure_reading``): the text the list was read from last
  time, and the list is last run's without being decoded or serialized;
* ``note_layout`` / ``layout_token``: the projection's promise that a run's output
  breakdowns are laid out as the last run's (``ProjectionMemo.layout``), tied to the
  very output list, for a reader of the output (the daemon's line index) that would
  otherwise check the layout record by record;
* ``note_splice_point`` / ``splice_point``: where the text of a structure list lay in
  the last document, counted from its end (what follows it: the last kind declarations
  and closing brackets), so that a reader can check the next document for the same
  text at the same place without scanning it (``core.known_structure_reading``);
* ``note_read_form`` / ``read_form`` / ``as_written``: a reader that handed over a
  result's breakdowns already in canonical form (``core.known_structure_reading``: key
  order aside, the values the file holds) notes that list and its JSON text, so the
  canonical pass takes it as it is, and a result returned as it came in (one no stage
  changed, a document already post-processed) gets back the file's key order;
* ``recall`` returns a stage's remembered product when every key item is the
  remembered one (identity, or equality for small settings such as rules),
  else computes, remembers and returns it. Stages are pure functions of their
  keys and no stage mutates its input, so a recalled product is exactly what
  computing it again would give.

One product is kept per (result index, stage): memory is one run's structure.
Cost: one ``marshal`` serialization (format 0: no back-references) of each
result's entity list per run, about 2.5 ms for 3,000 entities, then identity
checks. Equal bytes mean equal values of equal types in the same order (marshal
is faithful).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable, Mapping, Sequence
from typing import Any, ParamSpec, TypeVar

T = TypeVar("T")
P = ParamSpec("P")


class StructureMemo:
    """Structure-only stage products of the last run of one job."""

    def __init__(self) -> None:
        self._interned: dict[tuple[int, str], tuple[bytes | None, list[Any]]] = {}
        #: The JSON text the interned list was read from (``same_text``); dropped
        #: whenever ``same`` interns another list.
        self._texts: dict[tuple[int, str], bytes] = {}
        self._products: dict[tuple[int, str], tuple[tuple[Any, ...], Any]] = {}
        self._lists: dict[tuple[int, str], dict[str, tuple[list[Any], list[Any]]]] = {}
        self._states: dict[tuple[int, str], Any] = {}
        self._layouts: dict[int, tuple[list[Any], object]] = {}
        #: Per result, the breakdowns list a reader handed over in canonical form, and
        #: what decodes them as written (this read only: every read notes again).
        self._read_forms: dict[int, tuple[list[Any], Callable[[], Any]]] = {}
        #: Where last read's text of one structure list lay: (result index, field, that
        #: text, every byte after it to the end of the document) (``splice_point``).
        self._splice: tuple[int, str, bytes, bytes] | None = None
        #: Products recalled and computed since creation (what tests observe).
        self.recalled = 0
        self.computed = 0

    def same(self, result_index: int, field: str, values: list[Any]) -> list[Any]:
        """``values``, or last run's list of this result's ``field`` when written exactly alike.

        Lists are compared by their ``marshal`` form, made only when a comparison needs it:
        a list of another length is not the last one, and a list kept after such a run (a
        new graph) has its form made at the next comparison, if one comes (a value-only
        change hands the kept list over by its text, ``same_text``, and makes none)."""
        slot = (result_index, field)
        known = self._interned.get(slot)
        if known is not None and known[1] is values:
            return values  # handed over by ``same_text``: written exactly alike
        if known is None or len(known[1]) != len(values):
            self._interned[slot] = (None, values)
            self._texts.pop(slot, None)
            return values
        try:
            # marshal writes types, -0.0 and key order as they are, and fast; format 0
            # has no back-references, whose use hangs on reference counts
            written = marshal.dumps(values, 0)
            kept = known[0] if known[0] is not None else marshal.dumps(known[1], 0)
        except ValueError:
            self._interned.pop(slot, None)
            self._texts.pop(slot, None)
            return values
        if kept == written:
            self._interned[slot] = (kept, known[1])
            return known[1]
        self._interned[slot] = (written, values)
        self._texts.pop(slot, None)
        return values

    def same_text(
        self, result_index: int, field: str, text: bytes, decode: Callable[[bytes], Any]
    ) -> Any:
        """The value of this result's ``field`` written as the JSON ``text``: last run's
        list when the text is last run's, else ``decode(text)`` interned by ``same``."""
        slot = (result_index, field)
        interned = self._interned.get(slot)
        if interned is not None and self._texts.get(slot) == text:
            return interned[1]
        values = decode(text)
        if type(values) is not list:
            self._texts.pop(slot, None)
            return values
        kept = self.same(result_index, field, values)
        self._texts[slot] = text
        return kept

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

    def note_layout(self, result_index: int, breakdowns: Any, token: object | None) -> None:
        """Remember that the output ``breakdowns`` list of this result was written under
        the layout ``token`` (``ProjectionMemo.layout``; ``None`` forgets)."""
        if token is None or type(breakdowns) is not list:
            self._layouts.pop(result_index, None)
        else:
            self._layouts[result_index] = (breakdowns, token)

    def layout_token(self, result_index: int, breakdowns: Any) -> object | None:
        """The layout token of ``breakdowns`` when it is the very list the last run wrote
        for this result (a document from elsewhere, an older one included, has none):
        equal tokens, equal layouts (which breakdown on which entity, with which metric
        names, units and aggregations, in which order)."""
        known = self._layouts.get(result_index)
        if known is None or known[0] is not breakdowns:
            return None
        return known[1]

    def note_read_form(
        self, result_index: int, canonical: list[Any] | None, written: Callable[[], Any]
    ) -> None:
        """Note that this read handed over this result's breakdowns as ``canonical`` (their
        canonical form: the file's values, in the schema's key order) and that
        ``written()`` decodes them as the file writes them; ``None``: as written."""
        if canonical is None:
            self._read_forms.pop(result_index, None)
        else:
            self._read_forms[result_index] = (canonical, written)

    def forget_read_forms(self) -> None:
        """Forget what the last read noted (a new read begins)."""
        self._read_forms.clear()

    def read_form(self, result_index: int, breakdowns: Any) -> bool:
        """Whether ``breakdowns`` is the very list this read handed over in canonical form."""
        known = self._read_forms.get(result_index)
        return known is not None and known[0] is breakdowns

    def as_written(self, result_index: int, result: Any) -> Any:
        """``result`` with its breakdowns as the file writes them, when they are the list
        this read handed over in canonical form (else ``result`` itself)."""
        if type(result) is not dict:
            return result
        known = self._read_forms.get(result_index)
        if known is None or result.get("breakdowns") is not known[0]:
            return result
        restored = dict(result)
        restored["breakdowns"] = known[1]()
        return restored

    def document_as_written(self, document: Any) -> Any:
        """``document`` (as read) with every result ``as_written`` (``document`` itself when
        no result's breakdowns were handed over in canonical form)."""
        if not self._read_forms or type(document) is not dict:
            return document
        results = document.get("results")
        if type(results) is not list:
            return document
        restored = dict(document)
        restored["results"] = [
            self.as_written(index, result) for index, result in enumerate(results)
        ]
        return restored

    def text_of(self, result_index: int, field: str) -> bytes | None:
        """The JSON text this result's interned ``field`` list was read from, if known."""
        slot = (result_index, field)
        return self._texts.get(slot) if slot in self._interned else None

    def note_splice_point(self, result_index: int, field: str, tail: bytes | None) -> None:
        """Remember that this read's document ended with ``text_of(result_index, field)``
        followed by ``tail`` (``None``: no such point)."""
        text = self.text_of(result_index, field)
        if tail is None or text is None:
            self._splice = None
        else:
            self._splice = (result_index, field, text, tail)

    def splice_point(self) -> tuple[int, str, bytes, bytes, list[Any]] | None:
        """(result index, field, text, tail, last run's list) of the noted splice point,
        while that list is still the one interned from that text."""
        point = self._splice
        if point is None:
            return None
        index, field, text, tail = point
        if self.text_of(index, field) is not text:
            return None
        return index, field, text, tail, self._interned[(index, field)][1]

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
