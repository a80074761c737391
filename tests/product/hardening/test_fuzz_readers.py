"""Fuzzing every reader with a mutation corpus of the real fixtures (issue 20 item 9): a
damaged input is one clear ``InputError``, never another exception (which the daemon
would report as ``internal error in backend ...``); and in the running daemon the job
reports it, the last good result stays served and the daemon keeps answering.

``PERFLINE_FUZZ_COUNT`` sets the mutations per reader (default 16; the seeds are fixed,
so a failure is reproduced by its seed and operation).
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import threading
import zlib
from pathlib import Path
from typing import Any

import pytest

from perfline.core.errors import InputError
from perfline.core.pipeline import PipelineSettings
from perfline.server.jobs.context import JobContext, JobInput
from perfline.server.jobs.registry import default_registry
from perfline.server.jobs.stage_memo import StageMemo
from tests.product.hardening.mutations import SUBJECTS, Subject, mutations
from tests.support.server_helpers import copy_kws, wait_for
from tests.support.wire_daemon import running

pytestmark = pytest.mark.timeout(600)

COUNT = int(os.environ.get("PERFLINE_FUZZ_COUNT", "16"))


def _capture_files(root: Path) -> dict[str, Path]:
    """A structured capture of the real DS-CNN VGF (as the capture job tests write it)."""
    from perfline.core.formats.vgf import read_segments
    from tests.support.capture_writer import (
        DEBUG_DATABASE,
        DispatchSpec,
        PipelineSpec,
        mode1,
        statistics_bytes,
        write_capture,
    )
    from tests.support.measured_data import DATA

    vgf = (DATA / "vgf" / "dscnn_int_dbg.vgf").read_bytes()
    labels = re.findall(rb'\{"event_id": \d+, "aten_info".*?"torch_fn": \[[^\]]*\]\}\}', vgf)
    label = next(x.decode() for x in labels if b'dscnn.py\\", line 24' in x)
    statistics = statistics_bytes(
        1, "Mali-G2", 3, [mode1(0, 0, core=0, nx_active=100), mode1(1, 0, core=2, nx_active=30)]
    )
    pipeline = PipelineSpec(
        spirv=read_segments(vgf, "dscnn_int_dbg.vgf")[0].spirv_bytes,
        info=b"1, 0;2\0\0",
        debug_database=DEBUG_DATABASE.replace("TOSACONV2D_spirv_id_141;", label + ";").encode(),
        dispatches=[DispatchSpec(statistics)],
    )
    write_capture(root / "cap", [pipeline], mode=1)
    (root / "cap" / "model.vgf").write_bytes(vgf)
    return {str(p.relative_to(root)): p for p in sorted((root / "cap").rglob("*")) if p.is_file()}


def _workspace(subject: Subject, root: Path) -> tuple[dict[str, Path], str]:
    """The subject's files copied under ``root``, and the relative path of its target."""
    root.mkdir(parents=True, exist_ok=True)
    if subject.job_type == "capture":
        files = _capture_files(root)
        return files, next(rel for rel in files if rel.endswith(subject.target))
    files = {}
    for rel, source in subject.files.items():
        shutil.copyfile(source, root / rel)
        files[rel] = root / rel
    return files, subject.target


def _run(subject: Subject, files: dict[str, Path], memo: StageMemo) -> dict[str, Any]:
    inputs = []
    for rel, path in files.items():
        data = path.read_bytes()
        digest = hashlib.sha256(data).hexdigest()
        inputs.append(JobInput(rel, data, digest, str(path), path.stat().st_mtime))
    context = JobContext(
        tuple(inputs), subject.options, PipelineSettings(), memo, threading.Event()
    )
    job_type = default_registry()[subject.job_type]
    result: dict[str, Any] = job_type.run(context)
    return result


def _seed(subject: Subject) -> int:
    return zlib.crc32(subject.name.encode())


@pytest.mark.slow
@pytest.mark.parametrize("subject", SUBJECTS, ids=[s.name for s in SUBJECTS])
def test_a_damaged_input_is_one_input_error(subject: Subject, tmp_path: Path) -> None:
    files, target = _workspace(subject, tmp_path / "ws")
    memo = StageMemo()
    assert _run(subject, files, memo)["results"], "the real fixture must analyse"
    original = files[target].read_bytes()
    failures = []
    seed = _seed(subject)
    for number, (operation, damaged) in enumerate(mutations(original, subject.kind, seed, COUNT)):
        files[target].write_bytes(damaged)
        try:
            _run(subject, files, memo)
        except InputError as error:
            assert error.render().strip(), (operation, error)
        except Exception as error:  # what the daemon would call an internal error
            failures.append(
                f"seed {seed} #{number} {operation}: {type(error).__name__}: {error}"[:400]
            )
    assert not failures, "\n".join(failures)


# -------------------------------------------------------------- in the running daemon


@pytest.mark.slow
def test_the_daemon_keeps_the_last_good_result_through_damaged_inputs(tmp_path: Path) -> None:
    """Two mutations of each file of the KWS workspace and of a standardized document, one
    at a time: each is reported on its job, the last good result stays served, other
    clients are answered meanwhile, and the restored file is analysed afresh."""
    root = copy_kws(tmp_path)
    from tests.support.server_helpers import INPUT_DOC

    shutil.copyfile(INPUT_DOC, root / "a.mlia.json")
    with (root / "perfline.toml").open("a") as config:
        config.write('\n[[jobs]]\nname = "a"\nbackend = "standardized"\ninputs = ["a.mlia.json"]\n')
    targets = [
        ("dscnn_portable.etdump", "dscnn-measured", "binary"),
        ("dscnn_portable.etrecord", "dscnn-measured", "zip"),
        ("a.mlia.json", "a", "json"),
    ]
    with running(root, tmp_path) as daemon, daemon.client() as client, daemon.client() as other:
        good = {job: client.request("perfline/result", {"job": job}) for _, job, _ in targets}
        for name, job, kind in targets:
            path = root / name
            original = path.read_bytes()
            for operation, damaged in mutations(original, kind, zlib.crc32(name.encode()), 2):
                before = _job(client, job)["generation"]
                path.write_bytes(damaged)

                def reported(job: str = job, before: int = before) -> bool:
                    info = _job(client, job)
                    return info["generation"] > before and info["state"] in ("error", "ok")

                assert wait_for(reported, timeout=60), (name, operation)
                info = _job(client, job)
                assert other.request("perfline/status")["jobs"] == 2  # answering meanwhile
                if info["state"] == "error":  # (a flip in padding may leave it readable)
                    assert not info["error"]["message"].startswith("internal error"), info
                    served = client.request("perfline/result", {"job": job})
                    assert served["stale"] and served["document"] == good[job]["document"]
                path.write_bytes(original)

                def fresh(job: str = job, after: int = info["generation"]) -> bool:
                    again = _job(client, job)
                    return again["generation"] > after and again["state"] == "ok"

                assert wait_for(fresh, timeout=60), (name, operation)
                served = client.request("perfline/result", {"job": job})
                assert not served["stale"]
                assert _timeless(served["document"]) == _timeless(good[job]["document"])
                good[job] = served  # the last good result from now on


def _timeless(document: dict[str, Any]) -> str:
    """The document without its timestamp (the restored file's modification time)."""
    return json.dumps({k: v for k, v in document.items() if k != "timestamp"})


def _job(client: Any, name: str) -> dict[str, Any]:
    jobs = {job["name"]: job for job in client.request("perfline/jobs")["jobs"]}
    return dict(jobs[name])
