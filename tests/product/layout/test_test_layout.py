"""The tests say their layer where they live and in how they import (issue 40).

* Where: ``tests/`` holds ``core/``, ``server/`` and ``clients/``, mirrors of the packages (a
  folder there names a package or a module at the same place in the source: the tests of
  ``core/compare/`` are in ``tests/core/compare/``, those of ``core/collapse.py`` may have a
  folder ``tests/core/collapse/``), ``product/`` (the suites about the product as a whole),
  ``support/`` (shared builders) and ``data/`` (fixtures). A folder of Python files is a
  package, so two ``test_cli.py`` in two folders never clash.
* How: a test module imports the helpers of its own folder and ``tests.support`` only, and
  never another test module (``test_*``, ``conftest``); no test imports ``benchmarks``; a
  benchmark imports from ``tests`` only ``tests.support``.

Each module's imports are read with ``ast`` (relative ones resolved against the module's
package); nothing is imported. ``tests/data/`` is left out: it holds fixtures, not test code.
"""

from __future__ import annotations

import ast
from pathlib import Path

from tests.support.locations import REPO

#: The folders directly under ``tests/``: the three mirrors, then the rest.
MIRRORS = ("core", "server", "clients")
OTHERS = ("product", "support", "data")


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


def _allowed(module: str, own: str | None) -> bool:
    """Whether a module under ``tests`` may be imported by a module of folder ``own`` (a
    dotted package; ``None`` for a benchmark)."""
    parts = module.split(".")
    if parts == ["tests"] or parts[:2] == ["tests", "support"]:
        return True
    if own is None or not module.startswith(f"{own}."):
        return False
    inside = module[len(own) + 1 :].split(".")
    return not inside[0].startswith("test_") and inside[0] != "conftest"


def _breaches(path: Path, root: Path = REPO) -> list[str]:
    relative = path.relative_to(root)
    in_tests = relative.parts[0] == "tests"
    own = ".".join(relative.parts[:-1]) if in_tests else None
    found: list[str] = []
    for line, module in _modules(path, root):
        parts = module.split(".")
        a_test_imports_benchmarks = in_tests and parts[0] == "benchmarks"
        if a_test_imports_benchmarks or (parts[0] == "tests" and not _allowed(module, own)):
            found.append(f"{relative}:{line}: {module}")
    return sorted(set(found))


def _python_files(folder: str, root: Path = REPO) -> list[Path]:
    return [
        path
        for path in sorted((root / folder).rglob("*.py"))
        if "__pycache__" not in path.parts and path.relative_to(root).parts[:2] != ("tests", "data")
    ]


def _misplaced(root: Path = REPO) -> list[str]:
    """Folders of Python files under ``tests/`` that break the layout, each with why."""
    found: list[str] = []
    tests = root / "tests"
    for folder in sorted(p for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__"):
        # a folder left with only caches (a checkout from before a move) holds no test
        if folder.name not in MIRRORS + OTHERS and any(folder.rglob("*.py")):
            found.append(f"tests/{folder.name}: neither a mirror of a package nor {OTHERS}")
    for path in _python_files("tests", root):
        folder = path.parent.relative_to(root)
        if folder == Path("tests"):
            continue
        if not (root / folder / "__init__.py").is_file():
            found.append(f"{folder}: Python files in a folder that is not a package")
        inside = folder.parts[1:]
        if inside[0] in MIRRORS:
            source = root.joinpath(*inside)
            if not (source.is_dir() or source.with_suffix(".py").is_file()):
                found.append(f"{folder}: no {'/'.join(inside)}/ or {'/'.join(inside)}.py")
    return sorted(set(found))


def test_tests_import_only_their_folder_and_support() -> None:
    files = _python_files("tests")
    assert len(files) > 200  # the scan reads the tree it is meant to
    assert [breach for path in files for breach in _breaches(path)] == []


def test_benchmarks_import_only_support_from_tests() -> None:
    files = _python_files("benchmarks")
    assert len(files) > 5
    assert [breach for path in files for breach in _breaches(path)] == []


def test_test_folders_mirror_the_packages() -> None:
    assert len({path.parent for path in _python_files("tests")}) > 30
    assert _misplaced() == []


def test_the_check_sees_each_kind_of_breach(tmp_path: Path) -> None:
    (tmp_path / "tests" / "core" / "report_html").mkdir(parents=True)
    (tmp_path / "benchmarks").mkdir()
    sample = tmp_path / "tests" / "core" / "report_html" / "test_sample.py"
    sample.write_text(
        "from benchmarks.core_pipeline import nx_document\n"
        "from tests.server.helpers import load\n"
        "from ..compare import raw_events\n"
        "from tests import conftest\n"
        "from tests.core.report_html.pair import pair\n"
        "from .pair import pair\n"
        "from tests.support.documents import nx_document\n"
        "from tests.support import cases\n"
        "from tests.core.report_html.test_page import page\n"
        "from .conftest import runtime\n"
    )
    assert _breaches(sample, tmp_path) == [
        "tests/core/report_html/test_sample.py:10: tests.core.report_html.conftest",
        "tests/core/report_html/test_sample.py:10: tests.core.report_html.conftest.runtime",
        "tests/core/report_html/test_sample.py:1: benchmarks.core_pipeline",
        "tests/core/report_html/test_sample.py:1: benchmarks.core_pipeline.nx_document",
        "tests/core/report_html/test_sample.py:2: tests.server.helpers",
        "tests/core/report_html/test_sample.py:2: tests.server.helpers.load",
        "tests/core/report_html/test_sample.py:3: tests.core.compare",
        "tests/core/report_html/test_sample.py:3: tests.core.compare.raw_events",
        "tests/core/report_html/test_sample.py:4: tests.conftest",
        "tests/core/report_html/test_sample.py:9: tests.core.report_html.test_page",
        "tests/core/report_html/test_sample.py:9: tests.core.report_html.test_page.page",
    ]
    bench = tmp_path / "benchmarks" / "sample.py"
    bench.write_text("from tests.product.hardening import mutations\nfrom tests.support import x\n")
    assert _breaches(bench, tmp_path) == [
        "benchmarks/sample.py:1: tests.product.hardening",
        "benchmarks/sample.py:1: tests.product.hardening.mutations",
    ]


def test_the_check_sees_each_misplaced_folder(tmp_path: Path) -> None:
    for folder in ("core/compare", "tests/core/compare", "tests/core/colapse", "tests/html"):
        (tmp_path / folder).mkdir(parents=True)
    (tmp_path / "core" / "collapse.py").write_text("")
    for test in ("tests/core/compare", "tests/core/colapse", "tests/html"):
        (tmp_path / test / "__init__.py").write_text("")
        (tmp_path / test / "test_x.py").write_text("")
    (tmp_path / "tests" / "core" / "collapse").mkdir()
    (tmp_path / "tests" / "compare" / "__pycache__").mkdir(parents=True)  # left by a move
    (tmp_path / "tests" / "core" / "collapse" / "test_y.py").write_text("")
    assert _misplaced(tmp_path) == [
        "tests/core/colapse: no core/colapse/ or core/colapse.py",
        "tests/core/collapse: Python files in a folder that is not a package",
        "tests/html: neither a mirror of a package nor ('product', 'support', 'data')",
    ]
