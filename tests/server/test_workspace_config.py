"""perfline.toml -> typed config, and errors that name the offending line."""

from __future__ import annotations

import pytest

from perfline.core.collapse_rules import CollapseRule
from perfline.core.workspace_config import (
    WorkspaceConfigError,
    parse_collapse_rules,
    parse_workspace_config,
)

GOOD = """\
[workspace]
source_roots = [".", "src"]
ignore = ["out/**"]

[[path_map]]
from = "/home/dev/kws/"
to = "."

[[jobs]]
name = "measured"
backend = "executorch"
inputs = ["a.etrecord", "a.etdump"]
options = { method = "forward" }

[[jobs]]
backend = "standardized"
inputs = ["out/run.mlia.json"]

[filtering]
collapse = [
  { kind = "code_stack", attribute = "file", globs = ["**/site-packages/**"] },
]
use_backend_defaults = false

[display]
metric = "op_cycles"
"""


def test_good_config_is_typed() -> None:
    config = parse_workspace_config(GOOD, known_backends=["executorch", "standardized"])
    assert config.source_roots == (".", "src")
    assert config.ignore == ("out/**",)
    assert [(m.source, m.target, m.line) for m in config.path_maps] == [("/home/dev/kws/", ".", 5)]
    assert [(j.name, j.backend, j.inputs, j.line) for j in config.jobs] == [
        ("measured", "executorch", ("a.etrecord", "a.etdump"), 9),
        ("run", "standardized", ("out/run.mlia.json",), 15),
    ]
    assert config.jobs[0].options == {"method": "forward"}
    assert config.collapse_rules == (CollapseRule("code_stack", "file", ("**/site-packages/**",)),)
    assert config.use_backend_defaults is False
    assert config.display.metric == "op_cycles"


def test_empty_text_gives_defaults() -> None:
    config = parse_workspace_config("")
    assert config.jobs == () and config.path_maps == () and config.source_roots == (".",)


def _problems(text: str, **kwargs: object) -> list[tuple[int, str]]:
    with pytest.raises(WorkspaceConfigError) as caught:
        parse_workspace_config(text, **kwargs)  # type: ignore[arg-type]
    return [(p.line, p.message) for p in caught.value.config_problems]


def test_unknown_backend_is_reported_at_its_line() -> None:
    text = '[[jobs]]\nname = "x"\nbackend = "nope"\ninputs = ["a"]\n'
    problems = _problems(text, known_backends=["executorch"])
    assert len(problems) == 1
    line, message = problems[0]
    assert line == 3
    assert "unknown backend 'nope'" in message and "executorch" in message


def test_toml_syntax_error_has_its_line() -> None:
    text = '[workspace]\nsource_roots = ["."]\n\n[[jobs]\nname = 1\n'
    ((line, message),) = _problems(text)
    assert line == 4
    assert message.startswith("invalid TOML")


def test_second_job_errors_point_into_the_second_table() -> None:
    text = (
        '[[jobs]]\nbackend = "standardized"\ninputs = ["a.mlia.json"]\n\n'
        '[[jobs]]\nbackend = "standardized"\ninputs = "b.mlia.json"\n'
    )
    ((line, message),) = _problems(text, known_backends=["standardized"])
    assert line == 7
    assert "array of non-empty strings" in message


def test_unknown_keys_and_tables_are_errors() -> None:
    text = '[workspace]\nsource_root = ["."]\n\n[bogus]\nx = 1\n'
    problems = _problems(text)
    assert (2, "unknown key 'source_root'; expected one of source_roots, ignore") in problems
    assert any(line == 4 and "unknown table 'bogus'" in m for line, m in problems)


def test_bad_collapse_rule_is_located() -> None:
    text = (
        "[filtering]\ncollapse = [\n"
        '  { kind = "code_stack", attribute = "file", globs = ["a"] },\n'
        '  { kind = "code_stack", attribute = "", globs = ["b"] },\n]\n'
    )
    ((line, message),) = _problems(text)
    assert line == 4
    assert "attribute" in message


def test_duplicate_job_names_are_rejected() -> None:
    text = (
        '[[jobs]]\nname = "a"\nbackend = "standardized"\ninputs = ["x"]\n'
        '[[jobs]]\nname = "a"\nbackend = "standardized"\ninputs = ["y"]\n'
    )
    ((line, message),) = _problems(text)
    assert line == 6 and "duplicate job name 'a'" in message


def test_report_reads_only_the_collapse_rules() -> None:
    assert parse_collapse_rules(GOOD) == (
        CollapseRule("code_stack", "file", ("**/site-packages/**",)),
    )


def test_error_renders_file_and_lines() -> None:
    with pytest.raises(WorkspaceConfigError) as caught:
        parse_workspace_config("[display]\nmetric = 3\n", source="ws/perfline.toml")
    assert str(caught.value) == (
        "ws/perfline.toml: line 2 (display.metric): expected a non-empty string"
    )
