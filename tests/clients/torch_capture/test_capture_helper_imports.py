"""The capture helper runs inside the user's Python: its modules import torch and the standard
library only (never perfline or perfline's dependencies), and only ``event_tree.py`` touches
torch's private profiler API."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

from tests.support.locations import REPO

CAPTURE = REPO / "clients" / "torch_capture"
PRIVATE = (
    "_C",
    "_ExperimentalConfig",
    "python_tracer",
    "experimental_event_tree",
    "kineto_results",
)


def _imports(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            found.add(node.module)
    return found


def test_capture_modules_import_only_torch_and_the_standard_library() -> None:
    modules = sorted(CAPTURE.glob("*.py"))
    assert {path.name for path in modules} >= {"helper.py", "session.py", "event_tree.py"}
    for path in modules:
        for name in _imports(path):
            top = name.split(".")[0]
            assert top == "torch" or top in sys.stdlib_module_names, f"{path.name}: {name}"


def test_only_event_tree_uses_the_private_profiler_api() -> None:
    for path in CAPTURE.glob("*.py"):
        text = path.read_text()
        used = [word for word in PRIVATE if word in text]
        if path.name == "event_tree.py":
            assert set(used) == set(PRIVATE)
        else:
            assert not used, f"{path.name} uses {used}"
