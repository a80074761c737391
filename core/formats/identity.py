"""Records shared by every model-format reader: canonical source operators and their provenance.

Core defines one canonical ``source_operator`` identity per model format (seed 001):

* ONNX: zero-based position in the top-level graph node list -> ``source_operator/<node-index>``;
* PT2: exact top-level ``torch.fx.Node.name`` -> ``source_operator/<node-name>``;
* TOSA: numeric operation id (traversal order) -> ``source_operator/<operator-id>``;
* VGF: model-sequence segment and SPIR-V result id ->
  ``source_operator/segment_<i>/spirv-<result-id>``.

Names, locations and debug labels never replace these ids; ids are meaningful only together with
the exact model file they were read from. Each format module states the stability and the
nested-graph limits of its scheme.

This module owns the immutable records (``SourceOperator``, ``SourceFrame``, ``ModuleFrame``) and
the two small text parsers every format shares: Python stack-trace text (``File "...", line N, in
f``) and module stacks. Everything here is pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SOURCE_OPERATOR_PREFIX = "source_operator/"

_FRAME_LINE = re.compile(
    r'^\s*File "(?P<file>[^"]*)", line (?P<line>\d+)(?:, in (?P<function>.*\S))?\s*$'
)


@dataclass(frozen=True)
class SourceFrame:
    """One Python stack frame as recorded in the model file (the path is kept as written)."""

    file: str
    line: int
    function: str | None = None

    def __str__(self) -> str:
        suffix = f" in {self.function}" if self.function else ""
        return f"{self.file}:{self.line}{suffix}"


@dataclass(frozen=True)
class ModuleFrame:
    """One ``nn.Module`` on a module stack: tracer key, qualified path (``""`` = root), type."""

    key: str
    path: str
    type: str | None = None


@dataclass(frozen=True)
class SourceOperator:
    """One operator of a model under its canonical identity.

    ``locations`` are the recorded stack frames, outermost caller first (empty when the file
    records none). ``nn_module_stack`` runs root to leaf. ``label`` is the raw provenance text as
    the file holds it (TOSA location text, VGF debug name, ONNX/PT2 stack trace), for display and
    for matching estimator labels; it is never part of the identity.
    """

    id: str
    op_type: str
    name: str
    locations: tuple[SourceFrame, ...] = ()
    nn_module_stack: tuple[ModuleFrame, ...] = ()
    label: str | None = None

    @property
    def local_id(self) -> str:
        """The id without the ``source_operator/`` prefix."""
        return self.id.removeprefix(SOURCE_OPERATOR_PREFIX)

    def user_frames(
        self, exclude: Iterable[str] = ("/site-packages/", "/dist-packages/")
    ) -> tuple[SourceFrame, ...]:
        """Frames whose file contains none of ``exclude`` (library frames dropped)."""
        needles = tuple(exclude)
        return tuple(
            frame
            for frame in self.locations
            if not any(needle in frame.file.replace("\\", "/") for needle in needles)
        )


def source_operator_id(local: str) -> str:
    """``source_operator/<local>``."""
    return SOURCE_OPERATOR_PREFIX + local


def parse_stack_trace(trace: str | Sequence[str] | None) -> tuple[SourceFrame, ...]:
    """Frames of a Python stack trace, in text order (outermost caller first).

    Accepts the text (lines separated by newlines) or a list of lines. Only lines of the form
    ``File "<path>", line <n>[, in <function>]`` (leading spaces allowed) are frames; code lines,
    blank lines and sentinels such as "No stack trace available" are skipped.
    """
    if trace is None:
        return ()
    lines: Iterable[str] = trace.splitlines() if isinstance(trace, str) else trace
    frames: list[SourceFrame] = []
    for line in lines:
        if not isinstance(line, str):
            continue
        for part in line.splitlines() or [line]:
            match = _FRAME_LINE.match(part)
            if match:
                frames.append(
                    SourceFrame(match["file"], int(match["line"]), match["function"] or None)
                )
    return tuple(frames)


def parse_module_stack(value: object) -> tuple[ModuleFrame, ...]:
    """Module frames (root to leaf) from the shapes torch and ExecuTorch write.

    * mapping ``{tracer_key: [path, type]}`` (``torch.fx`` node meta, ExecuTorch labels);
    * list of ``[key, path, type]``;
    * list of objects with ``tracer_key``/``key``, ``qualified_name``/``name``/``module_name``
      and ``module_type``/``type``/``class_name``;
    * the PT2 archive string ``key,path,type;key,path,type``.

    Anything else gives no frames (module stacks are informative, never identity).
    """
    if isinstance(value, str):
        return _module_stack_from_text(value)
    frames: list[ModuleFrame] = []
    if isinstance(value, dict):
        for key, entry in value.items():
            if isinstance(entry, (list, tuple)) and entry:
                path = entry[0] if isinstance(entry[0], str) else ""
                kind = entry[1] if len(entry) > 1 and isinstance(entry[1], str) else None
                frames.append(ModuleFrame(str(key), path, kind))
        return tuple(frames)
    if isinstance(value, (list, tuple)):
        for item in value:
            frame = _module_from_item(item)
            if frame is not None:
                frames.append(frame)
    return tuple(frames)


def _module_from_item(item: object) -> ModuleFrame | None:
    if isinstance(item, (list, tuple)) and len(item) >= 2 and all(isinstance(x, str) for x in item):
        kind = item[2] if len(item) > 2 else None
        return ModuleFrame(item[0], item[1], kind)
    if isinstance(item, dict):
        key = _first_str(item, ("tracer_key", "key"))
        if key is None:
            return None
        path = _first_str(item, ("qualified_name", "name", "module_name")) or ""
        return ModuleFrame(key, path, _first_str(item, ("module_type", "type", "class_name")))
    return None


def _first_str(item: dict[object, object], keys: Sequence[str]) -> str | None:
    for key in keys:
        value = item.get(key)
        if isinstance(value, str):
            return value
    return None


def _module_stack_from_text(text: str) -> tuple[ModuleFrame, ...]:
    frames: list[ModuleFrame] = []
    for entry in text.split(";"):
        if not entry:
            continue
        key, _, rest = entry.partition(",")
        path, _, kind = rest.rpartition(",")
        if not rest:
            frames.append(ModuleFrame(key, "", None))
        elif "," not in rest:
            frames.append(ModuleFrame(key, rest, None))
        else:
            frames.append(ModuleFrame(key, path, kind or None))
    return tuple(frames)


@dataclass(frozen=True)
class LabelProvenance:
    """What an ExecuTorch debug label (a JSON object) says about one lowered operation.

    The Arm backend writes it into TOSA ``location.text`` and, through the model converter, into
    the VGF ``NonSemantic.Graph.DebugInfo.1`` strings: ``event_id``, ``aten_info.node_name`` /
    ``operator_name`` and ``torch_info.stack_trace`` / ``nn_module_stack``.
    """

    node_name: str | None
    operator_name: str | None
    event_id: int | None
    frames: tuple[SourceFrame, ...]
    modules: tuple[ModuleFrame, ...]


def parse_json_label(text: str | None) -> LabelProvenance | None:
    """The provenance of a label that parses as a JSON object, else ``None``."""
    if not text or not text.lstrip().startswith("{"):
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    aten = value.get("aten_info")
    torch_info = value.get("torch_info")
    aten = aten if isinstance(aten, dict) else {}
    torch_info = torch_info if isinstance(torch_info, dict) else {}
    trace = torch_info.get("stack_trace")
    event = value.get("event_id")
    return LabelProvenance(
        node_name=aten.get("node_name") if isinstance(aten.get("node_name"), str) else None,
        operator_name=(
            aten.get("operator_name") if isinstance(aten.get("operator_name"), str) else None
        ),
        event_id=event if isinstance(event, int) and not isinstance(event, bool) else None,
        frames=parse_stack_trace(trace if isinstance(trace, (str, list)) else None),
        modules=parse_module_stack(torch_info.get("nn_module_stack")),
    )
