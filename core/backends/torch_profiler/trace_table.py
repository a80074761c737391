"""The events of a trace kept as columns: what the attribution needs, nothing per event
beyond a few numbers.

``TraceTable.add(batch)`` files each decoded event by kind into typed arrays (``array``:
8 bytes a number), names and threads interned to small integers:

* ``frames``: ``python_function`` slices (thread, start, duration, name);
* ``ops``: ``cpu_op`` slices (thread, start, duration, name, ``External id``,
  ``Sequence number``, whether it runs a backward node: ``Fwd thread id`` > 0);
* ``steps``: ``ProfilerStep#N`` annotations (thread, start, duration, N);
* ``device``: ``kernel``, ``gpu_memcpy``, ``gpu_memset`` (start, duration, name, category,
  ``External id``, ``correlation``, device, stream);
* ``launches``: ``cuda_runtime`` / ``cuda_driver`` calls (thread, start, duration,
  ``External id``, ``correlation``);
* ``memory``: ``[memory]`` instants (thread, time, ``Bytes``, ``Total Allocated``, device
  type);
* ``flows``: ``fwdbwd`` and ``ac2g`` flow ends (start or finish, id, thread, time).

Events without a usable time (``ts``/``dur`` absent, or a negative duration) are counted per
kind and left out, for a warning; other categories and annotations are counted only. A thread
is (``pid``, ``tid``) as the trace writes them. ``None`` integers are stored as ``-1``
(kineto's ids and sequence numbers are never negative). Cost: one pass, a few appends per
event; memory: about 60 bytes per kept event.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Final

from perfline.core.backends.torch_profiler.trace_format import (
    CPU_OP,
    FWDBWD,
    GPU_CATEGORIES,
    MEMORY_EVENT,
    PROFILER_STEP_PREFIX,
    PYTHON_FUNCTION,
    RUNTIME_CATEGORIES,
    USER_ANNOTATION,
    TraceEvent,
)

NONE: Final = -1

#: Device activity categories by their code in ``DeviceColumns.category``.
DEVICE_CATEGORY_NAMES: Final = ("kernel", "gpu_memcpy", "gpu_memset")
_DEVICE_CODES: Final = {name: code for code, name in enumerate(DEVICE_CATEGORY_NAMES)}
assert set(_DEVICE_CODES) == GPU_CATEGORIES


def _floats() -> array[float]:
    return array("d")


def _ints() -> array[int]:
    return array("q")


class SliceColumns:
    """Complete events on one kind of thread timeline."""

    __slots__ = ("duration", "name", "start", "thread")

    def __init__(self) -> None:
        self.thread = _ints()
        self.start = _floats()
        self.duration = _floats()
        self.name = _ints()

    def __len__(self) -> int:
        return len(self.start)


class OpColumns(SliceColumns):
    """``cpu_op`` slices and their ids."""

    __slots__ = ("backward", "external", "sequence")

    def __init__(self) -> None:
        super().__init__()
        self.external = _ints()
        self.sequence = _ints()
        self.backward = array("b")


class DeviceColumns:
    """GPU activities: kernels, copies, sets."""

    __slots__ = (
        "category",
        "correlation",
        "device",
        "duration",
        "external",
        "name",
        "start",
        "stream",
    )

    def __init__(self) -> None:
        self.start = _floats()
        self.duration = _floats()
        self.name = _ints()
        self.category = array("b")
        self.external = _ints()
        self.correlation = _ints()
        self.device = _ints()
        self.stream = _ints()

    def __len__(self) -> int:
        return len(self.start)


class LaunchColumns:
    """CUDA runtime and driver calls on CPU threads."""

    __slots__ = ("correlation", "duration", "external", "start", "thread")

    def __init__(self) -> None:
        self.thread = _ints()
        self.start = _floats()
        self.duration = _floats()
        self.external = _ints()
        self.correlation = _ints()

    def __len__(self) -> int:
        return len(self.start)


class MemoryColumns:
    """``[memory]`` instants."""

    __slots__ = ("device_type", "nbytes", "thread", "time", "total")

    def __init__(self) -> None:
        self.thread = _ints()
        self.time = _floats()
        self.nbytes = _ints()
        self.total = _ints()
        self.device_type = _ints()

    def __len__(self) -> int:
        return len(self.time)


class FlowColumns:
    """Flow ends: ``start`` is 1 for ``s``, 0 for ``f``."""

    __slots__ = ("flow_id", "is_start", "thread", "time")

    def __init__(self) -> None:
        self.is_start = array("b")
        self.flow_id = _ints()
        self.thread = _ints()
        self.time = _floats()

    def __len__(self) -> int:
        return len(self.time)


class TraceTable:
    """Every kept event of one trace (see the module docstring)."""

    __slots__ = (
        "_name_ids",
        "_thread_ids",
        "ac2g",
        "device",
        "frames",
        "fwdbwd",
        "launches",
        "memory",
        "names",
        "ops",
        "other_categories",
        "skipped",
        "steps",
        "thread_names",
        "threads",
    )

    def __init__(self) -> None:
        self.frames = SliceColumns()
        self.ops = OpColumns()
        self.steps = SliceColumns()
        self.device = DeviceColumns()
        self.launches = LaunchColumns()
        self.memory = MemoryColumns()
        self.fwdbwd = FlowColumns()
        self.ac2g = FlowColumns()
        self.names: list[str] = []
        self.threads: list[tuple[int | str | None, int | str | None]] = []
        self.thread_names: dict[int, str] = {}
        #: Events left out for want of a usable time, by kind.
        self.skipped: dict[str, int] = {}
        #: Events of categories this backend does not read, by category.
        self.other_categories: dict[str, int] = {}
        self._name_ids: dict[str, int] = {}
        self._thread_ids: dict[tuple[int | str | None, int | str | None], int] = {}

    def name_id(self, name: str) -> int:
        """The interned number of ``name``."""
        found = self._name_ids.get(name)
        if found is None:
            found = len(self.names)
            self._name_ids[name] = found
            self.names.append(name)
        return found

    def thread_id(self, pid: int | str | None, tid: int | str | None) -> int:
        """The interned number of the thread (``pid``, ``tid``)."""
        key = (pid, tid)
        found = self._thread_ids.get(key)
        if found is None:
            found = len(self.threads)
            self._thread_ids[key] = found
            self.threads.append(key)
        return found

    def add(self, batch: Sequence[TraceEvent]) -> None:
        """File every event of ``batch``."""
        name_ids = self._name_ids
        thread_ids = self._thread_ids
        for event in batch:
            ph = event.ph
            if ph == "X":
                start = event.ts
                duration = event.dur
                category = event.cat
                if start is None or duration is None or duration < 0:
                    self._skip(category or "(no category)")
                    continue
                key = (event.pid, event.tid)
                thread = thread_ids.get(key)
                if thread is None:
                    thread = self.thread_id(event.pid, event.tid)
                name = name_ids.get(event.name)
                if name is None:
                    name = self.name_id(event.name)
                if category == CPU_OP:
                    self._op(event, thread, start, duration, name)
                elif category == PYTHON_FUNCTION:
                    frames = self.frames
                    frames.thread.append(thread)
                    frames.start.append(start)
                    frames.duration.append(duration)
                    frames.name.append(name)
                elif category in GPU_CATEGORIES:
                    self._device(event, start, duration, name)
                elif category in RUNTIME_CATEGORIES:
                    self._launch(event, thread, start, duration)
                elif category == USER_ANNOTATION and event.name.startswith(PROFILER_STEP_PREFIX):
                    self._step(event, thread, start, duration)
                else:
                    self._other(category)
            elif ph == "i" or ph == "I":
                if event.name == MEMORY_EVENT:
                    self._memory(event)
                else:
                    self._other(event.cat or "(instant)")
            elif ph == "s" or ph == "f":
                self._flow(event)
            elif ph == "M":
                self._metadata(event)
            else:
                self._other(event.cat or f"(ph {ph})")

    def _skip(self, kind: str) -> None:
        self.skipped[kind] = self.skipped.get(kind, 0) + 1

    def _other(self, category: str) -> None:
        self.other_categories[category] = self.other_categories.get(category, 0) + 1

    def _op(self, event: TraceEvent, thread: int, start: float, duration: float, name: int) -> None:
        ops = self.ops
        ops.thread.append(thread)
        ops.start.append(start)
        ops.duration.append(duration)
        ops.name.append(name)
        args = event.args
        if args is None:
            ops.external.append(NONE)
            ops.sequence.append(NONE)
            ops.backward.append(0)
            return
        external = args.external_id
        sequence = args.sequence
        forward_thread = args.forward_thread
        ops.external.append(NONE if external is None else external)
        ops.sequence.append(NONE if sequence is None else sequence)
        ops.backward.append(1 if forward_thread is not None and forward_thread > 0 else 0)

    def _device(self, event: TraceEvent, start: float, duration: float, name: int) -> None:
        device = self.device
        device.start.append(start)
        device.duration.append(duration)
        device.name.append(name)
        device.category.append(_DEVICE_CODES[event.cat])
        args = event.args
        external = correlation = None
        if args is not None:
            external = args.external_id
            correlation = args.correlation
        device.external.append(NONE if external is None else external)
        device.correlation.append(NONE if correlation is None else correlation)
        device.device.append(event.pid if type(event.pid) is int else NONE)
        device.stream.append(event.tid if type(event.tid) is int else NONE)

    def _launch(self, event: TraceEvent, thread: int, start: float, duration: float) -> None:
        launches = self.launches
        launches.thread.append(thread)
        launches.start.append(start)
        launches.duration.append(duration)
        args = event.args
        external = correlation = None
        if args is not None:
            external = args.external_id
            correlation = args.correlation
        launches.external.append(NONE if external is None else external)
        launches.correlation.append(NONE if correlation is None else correlation)

    def _step(self, event: TraceEvent, thread: int, start: float, duration: float) -> None:
        number = event.name[len(PROFILER_STEP_PREFIX) :]
        if not number.isdigit():
            self._other(USER_ANNOTATION)
            return
        steps = self.steps
        steps.thread.append(thread)
        steps.start.append(start)
        steps.duration.append(duration)
        steps.name.append(int(number))

    def _memory(self, event: TraceEvent) -> None:
        args = event.args
        if event.ts is None or args is None or args.nbytes is None:
            self._skip(MEMORY_EVENT)
            return
        memory = self.memory
        memory.thread.append(self.thread_id(event.pid, event.tid))
        memory.time.append(event.ts)
        memory.nbytes.append(args.nbytes)
        total = args.total_allocated
        memory.total.append(NONE if total is None else total)
        device_type = args.device_type
        memory.device_type.append(NONE if device_type is None else device_type)

    def _flow(self, event: TraceEvent) -> None:
        if event.cat == FWDBWD:
            flows = self.fwdbwd
        elif event.cat == "ac2g":
            flows = self.ac2g
        else:
            self._other(event.cat or "(flow)")
            return
        if event.ts is None or event.id is None:
            self._skip(event.cat)
            return
        flows.is_start.append(1 if event.ph == "s" else 0)
        flows.flow_id.append(event.id)
        flows.thread.append(self.thread_id(event.pid, event.tid))
        flows.time.append(event.ts)

    def _metadata(self, event: TraceEvent) -> None:
        args = event.args
        if event.name == "thread_name" and args is not None and args.name:
            self.thread_names[self.thread_id(event.pid, event.tid)] = args.name
