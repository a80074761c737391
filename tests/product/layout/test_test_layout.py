"""The tests say their layer in how they import (issue 40): a test folder imports only its
own modules and the shared builders in ``tests/support/``; no test imports ``benchmarks``;
a benchmark imports from ``tests`` only ``tests.support``. Each module's imports are read
with ``ast`` (relative ones resolved against the module's package); nothing is imported.
``tests/data/`` is left out: it holds fixtures, not test code.
"""

from __future__ import annotations

import ast
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]


def _modules(path: Path, root: Path) -> list[tuple[int, str]]:
    """Every module ``path`` imports, as ``(line, dotted name)``; ``from p import n`` gives
    ``p.n`` as well as ``p`` so that ``from tests import conftest`` is seen."""
    package = list(path.relative_to(root).with_suffix("").parts[:-1])
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append((node.lineno, module))
            found.extend((node.lineno, f"{module}.{alias.name}") for alias in node.names)
    return found


def _test_folder(relative: Path) -> str:
    """``tests/<folder>/...`` gives ``folder``; a module directly under ``tests/`` gives ``""``."""
    return relative.parts[1] if len(relative.parts) > 2 else ""


def _breaches(path: Path, root: Path = REPO) -> list[str]:
    relative = path.relative_to(root)
    own = _test_folder(relative) if relative.parts[0] == "tests" else None
    found: list[str] = []
    for line, module in _modules(path, root):
        parts = module.split(".")
        a_test_imports_benchmarks = own is not None and parts[0] == "benchmarks"
        another_test_folder = parts[0] == "tests" and len(parts) > 1
        if a_test_imports_benchmarks or (another_test_folder and parts[1] not in ("support", own)):
            found.append(f"{relative}:{line}: {module}")
    return sorted(set(found))


def _python_files(folder: str) -> list[Path]:
    return [
        path
        for path in sorted((REPO / folder).rglob("*.py"))
        if "__pycache__" not in path.parts and path.relative_to(REPO).parts[:2] != ("tests", "data")
    ]


def test_tests_import_only_their_folder_and_support() -> None:
    files = _python_files("tests")
    assert len(files) > 200  # the scan reads the tree it is meant to
    assert [breach for path in files for breach in _breaches(path)] == []


def test_benchmarks_import_only_support_from_tests() -> None:
    files = _python_files("benchmarks")
    assert len(files) > 5
    assert [breach for path in files for breach in _breaches(path)] == []


def test_the_check_sees_each_kind_of_breach(tmp_path: Path) -> None:
    (tmp_path / "tests" / "html").mkdir(parents=True)
    (tmp_path / "benchmarks").mkdir()
    sample = tmp_path / "tests" / "html" / "test_sample.py"
    sample.write_text(
        "from benchmarks.core_pipeline import nx_document\n"
        "from tests.server.helpers import load\n"
        "from ..compare import raw_events\n"
        "from tests import conftest\n"
        "from tests.html.pair import pair\n"
        "from .pair import pair\n"
        "from tests.support.documents import nx_document\n"
        "from tests.support import cases\n"
    )
    assert _breaches(sample, tmp_path) == [
        "tests/html/test_sample.py:1: benchmarks.core_pipeline",
        "tests/html/test_sample.py:1: benchmarks.core_pipeline.nx_document",
        "tests/html/test_sample.py:2: tests.server.helpers",
        "tests/html/test_sample.py:2: tests.server.helpers.load",
        "tests/html/test_sample.py:3: tests.compare",
        "tests/html/test_sample.py:3: tests.compare.raw_events",
        "tests/html/test_sample.py:4: tests.conftest",
    ]
    bench = tmp_path / "benchmarks" / "sample.py"
    bench.write_text("from tests.hardening.daemon import running\nfrom tests.support import x\n")
    assert _breaches(bench, tmp_path) == [
        "benchmarks/sample.py:1: tests.hardening.daemon",
        "benchmarks/sample.py:1: tests.hardening.daemon.running",
    ]
