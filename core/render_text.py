"""The text report of a standardized-output document.

Sections, each skipped when empty: target, model, backends, then per result: status,
producer, mode, the float-sums mode (only for a result whose figures are sums of floats),
warnings, errors, the source lines (file:line, figure, share, top operator; only for a
result with code lines, and first), metrics (unavailable ones show their reason),
breakdowns (one column per metric, the dominant metric first and the others in the order
they first appear; the metrics that do not fit are named below the table), entities
(Name/Kind/ID/Placement, plus a Reason column only when a shown entity has a reported
reason), checks and advice. Rows with figures are sorted by the dominant metric, heaviest
first; each table shows ``limit`` rows (``None``: all) and says how many it left out.

Every table follows ``core.text_table``'s box style and width rule (never wider than the
report, no number split or cut). Pure: renders to a string at a given width, with ASCII
borders when asked (non-UTF-8 terminals).
"""

from __future__ import annotations

import io
import math
from collections.abc import Mapping, Sequence
from typing import Any

from rich.console import Console
from rich.table import Table

from perfline.core import figure_text
from perfline.core.call_lines import MARKER_ROOM
from perfline.core.report_rows import (
    Metric,
    breakdown_metrics,
    code_line_rows,
    dominant_metric,
    figures,
    has_float_sums,
    sorted_by,
    values_by_entity,
)
from perfline.core.text_table import (
    ASCII_ELLIPSIS,
    ELLIPSIS,
    Column,
    plain_console,
    print_table,
    wrap,
)

ROW_LIMIT = 20

#: What the float-sums modes mean, as the report says it.
FLOAT_SUMS_TEXT = {
    "exact": "exact (each figure is the correctly rounded sum of its origins' values; "
    "--float-sums reference gives mlia 0.12.3's order and rounding)",
    "reference": "reference (figures added up in mlia 0.12.3's order, with its rounding)",
}


def render_text(
    document: Mapping[str, Any],
    *,
    width: int = 120,
    ascii_only: bool = False,
    float_sums: str | None = None,
    limit: int | None = ROW_LIMIT,
) -> str:
    """The report as plain text (no colour codes)."""
    buffer = io.StringIO()
    console = plain_console(buffer, width)
    report = _Report(console, width, ascii_only, float_sums, limit)
    console.print(f"--- perfline report {'-' * max(0, width - 21)}"[:width])
    _target_section(console, document.get("target"), width, ascii_only)
    _model_section(console, document.get("model"), width, ascii_only)
    report.backends(document.get("backends"))
    results = document.get("results")
    if isinstance(results, list) and results:
        console.print()
        console.print(f"--- Results {'-' * max(0, width - 12)}"[:width])
        for number, result in enumerate(results, start=1):
            if isinstance(result, Mapping):
                console.print()
                report.result(number, result)
    return buffer.getvalue()


def _kv_table(rows: Sequence[tuple[str, str]], width: int, ascii_only: bool) -> Table:
    """Borderless key/value rows; values wrapped here at spaces (never a number split)."""
    table = Table(show_header=False, box=None, pad_edge=False, padding=(0, 2, 0, 2))
    keys = max((len(key) for key, _ in rows), default=0)
    room = max(10, width - keys - 6)
    table.add_column(no_wrap=True)
    table.add_column(no_wrap=True, overflow="crop", max_width=room)
    for key, value in rows:
        table.add_row(key, wrap(value, room, ellipsis=ASCII_ELLIPSIS if ascii_only else ELLIPSIS))
    return table


def _target_section(console: Console, target: object, width: int, ascii_only: bool) -> None:
    if not isinstance(target, Mapping):
        return
    rows: list[tuple[str, str]] = []
    for key, label in (
        ("profile_name", "Profile"),
        ("target_type", "Target type"),
        ("description", "Description"),
    ):
        if target.get(key):
            rows.append((label, str(target[key])))
    configuration = target.get("configuration")
    if isinstance(configuration, Mapping):
        for key, value in configuration.items():
            rows.append((str(key).replace("_", " ").title(), _short(value)))
    components = target.get("components")
    if isinstance(components, list) and components:
        names = [
            " ".join(str(c[k]) for k in ("type", "family", "model", "variant") if c.get(k))
            for c in components
            if isinstance(c, Mapping)
        ]
        rows.append(("Components", ", ".join(names)))
    if rows:
        console.print()
        console.print("Target information:")
        console.print(_kv_table(rows, width, ascii_only))


