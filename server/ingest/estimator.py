"""The NX estimator's I/O edge: finding, reading and producing estimator outputs.

Used by ``perfline analyze`` and the daemon. It reads the model (VGF; TOSA is
first converted with ``model-converter``), finds or produces the estimator's
``<name>_performance_database.dat``, ``<name>_debug_database.dat`` and
``<name>_network_performance_summary.json`` per graph segment, hands the bytes
to the pure readers of ``perfline.core.backends.nx_estimator`` and wraps the
result in a document (timestamp = newest input's modification time, run id
from the inputs' content hashes, so the same inputs give the same document).

This module builds the document; ``estimator_files`` finds the files and reads
the model's segments, ``estimator_tools`` runs the converter and the
estimator (their public names are re-exported here).

Security: the estimator and converter executables are only ever taken from
arguments the caller got from the command line or the user's settings --
never from a workspace file.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core.backends.nx_common.records import SegmentInput, SegmentSpirv
from perfline.core.backends.nx_common.segment_warnings import compute_segments_warning
from perfline.core.backends.nx_estimator import PRODUCER
from perfline.core.backends.nx_estimator.advice import Convolution
from perfline.core.backends.nx_estimator.compatibility import build_compatibility_result
from perfline.core.backends.nx_estimator.debug_db import read_debug_database
from perfline.core.backends.nx_estimator.performance_db import read_performance_database
from perfline.core.backends.nx_estimator.result import EstimatedSegment, build_performance_result
from perfline.core.backends.nx_estimator.spirv_convolutions import segment_convolutions
from perfline.core.backends.nx_estimator.statistics import performance_statistics
from perfline.core.backends.nx_estimator.summary import read_summary
from perfline.core.backends.nx_estimator.tosa_identity import rename_entities, tosa_id_map
from perfline.core.envelope import build_document, iso_timestamp, model_info, run_id_for
from perfline.core.errors import InputError
from perfline.core.formats.tosa import tosa_operators
from perfline.core.formats.vgf import SegmentGraph
from perfline.server.file_access import Root, write_text
from perfline.server.ingest.estimator_files import (
    DEBUG_SUFFIX,
    ESTIMATOR_FOLDER,
    PERFORMANCE_SUFFIX,
    SUMMARY_SUFFIX,
    TOSA_SUFFIXES,
    VGF_SUFFIXES,
    EstimatorInputs,
    ModelSegments,
    OutputSet,
    classify_inputs,
    is_estimator_output,
    is_model,
    is_tosa,
    model_segments,
    read_file,
    run_name,
)
from perfline.server.ingest.estimator_tools import (
    CONVERTER_FOLDER,
    SEGMENTS_FOLDER,
    ToolError,
    convert_tosa,
    run_estimator,
)

__all__ = [
    "CONVERTER_FOLDER",
    "DEBUG_SUFFIX",
    "ESTIMATOR_FOLDER",
    "PERFORMANCE_SUFFIX",
    "SEGMENTS_FOLDER",
    "STATISTICS_FILE",
    "SUMMARY_SUFFIX",
    "TOSA_SUFFIXES",
    "VGF_SUFFIXES",
    "Analysis",
    "EstimatorInputs",
    "ModelSegments",
    "OutputSet",
    "ToolError",
    "analyze_outputs",
    "classify_inputs",
    "convert_tosa",
    "is_estimator_output",
    "is_model",
    "model_segments",
    "run_estimator",
    "run_name",
    "write_statistics",
]

STATISTICS_FILE = "nx_performance_statistics.json"
_SEGMENT_NAME = re.compile(r"_segment_(\d+)$")


@dataclass(frozen=True)
class Analysis:
    """The raw (not yet post-processed) document and the statistics file content."""

    document: dict[str, Any]
    statistics: dict[str, Any] | None


def _match_segments(
    model: Path | None, segments: ModelSegments, outputs: Sequence[OutputSet]
) -> list[tuple[OutputSet, int, str, SegmentGraph | None]]:
    """Pair each output set with a segment index, name and (with a VGF) its graph."""
    if not outputs:
        raise InputError(
            str(model) if model else "perfline analyze",
            "no estimator outputs given: pass *_performance_database.dat and "
            "*_debug_database.dat (or a folder), or run the estimator with --estimator PATH",
        )
    if not segments.graphs:
        pairs: list[tuple[OutputSet, int, str, SegmentGraph | None]] = []
        for position, output in enumerate(sorted(outputs, key=lambda o: o.name)):
            match = _SEGMENT_NAME.search(output.name)
            index = int(match.group(1)) if match else position
            pairs.append((output, index, f"segment_{index}", None))
        indexes = [index for _, index, _, _ in pairs]
        if len(set(indexes)) != len(indexes):
            raise InputError("perfline analyze", "two estimator runs claim the same segment index")
        return sorted(pairs, key=lambda pair: pair[1])
    assert model is not None
    by_index = {graph.index: graph for graph in segments.graphs}
    if len(segments.graphs) == 1 and len(outputs) == 1:
        only = segments.graphs[0]
        return [(outputs[0], only.index, only.name, only)]
    pairs = []
    for output in outputs:
        match = _SEGMENT_NAME.search(output.name)
        graph = by_index.get(int(match.group(1))) if match else None
        if graph is None:
            raise InputError(
                str(output.performance),
                f"cannot tell which graph segment of {model.name} this estimator run belongs to "
                f"(expected a name ending in _segment_<i> with i in {sorted(by_index)})",
            )
        pairs.append((output, graph.index, graph.name, graph))
    missing = sorted(set(by_index) - {index for _, index, _, _ in pairs})
    if missing:
        raise InputError(
            str(model),
            f"no estimator outputs for graph segment(s) {', '.join(map(str, missing))}",
        )
    return sorted(pairs, key=lambda pair: pair[1])


def analyze_outputs(
    model: Path | None,
    outputs: Sequence[OutputSet],
    *,
    performance: bool = True,
    compatibility: bool = False,
    system_config: str = "default",
    compiler_config: str = "default",
    source_model: Path | None = None,
    converter_used: bool = False,
    cli_arguments: Sequence[str] = (),
) -> Analysis:
    """Build the raw document from existing estimator outputs (and the VGF, if given).

    ``source_model`` is the user's model when ``model`` is a VGF converted from it
    (the document's ``model`` then describes the user's file).
    """
    segments = model_segments(model)
    hashes: list[str] = []
    mtimes: list[float] = []
    inputs, estimated, convolutions = _read_outputs(model, segments, outputs, hashes, mtimes)
    model_bytes = read_file(model, hashes, mtimes) if model is not None else None
    source_bytes = read_file(source_model, hashes, mtimes) if source_model is not None else None
    renames = _tosa_renames(segments, source_model, source_bytes)
    results: list[dict[str, Any]] = []
    statistics: dict[str, Any] | None = None
    if compatibility:
        compute_warning = compute_segments_warning(segments.compute_names)
        warnings = [compute_warning] if compute_warning else []
        results.append(
            rename_entities(build_compatibility_result(inputs, warnings=warnings), renames)
        )
    if performance:
        outcome = build_performance_result(
            estimated,
            skipped_compute_segments=segments.compute_names,
            convolutions=convolutions,
        )
        results.append(rename_entities(outcome.result, renames))
        statistics = performance_statistics(outcome.view, inputs, renames)
    model_record, notes = _model_record(model, model_bytes, source_model, source_bytes, outputs)
    context: dict[str, Any] = {"cli_arguments": list(cli_arguments)}
    if notes:
        context["notes"] = notes
    document = build_document(
        results=results,
        model=model_record,
        target=_target(system_config),
        backends=_backends(system_config, compiler_config, converter_used),
        timestamp=iso_timestamp(max(mtimes)),
        run_id=run_id_for(hashes),
        context=context,
    )
    return Analysis(document, statistics)


def _tosa_renames(
    segments: Any, source_model: Path | None, source_bytes: bytes | None
) -> dict[str, str]:
    """VGF operator id -> TOSA identity, when the user's model is the TOSA it came from."""
    renames: dict[str, str] = {}
    if source_model is not None and source_bytes is not None and is_tosa(source_model):
        locations = [
            (operator.id, operator.label)
            for operator in tosa_operators(source_bytes, str(source_model))
        ]
        for graph in segments.graphs:
            renames.update(tosa_id_map(graph.index, graph.debug_names, locations))
    return renames


