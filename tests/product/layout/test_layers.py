"""The layer rules of ARCHITECTURE.md, read from the imports of every module (AST).

* ``core`` never imports ``server`` or ``clients``;
* a backend package under ``core/backends/`` never imports another backend package; the shared
  packages and modules named in ``SHARED_BACKEND_PARTS`` may be imported by every backend (and
  import no backend package themselves, shared ones excepted);
* the view layer (every module under ``server/view/``, when that folder exists) imports no LSP
  library (``pygls``, ``lsprotocol``) and not the LSP shell ``perfline.server.lsp``;
* only the LSP shell (``server/lsp/``) imports ``pygls``: the transports, the engine, the
  clients and the core know no LSP library's session or writer types;
* ``core`` and ``server`` are not importable as top-level packages (only ``perfline.core`` ...).
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.locations import REPO

BACKENDS = REPO / "core" / "backends"
#: Parts of ``core/backends`` every backend may import (shared, not backends of their own).
SHARED_BACKEND_PARTS = frozenset(
    {"nx_common", "runtime_common", "source_model", "settings", "run_match", "result_builder"}
)
LSP_MODULES = ("pygls", "lsprotocol", "perfline.server.lsp")


def _modules(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.py") if "__pycache__" not in p.parts)


def _imports(path: Path) -> list[str]:
    """Every module a file imports (``from x import y`` gives ``x`` and ``x.y``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return found


def _backend_of(module: str) -> str | None:
    parts = module.split(".")
    if parts[:3] == ["perfline", "core", "backends"] and len(parts) > 3:
        return parts[3]
    return None


def test_the_rules_see_real_imports() -> None:
    # The reader is not vacuous: known imports are found.
    imports = _imports(BACKENDS / "executorch" / "vgf_statistics.py")
    assert "perfline.core.backends.nx_common.statistics_decoding" in imports
    assert any(
        _backend_of(m) == "executorch" for m in _imports(BACKENDS / "executorch" / "result.py")
    )


def test_core_never_imports_server_or_clients() -> None:
    offending = [
        f"{path.relative_to(REPO)}: {module}"
        for path in _modules(REPO / "core")
        for module in _imports(path)
        if module.startswith(("perfline.server", "perfline.clients", "server", "clients"))
    ]
    assert offending == []


def test_backends_never_import_each_other() -> None:
    offending = []
    for path in _modules(BACKENDS):
        relative = path.relative_to(BACKENDS)
        own = relative.parts[0].removesuffix(".py") if relative.parts else ""
        for module in _imports(path):
            other = _backend_of(module)
            if other is None or other == own or other in SHARED_BACKEND_PARTS:
                continue
            if own in SHARED_BACKEND_PARTS and other not in SHARED_BACKEND_PARTS:
                # A shared part may only use backends' leaf helpers it is made of: none today.
                offending.append(f"{relative}: {module} (a shared part imports a backend)")
                continue
            offending.append(f"{relative}: {module}")
    assert offending == [], "backends import each other:\n" + "\n".join(offending)


def test_shared_backend_parts_exist() -> None:
    for part in SHARED_BACKEND_PARTS:
        assert (BACKENDS / part).is_dir() or (BACKENDS / f"{part}.py").is_file(), part


def test_view_layer_imports_no_lsp() -> None:
    view = REPO / "server" / "view"
    if not view.is_dir():
        return  # no view layer yet: the rule holds vacuously
    offending = [
        f"{path.relative_to(REPO)}: {module}"
        for path in _modules(view)
        for module in _imports(path)
        if module.split(".")[0] in ("pygls", "lsprotocol") or module.startswith(LSP_MODULES[2])
    ]
    assert offending == []


def test_only_the_lsp_shell_imports_pygls() -> None:
    shell = REPO / "server" / "lsp"
    offending = [
        f"{path.relative_to(REPO)}: {module}"
        for folder in ("core", "server", "clients")
        for path in _modules(REPO / folder)
        if shell not in path.parents
        for module in _imports(path)
        if module.split(".")[0] == "pygls"
    ]
    assert offending == []
    assert any(m.startswith("pygls") for m in _imports(shell / "connection.py"))


@pytest.mark.parametrize("name", ["core", "server", "clients"])
def test_layers_are_not_top_level_packages(name: str) -> None:
    # Run from a neutral folder: the repository root itself holds folders of those names.
    code = f"import importlib.util, sys; sys.exit(importlib.util.find_spec({name!r}) is not None)"
    completed = subprocess.run([sys.executable, "-c", code], cwd="/", timeout=60)
    assert completed.returncode == 0, f"{name!r} is importable as a top-level package"
    assert importlib.util.find_spec(f"perfline.{name}") is not None
