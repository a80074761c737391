"""The maps stay true and short (issue 40, item 5): ``ARCHITECTURE.md`` names every module and
package of ``core/``, ``server/`` and ``clients/``, every path it names exists, and every
invariant names the test that holds it; the README and ``ARCHITECTURE.md`` stay within their
lengths; every relative link of the README, ``ARCHITECTURE.md`` and ``docs/`` leads to a file.

How ``ARCHITECTURE.md`` names things: a backticked token ending in ``.py``, ``.c``, ``.js`` or
``/`` is a path. In "Code map", a ``### `pkg/``` heading sets the package a path is relative
to, and a top-level bullet whose first token is a folder (``- `projection/`: ...``) sets it
for that bullet and its continuation lines; elsewhere paths are relative to the repository.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.locations import REPO

ARCHITECTURE = REPO / "ARCHITECTURE.md"
README = REPO / "README.md"
LAYERS = ("core", "server", "clients")
#: A backticked token that names a path: no spaces, a module, C, script file or a folder.
PATH_TOKEN = re.compile(r"^[A-Za-z_][\w.+/-]*(\.py|\.c|\.js|/)$")
TOKEN = re.compile(r"`([^`]+)`")
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def _lines_outside_code(text: str) -> Iterator[str]:
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def _sections(text: str) -> dict[str, list[str]]:
    """``## Title`` -> the lines under it (fenced code left out)."""
    sections: dict[str, list[str]] = {"": []}
    current = ""
    for line in _lines_outside_code(text):
        if line.startswith("## "):
            current = line[3:].strip()
            sections[current] = []
        else:
            sections[current].append(line)
    return sections


def _resolve(token: str, context: str) -> str | None:
    """The repository path ``token`` names (relative to ``context`` first), or None."""
    for base in (context, ""):
        candidate = f"{base}/{token}" if base else token
        if (REPO / candidate).exists():
            return candidate.rstrip("/")
    return None


def _named_paths() -> tuple[dict[str, str], list[str], set[str]]:
    """Every path token of ``ARCHITECTURE.md`` -> what it resolved to; the tokens that named
    nothing; and the packages the code map sets as a context."""
    resolved: dict[str, str] = {}
    missing: list[str] = []
    contexts: set[str] = set()
    for title, lines in _sections(ARCHITECTURE.read_text(encoding="utf-8")).items():
        in_map = title == "Code map"
        heading = bullet = ""
        for line in lines:
            tokens = TOKEN.findall(line)
            if in_map and line.startswith("### ") and tokens:
                heading = bullet = tokens[0].rstrip("/")
                contexts.add(heading)
                continue
            if in_map and line.startswith("- "):
                bullet = heading
                first = TOKEN.match(line[2:])
                if first and first.group(1).endswith("/"):
                    package = _resolve(first.group(1), heading)
                    if package is not None:
                        bullet = package
                        contexts.add(package)
            for token in tokens:
                if not PATH_TOKEN.match(token):
                    continue
                found = _resolve(token, bullet if in_map else "")
                if found is None and in_map and bullet != heading:
                    found = _resolve(token, heading)  # the bullet's own folder
                if found is None:
                    missing.append(f"{token} (under {bullet or 'the repository'})")
                else:
                    resolved[f"{bullet}:{token}"] = found
    return resolved, missing, contexts


def _packages() -> list[Path]:
    inits = [init for layer in LAYERS for init in (REPO / layer).rglob("__init__.py")]
    return sorted(init.parent.relative_to(REPO) for init in inits)


def _modules() -> list[str]:
    found = []
    for layer in LAYERS:
        for path in (REPO / layer).rglob("*"):
            module = path.suffix in (".py", ".c", ".js") and path.name != "__init__.py"
            if module and (path.parent / "__init__.py").exists():
                found.append(str(path.relative_to(REPO)))
    return sorted(found)


def test_every_path_named_in_the_architecture_exists() -> None:
    _, missing, _ = _named_paths()
    assert missing == []


def test_every_package_has_its_place_in_the_code_map() -> None:
    _, _, contexts = _named_paths()
    assert [str(p) for p in _packages() if str(p) not in contexts] == []


def test_every_module_is_named_in_the_code_map() -> None:
    resolved, _, _ = _named_paths()
    named = set(resolved.values())
    assert [module for module in _modules() if module not in named] == []


def test_the_check_sees_modules_and_packages() -> None:
    # the two lists above are not empty by accident (a wrong root would pass every test)
    assert len(_packages()) > 25 and len(_modules()) > 300
    assert "core/projection/figure_sets.py" in _modules()


def test_every_invariant_names_the_test_that_holds_it() -> None:
    lines = _sections(ARCHITECTURE.read_text(encoding="utf-8"))["Invariants"]
    items: list[str] = []
    for line in lines:
        if re.match(r"^\d+\. ", line):
            items.append(line)
        elif items and line.strip():
            items[-1] += " " + line.strip()
    assert len(items) >= 10
    for item in items:
        tests = [t for t in TOKEN.findall(item) if t.startswith("tests/")]
        assert tests, item
        assert all((REPO / t).exists() for t in tests), item


@pytest.mark.parametrize(("document", "most"), [(README, 120), (ARCHITECTURE, 400)])
def test_the_maps_stay_short(document: Path, most: int) -> None:
    assert len(document.read_text(encoding="utf-8").splitlines()) <= most


def test_the_readme_keeps_its_two_commands_first_and_its_dependency_table() -> None:
    text = README.read_text(encoding="utf-8")
    block = text[text.index("```sh") : text.index("```", text.index("```sh") + 5)]
    commands = [line.split("#")[0].strip() for line in block.splitlines()[1:]]
    assert commands == ["bash scripts/example.sh", "bash scripts/test.sh"]
    table = _sections(text)["Dependencies"]
    assert table[1] == "| dependency | why |"
    rows = [row for row in table if row.startswith("| ") and not row.startswith("| dependency")]
    assert len(rows) > 10


@pytest.mark.parametrize(
    "document",
    [README, ARCHITECTURE, *sorted((REPO / "docs").glob("*.md"))],
    ids=lambda path: path.name,
)
def test_relative_links_lead_to_files(document: Path) -> None:
    targets = LINK.findall(document.read_text(encoding="utf-8"))
    broken = [
        target
        for target in targets
        if "://" not in target and not (document.parent / target).exists()
    ]
    assert broken == []