def _read_outputs(
    model: Path | None,
    segments: Any,
    outputs: Sequence[OutputSet],
    hashes: list[str],
    mtimes: list[float],
) -> tuple[list[SegmentInput], list[EstimatedSegment], list[Convolution]]:
    """Each output set read and matched with its model segment."""
    inputs: list[SegmentInput] = []
    estimated: list[EstimatedSegment] = []
    convolutions: list[Convolution] = []
    for output, index, name, graph in _match_segments(model, segments, outputs):
        perf_bytes = read_file(output.performance, hashes, mtimes)
        debug_bytes = read_file(output.debug, hashes, mtimes)
        stripes = read_performance_database(str(output.performance), perf_bytes).stripes
        links = read_debug_database(str(output.debug), debug_bytes).links
        summary = None
        if output.summary is not None:
            summary = read_summary(str(output.summary), read_file(output.summary, hashes, mtimes))
        spirv = None
        if graph is not None and graph.spirv is not None:
            spirv = SegmentSpirv.of_module(graph.spirv)
            convolutions.extend(
                segment_convolutions(index, graph.module.spirv_words, graph.spirv.operations)
            )
        segment = SegmentInput(
            index, name, stripes, links, spirv, str(output.debug), str(model) if model else None
        )
        inputs.append(segment)
        estimated.append(EstimatedSegment(segment, summary, output.summary_name))
    return inputs, estimated, convolutions


