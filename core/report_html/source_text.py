"""The source files the report annotates, as the caller read them, and their functions.

``SourceText`` is what the I/O edge hands the renderer for one recorded file path: the text (or
``None`` with the reason it is missing), the name to show, and optionally what a host opens when
a line is clicked (the daemon passes the local path; a report written to disk leaves it out).
``function_names`` gives, for each line of a Python text, the qualified name of the innermost
function around it (``DSBlock.forward``), by ``ast``: linear in the text (only statements are
walked); a text that does not parse gives no names.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from perfline.core.python_syntax import parse_module


@dataclass(frozen=True)
class SourceText:
    """One source file as the report shows it."""

    display: str
    text: str | None
    location: str | None = None
    missing: str | None = None


def function_names(text: str) -> list[str | None]:
    """Per 1-based line (index 0 unused), the innermost enclosing function's qualified name."""
    count = text.count("\n") + 2
    names: list[str | None] = [None] * count
    try:
        tree = parse_module(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return names
    stack: list[tuple[ast.AST, str]] = [(tree, "")]
    while stack:
        node, prefix = stack.pop()
        for child in _statements(node):
            if isinstance(child, ast.ClassDef):
                stack.append((child, f"{prefix}{child.name}."))
            elif isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                qualified = f"{prefix}{child.name}"
                end = child.end_lineno or child.lineno
                first = min([child.lineno, *(d.lineno for d in child.decorator_list)])
                for line in range(first, min(end, count - 1) + 1):
                    names[line] = qualified
                stack.append((child, f"{qualified}.<locals>."))
            else:
                stack.append((child, prefix))
    return names


def _statements(node: ast.AST) -> list[ast.AST]:
    """The statements directly inside ``node`` (functions and classes are statements)."""
    found: list[ast.AST] = []
    for name in ("body", "orelse", "finalbody", "handlers", "cases"):
        value = getattr(node, name, None)
        if isinstance(value, list):
            found.extend(item for item in value if isinstance(item, ast.AST))
    return found
