"""The sidecar of a torch.profiler trace: statement-level stacks per op, as ``perfline
profile``'s capture helper writes them (``clients/torch_capture/sidecar_writer.py``) beside the
trace, ``NAME.pt.trace.json.perfline.json``.

``read_sidecar`` turns its bytes into a ``Sidecar``: the level (``statement``, or ``function``
with the reason the capture could not do better), the trace it belongs to (file name, SHA-256
of its bytes), and ``stacks_by_external_id``: the trace's ``External id`` of a ``cpu_op`` or
``user_annotation`` event -> that op's stack, outermost frame first, each frame a statement
(``SidecarFrame``; ``entry`` marks a last frame whose statement is unknown and whose line is
the function's entry line). Stacks are shared: ops of one statement hold the same tuple.
``capture_files``: the capture's own source files as the trace's ``python_function`` events
name them (its operator mode and step hooks run inside the program: their frames are dropped
from the trace's nesting); ``threads``: ``capturing`` (the thread that ran the script) or
``all`` (optional, ``None`` when absent).
``check_trace`` refuses a sidecar beside a trace it was not written for.

Every problem is an ``InputError`` naming the sidecar and the JSON path (``stacks[3][1][1]``).
Pure: bytes in, values out. Cost: one JSON decode and one pass over the stacks and ops.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, NamedTuple

from perfline.core.errors import InputError, Problem
from perfline.core.json_codec import read_json_input

SIDECAR_SUFFIX = ".perfline.json"
SIDECAR_VERSION = 1
LEVELS = ("statement", "function")
THREADS = ("capturing", "all")


class SidecarFrame(NamedTuple):
    """One frame of a stack: the statement ``line`` of ``file`` running in ``function``."""

    file: str
    line: int
    function: str
    entry: bool


class Sidecar(NamedTuple):
    """A sidecar, read and checked."""

    source: str
    level: str
    reason: str | None
    trace_file: str
    trace_sha256: str
    torch_version: str
    steps: Mapping[str, Any]
    stacks_by_external_id: Mapping[int, tuple[SidecarFrame, ...]]
    op_names: Mapping[int, str]
    capture_files: frozenset[str] = frozenset()
    threads: str | None = None


def sidecar_name(trace_file_name: str) -> str:
    """The sidecar's file name for a trace's file name."""
    return trace_file_name + SIDECAR_SUFFIX


class _Reader:
    def __init__(self, source: str) -> None:
        self.source = source

    def fail(self, where: str, expected: str, found: Any) -> InputError:
        shown = repr(found)
        if len(shown) > 60:
            shown = shown[:57] + "..."
        return InputError(self.source, Problem(where, f"expected {expected}, found {shown}"))

    def field(self, document: Mapping[str, Any], key: str, where: str) -> Any:
        if key not in document:
            raise InputError(self.source, Problem(where, f"missing '{key}'"))
        return document[key]

    def text(self, value: Any, where: str) -> str:
        if not isinstance(value, str):
            raise self.fail(where, "a string", value)
        return value

    def count(self, value: Any, where: str) -> int:
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            raise self.fail(where, "a non-negative integer", value)
        return value

    def array(self, value: Any, where: str) -> list[Any]:
        if not isinstance(value, list):
            raise self.fail(where, "an array", value)
        return value

    def frame(self, value: Any, files: list[str], where: str) -> SidecarFrame:
        items = self.array(value, where)
        if len(items) not in (3, 4):
            raise self.fail(where, "[file index, line, function] or [..., 'entry']", value)
        at = self.count(items[0], f"{where}[0]")
        if at >= len(files):
            raise InputError(
                self.source,
                Problem(f"{where}[0]", f"file index {at}, but 'files' has {len(files)}"),
            )
        line = self.count(items[1], f"{where}[1]")
        function = self.text(items[2], f"{where}[2]")
        if len(items) == 4 and items[3] != "entry":
            raise self.fail(f"{where}[3]", "'entry'", items[3])
        return SidecarFrame(files[at], line, function, len(items) == 4)


def read_sidecar(data: bytes, source: str) -> Sidecar:
    """Read a sidecar's bytes (``source`` names it in errors)."""
    reader = _Reader(source)
    document = read_json_input(data, source)
    if not isinstance(document, dict) or "perfline_torch_sidecar" not in document:
        raise InputError(
            source,
            Problem(
                "$", "expected a perfline torch sidecar (an object with 'perfline_torch_sidecar')"
            ),
        )
    version = document["perfline_torch_sidecar"]
    if version != SIDECAR_VERSION:
        raise reader.fail("perfline_torch_sidecar", f"version {SIDECAR_VERSION}", version)
    trace = reader.field(document, "trace", "$")
    if not isinstance(trace, dict):
        raise reader.fail("trace", "an object", trace)
    trace_file = reader.text(reader.field(trace, "file", "trace"), "trace.file")
    digest = reader.text(reader.field(trace, "sha256", "trace"), "trace.sha256")
    level = reader.field(document, "level", "$")
    if level not in LEVELS:
        raise reader.fail("level", "'statement' or 'function'", level)
    reason = None
    if level == "function":
        reason = reader.text(reader.field(document, "reason", "$"), "reason")
    torch_version = reader.text(document.get("torch", ""), "torch")
    steps = document.get("steps", {})
    if not isinstance(steps, dict):
        raise reader.fail("steps", "an object", steps)
    files = [
        reader.text(name, f"files[{at}]")
        for at, name in enumerate(reader.array(reader.field(document, "files", "$"), "files"))
    ]
    stacks: list[tuple[SidecarFrame, ...]] = []
    for at, stack in enumerate(reader.array(reader.field(document, "stacks", "$"), "stacks")):
        frames = reader.array(stack, f"stacks[{at}]")
        if not frames:
            raise reader.fail(f"stacks[{at}]", "at least one frame", stack)
        stacks.append(
            tuple(
                reader.frame(frame, files, f"stacks[{at}][{depth}]")
                for depth, frame in enumerate(frames)
            )
        )
    by_id: dict[int, tuple[SidecarFrame, ...]] = {}
    names: dict[int, str] = {}
    for at, entry in enumerate(reader.array(reader.field(document, "ops", "$"), "ops")):
        where = f"ops[{at}]"
        items = reader.array(entry, where)
        if len(items) != 3:
            raise reader.fail(where, "[External id, stack index, op name]", entry)
        key = reader.count(items[0], f"{where}[0]")
        stack_at = reader.count(items[1], f"{where}[1]")
        if stack_at >= len(stacks):
            raise InputError(
                source,
                Problem(f"{where}[1]", f"stack index {stack_at}, but 'stacks' has {len(stacks)}"),
            )
        if key in by_id:
            raise InputError(source, Problem(f"{where}[0]", f"External id {key} appears twice"))
        by_id[key] = stacks[stack_at]
        names[key] = reader.text(items[2], f"{where}[2]")
    if level == "function" and by_id:
        raise InputError(source, Problem("ops", "a function-level sidecar holds no ops"))
    capture_files = frozenset(
        reader.text(name, f"capture_files[{at}]")
        for at, name in enumerate(reader.array(document.get("capture_files", []), "capture_files"))
    )
    threads = document.get("threads")
    if threads is not None and threads not in THREADS:
        raise reader.fail("threads", "'capturing' or 'all'", threads)
    return Sidecar(
        source,
        level,
        reason,
        trace_file,
        digest,
        torch_version,
        steps,
        by_id,
        names,
        capture_files,
        threads,
    )


def check_trace(sidecar: Sidecar, trace_file_name: str, trace_sha256: str) -> None:
    """Refuse a sidecar that was written for another trace (by name and by content)."""
    if sidecar.trace_file != trace_file_name:
        raise InputError(
            sidecar.source,
            Problem(
                "trace.file",
                f"written for the trace {sidecar.trace_file!r}, not {trace_file_name!r}",
            ),
        )
    if sidecar.trace_sha256 != trace_sha256:
        raise InputError(
            sidecar.source,
            Problem(
                "trace.sha256",
                f"written for another version of {trace_file_name} (its SHA-256 differs): "
                "the trace was changed or replaced after the capture",
            ),
        )
