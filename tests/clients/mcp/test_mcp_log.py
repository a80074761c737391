"""``perfline mcp``'s standard error goes to the agent's log: plain one-line log records (the
SDK's own set-up would have drawn them with ``rich``, wrapped at 80 columns with the source
file at the right), WARNING and up by default, INFO with ``-v``. Through the SDK's own client;
a workspace with one good and one truncated torch.profiler trace, so that the engine logs a
job failure."""

from __future__ import annotations

import asyncio
import os
import re
import sys
from pathlib import Path

import pytest

from tests.clients.mcp.relu_model import MODEL, relu_trace

mcp = pytest.importorskip("mcp", reason="the mcp extra (pip install 'perfline[mcp]')")

pytestmark = pytest.mark.timeout(90)

RECORD = re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \d+ (DEBUG|INFO|WARNING|ERROR) \S+: ")


async def _session(root: Path, runtime: Path, errlog: Path, *options: str) -> dict[str, object]:
    parameters = mcp.StdioServerParameters(
        command=sys.executable,
        args=["-m", "perfline", "mcp", "-w", str(root), *options],
        env={"XDG_RUNTIME_DIR": str(runtime), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        cwd=str(root),
    )
    with errlog.open("w") as sink:
        async with (
            mcp.stdio_client(parameters, errlog=sink) as (read, write),
            mcp.ClientSession(read, write) as session,
        ):
            await session.initialize()
            result = await session.call_tool("jobs", {})
            assert not result.is_error, result.content
            assert result.structured_content is not None
            return result.structured_content


def _workspace(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "model.py").write_text(MODEL)
    (root / "perfline.toml").write_text("")
    (root / "good.pt.trace.json").write_bytes(relu_trace(1, 100.0))
    (root / "broken.pt.trace.json").write_bytes(relu_trace(2, 100.0)[:-200])
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    return root, runtime


def test_the_engine_log_is_plain_one_line_records(tmp_path: Path) -> None:
    root, runtime = _workspace(tmp_path)
    errlog = tmp_path / "stderr.txt"
    answer = asyncio.run(_session(root, runtime, errlog))
    jobs = {job["name"]: job for job in answer["jobs"]}  # type: ignore[attr-defined]
    error = jobs["broken"]["error"]["message"]
    lines = errlog.read_text().splitlines()
    assert lines, "the job failure is logged"
    for line in lines:
        assert RECORD.match(line), line
        assert " INFO " not in line  # quiet by default: WARNING and up
    (failed,) = [line for line in lines if "job broken failed: " in line]
    assert failed.endswith(" ".join(error.split())), failed  # whole, on its line


def test_verbose_adds_info_records(tmp_path: Path) -> None:
    root, runtime = _workspace(tmp_path)
    errlog = tmp_path / "stderr.txt"
    asyncio.run(_session(root, runtime, errlog, "-v"))
    lines = errlog.read_text().splitlines()
    assert all(RECORD.match(line) for line in lines), lines
    assert any(" INFO perfline.server.timing: job=good " in line for line in lines), lines