def _model_section(console: Console, model: object, width: int, ascii_only: bool) -> None:
    if not isinstance(model, Mapping):
        return
    rows = [
        (label, str(model[key]))
        for key, label in (("name", "Name"), ("format", "Format"), ("hash", "Hash"))
        if model.get(key)
    ]
    if isinstance(model.get("size_bytes"), int):
        rows.append(("Size", figure_text.format_count(model["size_bytes"], "bytes")))
    if rows:
        console.print()
        console.print("Model information:")
        console.print(_kv_table(rows, width, ascii_only))


class _Report:
    """The tables of one report: its console, width, frame style and row limit."""

    def __init__(
        self,
        console: Console,
        width: int,
        ascii_only: bool,
        float_sums: str | None,
        limit: int | None,
    ) -> None:
        self.console = console
        self.width = width
        self.ascii_only = ascii_only
        self.float_sums = float_sums
        self.limit = limit

    def table(self, title: str, columns: Sequence[Column], total: int, noun: str) -> None:
        """A titled table of the first ``limit`` rows (the columns hold them), and a line
        saying how many of ``total`` rows it shows when it does not show them all."""
        self.console.print()
        self.console.print(title, markup=False)
        print_table(self.console, columns, width=self.width, ascii_only=self.ascii_only)
        shown = max((len(c.cells) for c in columns), default=0)
        if shown < total:
            self.console.print(
                f"Showing {shown} of {total} {noun} (--limit N for more, --all for all).",
                markup=False,
            )

    def take(self, rows: Sequence[Any]) -> Sequence[Any]:
        return rows if self.limit is None else rows[: self.limit]

    def backends(self, backends: object) -> None:
        if not isinstance(backends, list) or not backends:
            return
        rows = [b for b in backends if isinstance(b, Mapping)]
        columns = [
            Column(header, one_line=True, cells=[str(b.get(key) or "-") for b in rows])
            for header, key in (("ID", "id"), ("Name", "name"), ("Version", "version"))
        ]
        self.console.print()
        self.table("Backends:", columns, len(rows), "backends")

    def result(self, number: int, result: Mapping[str, Any]) -> None:
        console = self.console
        console.print(f"Result {number}: {str(result.get('kind', '')).title()}", markup=False)
        rows = [
            (label, str(result[field]))
            for field, label in (("status", "Status"), ("producer", "Producer"), ("mode", "Mode"))
            if result.get(field)
        ]
        if self.float_sums in FLOAT_SUMS_TEXT and has_float_sums(result):
            rows.append(("Float sums", FLOAT_SUMS_TEXT[self.float_sums]))
        console.print(_kv_table(rows, self.width, self.ascii_only))
        for field, label in (("warnings", "Warnings"), ("errors", "Errors")):
            items = result.get(field)
            if isinstance(items, list) and items:
                console.print(f"{label}:")
                for item in items:
                    console.print(wrap(f"  - {item}", self.width, indent="    "), markup=False)
        entities = [e for e in result.get("entities") or [] if isinstance(e, Mapping)]
        names = {str(e.get("id")): str(e.get("name") or e.get("id")) for e in entities}
        key = dominant_metric(result)
        self.source_lines(result, key)
        self.metrics(result.get("metrics"))
        self.breakdowns(result, entities, names, key)
        self.entities(result, entities, key)
        self.checks(result.get("checks"))
        self.advice(result.get("advice"), names)

    def source_lines(self, result: Mapping[str, Any], key: Metric | None) -> None:
        """file:line | figure | share of the total | the heaviest operator under the line
        and its share of the line; heaviest lines first (results with code lines only). A
        call line's figure includes the lines it calls: its cell says which, below it."""
        rows = code_line_rows(result, key)
        if not rows:
            return
        shown = self.take(rows)
        # A call line's list of called lines widens the column no more than a location
        # does (or MARKER_ROOM): a longer one is written as a count.
        room = max([MARKER_ROOM, *(len(r.where) for r in shown)])
        unit = f" ({key[1]})" if key and key[1] else ""
        figure = f"{key[0]}{unit}" if key else "Figure"
        columns = [
            Column(
                "Line",
                one_line=True,
                keep="end",
                cells=[r.label(room) for r in shown],
                short=[r.short_label for r in shown],
            ),
            Column(
                figure, number=True, cells=[_value(r.value, key[1] if key else "") for r in shown]
            ),
            Column("Share", number=True, cells=[_share(r.share) for r in shown]),
            Column(
                "Top operator",
                one_line=True,
                keep="end",
                want=24,
                cells=[r.top or "-" for r in shown],
                short=[r.top_name or "-" for r in shown],
            ),
            Column(
                "Of line",
                number=True,
                cells=[
                    _share(r.top_value / r.value) if r.top_value is not None and r.value else "-"
                    for r in shown
                ],
            ),
        ]
        self.table("Source lines: heaviest first", columns, len(rows), "source lines")

    def metrics(self, metrics: object) -> None:
        """Metric | Value | Unit; an unavailable metric shows ``n/a [k]`` and its reason is
        printed once, as footnote k, below the table (many share one reason)."""
        if not isinstance(metrics, list) or not metrics:
            return
        reasons: dict[str, int] = {}
        names, values, units = [], [], []
        for metric in metrics:
            if not isinstance(metric, Mapping):
                continue
            if "value" in metric:
                value = format_value(metric["value"], str(metric.get("unit") or ""))
            else:
                reason = str(metric.get("reason") or "no reason given")
                value = f"n/a [{reasons.setdefault(reason, len(reasons) + 1)}]"
            names.append(str(metric.get("name")))
            values.append(value)
            units.append(str(metric.get("unit") or ""))
        columns = [
            Column("Metric", one_line=True, cells=names),
            Column("Value", number=True, cells=values),
            Column("Unit", one_line=True, cells=units),
        ]
        self.table("Metrics:", columns, len(names), "metrics")
        for reason, number in reasons.items():
            self.console.print(f"  [{number}] {reason}", markup=False)

    def breakdowns(
        self,
        result: Mapping[str, Any],
        entities: list[Mapping[str, Any]],
        names: Mapping[str, str],
        key: Metric | None,
    ) -> None:
        """Name | Kind | one column per metric (the dominant first), heaviest first."""
        breakdowns = [b for b in result.get("breakdowns") or [] if isinstance(b, Mapping)]
        if not breakdowns:
            return
        kinds = {str(e.get("id")): str(e.get("kind") or "") for e in entities}
        order = breakdown_metrics(result)
        if key is not None:
            order = [key, *(m for m in order if m != key)]
        weights = {i: float(figures(b)[key]) for i, b in enumerate(breakdowns) if key in figures(b)}
        shown = self.take(sorted_by(breakdowns, weights))
        values = [_metric_cells(b) for b in shown]
        entity_ids = [str(b.get("entity_id")) for b in shown]
        columns = [
            Column("Name", one_line=True, keep="end", cells=[names.get(i, i) for i in entity_ids]),
            Column(
                "Kind",
                one_line=True,
                min_width=4,
                want=15,
                cells=[kinds.get(i, "") for i in entity_ids],
            ),
        ]
        for index, (name, unit) in enumerate(order):
            header = f"{name} ({unit})" if unit else name
            cells = [row.get((name, unit), "") for row in values]
            columns.append(Column(header, number=True, optional=index > 0, cells=cells))
        title = f"Breakdowns: by {key[0]}, heaviest first" if key else "Breakdowns:"
        self.console.print()
        self.console.print(title, markup=False)
        kept = print_table(self.console, columns, width=self.width, ascii_only=self.ascii_only)
        left_out = [c.header for c in columns if c not in kept]
        if left_out:
            self.console.print(
                f"Not shown at this width: {', '.join(left_out)} (--json has every metric).",
                markup=False,
            )
        if len(shown) < len(breakdowns):
            self.console.print(
                f"Showing {len(shown)} of {len(breakdowns)} breakdowns "
                "(--limit N for more, --all for all).",
                markup=False,
            )

    def entities(
        self, result: Mapping[str, Any], entities: list[Mapping[str, Any]], key: Metric | None
    ) -> None:
        if not entities:
            return
        reasons = _entity_reasons(result)
        values = values_by_entity(result, key) if key is not None else {}
        weights = {
            i: values[str(e.get("id"))]
            for i, e in enumerate(entities)
            if str(e.get("id")) in values
        }
        shown = self.take(sorted_by(entities, weights))
        columns = [
            Column(
                "Name", one_line=True, keep="end", cells=[str(e.get("name") or "") for e in shown]
            ),
            Column(
                "Kind",
                one_line=True,
                min_width=4,
                want=15,
                cells=[str(e.get("kind") or "") for e in shown],
            ),
            Column("ID", one_line=True, keep="end", cells=[str(e.get("id") or "") for e in shown]),
            Column(
                "Placement", one_line=True, cells=[str(e.get("placement") or "-") for e in shown]
            ),
        ]
        if any(str(e.get("id")) in reasons for e in shown):
            columns.append(
                Column("Reason", cells=[reasons.get(str(e.get("id")), "") for e in shown])
            )
        title = f"Entities: by {key[0]}, heaviest first" if weights and key else "Entities:"
        self.table(title, columns, len(entities), "entities")

    def checks(self, checks: object) -> None:
        if not isinstance(checks, list) or not checks:
            return
        rows = [c for c in checks if isinstance(c, Mapping)]
        shown = self.take(rows)
        columns = [
            Column("Check", one_line=True, cells=[str(c.get("id")) for c in shown]),
            Column(
                "Status", one_line=True, min_width=4, cells=[str(c.get("status")) for c in shown]
            ),
            Column(
                "Entity",
                one_line=True,
                keep="end",
                cells=[str(c.get("entity_id") or "-") for c in shown],
            ),
        ]
        self.table("Checks:", columns, len(rows), "checks")

    def advice(self, advice: object, names: Mapping[str, str]) -> None:
        if not isinstance(advice, list) or not advice:
            return
        rows = [a for a in advice if isinstance(a, Mapping)]
        shown = self.take(rows)
        affected = [
            ", ".join(names.get(str(i), str(i)) for i in a.get("affected_entity_ids") or []) or "-"
            for a in shown
        ]
        columns = [
            Column(
                "Severity",
                one_line=True,
                min_width=4,
                cells=[str(a.get("severity")) for a in shown],
            ),
            Column("Category", one_line=True, cells=[str(a.get("category")) for a in shown]),
            Column("Message", min_width=20, cells=[str(a.get("message")) for a in shown]),
            Column("Entities", cells=affected),
        ]
        self.table("Advice:", columns, len(rows), "pieces of advice")


