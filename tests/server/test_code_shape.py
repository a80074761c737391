"""The server's shape rules of ``ARCHITECTURE.md``, read from the sources (issue 21).

* No function or method in ``server/`` is longer than 60 lines (decorators excluded): a
  handler that grows past that is doing the view's or the engine's work.
* The engine (``server/scheduler/``) arms no ``threading.Timer``: timed events come from the
  loop's own timer queue.

Both read every module's syntax tree, so they fail on the first offender anywhere.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.locations import REPO

SERVER = REPO / "server"
LIMIT = 60


def _trees(folder: Path) -> list[tuple[Path, ast.Module]]:
    return [(p, ast.parse(p.read_text(encoding="utf-8"))) for p in sorted(folder.rglob("*.py"))]


def test_no_function_in_server_is_longer_than_60_lines() -> None:
    long = []
    for path, tree in _trees(SERVER):
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert node.end_lineno is not None
                length = node.end_lineno - node.lineno + 1
                if length > LIMIT:
                    long.append(f"{path.relative_to(SERVER.parent)}:{node.lineno} {node.name}")
    assert long == []


def test_the_engine_uses_no_threading_timer() -> None:
    found = []
    for path, tree in _trees(SERVER / "scheduler"):
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute) and node.attr == "Timer":
                found.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "threading":
                found.extend(f"{path.name}:{node.lineno}" for a in node.names if a.name == "Timer")
    assert found == []
