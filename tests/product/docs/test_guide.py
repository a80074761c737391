"""``docs/guide.md`` is real: its commands and ``perfline.toml`` files work as printed.

* Every ``toml`` block is read by the ``perfline.toml`` reader (with the registry's backends)
  without a problem.
* Every ``perfline`` command of every shell block names an existing sub-command and only
  options that sub-command has.
* The blocks marked ``<!-- perfline-doc: workspace NAME -->`` / ``run NAME`` run: the test lays
  out workspace NAME in a temporary folder from copies of the real artifacts in ``tests/data``
  (the layouts below are the ones the guide's trees show), writes the marked ``perfline.toml``
  there and runs each command of the run block with ``bash`` and the ``perfline`` of the
  Python running the tests; each must exit 0, ``analyze`` and ``report`` must write a document
  with figures and print them, and ``annotate`` must print figures on the source lines the
  guide's text names.
* Every ``python`` block parses (they need torch, ExecuTorch or ONNX Runtime, which the suite
  does not install; they were run by hand with the versions the guide names).
"""

from __future__ import annotations

import ast
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import click
import pytest

from perfline.clients.cli import cli
from perfline.core.workspace_config import parse_workspace_config
from tests.product.docs.guide_workspaces import (
    BIN,
    GUIDE,
    WORKSPACES,
    guide_blocks,
    lay_out,
    marked,
)
from tests.product.docs.job_types import known_backends
from tests.support.markdown_blocks import markers, shell_commands

#: Source lines of ``dscnn.py`` the guide's text says carry a figure (+) or none (-), per
#: workspace (the fixture notes list the lines each artifact's traces name).
CLAIMED_LINES: dict[str, dict[int, bool]] = {
    "executorch": {24: True, 26: True},  # "0.95 ms avg · 8% beside x = self.depthwise(x)"
    "onnxruntime": {25: True, 24: False},  # the fused Conv keeps the BatchNorm's trace
    "static": {24: True},  # "288k MAC · 11% beside the depthwise convolution"
    "mlia": {24: True, 26: True},
}

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")


def test_markers_sit_on_blocks_and_name_known_workspaces() -> None:
    on_blocks = {block.line - 1 for block in guide_blocks() if block.marker}
    for line, words in markers(GUIDE):
        assert line in on_blocks, f"guide.md:{line}: marker {words} is not just above a block"
    for block in guide_blocks():
        if block.marker and block.marker[0] == "workspace":
            assert block.language == "toml", f"guide.md:{block.line}"
        if block.marker and block.marker[0] == "run":
            assert block.language == "sh", f"guide.md:{block.line}"
    run, workspace = marked("run"), marked("workspace")
    assert set(run) == set(WORKSPACES), "every run block has a layout here, and back"
    assert set(workspace) <= set(run), "a marked perfline.toml belongs to a run block"
    assert set(CLAIMED_LINES) <= set(run)


def test_every_toml_block_is_a_valid_perfline_toml() -> None:
    tomls = [block for block in guide_blocks() if block.language == "toml"]
    assert len(tomls) >= 6
    for block in tomls:
        config = parse_workspace_config(
            block.text, source=f"guide.md:{block.line}", known_backends=known_backends()
        )
        assert config.jobs, f"guide.md:{block.line}: a guide's perfline.toml names its jobs"
        assert config.path_maps, f"guide.md:{block.line}: and maps the recorded paths"


def _perfline_commands() -> list[tuple[int, str]]:
    found = []
    for block in guide_blocks():
        if block.language not in ("sh", "bash", "console"):
            continue
        for command in shell_commands(block):
            if command.startswith("perfline "):
                found.append((block.line, command))
    return found


