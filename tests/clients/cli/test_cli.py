"""The ``perfline`` CLI: report (text, JSON, output file), schema, version, errors."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline import __version__
from perfline.clients.cli import cli
from tests.support.cases import CASES, canonical
from tests.support.deviations import strip_deviations
from tests.support.documents import minimal_document
from tests.support.locations import DATA

CASE = CASES / "worked" / "01_two_resize_chains_sum.json"


def test_report_json_writes_the_output_file(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", str(CASE), "--json", "--output-dir", str(tmp_path)])
    assert result.exit_code == 0, result.output
    printed = json.loads(result.stdout)
    written = tmp_path / "mlia-output" / "mlia-output.json"
    assert canonical(json.loads(written.read_text())) == canonical(printed)
    assert written.read_text().endswith("}\n")


def test_report_text_fits_80_columns(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["report", str(CASE), "--output-dir", str(tmp_path)], terminal_width=80
    )
    assert result.exit_code == 0, result.output
    assert "Result 1: Performance" in result.stdout
    assert "Breakdowns:" in result.stdout
    assert "op_cycles (cycles)" in result.stdout


def test_bad_input_exits_2_with_file_and_path(tmp_path: Path) -> None:
    document = minimal_document()
    document["results"][0]["entities"][0]["child_ids"] = ["nowhere"]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(document))
    result = CliRunner().invoke(cli, ["report", str(path), "--output-dir", str(tmp_path)])
    assert result.exit_code == 2
    assert str(path) in result.stderr
    assert "results[0].entities[0].child_ids[0]" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.stdout == ""


def test_invalid_json_names_line_and_column(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "a": ,\n}')
    result = CliRunner().invoke(cli, ["report", str(path)])
    assert result.exit_code == 2
    assert "line 2, column 8" in result.stderr


def test_missing_file_and_bad_collapse_rule(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", str(tmp_path / "none.json")])
    assert result.exit_code == 2 and "no such file" in result.stderr
    result = CliRunner().invoke(cli, ["report", str(CASE), "--collapse", "code_stack"])
    assert result.exit_code == 2 and "KIND:ATTRIBUTE:GLOB" in result.stderr


def test_schema_and_version() -> None:
    result = CliRunner().invoke(cli, ["schema"])
    assert result.exit_code == 0
    assert json.loads(result.stdout)["title"].startswith("Standardized output")
    result = CliRunner().invoke(cli, ["--version"])
    assert __version__ in result.stdout


def test_module_entry_point_runs(tmp_path: Path) -> None:
    completed = subprocess.run(
        [
            sys.executable,
            "-m",
            "perfline",
            "report",
            str(CASE),
            "--json",
            "--output-dir",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    assert json.loads(completed.stdout)["schema_version"] == "1.2.0"


def test_report_applies_collapse_rules_from_perfline_toml(tmp_path: Path) -> None:
    case = CASES / "probes" / "P08_collapse_prunes_records_and_materializes_links.json"
    args = (case.with_suffix(".args")).read_text().split()
    kind, attribute, globs = args[1].split(":", 2)
    glob_list = ", ".join(json.dumps(g) for g in globs.split(","))
    (tmp_path / "perfline.toml").write_text(
        f"[filtering]\ncollapse = [{{ kind = {json.dumps(kind)}, "
        f"attribute = {json.dumps(attribute)}, globs = [{glob_list}] }}]\n"
    )
    document = tmp_path / "doc.json"
    document.write_text(case.read_text())
    result = CliRunner().invoke(
        cli, ["report", str(document), "--json", "--output-dir", str(tmp_path)]
    )
    assert result.exit_code == 0, result.stderr
    expected = json.loads(case.with_name(case.stem + ".expected.json").read_text())
    assert canonical(strip_deviations(json.loads(result.stdout))) == canonical(expected)


def test_report_names_the_line_of_a_bad_perfline_toml(tmp_path: Path) -> None:
    (tmp_path / "perfline.toml").write_text("[filtering]\ncollapse = 3\n")
    document = tmp_path / "doc.json"
    document.write_text(CASE.read_text())
    result = CliRunner().invoke(cli, ["report", str(document)])
    assert result.exit_code == 2
    assert "perfline.toml" in result.stderr and "line 2" in result.stderr


def test_report_on_its_own_output_gives_the_same_document(tmp_path: Path) -> None:
    case = CASES / "probes" / "P02_pg_route_unequal_values_conflict.json"
    first = CliRunner().invoke(cli, ["report", str(case), "--json", "--output-dir", str(tmp_path)])
    assert first.exit_code == 0, first.stderr
    persisted = tmp_path / "mlia-output" / "mlia-output.json"
    copy = tmp_path / "again.json"
    copy.write_text(persisted.read_text())
    second = CliRunner().invoke(
        cli, ["report", str(copy), "--json", "--output-dir", str(tmp_path / "second")]
    )
    assert second.exit_code == 0, second.stderr
    assert second.stdout == first.stdout
    assert json.loads(first.stdout)["extensions"] == {"perfline": {"postprocessed": True}}


def test_absurdly_nested_json_is_bad_input_not_a_crash(tmp_path: Path) -> None:
    path = tmp_path / "deep.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    result = CliRunner().invoke(cli, ["report", str(path)])
    assert result.exit_code == 2
    assert "line 1, column 513: JSON nested deeper than 512 levels" in result.stderr


# --- issue 17 item 1: no data loss ---------------------------------------------------------

MEASURED = DATA / "measured" / "portable"


def _user_files(folder: Path) -> dict[str, bytes]:
    """The user's own files beside the output: notes, a sub-folder, a dot file."""
    files = {
        "mlia-output/notes.md": b"my notes about run 3\n",
        "mlia-output/old/run2.json": b"{}\n",
        "mlia-output/.keep": b"",
        "unrelated.txt": b"x",
    }
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)
    return files


