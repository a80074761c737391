"""Imports keep the names of what they import: no renaming alias (``import x as y``,
``from m import a as b``) in the code, the tests or the benchmarks, so a name means the
same thing in every module (issue 40). A re-export (``from m import a as a``) is not a
renaming. ``tests/data/`` is left out: it holds fixtures (model sources whose line numbers
are part of the data, and the scripts that made them).
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.locations import REPO

_FOLDERS = ("core", "server", "clients", "tests", "benchmarks", "perfline")


def _python_files() -> list[Path]:
    found: list[Path] = []
    for folder in _FOLDERS:
        for path in sorted((REPO / folder).rglob("*.py")):
            relative = path.relative_to(REPO)
            if path.is_symlink() or relative.parts[:2] == ("tests", "data"):
                continue
            if any(part.startswith(".") or part == "__pycache__" for part in relative.parts):
                continue
            found.append(path)
    return found


def _renamings(path: Path, root: Path = REPO) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    renamed: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                if alias.asname is not None and alias.asname != alias.name:
                    where = f"{path.relative_to(root)}:{node.lineno}"
                    renamed.append(f"{where}: {alias.name} as {alias.asname}")
    return renamed


def test_no_import_renames_what_it_imports() -> None:
    files = _python_files()
    assert len(files) > 300  # the scan reads the tree it is meant to
    found = [renaming for path in files for renaming in _renamings(path)]
    assert found == []


def test_the_check_sees_a_renaming(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("from json import dumps as encode\nfrom json import loads as loads\n")
    assert _renamings(sample, tmp_path) == ["sample.py:1: dumps as encode"]
