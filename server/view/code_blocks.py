"""Code lenses: the functions and ``nn.Module`` classes of a Python source with the
figures of their lines.

``code_blocks`` finds the blocks (via ``ast``, never executing the source; block ends come
from here only) and, per block, adds up its lines' figures:

* **total**: every line with a figure, except lines another line of the block calls (a
  call line's figure is inclusive: ``x = self.blocks(x)`` already holds the lines of the
  block it calls, so they are not counted again);
* **own lines**: the lines that call no other line of the source (stated when the block
  has call lines that call lines outside it, so a caller never reads as "10% of the model"
  when it holds all of it; when the block holds every line its call lines call, the two
  sums are the same and the total is said once);
* **share of the model**: of the total, when the total is one;
* how often the function was entered per step, when the result counts it on its ``def``
  line (a measured trace's ``calls_per_step``: ``2 calls/step``);
* lines the result covers without a figure, named with the reason
  (``line_details.no_figure``). A line without a sample leaves the total a total; a
  conflicting or partially covered one makes it the sum "on the lines with figures".

A function's lines exclude those of functions nested in it (they get their own lens); a
class's are its methods'. Titles read ``DSCNN.forward: 11.9 ms total · own lines 1.17 ms ·
100% of the model``. Linear in the source.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from perfline.core import dominant_metric, figure_text
from perfline.core.python_syntax import parse_module
from perfline.server.line_entries import LineEntry
from perfline.server.view import line_labels
from perfline.server.view.hint_settings import HintSettings
from perfline.server.view.line_details import (
    REASON_WORDS,
    MissingFigure,
    Reason,
    call_count_text,
    no_figure,
)

_Function = ast.FunctionDef | ast.AsyncFunctionDef


@dataclass(frozen=True, slots=True)
class LensLine:
    """What a lens needs of one line the result covers: its figure (``value`` None: none,
    and ``missing`` says why), the model total, and the lines of this file it calls."""

    value: float | None
    key: dominant_metric.MetricKey | None
    model_total: float | None
    calls: frozenset[int] = frozenset()
    calls_elsewhere: bool = False
    missing: MissingFigure | None = None
    #: Entries per step of the function whose ``def`` line this is (``None``: not counted).
    calls_per_step: float | None = None

    @property
    def is_call(self) -> bool:
        return bool(self.calls) or self.calls_elsewhere


#: 1-based line -> what the result says about it (None: not covered).
FigureAt = Callable[[int], LensLine | None]


@dataclass(frozen=True, slots=True)
class CodeBlock:
    """A function or nn.Module class: 1-based first/last line, sums and the lens title."""

    kind: str  # "function" | "class"
    name: str
    line: int
    end_line: int
    total: float
    own: float
    complete: bool
    title: str
    missing: tuple[tuple[int, str], ...] = field(default=())
    #: The lines the total adds up (figured lines no other line of the block calls).
    counted: tuple[int, ...] = field(default=())
    #: The title's parts after the name (the first is the total).
    parts: tuple[str, ...] = field(default=())

    def titled(self, change: str) -> str:
        """The title with ``change`` (``▲12%`` against the baseline) after the total."""
        if not change or not self.parts:
            return self.title
        parts = (f"{self.parts[0]} {change}", *self.parts[1:])
        return f"{self.name}: " + " · ".join(parts)


def code_blocks(source: str, figure_at: FigureAt) -> list[CodeBlock]:
    """The blocks of ``source`` with at least one figure."""
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError):
        return []
    blocks: list[CodeBlock] = []
    _visit(tree.body, (), figure_at, blocks)
    return sorted(blocks, key=lambda b: (b.line, b.kind != "class"))


def _visit(
    nodes: Sequence[ast.stmt],
    scope: tuple[str, ...],
    figure_at: FigureAt,
    blocks: list[CodeBlock],
) -> list[int]:
    """Appends the blocks among ``nodes``; returns the lines of the functions directly here."""
    lines: list[int] = []
    for node in nodes:
        if isinstance(node, _Function):
            own = _function_lines(node)
            lines.extend(own)
            _visit(node.body, (*scope, node.name), figure_at, blocks)
            block = _block("function", ".".join((*scope, node.name)), node, own, figure_at)
            if block is not None:
                blocks.append(block)
        elif isinstance(node, ast.ClassDef):
            methods = _visit(node.body, (*scope, node.name), figure_at, blocks)
            if methods and _is_module_class(node):
                name = "nn.Module " + ".".join((*scope, node.name))
                block = _block("class", name, node, methods, figure_at)
                if block is not None:
                    blocks.append(block)
    return lines


def _function_lines(node: _Function) -> list[int]:
    inner = {
        n
        for child in ast.walk(node)
        if child is not node and isinstance(child, _Function)
        for n in range(child.lineno, (child.end_lineno or child.lineno) + 1)
    }
    return [n for n in range(node.lineno, (node.end_lineno or node.lineno) + 1) if n not in inner]


def _is_module_class(node: ast.ClassDef) -> bool:
    for base in node.bases:
        text = ast.unparse(base)
        if text.endswith("Module") or text.endswith("Sequential"):
            return True
    return False


def _block(
    kind: str,
    name: str,
    node: _Function | ast.ClassDef,
    lines: Iterable[int],
    figure_at: FigureAt,
) -> CodeBlock | None:
    inside = set(lines)
    covered = {n: f for n in sorted(inside) if (f := figure_at(n)) is not None}
    figured = {n: f for n, f in covered.items() if f.value is not None}
    if not figured:
        return None
    key = next(iter(figured.values())).key
    figured = {n: f for n, f in figured.items() if f.key == key}
    called = {c for f in figured.values() for c in f.calls}
    total = sum(f.value or 0.0 for n, f in figured.items() if n not in called)
    own = sum(f.value or 0.0 for f in figured.values() if not f.is_call)
    missing = tuple(
        (n, f.missing)
        for n, f in covered.items()
        if f.value is None and f.missing is not None and n not in called
    )
    complete = all(m.complete for _, m in missing)
    first = next(iter(figured.values()))
    unit = key.unit if key is not None else ""
    # own lines differ from the total only where a call line calls lines outside the block
    has_calls = any(f.calls_elsewhere or not f.calls <= inside for f in figured.values())
    reach = " total" if complete else " on the lines with figures"
    parts = [figure_text.format_value(total, unit) + reach]
    if has_calls:
        parts.append(f"own lines {figure_text.format_value(own, unit)}")
    share = figure_text.format_share(total, first.model_total) if complete else None
    if share:
        parts.append(f"{share} of the model")
    calls = _entries(node, figure_at) if kind == "function" else None
    if calls is not None:
        parts.append(call_count_text(calls))
    if missing:
        parts.append(_missing_text([(n, m.reason) for n, m in missing]))
    end = node.end_lineno or node.lineno
    title = f"{name}: " + " · ".join(parts)
    words = tuple((n, m.words) for n, m in missing)
    counted = tuple(n for n in figured if n not in called)
    return CodeBlock(
        kind, name, node.lineno, end, total, own, complete, title, words, counted, tuple(parts)
    )


def _entries(node: _Function | ast.ClassDef, figure_at: FigureAt) -> float | None:
    """The function's entries per step, from its ``def`` line (a trace names a decorated
    function by its first decorator's line)."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    for line in range(first, node.lineno + 1):
        found = figure_at(line)
        if found is not None and found.calls_per_step is not None:
            return found.calls_per_step
    return None


