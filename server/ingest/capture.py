"""I/O edge of structured captures: find, check and read the files; decode in ``core``.

Accepts capture roots (a folder with ``capture.json``) or dispatch folders
(``<root>/pipeline_N/session_N/dispatch_N`` with ``dispatch.json``), all of
one capture. Rejects any symlink inside the capture, checks that every
referenced file exists as a regular file with its declared size, that every
dispatch input is referenced exactly once, and that ids are unique. The
timestamp is the newest modification time of the files read.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from perfline.core.backends.nx_capture.capture_document import CaptureFacts, capture_document
from perfline.core.backends.nx_capture.capture_json import (
    Artifact,
    CaptureDocument,
    PipelineDocument,
    read_capture_document,
    read_dispatch_document,
    read_pipeline_document,
    read_session_document,
)
from perfline.core.backends.nx_capture.selection import (
    CapturedDispatch,
    CapturedPipeline,
    GraphSegment,
    Selection,
    select_dispatches,
)
from perfline.core.backends.nx_common.counters import counter_layout, device_generation
from perfline.core.backends.nx_common.debug_database import debug_links
from perfline.core.backends.nx_common.records import SegmentInput, SegmentSpirv
from perfline.core.backends.nx_common.statistics_decoding import decode_statistics, stripe_rows
from perfline.core.backends.nx_common.statistics_info import read_statistics_info
from perfline.core.envelope import iso_timestamp, sha256_hex
from perfline.core.errors import InputError, Problem
from perfline.core.formats.spirv import parse_module
from perfline.core.formats.vgf import read_segments
from perfline.core.json_codec import limit_problem
from perfline.server.ingest.named_files import read_named

CAPTURE_FILE = "capture.json"
DISPATCH_FILE = "dispatch.json"
_DISPATCH_PATH = re.compile(r"^pipeline_\d{6}/session_\d{6}/dispatch_\d{6}$")


@dataclass
class _Reads:
    """Every file read: content hashes and modification times (for run id and timestamp)."""

    hashes: list[str]
    mtimes: list[float]

    def bytes(self, path: Path, what: str) -> bytes:
        read = read_named(path, what)
        self.hashes.append(sha256_hex(read.data))
        self.mtimes.append(read.mtime)
        return read.data

    def json(self, path: Path, what: str) -> Any:
        data = self.bytes(path, what)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError as error:
            raise InputError(str(path), Problem(f"byte {error.start}", "not UTF-8 text")) from None
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            raise InputError(
                str(path),
                Problem(f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}"),
            ) from None
        except (RecursionError, ValueError):  # nested too deeply, an integer too long
            raise InputError(str(path), limit_problem(text)) from None


@dataclass(frozen=True)
class _Pipeline:
    folder: Path
    document: PipelineDocument
    captured: CapturedPipeline


def load_capture_document(
    inputs: Sequence[Path],
    *,
    model: Path | None = None,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """The raw (not post-processed) measured document of the selected dispatches."""
    if not inputs:
        raise InputError("--profiling-data", "expected a capture root or dispatch folder")
    root, dispatch_inputs = _roots(inputs)
    _reject_symlinks(root)
    reads = _Reads([], [])
    capture = read_capture_document(
        reads.json(root / CAPTURE_FILE, "capture.json"), str(root / CAPTURE_FILE)
    )
    pipelines = _pipelines(root, capture, reads)
    _check_dispatch_inputs(root, pipelines, dispatch_inputs)
    segments, compute_names, model_bytes, graphs = _model_segments(model, reads)
    selections = select_dispatches(
        [p.captured for p in pipelines], dispatch_inputs, segments, str(root)
    )
    device = _device(capture, selections, root)
    generation = device_generation(
        device.name, device.vendor_id, str(root / CAPTURE_FILE), f"$.devices[id={device.id}]"
    )
    layout = counter_layout(generation, capture.mode, str(root / CAPTURE_FILE))
    by_id = {p.document.id: p for p in pipelines}
    decoded = [
        _decode_selection(
            selection,
            by_id[selection.pipeline.id],
            root,
            capture.mode,
            layout,
            graphs,
            reads,
            model,
        )
        for selection in selections
    ]
    model_name, model_format, content = _model_identity(model, model_bytes, selections, by_id)
    facts = _facts(root, capture, device, generation, layout, decoded, selections)
    return capture_document(
        [item[0] for item in decoded],
        facts,
        model_name=model_name,
        model_format=model_format,
        model_bytes=content,
        content_hashes=reads.hashes,
        timestamp=iso_timestamp(max(reads.mtimes)),
        skipped_compute_segments=compute_names,
        cli_arguments=cli_arguments,
    )


def _facts(
    root: Path,
    capture: Any,
    device: Any,
    generation: Any,
    layout: Any,
    decoded: Sequence[tuple[SegmentInput, str, str]],
    selections: Sequence[Any],
) -> CaptureFacts:
    """What the document records of the capture: where it was read, the device, the mode and
    counter layout, the files decoded and the capture's own warnings."""
    return CaptureFacts(
        capture_root=str(root),
        device_name=device.name,
        generation=generation,
        vendor_id=device.vendor_id,
        device_id=device.device_id,
        mode=capture.mode,
        counter_layout=layout.schema_id,
        statistics_files=tuple(item[1] for item in decoded),
        debug_database_files=tuple(item[2] for item in decoded),
        dispatch_folders=tuple(str(root / s.dispatch.folder) for s in selections),
        warnings=capture.warnings,
    )