def test_every_perfline_command_uses_existing_options() -> None:
    commands = _perfline_commands()
    assert len(commands) >= 15
    context = click.Context(cli)
    for line, command in commands:
        words = shlex.split(command.split(" > ")[0])
        sub = cli.get_command(context, words[1])
        assert sub is not None, f"guide.md:{line}: no sub-command {words[1]!r}: {command}"
        options = {name for param in sub.params for name in (*param.opts, *param.secondary_opts)}
        for word in words[2:]:
            if word.startswith("-") and word != "-":
                name = word.split("=", 1)[0]
                assert name in options, f"guide.md:{line}: {words[1]} has no option {name}"


def test_every_python_snippet_parses() -> None:
    snippets = [block for block in guide_blocks() if block.language == "python"]
    assert len(snippets) >= 7
    for block in snippets:
        ast.parse(block.text, filename=f"guide.md:{block.line}")


def _output_dir(words: list[str], root: Path) -> Path:
    if "--output-dir" in words:
        return root / words[words.index("--output-dir") + 1]
    return root


def _figures_on_lines(stdout: str) -> dict[int, str]:
    """``annotate`` output: source line number -> its margin, for margins holding a number."""
    found = {}
    for text in stdout.splitlines():
        match = re.match(r"^\s*(\d+)\s(.*?)│", text)
        if match and re.search(r"\d", match.group(2)):
            found[int(match.group(1))] = match.group(2).strip()
    return found


def _check_document(path: Path, command: str) -> None:
    assert path.is_file(), f"{command}: wrote no {path}"
    document = json.loads(path.read_text())
    values = [
        metric["value"]
        for result in document["results"]
        for breakdown in result.get("breakdowns", [])
        for metric in breakdown["metrics"]
        if isinstance(metric.get("value"), (int, float))
    ]
    assert values and any(values), f"{command}: the document holds no figures"


@pytest.mark.timeout(600)
@pytest.mark.parametrize("name", sorted(WORKSPACES))
def test_the_guides_commands_run_on_the_bundled_data(name: str, tmp_path: Path) -> None:
    perfline = BIN / "perfline"
    assert perfline.exists(), f"no perfline console script beside {sys.executable}"
    root = tmp_path / "workspace"
    lay_out(name, root, tmp_path)
    toml = marked("workspace").get(name)
    if toml is not None:
        (root / "perfline.toml").write_text(toml.text)
    env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "XDG_RUNTIME_DIR": str(tmp_path / "run"),
        "COLUMNS": "120",
    }
    (tmp_path / "run").mkdir()
    commands = shell_commands(marked("run")[name])
    assert commands
    for command in commands:
        assert command.startswith("perfline "), f"run block {name}: {command}"
        completed = subprocess.run(
            ["bash", "-c", command],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert completed.returncode == 0, (command, completed.stdout[-3000:], completed.stderr)
        words = shlex.split(command)
        if words[1] in ("analyze", "report"):
            _check_document(_output_dir(words, root) / "mlia-output" / "mlia-output.json", command)
            numbers = _NUMBER.findall(completed.stdout)
            assert len(numbers) >= 10, (command, completed.stdout[-3000:])
        if words[1] == "annotate":
            figures = _figures_on_lines(completed.stdout)
            assert figures, (command, completed.stdout[-3000:], completed.stderr)
            for line, has_figure in CLAIMED_LINES.get(name, {}).items():
                assert (line in figures) is has_figure, (name, line, figures)


def test_static_roofline_time_is_the_one_the_guide_prints(tmp_path: Path) -> None:
    """The guide says ``[static.target]`` makes ``inference_time`` 0.114 ms for the PT2."""
    root = tmp_path / "workspace"
    lay_out("static", root, tmp_path)
    (root / "perfline.toml").write_text(marked("workspace")["static"].text)
    completed = subprocess.run(
        [str(BIN / "perfline"), "analyze", "models/dscnn.pt2", "--static", "--json"],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr
    document = json.loads(completed.stdout)
    (time,) = [m for m in document["results"][0]["metrics"] if m["name"] == "inference_time"]
    assert time["unit"] == "ms" and round(time["value"], 3) == 0.114
    assert "0.114 ms" in GUIDE.read_text()
