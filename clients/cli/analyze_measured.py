"""The measured-profiling branch of ``perfline analyze``.

``perfline analyze MODEL.etrecord RUN.etdump [--companion-model M.pte] [--method NAME]``
(the ETDump may also be given as ``--profiling-data RUN.etdump``) and
``perfline analyze [MODEL.vgf] --profiling-data CAPTURE_DIR|DISPATCH_DIR ...``.
``analyze.py`` calls ``wants_measured`` to decide, then ``run_measured``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.server.ingest.executorch import (
    ETDUMP_SUFFIXES,
    ETRECORD_SUFFIXES,
    load_etdump_document,
)


def wants_measured(inputs: Sequence[str], profiling_data: Sequence[str]) -> bool:
    """Whether the invocation is for the measured backend (ETRecord/ETDump or a capture)."""
    suffixes = {Path(item).suffix.lower() for item in (*inputs, *profiling_data)}
    return bool(profiling_data) or bool(suffixes & {".etrecord", ".etdump", ".etdp"})


def raw_measured_document(
    inputs: Sequence[str],
    *,
    profiling_data: Sequence[str] = (),
    method: str | None = None,
    companion_model: str | None = None,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """The measured document before post-processing."""
    files = [Path(item) for item in (*inputs, *profiling_data)]
    records = [f for f in files if f.suffix.lower() in ETRECORD_SUFFIXES]
    dumps = [f for f in files if f.suffix.lower() in ETDUMP_SUFFIXES]
    if records or dumps:
        others = [str(f) for f in files if f not in records and f not in dumps]
        if len(records) != 1 or len(dumps) != 1 or others:
            raise InputError(
                "perfline analyze",
                Problem(
                    "arguments",
                    "expected exactly one ETRecord (.etrecord/.bin) and one ETDump "
                    f"(.etdump/.etdp); got ETRecords {[str(r) for r in records]}, ETDumps "
                    f"{[str(d) for d in dumps]}, other inputs {others}",
                ),
            )
        return load_etdump_document(
            records[0],
            dumps[0],
            method=method,
            companion_model=Path(companion_model) if companion_model else None,
            cli_arguments=cli_arguments,
        )
    return _capture_document(inputs, profiling_data, cli_arguments)


def _capture_document(
    inputs: Sequence[str], profiling_data: Sequence[str], cli_arguments: Sequence[str]
) -> dict[str, Any]:
    from perfline.server.ingest.capture import load_capture_document

    if len(inputs) > 1:
        raise InputError(
            "perfline analyze",
            Problem("arguments", f"at most one model (.vgf) with --profiling-data; got {inputs}"),
        )
    return load_capture_document(
        [Path(item) for item in profiling_data],
        model=Path(inputs[0]) if inputs else None,
        cli_arguments=cli_arguments,
    )


def run_measured(
    inputs: Sequence[str],
    *,
    profiling_data: Sequence[str] = (),
    method: str | None = None,
    companion_model: str | None = None,
    settings: PipelineSettings | None = None,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """Build and post-process the measured document."""
    raw = raw_measured_document(
        inputs,
        profiling_data=profiling_data,
        method=method,
        companion_model=companion_model,
        cli_arguments=cli_arguments,
    )
    return postprocess(raw, settings or PipelineSettings(), source="measured result")
