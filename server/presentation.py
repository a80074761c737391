"""What the editor shows, computed from index entries (no LSP types here).

* ``hover_markdown``: a Markdown table of a line's breakdown metrics, then the
  source operators and stacks behind it, placement, and each result's mode and
  producer.
* ``code_blocks``: functions and ``nn.Module`` classes of a Python source
  (via ``ast``, never executing it) with the total of the figures of their
  lines. A function's total is the sum of its lines' dominant figures (lines
  within one function do not nest, so nothing is counted twice); a class's
  total is the sum of its methods'. Lines the result covers without a figure
  (e.g. a projection conflict) are named in the title: the total leaves them out.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from perfline.server import figures
from perfline.server.index import LineEntry


def _cell(value: object) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def _metric_value(metric: Mapping[str, object]) -> str:
    value = figures.numeric(metric)
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
                stat = figures.statistic_of(metric)
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


@dataclass(frozen=True)
class CodeBlock:
    """A function or nn.Module class: 1-based first/last line and the lens title."""

    kind: str  # "function" | "class"
    name: str
    line: int
    end_line: int
    total: float
    title: str


def _is_module_class(node: ast.ClassDef) -> bool:
    for base in node.bases:
        text = ast.unparse(base)
        if text.endswith("Module") or text.endswith("Sequential"):
            return True
    return False


class _Unfigured:
    """Marker: the result covers the line but gives it no figure."""


UNFIGURED = _Unfigured()
LineFigure = tuple[float, figures.MetricKey, float | None]


def code_blocks(
    source: str,
    value_at: Callable[[int], LineFigure | _Unfigured | None],
) -> list[CodeBlock]:
    """Blocks with figures; ``value_at(line)`` gives (value, metric, total) of a 1-based
    line, ``UNFIGURED`` for a line the result covers without a figure, or None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    blocks: list[CodeBlock] = []

    def function_total(
        node: ast.FunctionDef | ast.AsyncFunctionDef,
    ) -> _Total | None:
        total = 0.0
        key: figures.MetricKey | None = None
        model_total: float | None = None
        missing: list[int] = []
        inner = {
            n
            for child in ast.walk(node)
            if child is not node and isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef)
            for n in range(child.lineno, (child.end_lineno or child.lineno) + 1)
        }
        for number in range(node.lineno, (node.end_lineno or node.lineno) + 1):
            if number in inner:
                continue
            found = value_at(number)
            if found is None:
                continue
            if isinstance(found, _Unfigured):
                missing.append(number)
                continue
            if key is None:
                key, model_total = found[1], found[2]
            if found[1] == key:
                total += found[0]
        return _Total(total, key, model_total, tuple(missing)) if key is not None else None

    def visit(nodes: Sequence[ast.stmt]) -> list[_Total]:
        totals = []
        for node in nodes:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found = function_total(node)
                visit(node.body)
                if found is not None:
                    totals.append(found)
                    blocks.append(_block("function", node, found))
            elif isinstance(node, ast.ClassDef):
                inner = visit(node.body)
                if inner and _is_module_class(node):
                    key = inner[0].key
                    value = sum(t.value for t in inner if t.key == key)
                    missing = tuple(n for t in inner for n in t.missing)
                    total = _Total(value, key, inner[0].model_total, missing)
                    blocks.append(_block("class", node, total))
        return totals

    visit(tree.body)
    return sorted(blocks, key=lambda b: (b.line, b.kind != "class"))


@dataclass(frozen=True)
class _Total:
    """A block's sum, its metric, the model total, and the lines left out."""

    value: float
    key: figures.MetricKey
    model_total: float | None
    missing: tuple[int, ...]


def _block(
    kind: str,
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    found: _Total,
) -> CodeBlock:
    text = figures.format_value(found.value, found.key.unit)
    share = figures.format_share(found.value, found.model_total)
    what = "nn.Module" if kind == "class" else "function"
    title = f"{what} {node.name}: {text}" + (f" · {share} of the model" if share else "")
    title += _left_out(found.missing)
    end = node.end_lineno or node.lineno
    return CodeBlock(kind, node.name, node.lineno, end, found.value, title)


def _left_out(lines: tuple[int, ...]) -> str:
    """Title suffix naming the covered lines without a figure (left out of the sum)."""
    if not lines:
        return ""
    if len(lines) == 1:
        return f", without line {lines[0]} (no figure)"
    if len(lines) <= 3:
        return f", without lines {', '.join(map(str, lines))} (no figure)"
    return f", without {len(lines)} lines that have no figure"
