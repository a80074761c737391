"""The NX estimator's I/O edge: finding, reading and producing estimator outputs.

Used by ``perfline analyze`` and the daemon. It reads the model (VGF; TOSA is
first converted with ``model-converter``), finds or produces the estimator's
``<name>_performance_database.dat``, ``<name>_debug_database.dat`` and
``<name>_network_performance_summary.json`` per graph segment, hands the bytes
to the pure readers of ``perfline.core.backends.nx_estimator`` and wraps the
result in a document (timestamp = newest input's modification time, run id
from the inputs' content hashes, so the same inputs give the same document).

Security: the estimator and converter executables are only ever taken from
arguments the caller got from the command line or the user's settings --
never from a workspace file.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
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
from perfline.core.backends.nx_estimator.vgf_checks import check_graph_shapes
from perfline.core.backends.nx_estimator.vgf_split import single_segment_vgf
from perfline.core.envelope import build_document, iso_timestamp, model_info, run_id_for, sha256_hex
from perfline.core.errors import InputError, Problem
from perfline.core.formats.tosa import tosa_operators
from perfline.core.formats.vgf import SegmentGraph, VgfFile, read_vgf, segment_graphs

PERFORMANCE_SUFFIX = "_performance_database.dat"
DEBUG_SUFFIX = "_debug_database.dat"
SUMMARY_SUFFIX = "_network_performance_summary.json"
VGF_SUFFIXES = (".vgf",)
TOSA_SUFFIXES = (".tosa", ".tosamlir", ".mlirbc", ".tosa.mlir")
ESTIMATOR_FOLDER = "nx-performance-estimator"
CONVERTER_FOLDER = "ml-sdk-model-converter"
SEGMENTS_FOLDER = "gcpe-vgf-segments"
STATISTICS_FILE = "nx_performance_statistics.json"
DEFAULT_TIMEOUT_SECONDS = 3600.0
_TAIL_LINES = 20
_SEGMENT_NAME = re.compile(r"_segment_(\d+)$")

Runner = Callable[..., "subprocess.CompletedProcess[str]"]


class ToolError(RuntimeError):
    """An external tool (estimator, converter) failed; the message quotes its output."""


@dataclass(frozen=True)
class OutputSet:
    """The files of one estimator run (``summary`` ``None`` when not supplied)."""

    name: str
    performance: Path
    debug: Path
    summary: Path | None

    @property
    def summary_name(self) -> str:
        return f"{self.name}{SUMMARY_SUFFIX}"


@dataclass(frozen=True)
class EstimatorInputs:
    """A model (optional) and the estimator output sets found among the inputs."""

    model: Path | None
    outputs: tuple[OutputSet, ...]


@dataclass(frozen=True)
class Analysis:
    """The raw (not yet post-processed) document and the statistics file content."""

    document: dict[str, Any]
    statistics: dict[str, Any] | None


def is_model(path: Path) -> bool:
    """Whether ``path`` names a model the estimator route accepts (VGF or TOSA)."""
    name = path.name.lower()
    return name.endswith(VGF_SUFFIXES) or name.endswith(TOSA_SUFFIXES)


def is_estimator_output(path: Path) -> bool:
    """Whether ``path`` is an estimator output file or a folder holding some."""
    if path.is_dir():
        return any(_output_kind(child) for child in _folder_files(path))
    return _output_kind(path) is not None


def classify_inputs(paths: Sequence[Path]) -> EstimatorInputs:
    """Sort the command-line inputs into a model and estimator output sets.

    A folder contributes the estimator files directly inside it (and inside an
    ``nx-performance-estimator`` sub-folder). Every set needs its performance
    and debug database; the summary is optional.
    """
    models: list[Path] = []
    files: list[Path] = []
    for path in paths:
        if path.is_dir():
            found = [child for child in _folder_files(path) if _output_kind(child)]
            if not found:
                raise InputError(
                    str(path),
                    "expected a folder holding *_performance_database.dat and "
                    "*_debug_database.dat files of the NX estimator",
                )
            files.extend(found)
        elif is_model(path):
            models.append(path)
        elif _output_kind(path):
            files.append(path)
        else:
            raise InputError(str(path), _UNRECOGNIZED)
    if len(models) > 1:
        raise InputError(
            "perfline analyze", f"expected at most one model, got {', '.join(map(str, models))}"
        )
    groups: dict[str, dict[str, Path]] = {}
    for file in files:
        kind = _output_kind(file)
        assert kind is not None
        name = file.name[: -len(kind)]
        group = groups.setdefault(name, {})
        if kind in group and group[kind].resolve() != file.resolve():
            raise InputError(
                str(file), f"a second {kind} file for estimator run '{name}' (also {group[kind]})"
            )
        group[kind] = file
    outputs: list[OutputSet] = []
    for name, group in groups.items():
        for kind in (PERFORMANCE_SUFFIX, DEBUG_SUFFIX):
            if kind not in group:
                present = next(iter(group.values()))
                raise InputError(
                    str(present.parent / f"{name}{kind}"),
                    f"missing: the estimator run '{name}' needs its {name}{kind} as well",
                )
        outputs.append(
            OutputSet(
                name, group[PERFORMANCE_SUFFIX], group[DEBUG_SUFFIX], group.get(SUMMARY_SUFFIX)
            )
        )
    return EstimatorInputs(models[0] if models else None, tuple(outputs))


_UNRECOGNIZED = (
    "unrecognized input: expected a model (.vgf, .tosa), estimator outputs "
    "(*_performance_database.dat, *_debug_database.dat, *_network_performance_summary.json) "
    "or a folder holding them"
)


def _output_kind(path: Path) -> str | None:
    for suffix in (PERFORMANCE_SUFFIX, DEBUG_SUFFIX, SUMMARY_SUFFIX):
        if path.name.endswith(suffix) and len(path.name) > len(suffix):
            return suffix
    return None


def _folder_files(folder: Path) -> list[Path]:
    found = sorted(p for p in folder.iterdir() if p.is_file())
    nested = folder / ESTIMATOR_FOLDER
    if nested.is_dir():
        found.extend(sorted(p for p in nested.iterdir() if p.is_file()))
    return found


# ---------------------------------------------------------------- model segments


@dataclass(frozen=True)
class ModelSegments:
    """The graph segments of a VGF (or none without a model) and the skipped compute ones."""

    graphs: tuple[SegmentGraph, ...]
    compute_names: tuple[str, ...]
    vgf: VgfFile | None = None
    data: bytes = b""


def model_segments(model: Path | None, *, check_shapes: bool = False) -> ModelSegments:
    """Read the VGF's segments; no model gives no segments.

    ``check_shapes`` (before running the estimator) rejects graph segments
    touching resources of unknown shape.
    """
    if model is None:
        return ModelSegments((), ())
    if not model.name.lower().endswith(VGF_SUFFIXES):
        raise InputError(str(model), "expected a .vgf model here (convert TOSA first)")
    data = _read(model)
    vgf = read_vgf(data, str(model))
    if check_shapes:
        check_graph_shapes(vgf, str(model))
    segments = segment_graphs(vgf, str(model))
    graphs: list[SegmentGraph] = []
    compute: list[str] = []
    for segment in segments:
        if segment.type == "GRAPH":
            graphs.append(segment)
        elif segment.type == "COMPUTE":
            compute.append(segment.name or f"segment_{segment.index}")
        else:
            raise InputError(
                str(model),
                Problem(f"segment {segment.index}", f"unsupported segment type {segment.type}"),
            )
    if not graphs:
        raise InputError(str(model), "no VGF graph segments found for NX estimation")
    return ModelSegments(tuple(graphs), tuple(compute), vgf, data)


def run_name(model: Path, segment: SegmentGraph, graph_count: int) -> str:
    """The estimator's ``-o`` name: the model stem with dots as underscores (+ segment)."""
    stem = model.name[: -len(".vgf")] if model.name.lower().endswith(".vgf") else model.stem
    base = stem.replace(".", "_")
    return f"{base}_segment_{segment.index}" if graph_count > 1 else base


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


