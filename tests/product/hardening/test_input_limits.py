"""Bad input is input (issue 20 items 6, 7): JSON and TOML inputs that pass what their
readers hold are ``InputError``s naming the file and the place, and what the daemon
serves is strict JSON. On main a 100,000-deep array was ``internal error in backend
'standardized': RecursionError``, an integer of 5,001 digits ``internal error ...:
Exceeds the limit (4300 digits)``, and ``NaN`` or ``1e400`` outside metric values were
served (as ``NaN``, or silently as ``null``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.workspace_config import WorkspaceConfigError, parse_workspace_config
from perfline.server.engine import Engine
from tests.support.server_helpers import INPUT_DOC, load
from tests.support.wire_daemon import running

pytestmark = pytest.mark.timeout(120)

MARK = '"__MARK__"'


def _with(value_text: str) -> tuple[str, tuple[int, int]]:
    """The test document, indented, with ``value_text`` as ``context.probe``; and the
    line and column where it starts (counted here, not by the code under test)."""
    document = load(INPUT_DOC)
    document["context"] = {**(document.get("context") or {}), "probe": "__MARK__"}
    text = json.dumps(document, indent=2)
    offset = text.index(MARK)
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return text.replace(MARK, value_text, 1), (line, column)


#: (case, the value's text, the problem, how far into the value the problem is)
BAD_VALUES = [
    ("NaN", "NaN", "NaN is not a JSON number", 0),
    ("Infinity", "Infinity", "Infinity is not a JSON number", 0),
    ("-Infinity", "-Infinity", "-Infinity is not a JSON number", 0),
    ("1e400", "1e400", "the number 1e400 is too large for a 64-bit float", 0),
    # The value stands two levels deep (the document, its context): level 513 is the
    # value's 511th bracket.
    ("nested", "[" * 100_000 + "]" * 100_000, "JSON nested deeper than 512 levels", 510),
    ("digits", "7" * 5001, "an integer of 5001 digits (at most 4300 are read)", 0),
]


@pytest.mark.parametrize(
    ("value", "expected", "into"), [b[1:] for b in BAD_VALUES], ids=[b[0] for b in BAD_VALUES]
)
def test_the_daemon_refuses_what_strict_json_cannot_hold_where_it_is(
    tmp_path: Path, value: str, expected: str, into: int
) -> None:
    target = tmp_path / "a.mlia.json"
    target.write_text(json.dumps(load(INPUT_DOC)))
    engine = Engine(tmp_path, debounce=0.02, settle=0.1)
    engine.start()
    try:
        assert engine.wait_idle(30)
        good = engine.result("a")
        assert good is not None
        text, (line, column) = _with(value)
        target.write_text(text)
        engine.notify_changed([target], finished=True)
        assert engine.wait_idle(30)
        info = engine.job("a")
        assert info is not None and info.error is not None and info.stale
        place = f"line {line}, column {column + into}"
        assert info.error.message == f"a.mlia.json: {place}: {expected}"
        assert engine.result("a") == good
    finally:
        engine.close()


def test_the_cli_keeps_non_finite_values_as_the_reference_but_places_the_rest() -> None:
    from perfline.core.json_codec import read_json_input

    text, _ = _with("NaN")
    assert read_json_input(text, "x.json", keep_non_finite=True)["context"]["probe"] != 0
    for name, value, expected, into in BAD_VALUES[4:]:
        text, (line, column) = _with(value)
        with pytest.raises(InputError) as caught:
            read_json_input(text.encode(), "x.json", keep_non_finite=True)
        place = f"line {line}, column {column + into}"
        assert str(caught.value) == f"x.json: {place}: {expected}", name


def test_perfline_report_names_the_place_of_a_too_deep_document(tmp_path: Path) -> None:
    text, (line, column) = _with("[" * 100_000 + "]" * 100_000)
    path = tmp_path / "deep.json"
    path.write_text(text)
    result = CliRunner().invoke(cli, ["report", str(path)])
    assert result.exit_code == 2, result.output
    place = f"line {line}, column {column + 510}"  # the value's 511th bracket: level 513
    assert f"{place}: JSON nested deeper than 512 levels" in result.output
    assert "Traceback" not in result.output and "internal error" not in result.output


def test_duplicate_keys_read_as_json_loads_reads_them(tmp_path: Path) -> None:
    from perfline.core.json_codec import read_json_input

    """A probe that held: the last of duplicate keys wins, as in every JSON reader here."""
    text = json.dumps(load(INPUT_DOC))
    doubled = text.replace('"results":', '"results": [], "results":', 1)
    assert read_json_input(doubled.encode(), "d.json") == json.loads(text)


def test_large_integers_and_every_answer_are_strict_json_on_the_wire(tmp_path: Path) -> None:
    text, _ = _with(str(10**400))
    root = tmp_path / "ws"
    root.mkdir()
    (root / "big.mlia.json").write_text(text)
    with running(root, tmp_path) as daemon, daemon.raw() as wire:
        reply = wire.request("perfline/result", {"job": "big"}, msg_id=1)  # parsed strictly
        document: dict[str, Any] = reply["result"]["document"]
        assert document["context"]["probe"] == 10**400
        expected = postprocess(json.loads(text), PipelineSettings(), source="big.mlia.json")
        assert document == expected


TOML_CASES = [
    ("nested", "probe = " + "[" * 100_000 + "]" * 100_000 + "\n", "nested deeper than 64 levels"),
    ("digits", "probe = " + "7" * 5001 + "\n", "an integer of 5001 digits"),
]


@pytest.mark.parametrize(
    ("value", "expected"), [c[1:] for c in TOML_CASES], ids=[c[0] for c in TOML_CASES]
)
def test_perfline_toml_beyond_what_tomllib_reads_is_a_config_error_at_its_line(
    tmp_path: Path, value: str, expected: str
) -> None:
    text = '# a workspace\n\n[display]\nmetric = "duration_avg"\n\n[workspace]\n' + value
    line = text.count("\n", 0, text.index("probe")) + 1
    with pytest.raises(WorkspaceConfigError) as caught:
        parse_workspace_config(text)
    (problem,) = caught.value.config_problems
    assert problem.line == line and expected in problem.message, problem
    (tmp_path / "perfline.toml").write_text(text)
    (tmp_path / "a.mlia.json").write_text(json.dumps(load(INPUT_DOC)))
    result = CliRunner().invoke(cli, ["query", "perfline/jobs", "-w", str(tmp_path)])
    assert result.exit_code == 2, result.output
    assert f"perfline.toml: line {line}" in result.output and expected in result.output
    assert "Traceback" not in result.output
