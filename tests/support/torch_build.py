"""Small traces in the layout torch.profiler writes (kineto's ``output_json.cpp``: a header
object, ``traceEvents``, ``traceName``), built event by event for unit tests."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

PID = 100
TID = 100


def frame(name: str, ts: float, dur: float, tid: int = TID, **args: Any) -> dict[str, Any]:
    """A ``python_function`` slice."""
    return {
        "ph": "X",
        "cat": "python_function",
        "name": name,
        "pid": PID,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": {"Python id": 0, "Python parent id": None, **args},
    }


def op(
    name: str,
    ts: float,
    dur: float,
    tid: int = TID,
    external: int | None = None,
    sequence: int | None = None,
    forward_thread: int | None = None,
) -> dict[str, Any]:
    """A ``cpu_op`` slice."""
    args: dict[str, Any] = {}
    if external is not None:
        args["External id"] = external
    if sequence is not None:
        args["Sequence number"] = sequence
    if forward_thread is not None:
        args["Fwd thread id"] = forward_thread
    return {
        "ph": "X",
        "cat": "cpu_op",
        "name": name,
        "pid": PID,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": args,
    }


def step(number: int, ts: float, dur: float, tid: int = TID) -> dict[str, Any]:
    """A ``ProfilerStep#N`` annotation."""
    return {
        "ph": "X",
        "cat": "user_annotation",
        "name": f"ProfilerStep#{number}",
        "pid": PID,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": {"External id": 90000 + number},
    }


def memory(
    ts: float, nbytes: int, total: int, tid: int = TID, device_type: int = 0
) -> dict[str, Any]:
    """A ``[memory]`` instant."""
    return {
        "ph": "i",
        "cat": "cpu_instant_event",
        "s": "t",
        "name": "[memory]",
        "pid": PID,
        "tid": tid,
        "ts": ts,
        "args": {
            "Total Reserved": 0,
            "Total Allocated": total,
            "Bytes": nbytes,
            "Device Id": -1,
            "Device Type": device_type,
            "Addr": 1,
        },
    }


def flow(
    phase: str, flow_id: int, ts: float, category: str = "fwdbwd", tid: int = TID, pid: int = PID
) -> dict[str, Any]:
    """A flow end (``s`` or ``f``)."""
    event = {
        "ph": phase,
        "id": flow_id,
        "pid": pid,
        "tid": tid,
        "ts": ts,
        "cat": category,
        "name": category,
    }
    if phase == "f":
        event["bp"] = "e"
    return event


def kernel(
    name: str,
    ts: float,
    dur: float,
    correlation: int,
    external: int | None = None,
    device: int = 0,
    stream: int = 7,
    category: str = "kernel",
) -> dict[str, Any]:
    """A GPU activity on (device, stream)."""
    args: dict[str, Any] = {}
    if external is not None:
        args["External id"] = external
    args.update({"device": device, "stream": stream, "correlation": correlation})
    return {
        "ph": "X",
        "cat": category,
        "name": name,
        "pid": device,
        "tid": stream,
        "ts": ts,
        "dur": dur,
        "args": args,
    }


def runtime(
    name: str, ts: float, dur: float, correlation: int, external: int | None = None, tid: int = TID
) -> dict[str, Any]:
    """A ``cuda_runtime`` call on a CPU thread."""
    args: dict[str, Any] = {}
    if external is not None:
        args["External id"] = external
    args.update({"cbid": 211, "correlation": correlation})
    return {
        "ph": "X",
        "cat": "cuda_runtime",
        "name": name,
        "pid": PID,
        "tid": tid,
        "ts": ts,
        "dur": dur,
        "args": args,
    }


@dataclass
class Trace:
    """Events and header keys, written as kineto writes them."""

    events: list[dict[str, Any]] = field(default_factory=list)
    header: dict[str, Any] = field(
        default_factory=lambda: {
            "schemaVersion": 1,
            "deviceProperties": [],
            "with_stack": 1,
            "profile_memory": 1,
            "record_shapes": 1,
            "displayTimeUnit": "ms",
            "baseTimeNanoseconds": 1790857026000000000,
        }
    )

    def text(self) -> str:
        head = "".join(f"\n  {json.dumps(k)}: {json.dumps(v)}," for k, v in self.header.items())
        body = ",".join(
            "\n  " + json.dumps(event, indent=4).replace("\n", "\n  ") for event in self.events
        )
        return "{" + head + '\n  "traceEvents": [' + body + '\n  ],\n  "traceName": "t.json"\n}'

    def data(self) -> bytes:
        return self.text().encode()
