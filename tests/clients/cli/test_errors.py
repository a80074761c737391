"""Issue 17 items 2 and 7: a broken ``perfline.toml`` is never silent, and every CLI error is
one clean line (file or option, place, the bad value quoted) with the exit status 2.

The workspace is a copy of ``examples/kws`` whose ``perfline.toml`` is broken in the four
ways users met (and which used to exit 0 with figures from an auto-discovered job); the
expected lines are written out here from the file's text, not taken from the code.
"""

from __future__ import annotations

import errno
import json
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from perfline.clients.cli import cli
from tests.support.cases import CASES
from tests.support.server_helpers import copy_kws

pytestmark = pytest.mark.timeout(120)

CASE = CASES / "worked" / "01_two_resize_chains_sum.json"
TOP = (
    "expected one of workspace, path_map, jobs, filtering, display, float_sums, onnxruntime, static"
)


def _known_backends() -> str:
    from perfline.server.jobs.registry import default_registry

    return ", ".join(sorted(default_registry()))


# (name, the edit of examples/kws/perfline.toml, the problem's text after "perfline.toml: ")
BROKEN = [
    (
        "inputs misspelled",
        ("inputs = [", "input = ["),
        "line 12, column 1 (jobs[0].input): unknown key 'input'; did you mean 'inputs'? "
        "expected one of name, backend, inputs, options, baseline",
    ),
    (
        "backend misspelled",
        ('backend = "executorch"', 'backend = "exectorch"'),
        "line 11, column 11 (jobs[0].backend): unknown backend 'exectorch'; "
        "did you mean 'executorch'? expected one of {backends}",
    ),
    (
        "[[job]] for [[jobs]]",
        ("[[jobs]]", "[[job]]"),
        f"line 9, column 1 (job): unknown table 'job'; did you mean 'jobs'? {TOP}",
    ),
    (
        "TOML syntax error",
        ("[[jobs]]", "[[jobs]"),
        "line 9, column 7: invalid TOML: Expected ']]' at the end of an array declaration",
    ),
]


@pytest.fixture(params=BROKEN, ids=[case[0] for case in BROKEN])
def broken(
    request: pytest.FixtureRequest, tmp_path: Path, runtime: Path
) -> Iterator[tuple[Path, str]]:
    _, (old, new), problem = request.param
    root = copy_kws(tmp_path)
    config = root / "perfline.toml"
    text = config.read_text()
    assert text.count(old) == 1
    config.write_text(text.replace(old, new))
    yield root, f"error: {config}: {problem.format(backends=_known_backends())}"


def _only_line(result: Result) -> str:
    lines = result.stderr.splitlines()
    assert len(lines) == 1, result.stderr
    return lines[0]


@pytest.mark.parametrize(
    "arguments",
    [
        ["annotate", "{root}/dscnn.py", "--no-color"],
        ["query", "perfline/jobs", "-w", "{root}"],
        ["watch", "--count", "1", "-w", "{root}"],
        ["serve", "--tcp", "127.0.0.1:0", "-w", "{root}"],
    ],
    ids=["annotate", "query", "watch", "serve"],
)
def test_a_broken_config_is_an_error_with_its_place(
    broken: tuple[Path, str], arguments: list[str]
) -> None:
    root, expected = broken
    result = CliRunner().invoke(cli, [a.format(root=root) for a in arguments])
    assert result.exit_code == 2, result.output
    assert _only_line(result) == expected
    assert result.stdout == ""  # no figures from a discovered job


def test_serve_over_stdio_checks_a_given_workspace(broken: tuple[Path, str]) -> None:
    root, expected = broken
    result = CliRunner().invoke(cli, ["serve", "--stdio", "-w", str(root)], input="")
    assert result.exit_code == 2
    assert _only_line(result) == expected


# --- item 7 ---------------------------------------------------------------------------------