# ---------------------------------------------------------------- analysis


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
    inputs: list[SegmentInput] = []
    estimated: list[EstimatedSegment] = []
    convolutions: list[Convolution] = []
    for output, index, name, graph in _match_segments(model, segments, outputs):
        perf_bytes = _read(output.performance, hashes, mtimes)
        debug_bytes = _read(output.debug, hashes, mtimes)
        stripes = read_performance_database(str(output.performance), perf_bytes).stripes
        links = read_debug_database(str(output.debug), debug_bytes).links
        summary = None
        if output.summary is not None:
            summary = read_summary(str(output.summary), _read(output.summary, hashes, mtimes))
        spirv = None
        if graph is not None and graph.spirv is not None:
            spirv = SegmentSpirv(graph.operation_ids, dict(graph.debug_names))
            convolutions.extend(
                segment_convolutions(index, graph.module.spirv_words, graph.spirv.operations)
            )
        segment = SegmentInput(index, name, stripes, links, spirv, str(output.debug))
        inputs.append(segment)
        estimated.append(EstimatedSegment(segment, summary, output.summary_name))
    model_bytes = _read(model, hashes, mtimes) if model is not None else None
    source_bytes = _read(source_model, hashes, mtimes) if source_model is not None else None
    renames: dict[str, str] = {}
    if source_model is not None and source_bytes is not None and _is_tosa(source_model):
        locations = [
            (operator.id, operator.label)
            for operator in tosa_operators(source_bytes, str(source_model))
        ]
        for graph in segments.graphs:
            renames.update(tosa_id_map(graph.index, graph.debug_names, locations))
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
        statistics = performance_statistics(outcome.view, renames)
    notes = None
    if model is None:
        model_record = model_info(outputs[0].name, "unknown", _read(outputs[0].debug))
        notes = (
            "No model file was supplied: model.hash is the SHA-256 of the debug database "
            f"{outputs[0].debug.name}."
        )
    elif source_model is not None and source_bytes is not None:
        model_record = model_info(source_model.name, _model_format(source_model), source_bytes)
        notes = (
            f"The model was converted to {model.name} for the NX estimator; operators whose "
            "location matches exactly one TOSA operator use its TOSA identity, the others "
            "their identity in that VGF."
        )
    else:
        assert model_bytes is not None
        model_record = model_info(model.name, _model_format(model), model_bytes)
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


