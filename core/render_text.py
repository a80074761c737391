"""The text report of a standardized-output document.

Sections, each skipped when empty: target, model, backends, then per result:
status, producer, mode, warnings, errors, metrics (unavailable ones show
their reason), entities (Name/Kind/ID/Placement, plus a Reason column only
when a shown entity has a reported reason), breakdowns, checks and advice.
Pure: renders to a string at a given width, with ASCII borders when asked
(non-UTF-8 terminals).
"""

from __future__ import annotations

import io
from collections.abc import Mapping, Sequence
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

ROW_LIMIT = 20
#: Metrics shown per breakdown row; the JSON output has them all.
METRICS_PER_BREAKDOWN = 4


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
    console = Console(
        file=buffer,
        width=width,
        color_system=None,
        force_terminal=False,
        legacy_windows=False,
        emoji=False,
        highlight=False,
        soft_wrap=False,
    )
    frame = box.ASCII if ascii_only else box.SQUARE
    plain = box.SIMPLE if not ascii_only else box.ASCII2

    console.print(f"--- perfline report {'-' * max(0, width - 21)}"[:width])
    _target_section(console, document.get("target"), plain)
    _model_section(console, document.get("model"), plain)
    _backends_section(console, document.get("backends"), frame)
    results = document.get("results")
    if isinstance(results, list) and results:
        console.print()
        console.print(f"--- Results {'-' * max(0, width - 12)}"[:width])
        for number, result in enumerate(results, start=1):
            if isinstance(result, Mapping):
                console.print()
                _result_section(console, number, result, frame, plain)
    return buffer.getvalue()


def _kv_table(rows: Sequence[tuple[str, str]], style: box.Box | None) -> Table:
    table = Table(show_header=False, box=None, pad_edge=False, padding=(0, 2, 0, 2))
    table.add_column(no_wrap=True)
    table.add_column(overflow="fold")
    for key, value in rows:
        table.add_row(key, value)
    return table


def _target_section(console: Console, target: object, style: box.Box) -> None:
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
        console.print(_kv_table(rows, style))


def _model_section(console: Console, model: object, style: box.Box) -> None:
    if not isinstance(model, Mapping):
        return
    rows = [
        (label, str(model[key]))
        for key, label in (("name", "Name"), ("format", "Format"), ("hash", "Hash"))
        if model.get(key)
    ]
    if isinstance(model.get("size_bytes"), int):
        rows.append(("Size", f"{model['size_bytes']} bytes"))
    if rows:
        console.print()
        console.print("Model information:")
        console.print(_kv_table(rows, style))


def _backends_section(console: Console, backends: object, style: box.Box) -> None:
    if not isinstance(backends, list) or not backends:
        return
    table = Table(box=style)
    for column in ("ID", "Name", "Version"):
        table.add_column(column, overflow="fold")
    for backend in backends:
        if isinstance(backend, Mapping):
            table.add_row(*(str(backend.get(k) or "-") for k in ("id", "name", "version")))
    console.print()
    console.print("Backends:")
    console.print(table)


def _result_section(
    console: Console, number: int, result: Mapping[str, Any], frame: box.Box, plain: box.Box
) -> None:
    console.print(f"Result {number}: {str(result.get('kind', '')).title()}")
    rows = [
        (label, str(result[key]))
        for key, label in (("status", "Status"), ("producer", "Producer"), ("mode", "Mode"))
        if result.get(key)
    ]
    console.print(_kv_table(rows, plain))
    for key, label in (("warnings", "Warnings"), ("errors", "Errors")):
        items = result.get(key)
        if isinstance(items, list) and items:
            console.print(f"{label}:")
            for item in items:
                console.print(f"  - {item}")
    entities = [e for e in result.get("entities") or [] if isinstance(e, Mapping)]
    names = {str(e.get("id")): str(e.get("name") or e.get("id")) for e in entities}
    _metrics_table(console, result.get("metrics"), frame)
    _entities_table(console, entities, _entity_reasons(result), frame)
    _breakdowns_table(console, result.get("breakdowns"), entities, names, frame)
    _checks_table(console, result.get("checks"), frame)
    _advice_table(console, result.get("advice"), names, plain)


def _metrics_table(console: Console, metrics: object, style: box.Box) -> None:
    """Metric | Value | Unit; an unavailable metric shows ``n/a [k]`` and its reason
    is printed once, as footnote k, below the table (many share one reason)."""
    if not isinstance(metrics, list) or not metrics:
        return
    table = Table(box=style)
    table.add_column("Metric", overflow="fold")
    table.add_column("Value", justify="right", overflow="fold")
    table.add_column("Unit", overflow="fold")
    reasons: dict[str, int] = {}
    for metric in metrics:
        if not isinstance(metric, Mapping):
            continue
        if "value" in metric:
            value = format_value(metric["value"])
        else:
            reason = str(metric.get("reason") or "no reason given")
            number = reasons.setdefault(reason, len(reasons) + 1)
            value = f"n/a [{number}]"
        table.add_row(str(metric.get("name")), value, str(metric.get("unit") or ""))
    console.print("Metrics:")
    console.print(table)
    for reason, number in reasons.items():
        console.print(f"  [{number}] {reason}", markup=False)


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


