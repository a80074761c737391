"""The standardized document of an ETRecord/ETDump analysis (pure).

The caller (the I/O edge) passes the file contents, their display paths and
the timestamp; the run id is derived from the inputs' content hashes. The
model is the companion ``.pte`` when given, else the ETRecord. Backend and
runtime metadata record the input paths, the selected method and the event
policy (which event was counted per operator, skipped nested events).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import Any

from perfline.core.backends.executorch.etdump import read_etdump
from perfline.core.backends.executorch.etrecord import read_etrecord
from perfline.core.backends.executorch.events import build_timeline
from perfline.core.backends.executorch.result import (
    PRODUCER,
    build_runtime_result,
    select_method,
)
from perfline.core.envelope import build_document, model_info, run_id_for, sha256_hex


@dataclass(frozen=True)
class InputFile:
    """One input: the path as the user gave it, and its bytes."""

    path: str
    data: bytes


def analyze_etdump(
    etrecord: InputFile,
    etdump: InputFile,
    *,
    timestamp: str,
    method: str | None = None,
    companion_model: InputFile | None = None,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """The complete (not yet post-processed) document for one ETRecord/ETDump pair."""
    record = read_etrecord(etrecord.data, etrecord.path)
    dump = read_etdump(etdump.data, etdump.path)
    selected = select_method(record, method, etrecord.path)
    timeline = build_timeline(dump)
    warnings: list[str] = []
    if companion_model is not None:
        warnings.append(
            "The companion model is used as the model identity only; its delegate payloads "
            "are not read."
        )
    runtime = build_runtime_result(
        record, timeline, selected, etdump_source=etdump.path, extra_warnings=warnings
    )
    inputs = [etrecord, etdump] + ([companion_model] if companion_model else [])
    model_file = companion_model or etrecord
    model_name = PurePath(model_file.path).name
    model_format = PurePath(model_file.path).suffix.lstrip(".") or "etrecord"
    paths = {
        "etrecord": etrecord.path,
        "etdump": etdump.path,
        **({"companion_model": companion_model.path} if companion_model else {}),
    }
    backend = {
        "id": PRODUCER,
        "name": "Neural Technology Profiling Data",
        "version": "experimental",
        "configuration": {"inputs": paths, **runtime.configuration},
    }
    context: dict[str, Any] = {
        "runtime_configuration": {"profiling_data": [etdump.path], "method": selected, **paths}
    }
    if cli_arguments:
        context["cli_arguments"] = list(cli_arguments)
    return build_document(
        results=[runtime.result],
        model=model_info(model_name, model_format, model_file.data),
        target={
            "profile_name": "neural-technology",
            "target_type": "neural-technology",
            "components": [{"type": "cpu", "family": "executorch"}],
            "configuration": {},
            "description": "Neural Technology measured profiling data",
        },
        backends=[backend],
        timestamp=timestamp,
        run_id=run_id_for(sha256_hex(item.data) for item in inputs),
        context=context,
    )
