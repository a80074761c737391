"""``perfline mcp``'s ``reanalyze`` after the agent re-profiled the model, with no daemon (an
in-process analysis, which has no file watcher): it reads the new profile, settles, and
``compare_runs`` shows the change. Found by qa: the in-process engine still held the old
profile's hashes, so each run was discarded as "inputs changed since" and rerun, without end;
``reanalyze`` gave up after two minutes (``settled: false``) and ``compare_runs`` compared the
old run with itself (every verdict ``unchanged``)."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.clients.mcp.relu_model import MODEL, relu_trace

mcp = pytest.importorskip("mcp", reason="the mcp extra (pip install 'perfline[mcp]')")

pytestmark = pytest.mark.timeout(90)


async def _session(root: Path, runtime: Path) -> tuple[dict[str, Any], dict[str, Any]]:
    parameters = mcp.StdioServerParameters(
        command=sys.executable,
        args=["-m", "perfline", "mcp", "-w", str(root)],
        env={"XDG_RUNTIME_DIR": str(runtime), "PYTHONPATH": os.environ.get("PYTHONPATH", "")},
        cwd=str(root),
    )
    async with (
        mcp.stdio_client(parameters) as (read, write),
        mcp.ClientSession(read, write) as session,
    ):
        await session.initialize()

        async def call(name: str, arguments: dict[str, Any]) -> Any:
            result = await session.call_tool(name, arguments)
            assert not result.is_error, result.content
            return result.structured_content

        await call("set_baseline", {"job": "run"})
        (root / "run.pt.trace.json").write_bytes(relu_trace(2, 300.0))  # re-profiled: 3x slower
        reanalyzed = await call("reanalyze", {"job": "run"})
        compared = await call("compare_runs", {"job": "run", "changes_only": False})
    return reanalyzed, compared


def test_reanalyze_reads_the_new_profile_and_compare_runs_shows_it(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    (root / "model.py").write_text(MODEL)
    (root / "perfline.toml").write_text("")
    (root / "run.pt.trace.json").write_bytes(relu_trace(1, 100.0))
    runtime = tmp_path / "runtime"
    runtime.mkdir(mode=0o700)
    reanalyzed, compared = asyncio.run(_session(root, runtime))
    assert reanalyzed["settled"] is True
    (job,) = reanalyzed["jobs"]
    assert (job["state"], job["stale"]) == ("ok", False)
    (run,) = compared["jobs"]
    (line,) = [line for line in run["lines"] if line["line"] == 4]
    (cpu,) = [metric for metric in line["metrics"] if metric["name"] == "cpu_time"]
    assert cpu["verdict"] == "regression"
    assert cpu["ratio"] == pytest.approx((300 + 20) / (100 + 20), rel=0.05)  # the frame: op + 20 us


def test_reanalyze_waits_for_jobs_that_the_new_look_found(tmp_path: Path) -> None:
    """A profile that appeared since the last look is a new job: ``reanalyze`` returns once
    it is analysed too, not as soon as the jobs it asked for are."""
    from perfline.clients.mcp import tools

    listings = iter(
        [
            [{"name": "a", "generation": 1, "state": "ok"}],
            [{"name": "a", "generation": 2, "state": "ok"}, {"name": "b", "state": "running"}],
            [{"name": "a", "generation": 2, "state": "ok"}, {"name": "b", "state": "running"}],
            [{"name": "a", "generation": 2, "state": "ok"}, {"name": "b", "state": "ok"}],
        ]
    )
    last: list[dict[str, Any]] = []

    def ask(method: str, params: Any) -> Any:
        if method == "perfline/reanalyze":
            return {"scheduled": ["a"]}
        if method == "perfline/jobs":
            last[:] = next(listings, last)
            return {"jobs": [dict(info, generation=info.get("generation", 1)) for info in last]}
        assert method == "perfline/status", method
        return {"workspace": str(tmp_path), "annotatedFiles": []}

    answer = tools.reanalyze(ask, tmp_path)
    assert answer["settled"] is True
    assert [(job["name"], job["state"]) for job in answer["jobs"]] == [("a", "ok"), ("b", "ok")]