def _entities_table(
    console: Console,
    entities: list[Mapping[str, Any]],
    reasons: Mapping[str, str],
    style: box.Box,
) -> None:
    if not entities:
        return
    shown = entities[:ROW_LIMIT]
    with_reason = any(str(e.get("id")) in reasons for e in shown)
    table = Table(box=style)
    for column in ("Name", "Kind", "ID", "Placement"):
        table.add_column(column, overflow="fold")
    if with_reason:
        table.add_column("Reason", overflow="fold")
    for entity in shown:
        row = [
            str(entity.get("name") or ""),
            str(entity.get("kind") or ""),
            str(entity.get("id") or ""),
            str(entity.get("placement") or "-"),
        ]
        if with_reason:
            row.append(reasons.get(str(entity.get("id")), ""))
        table.add_row(*row)
    console.print("Entities:")
    console.print(table)
    if len(entities) > ROW_LIMIT:
        console.print(f"Showing {ROW_LIMIT} of {len(entities)} entities.")


def _breakdowns_table(
    console: Console,
    breakdowns: object,
    entities: list[Mapping[str, Any]],
    names: Mapping[str, str],
    style: box.Box,
) -> None:
    if not isinstance(breakdowns, list) or not breakdowns:
        return
    kinds = {str(e.get("id")): str(e.get("kind") or "") for e in entities}
    table = Table(box=style)
    for column in ("Name", "Kind", "ID"):
        table.add_column(column, overflow="fold")
    table.add_column("Metrics", overflow="fold", ratio=1)
    for breakdown in breakdowns[:ROW_LIMIT]:
        if not isinstance(breakdown, Mapping):
            continue
        entity_id = str(breakdown.get("entity_id"))
        metrics = [m for m in breakdown.get("metrics") or [] if isinstance(m, Mapping)]
        figures = ", ".join(
            f"{m.get('name')}={format_value(m['value'])} {m.get('unit', '')}".rstrip()
            if "value" in m
            else f"{m.get('name')}=unavailable"
            for m in metrics[:METRICS_PER_BREAKDOWN]
        )
        if len(metrics) > METRICS_PER_BREAKDOWN:
            figures += f", ... (+{len(metrics) - METRICS_PER_BREAKDOWN} more)"
        table.add_row(names.get(entity_id, entity_id), kinds.get(entity_id, ""), entity_id, figures)
    console.print("Breakdowns:")
    console.print(table)
    if any(
        isinstance(b, Mapping) and len(b.get("metrics") or []) > METRICS_PER_BREAKDOWN
        for b in breakdowns[:ROW_LIMIT]
    ):
        console.print(
            f"(first {METRICS_PER_BREAKDOWN} metrics of each breakdown; --json shows all)"
        )
    if len(breakdowns) > ROW_LIMIT:
        console.print(f"Showing {ROW_LIMIT} of {len(breakdowns)} breakdowns.")


def _checks_table(console: Console, checks: object, style: box.Box) -> None:
    if not isinstance(checks, list) or not checks:
        return
    table = Table(box=style)
    for column in ("Check", "Status", "Entity"):
        table.add_column(column, overflow="fold")
    for check in checks[:ROW_LIMIT]:
        if isinstance(check, Mapping):
            table.add_row(
                str(check.get("id")), str(check.get("status")), str(check.get("entity_id") or "-")
            )
    console.print("Checks:")
    console.print(table)
    if len(checks) > ROW_LIMIT:
        console.print(f"Showing {ROW_LIMIT} of {len(checks)} checks.")


def _advice_table(
    console: Console, advice: object, names: Mapping[str, str], style: box.Box
) -> None:
    if not isinstance(advice, list) or not advice:
        return
    table = Table(box=style)
    for column in ("Severity", "Category", "Message", "Entities"):
        table.add_column(column, overflow="fold")
    for item in advice:
        if isinstance(item, Mapping):
            affected = [names.get(str(i), str(i)) for i in item.get("affected_entity_ids") or []]
            table.add_row(
                str(item.get("severity")),
                str(item.get("category")),
                str(item.get("message")),
                ", ".join(affected) or "-",
            )
    console.print("Advice:")
    console.print(table)


def format_value(value: object) -> str:
    """A metric value for people: integers as they are, floats to 6 significant digits."""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:.6g}"
    return str(value)


def _short(value: object) -> str:
    text = str(value)
    return text if len(text) <= 60 else text[:57] + "..."
