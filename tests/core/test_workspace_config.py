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
    assert (
        2,
        "unknown key 'source_root'; did you mean 'source_roots'? "
        "expected one of source_roots, ignore",
    ) in problems
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
        "ws/perfline.toml: line 2, column 10 (display.metric): expected a non-empty string, got 3"
    )


def _located(text: str, **kwargs: object) -> list[tuple[int, int, str]]:
    with pytest.raises(WorkspaceConfigError) as caught:
        parse_workspace_config(text, **kwargs)  # type: ignore[arg-type]
    return [(p.line, p.column, p.message) for p in caught.value.config_problems]


WITH_JOB = """\
[workspace]
source_roots = ["."]

[[path_map]]
from = "/home/dev/kws/"
to = "."

# the measured job
[[job]]
name = "m"
backend = "executorch"
inputs = ["a.etrecord", "a.etdump"]
"""


def test_an_unknown_array_of_tables_is_reported_on_its_own_line() -> None:
    # [[job]] is on line 9 (it was reported as line 1).
    assert _located(WITH_JOB) == [
        (
            9,
            1,
            "unknown table 'job'; did you mean 'jobs'? "
            "expected one of workspace, path_map, jobs, filtering, display, float_sums, "
            "onnxruntime, static",
        )
    ]


def test_unknown_plain_and_sub_tables_are_located_too() -> None:
    assert _located("a = 1\n\n[[jobs]]\nbackend = 'x'\ninputs = ['y']\n\n[jbos.sub]\nk = 1\n")[
        1:
    ] == [(7, 1, "unknown table 'jbos'; did you mean 'jobs'? " + EXPECTED_TOP)]
    assert _located("\n[displya]\nmetric = 'x'\n")[0][:2] == (2, 1)


EXPECTED_TOP = (
    "expected one of workspace, path_map, jobs, filtering, display, float_sums, onnxruntime, static"
)


def test_a_misspelled_required_key_is_one_problem_with_a_suggestion() -> None:
    text = '[[jobs]]\nname = "m"\nbackend = "executorch"\ninput = ["a.etrecord"]\n'
    assert _located(text, known_backends=["executorch"]) == [
        (
            4,
            1,
            "unknown key 'input'; did you mean 'inputs'? "
            "expected one of name, backend, inputs, options, baseline",
        )
    ]


def test_an_unknown_backend_points_at_the_value_and_suggests() -> None:
    text = '[[jobs]]\nbackend = "exectorch"\ninputs = ["a"]\n'
    assert _located(text, known_backends=["executorch", "standardized"]) == [
        (
            2,
            11,
            "unknown backend 'exectorch'; did you mean 'executorch'? "
            "expected one of executorch, standardized",
        )
    ]


def test_a_toml_syntax_error_has_line_and_column_and_the_end_of_the_text() -> None:
    ((line, column, message),) = _located('[workspace]\n[[jobs]\nname = "x"\n')
    assert (line, column) == (2, 7) and message.startswith("invalid TOML: Expected ']]'")
    ((line, column, message),) = _located('[workspace]\nsource_roots = ["."\n')
    assert (line, column, message) == (2, 20, "invalid TOML: Unclosed array")


def test_float_sums_at_the_top_level() -> None:
    assert parse_workspace_config("").float_sums == "exact"
    assert parse_workspace_config('float_sums = "reference"\n').float_sums == "reference"
    assert _located('# sums\nfloat_sums = "fast"\n[display]\n') == [
        (2, 14, "expected 'exact' or 'reference', got 'fast'")
    ]
    assert _located("float_sums = 3\n") == [(1, 14, "expected 'exact' or 'reference', got 3")]
