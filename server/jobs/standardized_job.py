"""The ``standardized`` job type: a standardized output document (``mlia-output.json``,
``*.mlia.json``) loaded, post-processed and served. Cost: one JSON parse and one
post-processing per new content (memoized by content hash and settings).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.errors import InputError, Problem
from perfline.server.jobs.context import (
    DiscoveredJob,
    JobContext,
    is_processed,
    read_standardized,
)
from perfline.server.jobs.stage_memo import FINAL_STAGE_KEEP


class StandardizedOutputJob:
    """``mlia-output.json`` / ``*.mlia.json``: load, post-process, serve.

    A document that already holds derived ``code_line`` entities was persisted
    after post-processing; it is served unchanged (post-processing is not
    idempotent).
    """

    name = "standardized"
    description = "a standardized output document (mlia-output.json, *.mlia.json)"

    def run(self, context: JobContext) -> dict[str, Any]:
        if len(context.inputs) != 1:
            raise InputError(
                ", ".join(i.path for i in context.inputs) or None,
                "a standardized-output job takes exactly one input file",
            )
        item = context.inputs[0]

        def compute() -> dict[str, Any]:
            cache = None if context.fresh else context.read_cache
            document, forms = read_standardized(item, cache)
            if not isinstance(document, dict):
                raise InputError(item.path, Problem("$", "expected a JSON object at the top level"))
            if is_processed(document):
                # served as the file writes it (the reader may have put breakdowns in
                # canonical key order for the pipeline)
                return document if forms is None else forms.document_as_written(document)
            context.check_cancelled()
            processed = context.postprocess(document, item.path, forms)
            context.retire(document)
            return processed

        result: dict[str, Any] = context.memo.get_or_compute(
            "standardized",
            (item.digest, context.settings_key()),
            compute,
            refresh=context.fresh,
            keep=FINAL_STAGE_KEEP,
        )
        return result

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        jobs = []
        for path in files:
            base = _basename(path)
            if base == "mlia-output.json" or base.endswith(".mlia.json"):
                jobs.append(DiscoveredJob(_job_name(path), self.name, (path,)))
        return jobs


def _job_name(path: str) -> str:
    base = _basename(path)
    stem = base[: -len(".mlia.json")] if base.endswith(".mlia.json") else base.split(".", 1)[0]
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return f"{folder}/{stem}" if folder else stem


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]
