"""The sortable operator table: one row per operator, one column per metric the operators carry.

Columns are the (name, unit) pairs found on the operators' breakdowns, the dominant metric first,
then in first-seen order; per-run samples (metrics qualified by ``execution``) are not columns.
Each row: the operator, its type (``operator_types``, ``op_type`` or ``operator_type``
attribute), its module, its source line (``file:line`` of the innermost frame), the units its
cost is measured in, and its value in each column (``None`` where it has none: an operator inside
a chain shared with others has no figure of its own). Each column carries the scale of its
values' texts (``page_texts.Scale``: ``figure_text.format_number``, the header names the unit)
and the dominant metric's column that of their shares of the model (``format_share``), so the
page sorts by the values and prints the texts. Linear in operators times columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.figure_text import format_number, format_share
from perfline.core.report_html.entity_table import EntityTable
from perfline.core.report_html.hierarchy import operator_line, operator_module
from perfline.core.report_html.labels import numeric
from perfline.core.report_html.page_texts import Scale, Texts
from perfline.core.report_html.result_index import ResultIndex
from perfline.core.report_html.source_text import SourceText


def _columns(index: ResultIndex) -> list[tuple[str, str]]:
    seen: dict[tuple[str, str], None] = {}
    if index.metric is not None:
        seen[(index.metric.name, index.metric.unit)] = None
    for operator in index.operators:
        for metric in index.metrics.get(operator, ()):
            qualifiers = metric.get("qualifiers")
            if isinstance(qualifiers, Mapping) and "execution" in qualifiers:
                continue
            if numeric(metric) is None:
                continue
            seen.setdefault((str(metric.get("name", "")), str(metric.get("unit", ""))), None)
    return list(seen)


def operator_type(attributes: Mapping[str, Any]) -> str | None:
    """The operator's type as its attributes state it."""
    types = attributes.get("operator_types")
    if isinstance(types, list) and types and all(isinstance(t, str) for t in types):
        return ", ".join(types)
    for key in ("op_type", "operator_type", "type"):
        value = attributes.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def operator_rows(
    index: ResultIndex, sources: Mapping[str, SourceText], entities: EntityTable
) -> dict[str, Any]:
    """Columns and rows of the table (strings shared through a small string list; ``share``:
    the scale of the first column's shares, with a dominant metric)."""
    columns = _columns(index)
    strings = Texts()
    text = strings.ref
    scales = [_number_scale(unit) for _, unit in columns]
    total = index.total
    shares = Scale(lambda v: format_share(v, total) or "") if index.metric is not None else None
    rows: list[list[Any]] = []
    for operator in index.operators:
        module = operator_module(index, operator)
        where = operator_line(index, operator)
        place = None
        if where is not None:
            source = sources.get(where.file)
            shown = source.display if source is not None else where.file
            place = f"{shown}:{where.line}"
        by_column: dict[tuple[str, str], float] = {}
        for metric in index.metrics.get(operator, ()):
            qualifiers = metric.get("qualifiers")
            if isinstance(qualifiers, Mapping) and "execution" in qualifiers:
                continue
            value = numeric(metric)
            if value is not None:
                by_column.setdefault((str(metric.get("name")), str(metric.get("unit"))), value)
        units = [u for u in index.units.get(operator, ()) if u != operator]
        rows.append(
            [
                entities.ref(operator),
                text(operator_type(index.attributes(operator))),
                entities.ref(module) if module is not None else -1,
                text(place),
                [entities.ref(u) for u in units],
                *(scale.add(by_column.get(c)) for scale, c in zip(scales, columns, strict=True)),
            ]
        )
        if shares is not None and columns:
            shares.add(by_column.get(columns[0]))
    return {
        "columns": [
            {"name": name, "unit": unit, "texts": scale.payload()}
            for (name, unit), scale in zip(columns, scales, strict=True)
        ],
        "share": shares.payload() if shares is not None else None,
        "strings": strings.payload(),
        "rows": rows,
    }


def _number_scale(unit: str) -> Scale:
    return Scale(lambda v: format_number(v, unit))
