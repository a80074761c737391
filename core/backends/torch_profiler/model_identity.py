"""The ``model`` of a torch.profiler result: its name and its content hash.

* **name**: the program's outermost ``nn.Module`` (a module call with no module call above
  it, the one that ran longest, e.g. the model rather than its loss), as ``model.py
  (TextModel)``: the workspace file of that call's ``forward`` (the nearest ``forward`` frame
  below it) and the module's class; its class alone when that file is not in the workspace
  (``nn.Sequential``); the first trace's file name when no module call was recorded. torch's
  wrappers (``torch.compile``'s ``OptimizedModule``, ``DataParallel``,
  ``DistributedDataParallel``, ``FullyShardedDataParallel``) are not the model: the module
  they wrap is.
* **hash**: SHA-256 of what the traces record of the workspace's code, not of file names
  alone: every workspace frame the Python tracer names, as ``path:line:function``, sorted,
  one per line. Two programs whose files share names differ; two captures of one program's
  code path agree, at function and at statement level.

Pure; cost: one pass over each trace's slices (parents first).
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Mapping, Sequence

from perfline.core.backends.torch_profiler.attribution import Attribution
from perfline.core.backends.torch_profiler.frames import CodeFrame, ModuleCall, parse_frame
from perfline.core.backends.torch_profiler.trace_table import NONE, TraceTable

#: Module classes of torch that wrap the user's model: their calls are looked through.
WRAPPERS: frozenset[str] = frozenset(
    {"OptimizedModule", "DataParallel", "DistributedDataParallel", "FullyShardedDataParallel"}
)


class OutermostModule:
    """The longest-running outermost module call of a trace: its class, the recorded files of
    the code frames inside it (``forward`` frames first, then nearest first; not the
    capture's own frames), and the time its calls took (µs)."""

    __slots__ = ("class_name", "files", "time_us")

    def __init__(self, class_name: str, files: Sequence[str], time_us: float) -> None:
        self.class_name = class_name
        self.files = files
        self.time_us = time_us


def outermost_module(table: TraceTable, attribution: Attribution) -> OutermostModule | None:
    """The trace's outermost ``nn.Module`` call that ran longest (``None``: no module call)."""
    timeline = attribution.timeline
    frames = table.frames
    count = timeline.frame_count
    parsed = {name: parse_frame(table.names[name]) for name in set(frames.name)}
    parent = timeline.parent
    # per slice, parents first: the nearest module call above or at it, whether that one is
    # outermost, and how far below it the slice is
    nearest = array("q", [NONE]) * len(parent)
    outermost = bytearray(len(parent))
    depth = array("q", bytes(8 * len(parent)))
    time: dict[str, float] = {}
    inside: list[tuple[bool, int, str, str]] = []  # (not forward, depth, class, file)
    for index in timeline.order:
        up = parent[index]
        found = parsed[frames.name[index]] if index < count else None
        if isinstance(found, ModuleCall) and found.class_name in WRAPPERS:
            found = None  # a wrapper's call: a slice like any other, its module is the model
        if isinstance(found, ModuleCall):
            nearest[index] = index
            if up == NONE or nearest[up] == NONE:
                outermost[index] = 1
                time[found.class_name] = time.get(found.class_name, 0.0) + (
                    timeline.end_us[index] - frames.start[index]
                )
            continue
        if up == NONE:
            continue
        module = nearest[index] = nearest[up]
        depth[index] = depth[up] + 1
        if (
            isinstance(found, CodeFrame)
            and module != NONE
            and outermost[module]
            and frames.name[index] not in timeline.dropped_names
        ):
            owner = parsed[frames.name[module]]
            assert isinstance(owner, ModuleCall)
            inside.append((found.function != "forward", depth[index], owner.class_name, found.file))
    if not time:
        return None
    name = max(time, key=lambda key: (time[key], key))
    files = [file for _, _, owner, file in sorted(inside) if owner == name]
    return OutermostModule(name, list(dict.fromkeys(files)), time[name])


def model_name(
    modules: Sequence[OutermostModule | None], resolved: Mapping[str, str | None], trace: str
) -> str:
    """``model.py (TextModel)``, ``TextModel``, else the trace's file name (module docstring)."""
    found = [module for module in modules if module is not None]
    if not found:
        return trace.replace("\\", "/").rpartition("/")[2]
    module = max(found, key=lambda m: m.time_us)
    path = resolved.get(module.files[0]) if module.files else None
    if path is None:
        return module.class_name
    return f"{path.rpartition('/')[2]} ({module.class_name})"


def model_hash(tables: Sequence[TraceTable], resolved: Mapping[str, str | None]) -> str:
    """SHA-256 of the workspace frames the traces' Python tracer recorded
    (``path:line:function``, sorted, one per line): the same at function and statement
    level."""
    found: set[str] = set()
    for table in tables:
        for name in set(table.frames.name):
            frame = parse_frame(table.names[name])
            if isinstance(frame, CodeFrame):
                path = resolved.get(frame.file)
                if path is not None:
                    found.add(f"{path}:{frame.line}:{frame.function}")
    return hashlib.sha256("\n".join(sorted(found)).encode("utf-8")).hexdigest()
