"""Small modules with one job each: no Python module (nor the HTML page's JavaScript) of
``core``, ``server`` or ``clients`` is longer than 600 lines (issue 40); a module that grows
past it holds several concepts and is split by them."""

from __future__ import annotations

from tests.support.locations import REPO

LIMIT = 600


def test_no_module_is_longer_than_600_lines() -> None:
    sizes = {
        str(path.relative_to(REPO)): len(path.read_text(encoding="utf-8").splitlines())
        for folder in ("core", "server", "clients")
        for pattern in ("*.py", "*.js")
        for path in sorted((REPO / folder).rglob(pattern))
        if "__pycache__" not in path.parts
    }
    assert len(sizes) > 200  # the walk reads the tree it is meant to
    assert {path: lines for path, lines in sizes.items() if lines > LIMIT} == {}
