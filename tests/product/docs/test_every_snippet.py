"""Issue 37 item 4: every snippet of ``docs/`` that is meant to run runs in a test, and the
ones that are not are listed here, each with why (a reviewed list: a new unmarked block fails
``test_every_block_runs_or_is_listed`` until it is marked for a runner or listed).

How each kind of block runs:

* a ``perfline.toml`` (``toml`` of ``config.md`` and ``guide.md``): read by the configuration
  reader with the registry's backends, without a problem (here, and with more checks in
  ``test_config_doc.py`` and ``test_guide.py``);
* a block with a marker ``<!-- perfline-doc: KIND ... -->``: by the test that owns ``KIND``
  (``RUNNERS``): the guide's workspaces and commands, the Neovim configuration, the API's
  client snippet and the agent configuration (both here, against a real daemon and a real
  ``perfline mcp``);
* every other ``python``, ``sh`` or ``toml`` block is in ``NOT_RUN`` with its reason, and still
  parses (Python by ``ast``, TOML by ``tomllib``).
"""

from __future__ import annotations

import ast
import json
import os
import shutil
import subprocess
import sys
import tomllib
from collections.abc import Iterator
from pathlib import Path

import pytest

from perfline.core.workspace_config import parse_workspace_config
from tests.product.docs.job_types import known_backends
from tests.support.markdown_blocks import DOCS, Block, blocks
from tests.support.serve_daemon import Daemon, running_daemon
from tests.support.server_helpers import copy_kws

pytestmark = pytest.mark.timeout(180)

#: The languages of blocks meant to be run (or listed in ``NOT_RUN``).
RUNNABLE = ("python", "sh", "bash", "toml")

#: Marker kind -> the test that runs the block.
RUNNERS = {
    "workspace": (
        "tests/product/docs/test_guide.py::test_the_guides_commands_run_on_the_bundled_data"
    ),
    "run": "tests/product/docs/test_guide.py::test_the_guides_commands_run_on_the_bundled_data",
    "neovim": "tests/server/lsp/test_editors_doc.py",
    "api-client": "tests/product/docs/test_every_snippet.py::test_the_api_client_snippet_runs",
    "mcp-config": (
        "tests/product/docs/test_every_snippet.py::test_the_agent_configuration_starts_perfline"
    ),
    "batch": "tests/product/docs/test_batch_doc.py",
    "torch-api": "tests/clients/torch_api/test_torch_api.py::test_the_guides_snippet_runs",
}

#: Files whose every ``toml`` block is a ``perfline.toml``, read here by the real reader.
PERFLINE_TOML = ("config.md", "guide.md")

#: (file, first line of the block) -> why it does not run in the tests. Reviewed: each reason
#: says what the block needs that the suite does not have.
NOT_RUN: dict[tuple[str, str], str] = {
    ("agents.md", "pip install 'perfline[mcp]'"): "installs from a package index; the suite's "
    "environment has the extra already (it is in dev)",
    (
        "guide.md",
        "python3 -m venv et && et/bin/pip install torch==2.13.0 executorch==1.5.1",
    ): "installs torch and ExecuTorch (GBs, network); made the bundled ETRecord/ETDump by hand",
    ("guide.md", "import torch"): "exports, profiles or traces the model with torch, ExecuTorch "
    "or ONNX Runtime, which the suite does not install (their outputs are in tests/data, made "
    "with the versions the guide names; see tests/data/*/README.md)",
    (
        "guide.md",
        "from executorch.extension.pybindings.portable_lib import _load_for_executorch",
    ): "runs the model with ExecuTorch's runtime (not installed; its ETDump is bundled)",
    ("guide.md", "import onnxruntime as ort"): "runs the model with ONNX Runtime (not "
    "installed; its profiles are bundled)",
    (
        "guide.md",
        "python3 -m venv ort && ort/bin/pip install torch==2.13.0 onnx==1.23.2 "
        "onnxscript==0.7.2 onnxruntime==1.32.0",
    ): "installs torch and ONNX Runtime (network); their outputs are bundled",
    (
        "guide.md",
        "python3 -m venv ~/perfline && ~/perfline/bin/pip install /path/to/perfline   # this "
        "checkout",
    ): "installs perfline and torch into new environments of the reader's home; the suite's "
    "own torch environment is scripts/torch-venv.sh",
    (
        "guide.md",
        "perfline profile --python ~/torch/bin/python --output-dir base train.py",
    ): "the reader's own script, twice, then compare and check; the same commands run on a "
    "script written for the test in tests/clients/cli/test_profile.py "
    "(test_compare_and_check_between_two_profile_runs_judge_each_line_by_its_steps)",
    ("guide.md", "perfline profile --python ~/torch/bin/python train.py"): "the reader's own "
    "scripts and torch environment; the same command runs on a model written for the test in "
    "tests/clients/cli/test_profile.py (with PERFLINE_TORCH_PYTHON)",
    ("guide.md", "perfline analyze dscnn.vgf estimates/ --output-dir build"): "needs the VGF "
    "the estimator ran on next to its databases; the bundled estimator databases are run "
    "by the 'run nx-estimator' block and tests/core/backends/nx_estimator",
    (
        "guide.md",
        "perfline analyze dscnn.vgf --profiling-data capture/ --output-dir build",
    ): "needs a structured capture of a VGF run, which no runtime installable here makes; "
    "the capture reader is tested on written captures (tests/core/backends/nx_capture)",
    ("guide.md", "perfline analyze model.etrecord run.etdump --output-dir baseline"): "a CI "
    "recipe with placeholder file names and git revisions; the same commands run on real "
    "runs in tests/core/compare and tests/clients/cli/test_written_files.py",
    ("guide.md", "perfline analyze model.etrecord run.etdump --output-dir current"): "the "
    "same CI recipe (the pull request's side)",
    ("editors.md", "[language-server.perfline]"): "Helix's languages.toml (Helix is not "
    "installed); parsed as TOML here",
    ("editors.md", "[editor.lsp]"): "Helix's config.toml (Helix is not installed); parsed as TOML",
    ("editors.md", 'id = "perfline"'): "a Zed extension's manifest (Zed is not installed); "
    "parsed as TOML here",
}