def _check_dispatch_inputs(
    root: Path, pipelines: list[_Pipeline], dispatch_inputs: list[str] | None
) -> None:
    """Every dispatch folder given as an input is one the capture references."""
    known = {d.folder for p in pipelines for d in p.captured.dispatches}
    for folder in dispatch_inputs or ():
        if folder not in known:
            raise InputError(
                str(root / folder), "this dispatch folder is not referenced by the capture"
            )


def _model_identity(
    model: Path | None, model_bytes: bytes | None, selections: Any, by_id: dict[Any, Any]
) -> tuple[str, str, bytes]:
    """The document's model: the VGF if given, else the first selected shader module."""
    if model is not None and model_bytes is not None:
        return model.name, "vgf", model_bytes
    only = by_id[selections[0].pipeline.id]
    module_name = only.document.artifacts["shader_module"].path
    return module_name, "spv", selections[0].pipeline.spirv


def _model_segments(
    model: Path | None, reads: _Reads
) -> tuple[list[GraphSegment] | None, list[str], bytes | None, dict[int, Any]]:
    """The VGF model's graph segments (``None`` without a model), the names of its compute
    segments, its bytes and its graphs by segment index."""
    if model is None:
        return None, [], None, {}
    if model.suffix.lower() != ".vgf":
        raise InputError(str(model), "structured captures need a .vgf model (or none)")
    model_bytes = reads.bytes(model, "model")
    segments: list[GraphSegment] = []
    compute_names: list[str] = []
    graphs: dict[int, Any] = {}
    for graph in read_segments(model_bytes, str(model)):
        if graph.type == "GRAPH":
            segments.append(GraphSegment(graph.index, graph.name, graph.spirv_bytes))
            graphs[graph.index] = graph
        else:
            compute_names.append(graph.name or f"segment_{graph.index}")
    if not segments:
        raise InputError(str(model), "no VGF graph segments to match with the capture")
    return segments, compute_names, model_bytes, graphs


def _decode_selection(
    selection: Any,
    pipeline: Any,
    root: Path,
    mode: int,
    layout: Any,
    graphs: dict[int, Any],
    reads: _Reads,
    model: Path | None,
) -> tuple[SegmentInput, str, str]:
    """One selected dispatch decoded: its segment input, statistics and debug file paths."""
    info_artifact = pipeline.document.artifacts["statistics_info"]
    info_path = pipeline.folder / info_artifact.path
    info = read_statistics_info(
        reads.bytes(info_path, "statistics info"),
        str(info_path),
        is_text=info_artifact.path.endswith(".txt"),
    )
    statistics_path = root / selection.dispatch.folder / f"statistics_mode{mode}.bin"
    blocks = decode_statistics(
        reads.bytes(statistics_path, "statistics file"), layout, str(statistics_path)
    )
    rows = stripe_rows(
        blocks, info, statistics_source=str(statistics_path), info_source=str(info_path)
    )
    debug_path = pipeline.folder / pipeline.document.artifacts["debug_database"].path
    links = debug_links(
        reads.bytes(debug_path, "debug database"),
        [row.stripe_id for row in rows],
        str(debug_path),
    )
    if model is not None:
        graph = graphs[selection.segment_index]
        spirv = SegmentSpirv.of_module(graph.spirv)
        operations_source = str(model)
    else:
        module_path = pipeline.folder / pipeline.document.artifacts["shader_module"].path
        module = parse_module(selection.pipeline.spirv, str(module_path))
        spirv = SegmentSpirv.of_module(module)
        operations_source = f"the capture's shader module {module_path}"
    segment = SegmentInput(
        selection.segment_index,
        selection.segment_name,
        rows,
        links,
        spirv,
        str(debug_path),
        operations_source,
    )
    return segment, str(statistics_path), str(debug_path)


