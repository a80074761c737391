"""The hover of a source line, as Markdown (no LSP types here).

A Markdown table of the line's breakdown metrics, then the source operators and stacks
behind it, placement, and each result's mode and producer. Pure; linear in the line's
entries and their metrics.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from perfline.server import line_metrics
from perfline.server.line_index import LineEntry


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _metric_value(metric: Mapping[str, object]) -> str:
    value = line_metrics.numeric(metric)
    if value is None:
        reason = metric.get("reason")
        return f"n/a ({reason})" if reason else "n/a"
    text = f"{value:,.4g}" if abs(value) < 1000 else f"{value:,.0f}"
    return text


def hover_markdown(entries: Sequence[LineEntry], *, stale: bool = False) -> str:
    """The hover of one line: one section per job result landing on it."""
    parts: list[str] = []
    if stale:
        parts.append("*Source edited since the analysis: figures may be out of date.*\n")
    for entry in entries:
        head = f"**{_cell(entry.name)}** · job `{entry.job}`"
        if entry.label:
            head += f" · {entry.label}"
        parts.append(head + "\n")
        if entry.metrics:
            rows = ["| metric | value | unit |", "|---|---:|---|"]
            for metric in entry.metrics:
                name = str(metric.get("name", ""))
                stat = line_metrics.statistic_of(metric)
                if stat and stat not in name:
                    name += f" ({stat})"
                rows.append(
                    f"| {_cell(name)} | {_metric_value(metric)} | {_cell(metric.get('unit', ''))} |"
                )
            parts.append("\n".join(rows) + "\n")
        else:
            parts.append("*No figures projected onto this line.*\n")
        if entry.share is not None:
            parts.append(f"Share of the model: {100 * entry.share:.1f}%\n")
        if entry.source_operators:
            ops = ", ".join(
                f"`{_cell(o.get('name', o.get('id')))}`" for o in entry.source_operators[:12]
            )
            extra = len(entry.source_operators) - 12
            parts.append(
                f"Source operators: {ops}" + (f" (+{extra} more)" if extra > 0 else "") + "\n"
            )
        kinds: dict[str, list[str]] = {}
        for kind, name in entry.behind:
            kinds.setdefault(kind, []).append(name)
        for kind, names in sorted(kinds.items()):
            shown = ", ".join(f"`{_cell(n)}`" for n in names[:8])
            more = f" (+{len(names) - 8} more)" if len(names) > 8 else ""
            parts.append(f"Behind them ({kind}): {shown}{more}\n")
        if entry.stacks:
            parts.append(f"Call stacks: {len(entry.stacks)}\n")
        if entry.placements:
            parts.append(f"Placement: {', '.join(entry.placements)}\n")
        mode = entry.mode or "not stated"
        parts.append(f"Mode: {mode} · producer `{entry.producer}` · {entry.kind}\n")
    return "\n".join(parts).strip() + "\n"
