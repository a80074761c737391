"""Issue 37 item 5: ``perfline mcp`` answers the official MCP SDK's own client over stdio.

``perfline mcp`` runs as a child process (as a coding agent starts it) on a copy of the bundled
example workspace (``examples/kws``, no daemon: an in-process analysis); the SDK's
``ClientSession`` lists the tools and calls each. The figures expected are the editor's, taken
from ``perfline annotate --json`` (the same API, another code path), not from the MCP code.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.server_helpers import KWS_FIGURE_LINES, copy_kws

mcp = pytest.importorskip("mcp", reason="the mcp extra (pip install 'perfline[mcp]')")

pytestmark = pytest.mark.timeout(180)

TOOLS = {"hot_lines", "line_figures", "compare_runs", "set_baseline", "jobs", "reanalyze"}


def _annotations(root: Path) -> dict[str, Any]:
    done = CliRunner().invoke(cli, ["annotate", str(root / "dscnn.py"), "--json"])
    assert done.exit_code == 0, done.output
    answer: dict[str, Any] = json.loads(done.stdout)
    return answer


async def _conversation(root: Path, runtime: Path) -> dict[str, Any]:
    """Every tool called once through the SDK's client; the answers by tool."""
    parameters = mcp.StdioServerParameters(
        command=sys.executable,
        args=["-m", "perfline", "mcp", "-w", str(root)],
        env={"XDG_RUNTIME_DIR": str(runtime), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        cwd=str(root),
    )
    answers: dict[str, Any] = {}
    async with (
        mcp.stdio_client(parameters) as (read, write),
        mcp.ClientSession(read, write) as session,
    ):
        await session.initialize()
        listed = await session.list_tools()
        answers["tools"] = {tool.name: tool for tool in listed.tools}

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            return result.structured_content

        answers["jobs"] = await call("jobs", {})
        answers["hot_lines"] = await call("hot_lines", {"file": "dscnn.py", "limit": 3})
        answers["line_figures"] = await call("line_figures", {"file": "dscnn.py", "line": 26})
        answers["no_figure"] = await call("line_figures", {"file": "dscnn.py", "line": 43})
        answers["compare_before"] = await call("compare_runs", {})
        answers["set_baseline"] = await call("set_baseline", {})
        answers["reanalyze"] = await call("reanalyze", {})
        answers["compare_runs"] = await call("compare_runs", {"changes_only": False, "limit": 3})
        unknown = await session.call_tool("hot_lines", {"file": "dscnn.py", "job": "nope"})
        answers["unknown_job"] = unknown
        outside = await session.call_tool("hot_lines", {"file": "/etc/passwd"})
        answers["outside"] = outside
    return answers


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    base = tmp_path_factory.mktemp("mcp")
    root = copy_kws(base)
    runtime = base / "runtime"
    runtime.mkdir(mode=0o700)
    return root, asyncio.run(_conversation(root, runtime))


def test_lists_the_tools_with_their_parameters(conversation: tuple[Path, Any]) -> None:
    _, answers = conversation
    assert set(answers["tools"]) == TOOLS
    hot = answers["tools"]["hot_lines"]
    assert hot.input_schema["required"] == ["file"]
    assert set(hot.input_schema["properties"]) == {"file", "limit", "job"}
    assert all(tool.description for tool in answers["tools"].values())


def test_jobs_and_their_errors(conversation: tuple[Path, Any]) -> None:
    root, answers = conversation
    jobs = answers["jobs"]
    assert jobs["workspace"] == root.as_posix() and jobs["configError"] is None
    (job,) = jobs["jobs"]
    assert job["name"] == "dscnn-measured" and job["state"] == "ok" and job["error"] is None
    assert jobs["annotatedFiles"] == ["dscnn.py"]


def test_hot_lines_are_the_editor_figures_largest_first(conversation: tuple[Path, Any]) -> None:
    root, answers = conversation
    expected = {item["line"]: item["label"] for item in _annotations(root)["lines"]}
    hot = answers["hot_lines"]
    assert hot["file"] == "dscnn.py" and hot["annotatedLines"] == len(KWS_FIGURE_LINES)
    # 90% (x = self.blocks(x), which calls DSBlock.forward), 81%, 9%
    assert [row["line"] for row in hot["lines"]] == [41, 26, 40]
    for row in hot["lines"]:
        assert row["figure"] == expected[row["line"]]
    assert hot["lines"][1]["code"] == "x = self.pointwise(x)"
    blocks = {block["name"]: block for block in hot["blocks"]}
    assert blocks["DSBlock.forward"]["summary"].startswith("DSBlock.forward: 10.8 ms total")


def test_a_line_figures_and_operators(conversation: tuple[Path, Any]) -> None:
    _, answers = conversation
    line = answers["line_figures"]
    assert line["code"] == "x = self.pointwise(x)"
    (figure,) = line["figures"]
    assert figure["figure"] == "9.63 ms avg · 81%"
    assert figure["sourceOperators"] == [
        "source_operator/conv2d_2",
        "source_operator/conv2d_4",
        "source_operator/conv2d_6",
        "source_operator/conv2d_8",
    ]
    assert "conv2d" in line["breakdown"]
    assert answers["no_figure"]["figures"] == []
    assert answers["no_figure"]["note"] == "no figure on this line (no sample)"


def test_a_comparison_of_two_runs(conversation: tuple[Path, Any]) -> None:
    _, answers = conversation
    (before,) = answers["compare_before"]["jobs"]
    assert before["state"] == "no-baseline"
    assert answers["set_baseline"]["state"] == "set"
    assert answers["reanalyze"]["settled"] and answers["reanalyze"]["scheduled"]
    (after,) = answers["compare_runs"]["jobs"]
    assert after["state"] == "ready"
    assert after["baseline"] == ".perfline/baselines/dscnn-measured/mlia-output.json"
    assert after["changedLines"] >= 3 and len(after["lines"]) == 3
    # the same profile again: nothing changed, every line says so
    verdicts = {m["verdict"] for line in after["lines"] for m in line["metrics"]}
    assert verdicts <= {"unchanged", "noise"}, verdicts
    assert {line["file"] for line in after["lines"]} == {"dscnn.py"}


def test_api_errors_are_tool_errors(conversation: tuple[Path, Any]) -> None:
    _, answers = conversation
    for name in ("unknown_job", "outside"):
        result = answers[name]
        assert result.is_error
        (text,) = [block.text for block in result.content]
        assert "perfline: " in text and "Traceback" not in text
    assert "nope" in answers["unknown_job"].content[0].text


def test_without_the_sdk_it_says_how_to_install_it() -> None:
    import subprocess

    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['mcp'] = None; "
            "from perfline.clients.cli import main; sys.argv = ['perfline', 'mcp']; main()",
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    assert "pip install 'perfline[mcp]'" in done.stderr


def test_a_running_daemon_answers_the_tools(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With a daemon serving the workspace, the tools ask it (the editor's own engine): a
    ``reanalyze`` through MCP is one more run of the daemon's job."""
    from perfline.clients.rpc import Client
    from tests.support.mcp_client import call_tool
    from tests.support.serve_daemon import running_daemon

    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    monkeypatch.setenv("XDG_RUNTIME_DIR", str(runtime))
    with running_daemon(copy_kws(tmp_path), runtime, "--tcp", "127.0.0.1:0") as started:
        with Client.connect(started.endpoint) as client:
            before = client.request("perfline/jobs")["jobs"][0]["runs"]
        answer = call_tool(
            sys.executable,
            ["-m", "perfline", "mcp", "-w", str(started.root)],
            "reanalyze",
            {},
            env={"XDG_RUNTIME_DIR": str(runtime), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        )
        assert answer["settled"] and answer["jobs"][0]["state"] == "ok"
        with Client.connect(started.endpoint) as client:
            assert client.request("perfline/jobs")["jobs"][0]["runs"] == before + 1
