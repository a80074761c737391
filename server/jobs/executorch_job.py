"""The ``executorch`` job type: an ETRecord and an ETDump (by convention ``X.etrecord`` +
``X.etdump`` in one folder; option ``method``) -> the measured result. The readers and the
mapping to entities are ``perfline.core.backends.executorch``. Cost: one decode per new
content of either file, then the post-processing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError
from perfline.server.jobs.context import DiscoveredJob, JobContext
from perfline.server.jobs.two_stage import processed_stage

ETRECORD_SUFFIXES = (".etrecord",)
ETDUMP_SUFFIXES = (".etdump", ".etdp")


class ExecuTorchJob:
    """ETRecord + ETDump -> the measured result."""

    name = "executorch"
    description = "an ExecuTorch ETRecord and ETDump pair (measured)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.core.backends.executorch.document import analyze_etdump
        from perfline.core.backends.source_model.inputs import InputFile

        records = [i for i in context.inputs if i.path.endswith((*ETRECORD_SUFFIXES, ".bin"))]
        dumps = [i for i in context.inputs if i.path.endswith(ETDUMP_SUFFIXES)]
        where = ", ".join(i.path for i in context.inputs) or None
        if len(records) != 1 or len(dumps) != 1:
            raise InputError(where, "an executorch job takes one ETRecord and one ETDump")
        method = context.options.get("method")
        if method is not None and not isinstance(method, str):
            raise InputError(where, "option 'method' must be a string")
        record, dump = records[0], dumps[0]
        timestamp = iso_timestamp(max(record.mtime, dump.mtime))

        def raw() -> dict[str, Any]:
            document: dict[str, Any] = analyze_etdump(
                InputFile(record.path, record.data),
                InputFile(dump.path, dump.data),
                timestamp=timestamp,
                method=method,
            )
            return document

        key = (record.path, record.digest, dump.path, dump.digest, method, timestamp)
        return processed_stage(context, "executorch", key, raw, dump.path)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        present = set(files)
        jobs = []
        for path in files:
            if not path.endswith(ETRECORD_SUFFIXES):
                continue
            stem = path.rsplit(".", 1)[0]
            for suffix in ETDUMP_SUFFIXES:
                if stem + suffix in present:
                    jobs.append(DiscoveredJob(stem, self.name, (path, stem + suffix)))
                    break
        return jobs