def _metric_cells(breakdown: Mapping[str, Any]) -> dict[Metric, str]:
    cells: dict[Metric, str] = {}
    for metric in breakdown.get("metrics") or ():
        if isinstance(metric, Mapping):
            key = (str(metric.get("name")), str(metric.get("unit") or ""))
            cells.setdefault(
                key, format_value(metric["value"], key[1]) if "value" in metric else "n/a"
            )
    return cells


def _value(value: float | None, unit: str) -> str:
    return "-" if value is None else format_value(value, unit)


def _share(share: float | None) -> str:
    """A fraction of the model as the editor writes it (``core.figure_text``)."""
    if share is None:
        return "-"
    return figure_text.format_share(share, 1.0) or "-"


def _entity_reasons(result: Mapping[str, Any]) -> dict[str, str]:
    """Reasons reported for entities: the ``details.reasons`` of checks about them."""
    reasons: dict[str, list[str]] = {}
    for check in result.get("checks") or []:
        if not isinstance(check, Mapping) or not isinstance(check.get("entity_id"), str):
            continue
        details = check.get("details")
        listed = details.get("reasons") if isinstance(details, Mapping) else None
        for reason in listed if isinstance(listed, list) else []:
            if isinstance(reason, Mapping):
                text = str(reason.get("description") or "")
                if reason.get("detail"):
                    text = f"{text} ({reason['detail']})" if text else str(reason["detail"])
                if text:
                    reasons.setdefault(check["entity_id"], []).append(text)
    return {entity_id: "; ".join(texts) for entity_id, texts in reasons.items()}


def format_value(value: object, unit: str = "") -> str:
    """A metric value for people, by the one rounding rule of the editor and the CLI
    (``core.figure_text.format_number``: ``9.63`` ms, ``1.8k`` cycles); booleans and other
    non-numbers as they are."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float) and math.isfinite(value):
        return figure_text.format_number(value, unit)
    return str(value)


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."
