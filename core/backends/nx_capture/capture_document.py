"""The standardized document of a structured-capture analysis (pure).

The I/O edge reads and validates the capture and hands over, per selected
dispatch, the decoded segment; this module adds the metadata: backend
``neural-technology-profiling-data`` with the capture device, its generation,
mode, capture root, statistics files, debug databases and selected
dispatches; ``context.runtime_configuration.profiling_data`` = the selected
dispatch folders; the model is the VGF, or (capture only) the pipeline's
SPIR-V module (format ``spv``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.backends.nx_capture.result import PRODUCER, measured_nx_result
from perfline.core.backends.nx_common.records import SegmentInput
from perfline.core.envelope import build_document, model_info, run_id_for


@dataclass(frozen=True)
class CaptureFacts:
    """What the result metadata records about the capture and the selection."""

    capture_root: str
    device_name: str
    generation: str
    vendor_id: int
    device_id: int
    mode: int
    counter_layout: str
    statistics_files: tuple[str, ...]
    debug_database_files: tuple[str, ...]
    dispatch_folders: tuple[str, ...]
    warnings: tuple[str, ...]


def capture_document(
    segments: Sequence[SegmentInput],
    facts: CaptureFacts,
    *,
    model_name: str,
    model_format: str,
    model_bytes: bytes,
    content_hashes: Sequence[str],
    timestamp: str,
    skipped_compute_segments: Sequence[str] = (),
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """The complete (not yet post-processed) measured document."""
    result, _ = measured_nx_result(
        segments, warnings=facts.warnings, skipped_compute_segments=skipped_compute_segments
    )
    backend = {
        "id": PRODUCER,
        "name": "Neural Technology Profiling Data",
        "version": "experimental",
        "configuration": {
            "device": facts.device_name,
            "profiling_device": facts.generation,
            "vendor_id": facts.vendor_id,
            "device_id": facts.device_id,
            "mode": facts.mode,
            "counter_layout": facts.counter_layout,
            "capture_root": facts.capture_root,
            "statistics_files": list(facts.statistics_files),
            "debug_database_files": list(facts.debug_database_files),
            "selected_dispatches": list(facts.dispatch_folders),
        },
    }
    context: dict[str, Any] = {
        "runtime_configuration": {"profiling_data": list(facts.dispatch_folders)}
    }
    if cli_arguments:
        context["cli_arguments"] = list(cli_arguments)
    return build_document(
        results=[result],
        model=model_info(model_name, model_format, model_bytes),
        target={
            "profile_name": "neural-technology",
            "target_type": "neural-technology",
            "components": [
                {"type": "gpu", "family": "mali", "model": "nx", "variant": facts.generation}
            ],
            "configuration": {},
            "description": "Neural Technology measured profiling data",
        },
        backends=[backend],
        timestamp=timestamp,
        run_id=run_id_for(content_hashes),
        context=context,
    )
