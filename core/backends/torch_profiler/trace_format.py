"""The event records of a torch.profiler trace, as typed msgspec structs holding only the
fields this backend reads.

What torch writes (kineto's ``ChromeTraceLogger`` in ``libkineto/src/output_json.cpp``, or
torch's own ``torch/profiler/_chrome_trace_export.py`` when ``use_python_export=True``): one
JSON object with header keys (``schemaVersion``, ``deviceProperties``, ``baseTimeNanoseconds``,
``with_stack``, ``profile_memory``, ``distributedInfo``, ...), then ``traceEvents``, then
``traceName``. Each event has ``ph`` (``X`` complete, ``i`` instant, ``s``/``f`` flow start/end,
``M`` metadata), ``cat`` (kineto's activity type names: ``cpu_op``, ``user_annotation``,
``python_function``, ``kernel``, ``gpu_memcpy``, ``gpu_memset``, ``cuda_runtime``,
``cuda_driver``, ``cpu_instant_event``, flows ``fwdbwd`` and ``ac2g``), ``name``, ``pid``, ``tid``,
``ts`` and ``dur`` in microseconds, and ``args``. Fields not declared here are skipped by the
decoder without being built. Cost: none beyond the decoder's.
"""

from __future__ import annotations

from typing import Final

import msgspec

CPU_OP: Final = "cpu_op"
USER_ANNOTATION: Final = "user_annotation"
PYTHON_FUNCTION: Final = "python_function"
KERNEL: Final = "kernel"
GPU_MEMCPY: Final = "gpu_memcpy"
GPU_MEMSET: Final = "gpu_memset"
CUDA_RUNTIME: Final = "cuda_runtime"
CUDA_DRIVER: Final = "cuda_driver"
CPU_INSTANT_EVENT: Final = "cpu_instant_event"
FWDBWD: Final = "fwdbwd"
AC2G: Final = "ac2g"
MEMORY_EVENT: Final = "[memory]"
PROFILER_STEP_PREFIX: Final = "ProfilerStep#"
#: The op torch.compile wraps each run of a compiled graph in (TorchDynamo's frame).
COMPILED_REGION_PREFIX: Final = "Torch-Compiled Region: "

#: The device activities that run on a GPU stream.
GPU_CATEGORIES: Final = frozenset({KERNEL, GPU_MEMCPY, GPU_MEMSET})
#: The host-side launch calls (CUDA runtime and driver; ROCm traces use the same names).
RUNTIME_CATEGORIES: Final = frozenset({CUDA_RUNTIME, CUDA_DRIVER})


class EventArgs(msgspec.Struct, gc=False):
    """The ``args`` fields this backend reads (every one optional)."""

    external_id: int | None = msgspec.field(default=None, name="External id")
    sequence: int | None = msgspec.field(default=None, name="Sequence number")
    forward_thread: int | None = msgspec.field(default=None, name="Fwd thread id")
    python_id: int | None = msgspec.field(default=None, name="Python id")
    python_parent: int | None = msgspec.field(default=None, name="Python parent id")
    correlation: int | None = None
    device: int | None = None
    stream: int | None = None
    nbytes: int | None = msgspec.field(default=None, name="Bytes")
    total_allocated: int | None = msgspec.field(default=None, name="Total Allocated")
    device_type: int | None = msgspec.field(default=None, name="Device Type")
    name: str | None = None
    labels: str | None = None


class TraceEvent(msgspec.Struct, gc=False):
    """One trace event (see the module docstring)."""

    ph: str = ""
    cat: str = ""
    name: str = ""
    pid: int | str | None = None
    tid: int | str | None = None
    ts: float | None = None
    dur: float | None = None
    id: int | None = None
    args: EventArgs | None = None


class DeviceProperty(msgspec.Struct, gc=False):
    """One ``deviceProperties`` item (a CUDA device of the traced process)."""

    id: int | None = None
    name: str | None = None
    total_memory: int | None = msgspec.field(default=None, name="totalGlobalMem")


class DistributedInfo(msgspec.Struct, gc=False):
    """``distributedInfo``: the rank of a distributed (DDP) process."""

    backend: str | None = None
    rank: int | str | None = None
    world_size: int | str | None = None


class TraceHeader(msgspec.Struct, gc=False):
    """The keys around ``traceEvents``."""

    schema_version: int | None = msgspec.field(default=None, name="schemaVersion")
    device_properties: list[DeviceProperty] | None = msgspec.field(
        default=None, name="deviceProperties"
    )
    base_time_ns: int | None = msgspec.field(default=None, name="baseTimeNanoseconds")
    with_stack: int | bool | None = None
    profile_memory: int | bool | None = None
    record_shapes: int | bool | None = None
    distributed: DistributedInfo | None = msgspec.field(default=None, name="distributedInfo")
    trace_name: str | None = msgspec.field(default=None, name="traceName")


class TraceTail(msgspec.Struct, gc=False):
    """The end of the document: the last events and the keys after ``traceEvents``."""

    events: list[TraceEvent] = msgspec.field(default_factory=list, name="traceEvents")
    distributed: DistributedInfo | None = msgspec.field(default=None, name="distributedInfo")
    trace_name: str | None = msgspec.field(default=None, name="traceName")