def write_statistics(output_dir: Path, statistics: dict[str, Any]) -> Path:
    """Write ``<output_dir>/nx_performance_statistics.json``."""
    output_dir.mkdir(parents=True, exist_ok=True)
    target = output_dir / STATISTICS_FILE
    target.write_text(json.dumps(statistics, indent=4) + "\n", encoding="utf-8")
    return target


def _is_tosa(model: Path) -> bool:
    return model.name.lower().endswith(TOSA_SUFFIXES)


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


def _read(path: Path, hashes: list[str] | None = None, mtimes: list[float] | None = None) -> bytes:
    try:
        data = path.read_bytes()
        mtime = path.stat().st_mtime
    except FileNotFoundError:
        raise InputError(str(path), "no such file") from None
    except IsADirectoryError:
        raise InputError(str(path), "is a folder, expected a file") from None
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror}") from None
    if hashes is not None:
        hashes.append(sha256_hex(data))
    if mtimes is not None:
        mtimes.append(mtime)
    return data


# ---------------------------------------------------------------- running the tools


def convert_tosa(
    tosa: Path,
    output_dir: Path,
    *,
    converter: str | None = None,
    runner: Runner = subprocess.run,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> Path:
    """Convert a TOSA file to VGF with ``model-converter --emit-debug-info``."""
    executable = converter or shutil.which("model-converter")
    if executable is None:
        raise InputError(
            str(tosa),
            "TOSA input needs the model-converter of the ai-ml-sdk-model-converter package; "
            "it was not found on PATH",
        )
    folder = output_dir / CONVERTER_FOLDER
    folder.mkdir(parents=True, exist_ok=True)
    stem = tosa.name
    for suffix in TOSA_SUFFIXES:
        if stem.lower().endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    target = (folder / f"{stem}.vgf").resolve()
    command = [executable, "-i", str(tosa.resolve()), "-o", str(target), "--emit-debug-info"]
    _run_tool("model-converter", command, folder, runner, timeout, str(tosa))
    if not target.is_file():
        raise ToolError(f"Expected output file '{target}' of model-converter does not exist.")
    return target


def run_estimator(
    model: Path,
    output_dir: Path,
    *,
    estimator: Path,
    system_config: str = "default",
    compiler_config: str = "default",
    runner: Runner = subprocess.run,
    timeout: float = DEFAULT_TIMEOUT_SECONDS,
) -> tuple[OutputSet, ...]:
    """Run ``graph-compiler-performance-estimator`` once per graph segment of a VGF.

    ``estimator`` comes from the command line or the user's settings only. A VGF
    holding exactly one (graph) segment is passed as it is; otherwise each graph
    segment is written to ``gcpe-vgf-segments/<stem>_segment_<i>.vgf`` first (the
    estimator accepts single-segment files only) and compute segments are skipped.
    """
    if not estimator.is_file() or not os.access(estimator, os.X_OK):
        raise InputError(str(estimator), "expected the estimator executable (a runnable file)")
    segments = model_segments(model, check_shapes=True)
    assert segments.vgf is not None
    workdir = output_dir / ESTIMATOR_FOLDER
    workdir.mkdir(parents=True, exist_ok=True)
    single = len(segments.graphs) == 1 and not segments.compute_names
    outputs: list[OutputSet] = []
    for graph in segments.graphs:
        name = run_name(model, graph, len(segments.graphs))
        vgf_path = model.resolve()
        if not single:
            folder = output_dir / SEGMENTS_FOLDER
            folder.mkdir(parents=True, exist_ok=True)
            vgf_path = (folder / f"{run_name(model, graph, 2)}.vgf").resolve()
            vgf_path.write_bytes(
                single_segment_vgf(segments.data, segments.vgf, graph.index, str(model))
            )
        (workdir / name).mkdir(exist_ok=True)
        command = [str(estimator.resolve()), "-i", str(vgf_path), "-o", name]
        if system_config != "default":
            command += ["-s", str(Path(system_config).resolve())]
        if compiler_config != "default":
            command += ["-c", str(Path(compiler_config).resolve())]
        _run_tool(
            "Graph Compiler Performance Estimator", command, workdir, runner, timeout, str(vgf_path)
        )
        files = {
            suffix: workdir / f"{name}{suffix}"
            for suffix in (PERFORMANCE_SUFFIX, DEBUG_SUFFIX, SUMMARY_SUFFIX)
        }
        for path in files.values():
            if not path.is_file():
                raise ToolError(
                    f"Expected output file '{path}' of the NX Performance Estimator does not exist."
                )
        outputs.append(
            OutputSet(name, files[PERFORMANCE_SUFFIX], files[DEBUG_SUFFIX], files[SUMMARY_SUFFIX])
        )
    return tuple(outputs)


def _run_tool(
    title: str, command: list[str], cwd: Path, runner: Runner, timeout: float, subject: str
) -> None:
    try:
        completed = runner(
            command,
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
            timeout=timeout,
            check=False,
        )
    except subprocess.TimeoutExpired:
        raise ToolError(f"{title} did not finish within {timeout:g} s for '{subject}'.") from None
    except OSError as error:
        raise ToolError(f"{title} could not be started ({command[0]}): {error.strerror}") from None
    if completed.returncode != 0:
        lines = (completed.stdout or "").splitlines()[-_TAIL_LINES:]
        tail = "\n".join(lines) if lines else "No backend diagnostic was emitted."
        raise ToolError(
            f"{title} failed for '{subject}' (return code {completed.returncode}). "
            f"Last {len(lines)} lines of its output:\n{tail}"
            if lines
            else f"{title} failed for '{subject}' (return code {completed.returncode}). {tail}"
        )
