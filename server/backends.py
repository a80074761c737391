"""Job types of the measured and estimated backends, registered into ``jobtypes.REGISTRY``.

* ``executorch``: an ETRecord and an ETDump (by convention ``X.etrecord`` +
  ``X.etdump`` in one folder; option ``method``). The ETRecord/ETDump readers
  and the mapping to entities are ``perfline.core.backends.executorch``.
* ``nx-estimator``: an NX estimator output triple
  (``<name>_performance_database.dat``, ``<name>_debug_database.dat``,
  optional ``<name>_network_performance_summary.json``) plus the model
  (``.vgf``/``.tosa``) of that stem if present. Reading goes through
  ``perfline.server.ingest.estimator`` (which never runs a program when
  given existing outputs).

* ``capture``: a structured capture folder (the folder holding ``capture.json``; every
  file below it is an input, so any change reruns the job), with an optional ``.vgf``
  model among the inputs. Reading goes through ``perfline.server.ingest.capture``.

All memoize their raw document by the inputs' content hashes and options,
and the post-processed one by that plus the pipeline settings (keeping at most
``RAW_STAGE_KEEP`` and ``FINAL_STAGE_KEEP`` of them per stage: superseded
versions are only worth keeping for an edit undone).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError
from perfline.server.jobtypes import (
    FINAL_STAGE_KEEP,
    RAW_STAGE_KEEP,
    DiscoveredJob,
    JobContext,
    register,
)

ETRECORD_SUFFIXES = (".etrecord",)
ETDUMP_SUFFIXES = (".etdump", ".etdp")
PERFORMANCE_SUFFIX = "_performance_database.dat"
DEBUG_SUFFIX = "_debug_database.dat"
SUMMARY_SUFFIX = "_network_performance_summary.json"
MODEL_SUFFIXES = (".vgf", ".tosa")


def _processed(
    context: JobContext,
    stage: str,
    key: tuple[Any, ...],
    raw: Callable[[], dict[str, Any]],
    source: str | None,
) -> dict[str, Any]:
    """The raw document memoized by ``key``, then post-processed (memoized with the settings)."""
    document = context.memo.get_or_compute(
        f"{stage}.raw", key, raw, refresh=context.fresh, keep=RAW_STAGE_KEEP
    )
    context.check_cancelled()
    processed: dict[str, Any] = context.memo.get_or_compute(
        f"{stage}.processed",
        (*key, context.settings_key()),
        lambda: context.postprocess(document, source),
        refresh=context.fresh,
        keep=FINAL_STAGE_KEEP,
    )
    return processed


def _options_key(options: Any) -> str:
    return json.dumps(options, sort_keys=True, default=str)


def _split(path: str) -> tuple[str, str]:
    folder, _, name = path.rpartition("/")
    return folder, name


class ExecuTorchJob:
    """ETRecord + ETDump -> the measured result."""

    name = "executorch"
    description = "an ExecuTorch ETRecord and ETDump pair (measured)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.core.backends.executorch.document import InputFile, analyze_etdump

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
        return _processed(context, "executorch", key, raw, dump.path)

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


class EstimatorJob:
    """NX estimator outputs (+ model) -> the estimated result."""

    name = "nx-estimator"
    description = "NX performance estimator outputs (with the .vgf/.tosa model if present)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.server.ingest import estimator

        models = [Path(i.absolute) for i in context.inputs if i.path.endswith(MODEL_SUFFIXES)]
        outputs = [Path(i.absolute) for i in context.inputs if not i.path.endswith(MODEL_SUFFIXES)]
        where = ", ".join(i.path for i in context.inputs) or None
        if len(models) > 1:
            raise InputError(where, "an nx-estimator job takes at most one model (.vgf or .tosa)")
        if models and models[0].name.endswith(".tosa"):
            # Converting TOSA would run the converter: never from a workspace file.
            models = []
        key = (*((i.absolute, i.digest) for i in context.inputs), _options_key(context.options))

        def raw() -> dict[str, Any]:
            classified = estimator.classify_inputs(outputs)
            analysis = estimator.analyze_outputs(
                models[0] if models else None,
                classified.outputs,
                performance=bool(context.options.get("performance", True)),
                compatibility=bool(context.options.get("compatibility", False)),
            )
            return analysis.document

        return _processed(context, "nx-estimator", key, raw, where)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        present = set(files)
        jobs = []
        for path in files:
            if not path.endswith(PERFORMANCE_SUFFIX):
                continue
            prefix = path[: -len(PERFORMANCE_SUFFIX)]
            if prefix + DEBUG_SUFFIX not in present:
                continue
            inputs = [path, prefix + DEBUG_SUFFIX]
            if prefix + SUMMARY_SUFFIX in present:
                inputs.append(prefix + SUMMARY_SUFFIX)
            for suffix in MODEL_SUFFIXES:
                if prefix + suffix in present:
                    inputs.append(prefix + suffix)
                    break
            jobs.append(DiscoveredJob(prefix, self.name, tuple(inputs)))
        return jobs


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

        return _processed(context, "capture", key, raw, where)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        jobs = []
        for path in files:
            folder, name = _split(path)
            if name != "capture.json":
                continue
            prefix = folder + "/" if folder else ""
            inputs = tuple(f for f in files if f.startswith(prefix) and not f.endswith(".vgf"))
            jobs.append(DiscoveredJob(folder or "capture", self.name, inputs))
        return jobs


register(ExecuTorchJob())
register(CaptureJob())
register(EstimatorJob())

# The ONNX Runtime and static-cost job types live in their own modules; importing them registers
# them (the same import side effect as above).
from perfline.server import jobtype_onnxruntime, jobtype_static  # noqa: E402, F401
