"""Layer rule of ARCHITECTURE.md (invariants 1 and 17): the view layer imports no LSP."""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.locations import REPO

VIEW = REPO / "server" / "view"
FORBIDDEN = ("lsprotocol", "pygls", "perfline.server.lsp", "attrs", "cattrs")


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_the_view_layer_imports_no_lsp() -> None:
    modules = sorted(VIEW.glob("*.py"))
    assert len(modules) > 5
    for path in modules:
        bad = sorted(
            i for i in _imports(path) if i.split(".")[0] in FORBIDDEN or i.startswith(FORBIDDEN)
        )
        assert not bad, f"{path.name} imports {bad}"