def _roots(inputs: Sequence[Path]) -> tuple[Path, list[str] | None]:
    roots: set[Path] = set()
    dispatches: list[str] = []
    root_inputs = 0
    for path in inputs:
        if path.is_symlink():
            raise InputError(str(path), "is a symlink; captures must not contain symlinks")
        if not path.is_dir():
            raise InputError(str(path), "expected a capture root or dispatch folder")
        if (path / CAPTURE_FILE).is_file():
            roots.add(path.resolve())
            root_inputs += 1
        elif (path / DISPATCH_FILE).is_file():
            resolved = path.resolve()
            root = resolved.parent.parent.parent
            relative = resolved.relative_to(root).as_posix()
            if not _DISPATCH_PATH.match(relative) or not (root / CAPTURE_FILE).is_file():
                raise InputError(
                    str(path),
                    "a dispatch folder must sit in pipeline_N/session_N/dispatch_N under a "
                    "capture root holding capture.json",
                )
            roots.add(root)
            dispatches.append(relative)
        else:
            raise InputError(str(path), f"holds neither {CAPTURE_FILE} nor {DISPATCH_FILE}")
    if len(roots) != 1:
        raise InputError(
            "--profiling-data",
            "all inputs must belong to one capture; roots: " + ", ".join(sorted(map(str, roots))),
        )
    if root_inputs and len(inputs) > 1:
        raise InputError("--profiling-data", "give either the capture root or dispatch folders")
    return roots.pop(), (None if root_inputs else dispatches)


def _reject_symlinks(root: Path) -> None:
    for folder, subfolders, files in os.walk(root, followlinks=False):
        for name in [*subfolders, *files]:
            entry = Path(folder) / name
            if entry.is_symlink():
                raise InputError(
                    str(entry),
                    Problem(
                        str(entry.relative_to(root)),
                        "symlinks are not allowed inside a capture",
                    ),
                )


def _check_artifact(folder: Path, artifact: Artifact, owner: Path, where: str) -> Path:
    path = folder / artifact.path
    if not path.is_file():
        raise InputError(str(owner), Problem(where, f"the referenced file {path} does not exist"))
    actual = path.stat().st_size
    if actual != artifact.size:
        raise InputError(
            str(owner),
            Problem(
                where,
                f"declares size {artifact.size} for {artifact.path} but the file has "
                f"{actual} bytes",
            ),
        )
    return path


class _UniqueIds:
    """Pipeline, session and dispatch ids seen so far (each must be used once)."""

    def __init__(self) -> None:
        self.ids: dict[str, set[int]] = {"pipeline": set(), "session": set(), "dispatch": set()}

    def add(self, kind: str, identifier: int, owner: Path) -> None:
        if identifier in self.ids[kind]:
            raise InputError(str(owner), Problem("$.id", f"{kind} id {identifier} is used twice"))
        self.ids[kind].add(identifier)


def _pipelines(root: Path, capture: CaptureDocument, reads: _Reads) -> list[_Pipeline]:
    pipelines: list[_Pipeline] = []
    unique = _UniqueIds()
    for reference in capture.pipelines:
        document_path = root / reference.path
        pipeline = read_pipeline_document(
            reads.json(document_path, "pipeline.json"), str(document_path), reference.id
        )
        unique.add("pipeline", pipeline.id, document_path)
        folder = document_path.parent
        for index, artifact in enumerate(pipeline.artifacts.values()):
            _check_artifact(folder, artifact, document_path, f"$.artifacts[{index}]")
        module_path = folder / pipeline.artifacts["shader_module"].path
        spirv = reads.bytes(module_path, "shader module")
        dispatches: list[CapturedDispatch] = []
        for session_reference in pipeline.sessions:
            dispatches.extend(
                _session_dispatches(
                    root, folder, session_reference, pipeline, capture, reads, unique
                )
            )
        captured = CapturedPipeline(
            pipeline.id,
            folder.relative_to(root).as_posix(),
            pipeline.friendly_name,
            pipeline.device_id,
            spirv,
            tuple(dispatches),
        )
        pipelines.append(_Pipeline(folder, pipeline, captured))
    return pipelines


def _session_dispatches(
    root: Path,
    folder: Path,
    session_reference: Any,
    pipeline: Any,
    capture: CaptureDocument,
    reads: _Reads,
    unique: _UniqueIds,
) -> list[CapturedDispatch]:
    """The dispatches of one session of a pipeline, their documents read and checked."""
    session_path = folder / session_reference.path
    session = read_session_document(
        reads.json(session_path, "session.json"),
        str(session_path),
        session_reference.id,
        pipeline,
    )
    unique.add("session", session.id, session_path)
    dispatches: list[CapturedDispatch] = []
    for dispatch_reference in session.dispatches:
        dispatch_path = session_path.parent / dispatch_reference.path
        dispatch = read_dispatch_document(
            reads.json(dispatch_path, "dispatch.json"),
            str(dispatch_path),
            dispatch_reference.id,
            session.id,
            capture.mode,
        )
        unique.add("dispatch", dispatch.id, dispatch_path)
        _check_artifact(dispatch_path.parent, dispatch.statistics, dispatch_path, "$.artifacts[0]")
        dispatches.append(
            CapturedDispatch(
                dispatch.id,
                dispatch_path.parent.relative_to(root).as_posix(),
                dispatch.executed_index,
            )
        )
    return dispatches


def _device(capture: CaptureDocument, selections: Sequence[Selection], root: Path) -> Any:
    wanted = selections[0].pipeline.device_id
    for device in capture.devices:
        if device.id == wanted:
            return device
    raise InputError(
        str(root / CAPTURE_FILE),
        Problem("$.devices", f"no device with id {wanted} (used by the selected pipelines)"),
    )
