"""Statement-level stacks from torch.profiler's in-process event tree: the one place that
touches torch's private profiler API.

Runs inside the user's Python (torch and the standard library only). After a profiling cycle,
``prof.profiler.kineto_results.experimental_event_tree()`` holds every recorded event as a tree:
Python calls (``PyCall``: a function activation; its ``extra_fields.caller`` is the frame and
line it was called from), calls of built-ins (``PyCCall``: no activation, ``caller`` is the
line), and the aten ops (``TorchOp``: ``correlation_id`` is the trace's ``External id``). Walking
the tree root to leaf gives, for each op, the line every enclosing activation was executing:
the statement-level stack. Frames that started before the profiler are synthetic events whose
``callsite`` is their line at start (a root's ``caller`` is itself).

Private API: ``experimental_event_tree``, ``_EventType``, ``extra_fields.caller``/``callsite``
and ``torch.profiler.python_tracer._prefix_regex`` (the ``sys.path`` prefixes torch strips from
file names). ``unsupported_reason`` gates them on the torch version and their presence; any
failure while walking becomes a reason too, and the caller falls back to function level.
Cost: one pass over the tree (every event once, iteratively), one tuple per distinct stack.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from typing import Any

#: torch versions whose private profiler API this module was checked against (inclusive lower
#: bound, exclusive upper bound). Verified on 2.13.0; the API is older than the lower bound.
SUPPORTED_TORCH = ((2, 1), (3, 0))

#: (file, line, function, entry) where entry means "the statement is unknown, line is the
#: function's entry line".
Frame = tuple[str, int, str, bool]


def torch_version_tuple(version: str) -> tuple[int, int]:
    """(major, minor) of a torch version string such as ``2.13.0+cpu``; (0, 0) if unreadable."""
    parts = version.split("+")[0].split(".")
    try:
        return int(parts[0]), int(parts[1])
    except (IndexError, ValueError):
        return 0, 0


def unsupported_reason(torch: Any) -> str | None:
    """Why statement level cannot be captured with this torch, or None when it can."""
    version = str(getattr(torch, "__version__", "?"))
    low, high = SUPPORTED_TORCH
    if not low <= torch_version_tuple(version) < high:
        return (
            f"torch {version} is outside the versions whose private profiler API perfline "
            f"checks ({low[0]}.{low[1]} to before {high[0]}.{high[1]})"
        )
    try:
        from torch._C._profiler import _EventType, _ExtraFields_PyCall
        from torch.profiler import python_tracer
    except ImportError as error:
        return f"torch {version} lacks the profiler's event tree ({error})"
    missing = [
        name
        for owner, name in (
            (_EventType, "PyCall"),
            (_EventType, "PyCCall"),
            (_EventType, "TorchOp"),
            (_ExtraFields_PyCall, "caller"),
            (_ExtraFields_PyCall, "callsite"),
            (python_tracer, "_prefix_regex"),
        )
        if not hasattr(owner, name)
    ]
    if missing:
        return f"torch {version} lacks {', '.join(missing)} in its profiler's event tree"
    return None


def stripped_prefixes() -> list[str]:
    """The path prefixes torch strips from frame file names, in the order it tries them."""
    from torch.profiler import python_tracer

    return [str(prefix) for prefix in python_tracer._prefix_regex()]


def file_resolver(prefixes: list[str], known_files: Iterable[str]) -> dict[str, str]:
    """Stripped name -> absolute path, for every known file (loaded modules, the script)."""
    resolved: dict[str, str] = {}
    for path in known_files:
        absolute = os.path.abspath(path)
        for prefix in prefixes:
            if absolute.startswith(prefix):
                resolved.setdefault(absolute[len(prefix) :], absolute)
                break
    return resolved


def loaded_files() -> list[str]:
    """The source files of the modules loaded in this interpreter."""
    files = []
    for module in list(sys.modules.values()):
        name = getattr(module, "__file__", None)
        if isinstance(name, str) and name.endswith(".py"):
            files.append(name)
    return files


class StatementStacks:
    """What the walk found: stacks (outermost frame first) and op id -> (stack index, op name)."""

    def __init__(self) -> None:
        self.stacks: list[tuple[Frame, ...]] = []
        self.index: dict[tuple[Frame, ...], int] = {}
        self.ops: dict[int, tuple[int, str]] = {}

    def add(self, op_id: int, name: str, stack: tuple[Frame, ...]) -> None:
        at = self.index.get(stack)
        if at is None:
            at = len(self.stacks)
            self.index[stack] = at
            self.stacks.append(stack)
        self.ops[op_id] = (at, name)


def _frame(state: Any, entry: bool) -> Frame:
    return (str(state.file_name), int(state.line_number), str(state.function_name), entry)


def _kept(
    frames: tuple[Frame, ...], dropped: frozenset[str], leading: frozenset[str]
) -> tuple[Frame, ...]:
    """Frames without the capture helper's own (anywhere) and without the launcher's leading
    frames (runpy and the helper's entry, before the script's first frame)."""
    start = 0
    while start < len(frames) and (frames[start][0] in leading or frames[start][0] in dropped):
        start += 1
    return tuple(frame for frame in frames[start:] if frame[0] not in dropped)


def statement_stacks(
    prof: Any, dropped_files: frozenset[str], leading_files: frozenset[str]
) -> StatementStacks:
    """Walk the event tree of ``prof`` (a ``torch.profiler.profile`` whose cycle just ended);
    each TorchOp gets the stack of lines its activations were on
    (not the profiler's ``ProfilerStep#N`` markers).

    ``dropped_files``/``leading_files`` are file names as torch writes them (stripped)."""
    from torch._C._profiler import _EventType

    py_call, py_c_call, torch_op = _EventType.PyCall, _EventType.PyCCall, _EventType.TorchOp
    found = StatementStacks()
    cache: dict[tuple[Frame, ...], tuple[Frame, ...]] = {}
    pending: list[tuple[Any, tuple[Frame, ...]]] = [
        (root, ())
        for root in reversed(list(prof.profiler.kineto_results.experimental_event_tree()))
    ]
    while pending:
        event, frames = pending.pop()
        tag = event.tag
        if tag in (py_call, py_c_call):
            caller = _frame(event.extra_fields.caller, False)
            # the caller's line is the line of the innermost activation on the path
            frames = (*frames[:-1], caller) if frames else (caller,)
            if tag == py_call:
                callsite = _frame(event.extra_fields.callsite, True)
                if callsite[:3] != caller[:3]:  # a synthetic root's caller is itself
                    frames = (*frames, callsite)
        elif tag == torch_op and frames and not str(event.name).startswith("ProfilerStep#"):
            kept = cache.get(frames)
            if kept is None:
                kept = _kept(frames, dropped_files, leading_files)
                cache[frames] = kept
            if kept:
                found.add(int(event.correlation_id), str(event.name), kept)
        for child in reversed(list(event.children)):
            pending.append((child, frames))
    return found


def experimental_config(torch: Any, all_threads: bool) -> Any:
    """The profiler's experimental options for a capture: with ``all_threads``, ops of every
    thread (threads the script starts included; torch then records no ``[memory]`` events:
    checked on 2.13, its global profiling state has no memory reporter); None when not
    asked for or where this torch has no such option."""
    if not all_threads:
        return None
    try:
        from torch.profiler import _ExperimentalConfig

        return _ExperimentalConfig(profile_all_threads=True)
    except (ImportError, TypeError):
        return None
