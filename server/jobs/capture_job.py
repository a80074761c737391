"""The ``capture`` job type: a structured capture folder (the folder holding
``capture.json``; every file below it is an input, so any change reruns the job), with an
optional ``.vgf`` model among the inputs -> the measured result. Reading goes through
``perfline.server.ingest.capture``. Cost: one read of the folder per new content, then
the post-processing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.server.jobs.context import DiscoveredJob, JobContext
from perfline.server.jobs.two_stage import processed_stage


class CaptureJob:
    """A structured capture (+ optional VGF model) -> the measured result."""

    name = "capture"
    description = "a structured capture folder holding capture.json (with an optional .vgf)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.server.ingest import capture

        roots = [Path(i.absolute).parent for i in context.inputs if i.path.endswith("capture.json")]
        models = [Path(i.absolute) for i in context.inputs if i.path.endswith(".vgf")]
        where = ", ".join(i.path for i in context.inputs) or None
        if len(roots) != 1:
            raise InputError(where, "a capture job takes the files of one capture folder")
        if len(models) > 1:
            raise InputError(where, "a capture job takes at most one model (.vgf)")
        key = tuple((i.absolute, i.digest) for i in context.inputs)

        def raw() -> dict[str, Any]:
            document: dict[str, Any] = capture.load_capture_document(
                roots, model=models[0] if models else None
            )
            return document

        return processed_stage(context, "capture", key, raw, where)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        jobs = []
        for path in files:
            folder, name = _split(path)
            if name != "capture.json" or path.startswith(".perfline/"):
                continue  # not perfline profile's run folders (older ones hold a capture.json)
            prefix = folder + "/" if folder else ""
            inputs = tuple(f for f in files if f.startswith(prefix) and not f.endswith(".vgf"))
            jobs.append(DiscoveredJob(folder or "capture", self.name, inputs))
        return jobs


def _split(path: str) -> tuple[str, str]:
    folder, _, name = path.rpartition("/")
    return folder, name