def test_a_busy_port_is_one_line(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = CliRunner().invoke(cli, ["serve", "--tcp", f"127.0.0.1:{port}", "-w", str(root)])
    assert result.exit_code == 2
    assert _only_line(result) == (
        f"error: 127.0.0.1:{port} is already in use (another perfline serve?)"
    )


def test_a_port_taken_between_the_check_and_the_bind_is_one_line_too(
    tmp_path: Path, runtime: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfline.server import serve

    def taken(*_: object, **__: object) -> None:
        raise OSError(errno.EADDRINUSE, "Address already in use")

    monkeypatch.setattr(serve, "run_shared", taken)
    result = CliRunner().invoke(
        cli, ["serve", "--tcp", "127.0.0.1:8765", "-w", str(copy_kws(tmp_path))]
    )
    if result.exit_code == 2 and "8765 is already in use" in result.stderr:
        assert _only_line(result) == (
            "error: 127.0.0.1:8765 is already in use (another perfline serve?)"
        )
    else:  # something on this host really listens on 8765: the check before the bind caught it
        assert result.exit_code == 2, result.output


def test_query_params_that_are_not_json(tmp_path: Path, runtime: Path) -> None:
    result = CliRunner().invoke(cli, ["query", "perfline/jobs", "{job: x}", "-w", str(tmp_path)])
    assert result.exit_code == 2
    assert _only_line(result) == (
        "error: perfline query: PARAMS '{job: x}' is not JSON: Expecting property name "
        "enclosed in double quotes: line 1 column 2 (char 1)"
    )


def test_query_client_mistakes_exit_2(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    unknown = CliRunner().invoke(cli, ["query", "perfline/nothing", "-w", str(root)])
    assert unknown.exit_code == 2
    assert _only_line(unknown).startswith("error -32601: unknown method 'perfline/nothing'")
    job = CliRunner().invoke(cli, ["query", "result", '{"job": "x"}', "-w", str(root)])
    assert job.exit_code == 2
    assert _only_line(job) == "error -32001: unknown job 'x'; known jobs: dscnn-measured"
    params = CliRunner().invoke(cli, ["query", "lineAnnotations", "[1]", "-w", str(root)])
    assert params.exit_code == 2
    assert _only_line(params) == "error -32602: params must be a JSON object"


def test_annotate_with_a_metric_the_result_lacks(tmp_path: Path, runtime: Path) -> None:
    root = copy_kws(tmp_path)
    result = CliRunner().invoke(
        cli, ["annotate", str(root / "dscnn.py"), "--metric", "op_cycles", "--no-color"]
    )
    assert result.exit_code == 2
    # The measured ExecuTorch result's breakdowns: durations (avg, p50, p90, min, max, all
    # runs) and the execution count.
    assert _only_line(result) == (
        "error: --metric 'op_cycles': the results have no such metric; their figures are "
        "duration, duration_avg, duration_max, duration_min, duration_p50, duration_p90, "
        "execution_count"
    )
    assert result.stdout == ""


def test_annotate_a_file_that_is_not_there(tmp_path: Path, runtime: Path) -> None:
    missing = tmp_path / "dscnn.pyy"
    result = CliRunner().invoke(cli, ["annotate", str(missing)])
    assert result.exit_code == 2
    assert _only_line(result) == f"error: {missing}: no such file"


def test_a_misspelled_input_is_no_such_file_first(tmp_path: Path) -> None:
    root = copy_kws(tmp_path)
    record = root / "dscnn_portable.etrecord"
    for given, hint in (
        (root / "dscnn_portable.etdmp", f" (did you mean '{root / 'dscnn_portable.etdump'}'?)"),
        (root / "elsewhere.etdump", ""),
    ):
        result = CliRunner().invoke(cli, ["analyze", str(record), str(given)])
        assert result.exit_code == 2
        assert _only_line(result) == f"error: {given}: no such file or folder{hint}"


def test_a_json_file_that_is_not_a_document_says_so_first(tmp_path: Path) -> None:
    path = tmp_path / "summary.json"
    path.write_text(json.dumps({"network": "x", "layers": []}))
    result = CliRunner().invoke(cli, ["report", str(path), "--output-dir", str(tmp_path)])
    assert result.exit_code == 2
    lines = result.stderr.splitlines()
    assert lines[0] == (
        f"error: {path}: not a standardized-output document (schema 1.2.0): it has no "
        "schema_version and no results (its keys: 'network', 'layers')"
    )
    assert "  - schema_version: Missing required field: schema_version" in lines[1:]
    array = tmp_path / "array.json"
    array.write_text("[1, 2]")
    result = CliRunner().invoke(cli, ["report", str(array), "--output-dir", str(tmp_path)])
    assert result.stderr.splitlines()[0] == (
        f"error: {array}: not a standardized-output document (schema 1.2.0): it is a JSON "
        "array, not an object"
    )
    assert not (tmp_path / "mlia-output").exists()


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        (
            ["--collapse", "code_stack"],
            "error: --collapse: 'code_stack': expected KIND:ATTRIBUTE:GLOB[,GLOB...], "
            "e.g. code_stack:file:**/site-packages/torch/**",
        ),
        (
            ["--float-sums", "fast"],
            "error: perfline report: Invalid value for '--float-sums': 'fast' is not one of "
            "'exact', 'reference' (see perfline report --help)",
        ),
        (
            ["--limit", "0"],
            "error: perfline report: Invalid value for '--limit': 0 is not in the range x>=1 "
            "(see perfline report --help)",
        ),
    ],
    ids=["collapse", "float-sums", "limit"],
)
def test_one_fault_one_line_quoting_the_value(
    tmp_path: Path, arguments: list[str], expected: str
) -> None:
    result = CliRunner().invoke(
        cli, ["report", str(CASE), "--output-dir", str(tmp_path), *arguments]
    )
    assert result.exit_code == 2
    assert _only_line(result) == expected


def test_float_sums_in_perfline_toml_is_checked_on_its_line(tmp_path: Path) -> None:
    (tmp_path / "perfline.toml").write_text('# sums\nfloat_sums = "fast"\n')
    document = tmp_path / "doc.json"
    document.write_text(CASE.read_text())
    result = CliRunner().invoke(cli, ["report", str(document), "--output-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert _only_line(result) == (
        f"error: {tmp_path / 'perfline.toml'}: line 2, column 14 (float_sums): "
        "expected 'exact' or 'reference', got 'fast'"
    )
