"""The measured-profiling branch of ``perfline analyze``.

``perfline analyze MODEL.etrecord RUN.etdump [--companion-model M.pte] [--method NAME]``
(the ETDump may also be given as ``--profiling-data RUN.etdump``) and
``perfline analyze [MODEL.vgf] --profiling-data CAPTURE_DIR|DISPATCH_DIR ...``.
``analyze.py`` calls ``wants_measured`` to decide, then ``run_measured``; this
module also exposes a stand-alone ``command`` with the same options.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli.common import (
    collapse_options,
    emit,
    guarded,
    pipeline_settings,
    write_output,
)
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


@click.command("analyze-measured")
@click.argument("inputs", nargs=-1, metavar="[MODEL.etrecord RUN.etdump | MODEL.vgf]")
@click.option(
    "--profiling-data",
    "profiling_data",
    multiple=True,
    metavar="PATH",
    help="An ETDump, or a structured capture root or dispatch folder (repeatable).",
)
@click.option("--method", default=None, help="The ETRecord method to analyse.")
@click.option(
    "--companion-model",
    default=None,
    metavar="MODEL.pte",
    help="The deployed .pte (recorded as the model identity).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the processed document as JSON.")
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where mlia-output/mlia-output.json is written (default: current folder).",
)
@collapse_options
@guarded
def command(
    inputs: tuple[str, ...],
    profiling_data: tuple[str, ...],
    method: str | None,
    companion_model: str | None,
    as_json: bool,
    output_dir: str | None,
    collapse: tuple[str, ...],
    no_default_collapse: bool,
) -> None:
    """Analyse measured profiling data (ETRecord/ETDump or a structured capture)."""
    processed = run_measured(
        inputs,
        profiling_data=profiling_data,
        method=method,
        companion_model=companion_model,
        settings=pipeline_settings(collapse, no_default_collapse),
        cli_arguments=["analyze", *inputs, *(f"--profiling-data={p}" for p in profiling_data)],
    )
    write_output(processed, output_dir)
    emit(processed, as_json)
