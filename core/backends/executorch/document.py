"""The standardized document of an ETRecord/ETDump analysis (pure).

The caller (the I/O edge) passes the file contents, their display paths and
the timestamp; the run id is derived from the inputs' content hashes. The
model is the companion ``.pte`` when given, else the ETRecord. The target and
the backend's name say what executed the method (``what_ran``: the delegates
and CPU kernels the data shows). Backend and runtime metadata record the input
paths, the selected method and the event policy (which event was counted per
operator, skipped nested events); the per-run durations go to
``extensions.perfline.run_samples`` (``result``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import PurePath
from typing import Any

from perfline.core.backends.executorch.etdump import read_etdump
from perfline.core.backends.executorch.etrecord import read_etrecord
from perfline.core.backends.executorch.events import Timeline, build_timeline
from perfline.core.backends.executorch.result import (
    PRODUCER,
    build_runtime_result,
    select_method,
)
from perfline.core.backends.executorch.vgf_statistics import decode_payload
from perfline.core.backends.executorch.vgf_view import VgfView, vgf_view
from perfline.core.backends.nx_common.records import SegmentSpirv
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.compare.run_samples import with_run_samples
from perfline.core.envelope import build_document, model_info, run_id_for, sha256_hex
from perfline.core.formats.vgf import VGF_MAGIC, read_segments


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
    vgf, vgf_configuration = _vgf_statistics(timeline, etdump.path, companion_model, warnings)
    runtime = build_runtime_result(
        record,
        timeline,
        selected,
        etdump_source=etdump.path,
        etrecord_source=etrecord.path,
        extra_warnings=warnings,
        vgf=vgf,
        vgf_configuration=vgf_configuration,
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
    ran = runtime.ran
    if vgf is not None and vgf_configuration is not None:
        ran = replace(ran, nx_device=str(vgf_configuration.get("profiling_device")))
    backend = {
        "id": PRODUCER,
        "name": f"ExecuTorch {ran.label}",
        "version": "unknown",
        "configuration": {"inputs": paths, **runtime.configuration},
    }
    context: dict[str, Any] = {
        "runtime_configuration": {"profiling_data": [etdump.path], "method": selected, **paths}
    }
    if cli_arguments:
        context["cli_arguments"] = list(cli_arguments)
    document = build_document(
        results=[runtime.result],
        model=model_info(model_name, model_format, model_file.data),
        target=ran.target(),
        backends=[backend],
        timestamp=timestamp,
        run_id=run_id_for(sha256_hex(item.data) for item in inputs),
        context=context,
    )
    return with_run_samples(document, [runtime.run_samples], [runtime.result_run_samples])


def _vgf_statistics(
    timeline: Timeline,
    source: str,
    companion_model: InputFile | None,
    warnings: list[str],
) -> tuple[VgfView | None, dict[str, Any] | None]:
    """Decode the first ``VGF_NEURAL_STATISTICS`` payload, with SPIR-V from the companion .pte."""
    if not timeline.vgf_payloads:
        return None, None
    spirv: dict[int, SegmentSpirv] = {}
    names: dict[int, str] = {}
    companion_vgf = None
    if companion_model is not None:
        start = companion_model.data.find(VGF_MAGIC)
        if start >= 0:
            for graph in read_segments(companion_model.data[start:], companion_model.path):
                names[graph.index] = graph.name
                if graph.spirv is not None:
                    spirv[graph.index] = SegmentSpirv.of_module(graph.spirv)
            companion_vgf = f"{companion_model.path} (VGF at byte {start})"
        else:
            warnings.append(
                f"The companion model {companion_model.path} holds no VGF payload; VGF source "
                "operators cannot be named."
            )
    first = timeline.vgf_payloads[0]
    where = f"run_data[{first.run_index}].events[{first.event_index}].delegate_debug_metadata"
    decoded = decode_payload(
        first.data,
        source=source,
        where=where,
        spirv=spirv,
        segment_names=names,
        operations_source=companion_vgf,
    )
    warnings.extend(decoded.warnings)
    configuration: dict[str, Any] = {
        **decoded.settings.describe(),
        "payload_events": len(timeline.vgf_payloads),
        "decoded_payload": where,
        "spirv_source": companion_vgf,
    }
    if len(timeline.vgf_payloads) > 1:
        warnings.append(
            f"{len(timeline.vgf_payloads)} VGF_NEURAL_STATISTICS payloads recorded; the first "
            f"({where}) is decoded."
        )
    if not decoded.segments:
        return None, configuration
    view = vgf_view(decoded)
    warnings.extend(view.warnings)
    return view, configuration
