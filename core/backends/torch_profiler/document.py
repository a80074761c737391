"""The standardized document of torch.profiler traces (pure): reading, then analysing.

The I/O edge calls ``read_trace`` once per trace with the file's byte chunks (a ``.json.gz``
is decompressed on the way, bounded), asks ``recorded_files`` which source files the frames
name, resolves them onto the workspace (``path_map``, then unique path suffixes: that needs
the file system, so it is the edge's), and calls ``analyze_traces``. Several traces (the
ranks of a distributed run, or several captures of one program) are one result whose runs
are all their steps, trace after trace; the leaves of different traces with the same
identity are one leaf. The run id comes from the traces' content hashes.
``extensions.perfline.run_samples`` holds each leaf's per-step values,
``result_run_samples`` the steps' durations and totals. Cost: the decoding and one pass over
the events of each trace; memory: the trace's columns (``trace_table``), never its text.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, Final

from perfline.core.backends.runtime_common.metrics import model_run_samples
from perfline.core.backends.torch_profiler.attribution import Attribution, attribute, zeros
from perfline.core.backends.torch_profiler.belonging import check_belongs, check_one_program
from perfline.core.backends.torch_profiler.compressed import MAX_DECOMPRESSED_BYTES, trace_chunks
from perfline.core.backends.torch_profiler.frames import CodeFrame, parse_frame
from perfline.core.backends.torch_profiler.leaves import (
    Leaf,
    frame_calls,
    recorded_files,
    trace_leaves,
)
from perfline.core.backends.torch_profiler.model_identity import (
    model_hash,
    model_name,
    outermost_module,
)
from perfline.core.backends.torch_profiler.result import PRODUCER, build_result
from perfline.core.backends.torch_profiler.sidecar import Sidecar, check_trace
from perfline.core.backends.torch_profiler.trace_format import TraceHeader
from perfline.core.backends.torch_profiler.trace_stream import TraceStream
from perfline.core.backends.torch_profiler.trace_table import TraceTable
from perfline.core.backends.torch_profiler.trace_warnings import trace_warnings
from perfline.core.collection import collection_paused
from perfline.core.compare.run_samples import with_run_samples
from perfline.core.envelope import build_document, run_id_for
from perfline.core.errors import InputError, Problem

STATEMENT_LEVEL: Final = "statement"
FUNCTION_LEVEL: Final = "function"
FUNCTION_LEVEL_NOTE: Final = (
    "function level: this trace records function entry lines, so each function's figures "
    "(its inclusive time) sit on its 'def' line and on its module; 'perfline profile' "
    "records statement level (the line of each call)"
)


class ReadTrace:
    """One trace, read: its name, content hash and size, header and events, attribution,
    and the sidecar it was read with."""

    __slots__ = ("attribution", "header", "sha256", "sidecar", "size", "source", "table")

    def __init__(
        self,
        source: str,
        sha256: str,
        size: int,
        header: TraceHeader,
        table: TraceTable,
        attribution: Attribution,
        sidecar: Sidecar | None = None,
    ) -> None:
        self.source = source
        self.sha256 = sha256
        self.size = size
        self.header = header
        self.table = table
        self.attribution = attribution
        self.sidecar = sidecar

    @property
    def level(self) -> str:
        """``statement`` when read with a statement-level sidecar, else ``function``."""
        return STATEMENT_LEVEL if self.attribution.statements is not None else FUNCTION_LEVEL


def read_trace(
    chunks: Iterable[bytes],
    source: str,
    *,
    limit: int = MAX_DECOMPRESSED_BYTES,
    sidecar: Sidecar | None = None,
    trace_name: str | None = None,
) -> ReadTrace:
    """Decode one trace from its file's byte chunks and attribute its events; with the
    ``sidecar`` written for it (checked against ``trace_name``, default the last part of
    ``source``, and the bytes read), at statement level."""
    digest = hashlib.sha256()
    size = 0

    def hashed() -> Iterator[bytes]:
        nonlocal size
        for chunk in chunks:
            digest.update(chunk)
            size += len(chunk)
            yield chunk

    with collection_paused():
        stream = TraceStream(source)
        table = TraceTable()
        for batch in stream.batches(trace_chunks(hashed(), source, limit=limit)):
            table.add(batch)
        header = stream.header
        if stream.tail.distributed is not None and header.distributed is None:
            header.distributed = stream.tail.distributed
        statements = None
        dropped: frozenset[str] = frozenset()
        if sidecar is not None:
            name = trace_name if trace_name is not None else source.replace("\\", "/")
            check_trace(sidecar, name.rpartition("/")[2], digest.hexdigest())
            if sidecar.level == STATEMENT_LEVEL:
                statements = sidecar.stacks_by_external_id
            dropped = sidecar.capture_files
        attribution = attribute(table, statements, dropped)
    return ReadTrace(source, digest.hexdigest(), size, header, table, attribution, sidecar)


def trace_files(reads: Sequence[ReadTrace]) -> list[str]:
    """The source files the traces' Python frames and statement stacks name (for the edge
    to resolve)."""
    return recorded_files([(read.table, read.attribution) for read in reads])


def analyze_traces(
    reads: Sequence[ReadTrace],
    resolved: Mapping[str, str | None],
    *,
    timestamp: str,
    workspace: str,
    cli_arguments: Sequence[str] = (),
    extra_warnings: Sequence[str] = (),
    also_tried: Sequence[str] = (),
) -> dict[str, Any]:
    """The complete (not yet post-processed) document of ``reads`` of one program
    (``also_tried``: other folders that were tried as the workspace, for the error when no
    frame's file is in it)."""
    if not reads:
        raise InputError(None, Problem("arguments", "expected one or more traces"))
    recorded = trace_files(reads)
    check_one_program(
        [read.source for read in reads], [_workspace_frames(read, resolved) for read in reads]
    )
    check_belongs(
        [read.source for read in reads],
        sum(len(read.table.frames) for read in reads),
        recorded,
        resolved,
        has_statements=any(read.level == STATEMENT_LEVEL for read in reads),
        workspace=workspace,
        also_tried=also_tried,
    )
    with collection_paused():
        leaves, metrics, step_ms = _merged(reads, resolved)
        peaks = _peaks(reads)
        warnings = [*_level_warnings(reads), *extra_warnings]
        for read in reads:
            warnings.extend(
                trace_warnings(
                    read.source,
                    read.table,
                    read.attribution,
                    profile_memory=bool(read.header.profile_memory),
                )
            )
        calls = _calls_per_step(reads, resolved, len(step_ms))
        built = build_result(leaves, metrics, step_ms, peaks=peaks, warnings=warnings, calls=calls)
        result_samples = {**model_run_samples(step_ms), **built.result_samples}
        in_workspace = sorted(
            {path for name, path in resolved.items() if path is not None and name in recorded}
        )
        document = build_document(
            results=[built.result],
            model=_model(reads, resolved),
            target=_target(reads, len(step_ms)),
            backends=[_backend(reads, recorded, in_workspace, len(step_ms))],
            timestamp=timestamp,
            run_id=run_id_for(read.sha256 for read in reads),
            context=_context(reads, cli_arguments),
        )
        return with_run_samples(document, [built.run_samples], [result_samples])


def _workspace_frames(read: ReadTrace, resolved: Mapping[str, str | None]) -> frozenset[str]:
    """The trace's frames in the workspace, ``path:line:function`` (the Python tracer's and
    the sidecar's statements)."""
    found: set[str] = set()
    table = read.table
    for name in set(table.frames.name):
        frame = parse_frame(table.names[name])
        if isinstance(frame, CodeFrame) and (path := resolved.get(frame.file)) is not None:
            found.add(f"{path}:{frame.line}:{frame.function}")
    statements = read.attribution.statements
    for stack in statements.stacks if statements is not None else ():
        for file, line, function, _ in stack:
            if (path := resolved.get(file)) is not None:
                found.add(f"{path}:{line}:{function}")
    return frozenset(found)


def _level_warnings(reads: Sequence[ReadTrace]) -> list[str]:
    """What level the figures are at, and why not statement level where they are not."""
    warnings: list[str] = []
    if any(read.level == FUNCTION_LEVEL and read.sidecar is None for read in reads):
        warnings.append(FUNCTION_LEVEL_NOTE)
    for read in reads:
        sidecar = read.sidecar
        if sidecar is not None and read.level == FUNCTION_LEVEL:
            warnings.append(
                f"{read.source}: function level: the capture recorded no statements "
                f"({sidecar.reason}); figures sit on 'def' lines"
            )
        stacks = read.attribution.statements
        if stacks is not None and stacks.ops_without:
            warnings.append(
                f"{read.source}: {stacks.ops_without} of {stacks.ops_with + stacks.ops_without} "
                f"ops ({stacks.ops_without_us / 1000:.4g} ms) have no statement in the sidecar "
                "(threads the capture did not follow); they stay on function-level lines"
            )
    return warnings


def _merged(
    reads: Sequence[ReadTrace], resolved: Mapping[str, str | None]
) -> tuple[list[Leaf], list[str], list[float]]:
    """Every trace's leaves as one list over all steps (zeros where a trace lacks a leaf)."""
    metrics: list[str] = []
    for read in reads:
        for metric in read.attribution.values:
            if metric not in metrics:
                metrics.append(metric)
    step_ms: list[float] = []
    merged: dict[str, Leaf] = {}
    for read in reads:
        before = len(step_ms)
        steps = read.attribution.steps
        step_ms.extend(read.attribution.step_ms)
        for leaf in trace_leaves(read.table, read.attribution, resolved):
            kept = merged.get(leaf.key)
            if kept is None:
                own = {metric: leaf_values(leaf, metric, steps) for metric in metrics}
                leaf.values = {metric: zeros(before) + own[metric] for metric in metrics}
                merged[leaf.key] = leaf
                continue
            for metric in metrics:
                row = kept.values[metric]
                row.extend(zeros(max(before - len(row), 0)))
                values = leaf_values(leaf, metric, steps)
                if len(row) == before:
                    row.extend(values)
                else:  # a second leaf of this trace at the same place: one leaf
                    for step, value in enumerate(values):
                        row[before + step] += value
    total = len(step_ms)
    for leaf in merged.values():
        for row in leaf.values.values():
            row.extend(zeros(max(total - len(row), 0)))
    return list(merged.values()), metrics, step_ms


def leaf_values(leaf: Leaf, metric: str, steps: int) -> array[float]:
    """A leaf's values of ``metric`` in its own trace's steps (zeros when it has none)."""
    found = leaf.values.get(metric)
    return array("d", found) if found is not None else zeros(steps)


def _calls_per_step(
    reads: Sequence[ReadTrace], resolved: Mapping[str, str | None], steps: int
) -> dict[tuple[str, ...], float]:
    """Each function's entries per call path (``leaves.frame_calls``), over every trace's
    steps, per step."""
    total: dict[tuple[str, ...], int] = {}
    for read in reads:
        for key, count in frame_calls(read.table, read.attribution, resolved).items():
            total[key] = total.get(key, 0) + count
    return {key: count / max(steps, 1) for key, count in total.items()}


def _peaks(reads: Sequence[ReadTrace]) -> dict[str, int]:
    peaks: dict[str, int] = {}
    for read in reads:
        allocations = read.attribution.allocations
        for name, value in (
            ("peak_allocated_bytes", allocations.peak_host),
            ("peak_gpu_allocated_bytes", allocations.peak_device),
        ):
            if value is not None and value > peaks.get(name, -1):
                peaks[name] = value
    return peaks


def _model(reads: Sequence[ReadTrace], resolved: Mapping[str, str | None]) -> dict[str, Any]:
    """Name and content hash (``model_identity``); size: the traces' bytes."""
    modules = [outermost_module(read.table, read.attribution) for read in reads]
    return {
        "name": model_name(modules, resolved, reads[0].source),
        "format": "pytorch",
        "hash": model_hash([read.table for read in reads], resolved),
        "size_bytes": sum(read.size for read in reads),
    }


def _devices(reads: Sequence[ReadTrace]) -> list[str]:
    names: list[str] = []
    for read in reads:
        for device in read.header.device_properties or ():
            if device.name and device.name not in names:
                names.append(device.name)
    return names


def _target(reads: Sequence[ReadTrace], steps: int) -> dict[str, Any]:
    components: list[dict[str, Any]] = [{"type": "cpu", "family": "pytorch"}]
    gpus = _devices(reads)
    has_gpu = any(len(read.table.device) for read in reads)
    for name in gpus or (["CUDA device"] if has_gpu else []):
        components.append({"type": "gpu", "family": "cuda", "name": name})
    where = "CPU" + (f" and {', '.join(gpus) or 'GPU'}" if has_gpu or gpus else "")
    return {
        "profile_name": "torch.profiler",
        "target_type": "pytorch",
        "components": components,
        "configuration": {"devices": gpus} if gpus else {},
        "description": (
            f"PyTorch on {where}, measured by torch.profiler, {steps} step(s) from "
            f"{len(reads)} trace(s)"
        ),
    }


def _backend(
    reads: Sequence[ReadTrace], recorded: Sequence[str], in_workspace: Sequence[str], steps: int
) -> dict[str, Any]:
    return {
        "id": PRODUCER,
        "name": "torch.profiler",
        "version": "experimental",
        "configuration": {
            "inputs": {"traces": [read.source for read in reads]},
            "attribution_level": sorted({read.level for read in reads}),
            "steps": steps,
            "step_numbers": [n for read in reads for n in read.attribution.step_numbers],
            "events": {
                "python_frames": sum(len(read.table.frames) for read in reads),
                "cpu_ops": sum(len(read.table.ops) for read in reads),
                "gpu_activities": sum(len(read.table.device) for read in reads),
                "memory_events": sum(len(read.table.memory) for read in reads),
            },
            "recorded_files": len(recorded),
            "workspace_files": list(in_workspace),
            "time_unit": "µs in the trace, reported in ms per step",
        },
    }


def _context(reads: Sequence[ReadTrace], cli_arguments: Sequence[str]) -> dict[str, Any]:
    flags: dict[str, Any] = {}
    header = reads[0].header
    for name, value in (
        ("with_stack", header.with_stack),
        ("profile_memory", header.profile_memory),
        ("record_shapes", header.record_shapes),
    ):
        if value is not None:
            flags[name] = bool(value)
    ranks = [
        read.header.distributed.rank
        for read in reads
        if read.header.distributed is not None and read.header.distributed.rank is not None
    ]
    if ranks:
        flags["ranks"] = [str(rank) for rank in ranks]
    context: dict[str, Any] = {"runtime_configuration": {"traces": [r.source for r in reads]}}
    if flags:
        context["runtime_configuration"]["profiler"] = flags
    if cli_arguments:
        context["cli_arguments"] = list(cli_arguments)
    return context
