"""Code lenses: the functions and ``nn.Module`` classes of a Python source with the
totals of their lines' figures.

``code_blocks`` finds the blocks (via ``ast``, never executing the source) and sums the
figures of their lines. A function's total is the sum of its lines' dominant figures
(lines within one function do not nest, so nothing is counted twice); a class's total is
the sum of its methods'. Lines the result covers without a figure (e.g. a projection
conflict) are named in the title: the total leaves them out. Linear in the source.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from perfline.server import line_metrics
from perfline.server.view import numbers


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
LineFigure = tuple[float, line_metrics.MetricKey, float | None]


ValueAt = Callable[[int], LineFigure | _Unfigured | None]


def code_blocks(source: str, value_at: ValueAt) -> list[CodeBlock]:
    """Blocks with figures; ``value_at(line)`` gives (value, metric, total) of a 1-based
    line, ``UNFIGURED`` for a line the result covers without a figure, or None."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    blocks: list[CodeBlock] = []
    _visit(tree.body, value_at, blocks)
    return sorted(blocks, key=lambda b: (b.line, b.kind != "class"))


def _visit(nodes: Sequence[ast.stmt], value_at: ValueAt, blocks: list[CodeBlock]) -> list[_Total]:
    """The blocks among ``nodes`` (appended to ``blocks``); the functions' totals."""
    totals = []
    for node in nodes:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found = _function_total(node, value_at)
            _visit(node.body, value_at, blocks)
            if found is not None:
                totals.append(found)
                blocks.append(_block("function", node, found))
        elif isinstance(node, ast.ClassDef):
            inner = _visit(node.body, value_at, blocks)
            if inner and _is_module_class(node):
                key = inner[0].key
                value = sum(t.value for t in inner if t.key == key)
                missing = tuple(n for t in inner for n in t.missing)
                total = _Total(value, key, inner[0].model_total, missing)
                blocks.append(_block("class", node, total))
    return totals


def _function_total(
    node: ast.FunctionDef | ast.AsyncFunctionDef, value_at: ValueAt
) -> _Total | None:
    total = 0.0
    key: line_metrics.MetricKey | None = None
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


@dataclass(frozen=True)
class _Total:
    """A block's sum, its metric, the model total, and the lines left out."""

    value: float
    key: line_metrics.MetricKey
    model_total: float | None
    missing: tuple[int, ...]


def _block(
    kind: str,
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    found: _Total,
) -> CodeBlock:
    text = numbers.format_value(found.value, found.key.unit)
    share = numbers.format_share(found.value, found.model_total)
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