def _all_blocks() -> Iterator[tuple[str, Block]]:
    for path in sorted(DOCS.glob("*.md")):
        for block in blocks(path):
            yield path.name, block


def _first_line(block: Block) -> str:
    return next((line.strip() for line in block.text.splitlines() if line.strip()), "")


def _marked(name: str, kind: str) -> Block:
    (found,) = [b for n, b in _all_blocks() if n == name and b.marker[:1] == (kind,)]
    return found


def test_every_block_runs_or_is_listed() -> None:
    unlisted = []
    listed_seen = set()
    for name, block in _all_blocks():
        if block.language not in RUNNABLE:
            continue
        if block.marker:
            assert block.marker[0] in RUNNERS, f"{name}:{block.line}: no test runs {block.marker}"
            continue
        if block.language == "toml" and name in PERFLINE_TOML:
            continue
        key = (name, _first_line(block))
        if key in NOT_RUN:
            listed_seen.add(key)
        else:
            unlisted.append(f"{name}:{block.line} ({block.language}) {key[1]!r}")
    assert not unlisted, "blocks neither run nor listed in NOT_RUN:\n" + "\n".join(unlisted)
    assert listed_seen == set(NOT_RUN), f"stale NOT_RUN entries: {set(NOT_RUN) - listed_seen}"
    assert all(len(reason) > 30 for reason in NOT_RUN.values())


def test_every_perfline_toml_is_read_without_a_problem() -> None:
    for name, block in _all_blocks():
        if block.language == "toml" and name in PERFLINE_TOML:
            where = f"{name}:{block.line}"
            parse_workspace_config(block.text, source=where, known_backends=known_backends())


def test_the_blocks_that_do_not_run_still_parse() -> None:
    for name, block in _all_blocks():
        if block.language == "python":
            ast.parse(block.text, filename=f"{name}:{block.line}")
        elif block.language == "toml":
            tomllib.loads(block.text)


@pytest.fixture
def daemon(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Daemon]:
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    (tmp_path / "examples").mkdir()
    root = copy_kws(tmp_path / "examples")
    with running_daemon(root, runtime, "--tcp", "127.0.0.1:0") as started:
        yield started


def test_the_api_client_snippet_runs(daemon: Daemon) -> None:
    """``docs/api.md``'s client snippet, as printed, against the daemon serving
    ``examples/kws`` (a copy, in the folder the snippet runs in)."""
    block = _marked("api.md", "api-client")
    folder = daemon.root.parent.parent
    script = folder / "snippet.py"
    script.write_text(block.text)
    runtime = str(daemon.root.parent.parent / "runtime")
    done = subprocess.run(
        [sys.executable, str(script)],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "XDG_RUNTIME_DIR": runtime},
    )
    assert done.returncode == 0, done.stderr
    first, status = done.stdout.splitlines()[:2]
    assert first.startswith("dscnn-measured ")
    assert ast.literal_eval(status)["jobs"] == 1  # the snippet prints the status dict


def test_the_agent_configuration_starts_perfline(tmp_path: Path) -> None:
    """``docs/agents.md``'s configuration, as an agent's client reads it: the command and its
    arguments, started in the workspace by the MCP SDK's client, answer ``jobs``."""
    pytest.importorskip("mcp")
    from tests.support.mcp_client import call_tool

    config = json.loads(_marked("agents.md", "mcp-config").text)
    entry = config["mcpServers"]["perfline"]
    root = copy_kws(tmp_path)
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    command = shutil.which(entry["command"], path=str(Path(sys.executable).parent))
    assert command is not None

    answer = call_tool(
        command, entry["args"], "jobs", {}, env={"XDG_RUNTIME_DIR": str(runtime)}, cwd=root
    )
    assert isinstance(answer, dict) and answer["workspace"] == root.as_posix()
    assert [job["name"] for job in answer["jobs"]] == ["dscnn-measured"]
