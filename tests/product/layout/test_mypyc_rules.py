"""The modules mypyc compiles follow the rules of ``ARCHITECTURE.md`` ("Compiled build").

The list is ``COMPILED_MODULES`` of ``setup.py``, read from its syntax tree (importing
``setup.py`` would run the build). Each module's own syntax tree is read: no dataclass
(its generated ``__init__`` runs as interpreted Python), no function or class defined
inside a function and no lambda (closures: slower calls, and functions that refer to
each other form reference cycles, invariant 10), no f-string with a conversion
(``!r``, ``!s``, ``!a``: a generic call per value).
"""

from __future__ import annotations

import ast

import pytest

from tests.support.locations import REPO


def compiled_modules() -> list[str]:
    """The paths (under the repository, e.g. ``core/graph.py``) listed in ``setup.py``."""
    tree = ast.parse((REPO / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "COMPILED_MODULES" for t in targets):
                assert node.value is not None
                paths = ast.literal_eval(node.value)
                return [path.removeprefix("perfline/") for path in paths]
    raise AssertionError("setup.py assigns no COMPILED_MODULES list")


def violations(source: str) -> list[str]:
    """Every use of a form the compiled modules must avoid, as 'line N: what'."""
    found: list[str] = []
    tree = ast.parse(source)
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Import):
            if any(alias.name == "dataclasses" for alias in node.names):
                found.append(f"line {line}: imports dataclasses")
        elif isinstance(node, ast.ImportFrom):
            if node.module == "dataclasses":
                found.append(f"line {line}: imports from dataclasses")
        elif isinstance(node, ast.Lambda):
            found.append(f"line {line}: a lambda")
        elif isinstance(node, ast.FormattedValue) and node.conversion != -1:
            found.append(f"line {line}: an f-string conversion !{chr(node.conversion)}")
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for inner in ast.walk(node):
                if inner is not node and isinstance(
                    inner, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
                ):
                    found.append(f"line {inner.lineno}: {inner.name} defined inside {node.name}")
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                name = target.attr if isinstance(target, ast.Attribute) else None
                if isinstance(target, ast.Name):
                    name = target.id
                if name == "dataclass":
                    found.append(f"line {line}: {node.name} is a dataclass")
    return found


def test_the_compiled_list_names_existing_modules() -> None:
    modules = compiled_modules()
    assert len(modules) >= 20
    missing = [path for path in modules if not (REPO / path).is_file()]
    assert missing == []


def test_every_projection_module_is_compiled() -> None:
    # the projection runs end to end in C: a module left out runs interpreted
    modules = set(compiled_modules())
    missing = [
        str(path.relative_to(REPO))
        for path in sorted((REPO / "core" / "projection").glob("*.py"))
        if str(path.relative_to(REPO)) not in modules
    ]
    assert missing == []


@pytest.mark.parametrize("path", compiled_modules())
def test_compiled_module_follows_the_mypyc_rules(path: str) -> None:
    assert violations((REPO / path).read_text(encoding="utf-8")) == []


def test_the_rules_find_each_form() -> None:
    source = """
import dataclasses
from dataclasses import dataclass

@dataclass(frozen=True)
class A:
    x: int

@dataclasses.dataclass
class B:
    y: int

def outer(values):
    def inner():
        return values
    class Local:
        pass
    key = lambda v: v
    return f"{values!r}", f"{values}", sorted(values, key=key), inner, Local
"""
    found = violations(source)
    assert found == [
        "line 2: imports dataclasses",
        "line 3: imports from dataclasses",
        "line 6: A is a dataclass",
        "line 10: B is a dataclass",
        "line 14: inner defined inside outer",
        "line 16: Local defined inside outer",
        "line 18: a lambda",
        "line 19: an f-string conversion !r",
    ]
