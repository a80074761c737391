"""The page's table of entities: each entity the page mentions, stored once, referred to by number.

Every section of the page (lines, chart, operator table) names entities by their position here,
so an id, its display name, kind and figure are written into the HTML once. A name equal to the
id is not repeated. Figures go through the view's scale of figures (``page_texts.Scale``: held
rounded to seven significant digits, their label written by ``core.figure_text``; the exact
figures stay in the document).
"""

from __future__ import annotations

from typing import Any

from perfline.core.report_html.page_texts import Scale
from perfline.core.report_html.result_index import ResultIndex


class EntityTable:
    """Entities in first-mention order, with their kind, name and dominant figure."""

    def __init__(self, index: ResultIndex, figures: Scale) -> None:
        self._index = index
        self._figures = figures
        self._positions: dict[str, int] = {}
        self._kinds: dict[str, int] = {}
        self.ids: list[str] = []
        self.names: list[str | None] = []
        self.kind_codes: list[int] = []
        self.values: list[float | int | None] = []

    def ref(self, entity_id: str) -> int:
        """The entity's number, adding it on first mention."""
        found = self._positions.get(entity_id)
        if found is not None:
            return found
        position = len(self.ids)
        self._positions[entity_id] = position
        self.ids.append(entity_id)
        name = self._index.name(entity_id)
        self.names.append(None if name == entity_id else name)
        kind = self._index.kind(entity_id)
        self.kind_codes.append(self._kinds.setdefault(kind, len(self._kinds)))
        self.values.append(self._figures.add(self._index.values.get(entity_id)))
        return position

    def find(self, entity_id: str) -> int | None:
        """The entity's number if the page mentions it (never adds it)."""
        return self._positions.get(entity_id)

    def kind_of(self, ref: int) -> str:
        """The kind of entity number ``ref``."""
        return self._index.kind(self.ids[ref])

    def payload(self) -> dict[str, Any]:
        return {
            "ids": self.ids,
            "names": self.names,
            "kind": self.kind_codes,
            "kinds": list(self._kinds),
            "value": self.values,
        }