def _assert_untouched(folder: Path, files: dict[str, bytes]) -> None:
    for name, content in files.items():
        assert (folder / name).read_bytes() == content, name
    leftovers = [p.name for p in (folder / "mlia-output").iterdir() if p.name.endswith(".tmp")]
    assert leftovers == []


def test_report_leaves_every_other_file_in_the_output_folder(tmp_path: Path) -> None:
    files = _user_files(tmp_path)
    result = CliRunner().invoke(cli, ["report", str(CASE), "--output-dir", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    written = tmp_path / "mlia-output" / "mlia-output.json"
    assert f"wrote {written}" in result.stderr.splitlines()
    _assert_untouched(tmp_path, files)
    assert written.read_text().startswith("{\n")


def test_analyze_leaves_every_other_file_in_the_output_folder(tmp_path: Path) -> None:
    files = _user_files(tmp_path)
    result = CliRunner().invoke(
        cli,
        [
            "analyze",
            str(MEASURED / "dscnn_portable.etrecord"),
            str(MEASURED / "dscnn_portable.etdump"),
            "--output-dir",
            str(tmp_path),
        ],
    )
    assert result.exit_code == 0, result.stderr
    written = tmp_path / "mlia-output" / "mlia-output.json"
    assert f"wrote {written}" in result.stderr.splitlines()
    assert json.loads(written.read_text())["results"][0]["mode"] == "measured"
    _assert_untouched(tmp_path, files)


def test_report_of_the_file_it_overwrites(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # The reported case: `perfline report mlia-output/mlia-output.json` in the folder.
    files = _user_files(tmp_path)
    target = tmp_path / "mlia-output" / "mlia-output.json"
    target.write_text(CASE.read_text())
    expected = CliRunner().invoke(
        cli, ["report", str(CASE), "--json", "--output-dir", str(tmp_path / "elsewhere")]
    )
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(cli, ["report", "mlia-output/mlia-output.json", "--json"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == expected.stdout
    assert target.read_text() == expected.stdout
    _assert_untouched(tmp_path, files)


def test_a_failed_write_keeps_the_previous_output_and_the_input(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfline.clients.cli import output

    files = _user_files(tmp_path)
    target = tmp_path / "mlia-output" / "mlia-output.json"
    previous = CASE.read_text()
    target.write_text(previous)

    def failing(document: object, **_: object) -> Iterator[bytes]:
        yield b"{\n"
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(output, "document_chunks", failing)
    result = CliRunner().invoke(cli, ["report", str(target), "--output-dir", str(tmp_path)])
    assert result.exit_code != 0
    assert "wrote" not in result.stderr
    assert target.read_text() == previous
    _assert_untouched(tmp_path, files)


def test_a_full_disk_is_one_line_and_leaves_the_previous_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from perfline.clients.cli import output

    target = tmp_path / "mlia-output" / "mlia-output.json"
    target.parent.mkdir()
    target.write_text("previous\n")

    class Full:
        def __init__(self, handle: int, mode: str) -> None:
            os.close(handle)

        def __enter__(self) -> Full:
            return self

        def __exit__(self, *_: object) -> None:
            pass

        def write(self, data: object) -> None:
            raise OSError(28, "No space left on device")

        def close(self) -> None:
            pass

    monkeypatch.setattr(output.os, "fdopen", Full)
    result = CliRunner().invoke(cli, ["report", str(CASE), "--output-dir", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.splitlines() == [f"error: cannot write {target}: No space left on device"]
    assert target.read_text() == "previous\n"
    assert [p.name for p in target.parent.iterdir()] == ["mlia-output.json"]


def test_an_output_dir_under_a_file_is_one_line(tmp_path: Path) -> None:
    blocker = tmp_path / "out"
    blocker.write_text("")
    where = blocker / "run"
    result = CliRunner().invoke(cli, ["report", str(CASE), "--output-dir", str(where)])
    assert result.exit_code == 2
    assert result.stderr.splitlines() == [
        f"error: {where / 'mlia-output' / 'mlia-output.json'}: "
        f"cannot use the folder {where}: Not a directory"
    ]


def test_json_on_stdout_and_in_the_file_are_the_reference_bytes(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["report", str(CASE), "--json", "--output-dir", str(tmp_path)])
    assert result.exit_code == 0, result.stderr
    written = (tmp_path / "mlia-output" / "mlia-output.json").read_bytes()
    assert result.stdout_bytes == written
    assert written == (json.dumps(json.loads(written), indent=4) + "\n").encode()


def test_a_new_output_file_gets_the_usual_permissions(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        result = CliRunner().invoke(cli, ["report", str(CASE), "--output-dir", str(tmp_path)])
    finally:
        os.umask(old)
    assert result.exit_code == 0, result.stderr
    mode = (tmp_path / "mlia-output" / "mlia-output.json").stat().st_mode
    assert stat.S_IMODE(mode) == 0o644


def test_help_says_where_the_file_goes_and_that_nothing_else_is_touched() -> None:
    for command in ("report", "analyze"):
        text = " ".join(CliRunner().invoke(cli, [command, "--help"]).stdout.split())
        assert "--output-dir" in text
        assert "OUTPUT_DIR/mlia-output/mlia-output.json" in text, command
        assert "nothing else in the folder is touched" in text, command


def test_a_reader_that_stops_early_leaves_the_file_complete(tmp_path: Path) -> None:
    # `perfline report DOC --json | head -c 100`: the pipe closes long before the end.
    from tests.support.documents import nx_document

    document = tmp_path / "nx.json"
    document.write_text(json.dumps(nx_document(200)))
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "perfline",
            "report",
            str(document),
            "--json",
            "--output-dir",
            str(tmp_path),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert process.stdout is not None and process.stderr is not None
    head = process.stdout.read(100)
    process.stdout.close()
    errors = process.stderr.read().decode()
    assert process.wait(timeout=120) == 0, errors
    written = (tmp_path / "mlia-output" / "mlia-output.json").read_bytes()
    assert written.startswith(head) and len(written) > 1_000_000
    assert written == (json.dumps(json.loads(written), indent=4) + "\n").encode()
    assert errors.splitlines() == [f"wrote {tmp_path / 'mlia-output' / 'mlia-output.json'}"]


def test_the_exit_status_of_the_entry_point(tmp_path: Path) -> None:
    # The console entry point ends a process that holds a document at once: the status and
    # everything printed must survive that.
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    for arguments, status in (([str(CASE)], 0), ([str(bad)], 2), ([str(CASE), "--limit", "x"], 2)):
        done = subprocess.run(
            [sys.executable, "-m", "perfline", "report", *arguments, "--output-dir", str(tmp_path)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        assert done.returncode == status, done.stderr
        if status == 0:
            assert done.stdout.startswith("--- perfline report") and done.stdout.endswith("\n")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="pipe sizes are Linux's")
def test_a_pipe_on_stdout_is_widened_and_a_file_is_left_alone(tmp_path: Path) -> None:
    import fcntl

    from perfline.clients.cli import output

    ceiling = int(Path("/proc/sys/fs/pipe-max-size").read_text())
    reader, writer = os.pipe()
    with os.fdopen(reader, "rb") as read_end, os.fdopen(writer, "wb") as write_end:
        before = fcntl.fcntl(read_end.fileno(), fcntl.F_GETPIPE_SZ)
        output._widen_pipe(write_end)
        after = fcntl.fcntl(read_end.fileno(), fcntl.F_GETPIPE_SZ)
    assert after == max(before, min(output.PIPE_BYTES, ceiling))
    with open(tmp_path / "out", "wb") as file:
        output._widen_pipe(file)  # not a pipe: nothing to do, nothing raised
        output._widen_pipe(object())  # no descriptor at all: the same
