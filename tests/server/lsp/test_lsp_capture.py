"""End-to-end: structured-capture jobs (folders holding ``capture.json``, backend
``perfline.core.backends.nx_capture``) in the daemon over stdio.

Two capture folders, written with the measured tests' capture writer; the debug
database of each carries one ExecuTorch label taken from the real DS-CNN VGF, so the
chain lands on lines of ``dscnn.py`` (through the workspace's path map). Replacing
one capture's statistics file atomically reruns that job only."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
from pathlib import Path
from typing import Any

import pytest

from perfline.core.formats.vgf import read_segments
from tests.support.capture_writer import (
    DEBUG_DATABASE,
    DispatchSpec,
    PipelineSpec,
    mode1,
    statistics_bytes,
    write_capture,
)
from tests.support.lsp_session import Session, start
from tests.support.measured_data import DATA, MODEL_SOURCE

pytestmark = pytest.mark.timeout(90)

VGF = DATA / "vgf" / "dscnn_int_dbg.vgf"
#: The lines the label's stack trace names (the DS-CNN block call and its depthwise conv).
LINES = [24, 41]


def _label() -> str:
    """An ExecuTorch JSON label of the VGF whose stack reaches ``dscnn.py`` line 24."""
    labels = re.findall(rb'\{"event_id": \d+, "aten_info".*?"torch_fn": \[[^\]]*\]\}\}', _vgf())
    return next(x.decode() for x in labels if b'dscnn.py\\", line 24' in x)


def _vgf() -> bytes:
    return VGF.read_bytes()


def _statistics(active: int) -> bytes:
    """Mode-1 statistics: stripes 0 and 1 (the labelled chain) are ``active`` + 30 cycles."""
    return statistics_bytes(
        1,
        "Mali-G2",
        3,
        [
            mode1(0, 0, core=0, nx_active=active, rd_ll_stall=5),
            mode1(0, 1, core=1, nx_active=active // 2),
            mode1(1, 0, core=2, nx_active=30),
        ],
    )


def _capture(root: Path, active: int) -> Path:
    spirv = read_segments(_vgf(), str(VGF))[0].spirv_bytes
    database = DEBUG_DATABASE.replace("TOSACONV2D_spirv_id_141;", _label() + ";")
    return write_capture(
        root,
        [
            PipelineSpec(
                spirv=spirv,
                info=b"1, 0;2\0\0",
                debug_database=database.encode(),
                dispatches=[DispatchSpec(_statistics(active))],
            )
        ],
        mode=1,
    )


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    shutil.copy(MODEL_SOURCE, root / "dscnn.py")
    (root / "perfline.toml").write_text('[[path_map]]\nfrom = "/home/dev/kws/"\nto = "."\n')
    _capture(root / "run_a", active=100)
    _capture(root / "run_b", active=200)
    return root


def _jobs(reply: Any) -> dict[str, Any]:
    return {job.name: job for job in reply.jobs}


async def _annotations(session: Session) -> dict[int, list[str]]:
    reply = await session.request("perfline/lineAnnotations", {"file": "dscnn.py"})
    return {item.line: sorted(e.label for e in item.entities) for item in reply.lines}


async def test_capture_jobs_are_served_and_rerun_one_at_a_time(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    async with start(root, "stdio", "neovim@v0.11") as session:
        await session.wait_analysed()
        jobs = _jobs(await session.request("perfline/jobs", {}))
        assert sorted(jobs) == ["run_a", "run_b"]
        for name in ("run_a", "run_b"):
            job = jobs[name]
            assert (job.backend, job.state, job.runs, job.error) == ("capture", "ok", 1, None)
            assert f"{name}/capture.json" in job.inputs
            assert any(i.endswith("statistics_mode1.bin") for i in job.inputs)

        served = await session.request("perfline/result", {"job": "run_a"})
        result = served.document.results[0]
        assert (result.mode, result.producer) == ("measured", "neural-technology-profiling-data")
        assert {"code_line", "code_stack", "chain"} <= {e.kind for e in result.entities}

        # Both jobs annotate the same lines; the labelled chain is 100 + 30 and 200 + 30.
        before = await _annotations(session)
        assert sorted(before) == LINES
        for line in LINES:
            assert before[line] == ["130 cycles · 100%", "230 cycles · 100%"]
        uri = session.open("dscnn.py")
        hints = await session.hints(uri, 100)
        assert [h.position.line + 1 for h in hints] == LINES

        # Replace run_a's statistics atomically (written beside the workspace, renamed in).
        statistics = next((root / "run_a").rglob("statistics_mode1.bin"))
        staging = tmp_path / "statistics.tmp"
        staging.write_bytes(_statistics(400))
        refreshes = len(session.refreshes)
        os.replace(staging, statistics)

        deadline = asyncio.get_running_loop().time() + 30
        while (await _annotations(session)).get(24) != ["230 cycles · 100%", "430 cycles · 100%"]:
            assert asyncio.get_running_loop().time() < deadline, await _annotations(session)
            await asyncio.sleep(0.05)
        await session.wait_analysed()
        jobs = _jobs(await session.request("perfline/jobs", {}))
        assert (jobs["run_a"].runs, jobs["run_a"].state) == (2, "ok")
        assert jobs["run_b"].runs == 1  # the other capture was not touched
        assert "inlayHint" in session.refreshes[refreshes:]
        hints = await session.hints(uri, 100)
        labels = {h.position.line + 1: str(h.label) for h in hints}
        assert "430 cycles" in labels[24] and "230 cycles" in labels[24]