def _model_record(
    model: Path | None,
    model_bytes: bytes | None,
    source_model: Path | None,
    source_bytes: bytes | None,
    outputs: Sequence[OutputSet],
) -> tuple[Any, str | None]:
    """The document's ``model`` record and the note that says where it comes from."""
    if model is None:
        record = model_info(outputs[0].name, "unknown", read_file(outputs[0].debug))
        return record, (
            "No model file was supplied: model.hash is the SHA-256 of the debug database "
            f"{outputs[0].debug.name}."
        )
    if source_model is not None and source_bytes is not None:
        record = model_info(source_model.name, _model_format(source_model), source_bytes)
        return record, (
            f"The model was converted to {model.name} for the NX estimator; operators whose "
            "location matches exactly one TOSA operator use its TOSA identity, the others "
            "their identity in that VGF."
        )
    assert model_bytes is not None
    return model_info(model.name, _model_format(model), model_bytes), None


def write_statistics(output_dir: Path, statistics: dict[str, Any]) -> Path:
    """Write ``<output_dir>/nx_performance_statistics.json`` (``output_dir``: the folder a
    person named, made if missing; the file never written through a link)."""
    text = json.dumps(statistics, indent=4) + "\n"
    return write_text(STATISTICS_FILE, text, root=Root(output_dir), parents=True)


def _model_format(model: Path) -> str:
    name = model.name.lower()
    if name.endswith(".tosa.mlir"):
        return "tosamlir"
    return model.suffix.lower().lstrip(".")


def _config_stem(value: str) -> str:
    return "default" if value == "default" else Path(value).stem


def _target(system_config: str) -> dict[str, Any]:
    return {
        "profile_name": "neural-technology",
        "target_type": "neural-technology",
        "components": [
            {"type": "gpu", "family": "mali", "model": "nx", "variant": _config_stem(system_config)}
        ],
        "configuration": {},
        "description": "Neural Accelerator (NX) performance estimation",
    }


def _backends(
    system_config: str, compiler_config: str, converter_used: bool
) -> list[dict[str, Any]]:
    backends: list[dict[str, Any]] = []
    if converter_used:
        backends.append(
            {
                "id": "ml-sdk-model-converter",
                "name": "ML SDK Model Converter",
                "version": "unknown",
                "configuration": {"emit_debug_info": True},
            }
        )
    backends.append(
        {
            "id": PRODUCER,
            "name": "Neural Accelerator (NX) Performance Estimator",
            "version": "unknown",
            "configuration": {
                "system_config": _config_stem(system_config),
                "compiler_config": _config_stem(compiler_config),
            },
        }
    )
    return backends