def _missing_text(missing: Sequence[tuple[int, Reason]]) -> str:
    """``no figure on line 41 (conflicting figures), 43 (no sample)``."""
    if len(missing) == 1:
        line, reason = missing[0]
        return f"no figure on line {line} ({REASON_WORDS[reason]})"
    if len(missing) <= 3:
        listed = ", ".join(f"{n} ({REASON_WORDS[r]})" for n, r in missing)
        return f"no figure on lines {listed}"
    counts: dict[str, int] = {}
    for _, reason in missing:
        word = REASON_WORDS[reason]
        counts[word] = counts.get(word, 0) + 1
    detail = ", ".join(f"{c} {w}" for w, c in counts.items())
    return f"no figure on {len(missing)} lines ({detail})"


def line_figure(
    entries: Sequence[LineEntry],
    file: str,
    found: tuple[float, dominant_metric.MetricKey, float | None] | None,
    current_line: Callable[[str, int], int | None],
) -> LensLine:
    """A covered line for ``code_blocks``: ``found`` is its figure under the client's
    settings (``line_labels.lens_figure``); the calls are mapped to current lines."""
    calls = {
        current
        for entry in entries
        for f, n in entry.facts.calls
        if f == file and (current := current_line(f, n)) is not None
    }
    elsewhere = any(f != file for entry in entries for f, _ in entry.facts.calls)
    counted = next(
        (e.facts.calls_per_step for e in entries if e.facts.calls_per_step is not None), None
    )
    if found is not None:
        return LensLine(
            found[0], found[1], found[2], frozenset(calls), elsewhere, calls_per_step=counted
        )
    reasons = [r for r in (no_figure(e) for e in entries) if r is not None]
    missing = reasons[0] if reasons else MissingFigure("no-sample", "No figure for this metric.")
    key = entries[0].metric if entries else None
    return LensLine(None, key, None, frozenset(calls), elsewhere, missing, counted)


def lenses_of(
    source: str,
    file: str,
    by_line: Mapping[int, Sequence[LineEntry]],
    settings: HintSettings,
    total_of: line_labels.TotalOf,
    current_line: Callable[[str, int], int | None],
) -> list[CodeBlock]:
    """The blocks of ``source`` (the text of ``file``) given its entries by line, under a
    client's hint settings (``current_line`` maps the lines calls name to the text's)."""

    def figure_at(line: int) -> LensLine | None:
        entries = by_line.get(line)
        if not entries:
            return None
        found = line_labels.lens_figure(entries, settings, total_of)
        return line_figure(entries, file, found, current_line)

    return code_blocks(source, figure_at)


def block_name(source: str, first: int, last: int) -> str | None:
    """The qualified name of the def or class spanning exactly lines ``first``..``last``."""
    try:
        tree = parse_module(source)
    except (SyntaxError, ValueError):
        return None
    stack: list[tuple[tuple[str, ...], Sequence[ast.stmt]]] = [((), tree.body)]
    while stack:
        scope, nodes = stack.pop()
        for node in nodes:
            if isinstance(node, _Function | ast.ClassDef):
                name = (*scope, node.name)
                if node.lineno == first and (node.end_lineno or node.lineno) == last:
                    return ".".join(name)
                stack.append((name, node.body))
    return None
