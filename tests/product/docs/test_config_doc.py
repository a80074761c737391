"""``docs/config.md`` describes exactly the keys the ``perfline.toml`` reader accepts.

Each key of the document is a section ``### `KEY``` (``path_map[].from`` for a key of the
entries of an array of tables) with a ``Type:`` and ``Default:`` line and a ``toml`` example.

* Every example is a valid ``perfline.toml`` on its own and holds its key.
* The reader's accepted keys are asked of the reader itself: a key ``zz_probe`` put into each
  documented table (at the top level, into each ``[table]``, into the first entry of each array
  of tables) must be rejected, and the list of allowed names its message gives must be the
  document's list for that table. So a key the reader gains (``float_sums``, a new table) fails
  this test until it is documented, and a documented key the reader drops fails it too.
* ``jobs[].options`` is passed to the backends unchecked by the reader (documented per backend).
* The ``jobs[].backend`` section names every job type the daemon knows.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import pytest

from perfline.core.workspace_config import WorkspaceConfigError, parse_workspace_config
from tests.product.docs.job_types import known_backends
from tests.support.markdown_blocks import DOCS, blocks

CONFIG = DOCS / "config.md"
PROBE = "zz_probe"
#: Tables whose keys belong to another component (the backends read a job's options).
OPEN_TABLES = {"jobs[].options"}

_HEADING = re.compile(r"^### `([a-z_\[\].]+)`\s*$")


@dataclass(frozen=True)
class Section:
    key: str
    type: str
    default: str
    example: str
    line: int


def sections() -> dict[str, Section]:
    text = CONFIG.read_text(encoding="utf-8").splitlines()
    starts = [(i, m.group(1)) for i, line in enumerate(text) if (m := _HEADING.match(line))]
    toml_blocks = [b for b in blocks(CONFIG) if b.language == "toml"]
    found: dict[str, Section] = {}
    for number, (start, key) in enumerate(starts):
        end = starts[number + 1][0] if number + 1 < len(starts) else len(text)
        body = text[start + 1 : end]
        prose = " ".join(body)
        kind = re.search(r"Type: (.*?)(?: · |$)", prose)
        default = re.search(r"Default: (.*?)(?:  |$)", prose)
        assert kind and default, f"config.md:{start + 1}: {key} needs 'Type:' and 'Default:'"
        examples = [b for b in toml_blocks if start < b.line - 1 < end]
        assert examples, f"config.md:{start + 1}: {key} has no toml example"
        assert key not in found, f"config.md:{start + 1}: {key} described twice"
        found[key] = Section(key, kind.group(1), default.group(1), examples[0].text, start + 1)
    return found


def _is_table(section: Section) -> bool:
    return section.type.startswith("table")


def _is_array_of_tables(section: Section) -> bool:
    return section.type.startswith("array of tables")


def _children(parent: str, keys: set[str]) -> set[str]:
    """The documented keys directly under ``parent`` ('' = top level)."""
    found = set()
    for key in keys:
        for prefix in (f"{parent}.", f"{parent}[]."):
            if parent and key.startswith(prefix):
                rest = key[len(prefix) :]
                if "." not in rest and "[" not in rest:
                    found.add(rest)
        if not parent and "." not in key and "[" not in key:
            found.add(key)
    return found


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    assert isinstance(value, Mapping)
    return "{" + ", ".join(f"{json.dumps(k)} = {_toml_value(v)}" for k, v in value.items()) + "}"


def _to_toml(data: Mapping[str, Any]) -> str:
    """``data`` as TOML, every top-level key an inline value (enough for the reader)."""
    return "".join(f"{json.dumps(key)} = {_toml_value(value)}\n" for key, value in data.items())


def _place_probe(data: dict[str, Any], key: str) -> None:
    """Put ``zz_probe = 1`` into the table ``key`` of ``data`` (first entry of arrays)."""
    target: Any = data
    for part in key.split("."):
        name = part.removesuffix("[]")
        target = target[name]
        if part.endswith("[]") or isinstance(target, list):
            target = target[0]
    target[PROBE] = 1


def _allowed_names(text: str) -> list[str]:
    """The names the reader's rejection of ``zz_probe`` lists as allowed."""
    with pytest.raises(WorkspaceConfigError) as raised:
        parse_workspace_config(text, known_backends=known_backends())
    problems = [p for p in raised.value.config_problems if PROBE in f"{p.key} {p.message}"]
    assert len(problems) == 1, [p.message for p in raised.value.config_problems]
    message = problems[0].message
    match = re.search(r"expected (?:one of )?([A-Za-z0-9_, -]+)$", message)
    assert match, message
    return [name.strip() for name in match.group(1).split(",")]


def test_every_example_is_a_valid_perfline_toml_holding_its_key() -> None:
    found = sections()
    assert len(found) >= 25
    for key, section in found.items():
        where = f"config.md:{section.line}"
        parse_workspace_config(section.example, source=where, known_backends=known_backends())
        data: Any = tomllib.loads(section.example)
        for part in key.split("."):
            name = part.removesuffix("[]")
            assert isinstance(data, Mapping) and name in data, f"{where}: example lacks {key}"
            data = data[name]
            if isinstance(data, list) and data and isinstance(data[0], Mapping):
                data = data[0]


def test_the_documented_keys_are_the_keys_the_reader_accepts() -> None:
    found = sections()
    keys = set(found)
    top = sorted(_allowed_names(f"{PROBE} = 1\n"))
    assert top == sorted(_children("", keys)), (
        f"the reader accepts {top} at the top level, the document describes "
        f"{sorted(_children('', keys))}"
    )
    tables = [
        s
        for s in found.values()
        if (_is_table(s) or _is_array_of_tables(s)) and s.key not in OPEN_TABLES
    ]
    assert {"workspace", "path_map", "jobs", "filtering", "static.target"} <= {
        s.key for s in tables
    }
    for section in tables:
        data = tomllib.loads(section.example)
        _place_probe(data, section.key)
        allowed = _allowed_names(_to_toml(data))
        assert sorted(allowed) == sorted(_children(section.key, keys)), (
            f"config.md:{section.line}: the reader accepts {sorted(allowed)} in {section.key}, "
            f"the document describes {sorted(_children(section.key, keys))}"
        )
    for key in keys:
        if "." in key:
            parent = key.rsplit(".", 1)[0].removesuffix("[]")
            assert parent in keys, f"{key}: its table {parent} is not described"


def test_job_options_are_passed_on_unchecked() -> None:
    """The reader accepts any option (the backends check them), so none is reported here."""
    config = parse_workspace_config(
        '[[jobs]]\nbackend = "executorch"\ninputs = ["a.etrecord", "a.etdump"]\n'
        f'options = {{ method = "forward", {PROBE} = 1 }}\n',
        known_backends=known_backends(),
    )
    assert config.jobs[0].options == {"method": "forward", PROBE: 1}


def test_the_backend_key_names_every_job_type() -> None:
    section = sections()["jobs[].backend"]
    start = section.line
    text = CONFIG.read_text().splitlines()
    body = "\n".join(text[start : start + 30])
    for backend in known_backends():
        assert f"`{backend}`" in body, f"config.md:{start}: jobs[].backend omits {backend}"


def test_types_and_defaults_are_stated_for_every_key() -> None:
    for section in sections().values():
        assert section.type.strip() and section.default.strip(), section
