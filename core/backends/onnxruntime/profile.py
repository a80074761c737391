"""Reading an ONNX Runtime profile (``SessionOptions.enable_profiling``, Chrome-trace JSON).

The file is a JSON array of complete events (``ph: "X"``; or an object whose ``traceEvents``
holds them) with ``cat``, ``name``, ``ts`` and ``dur`` in microseconds and ``args``:

* ``cat: "Session"``, ``name: "model_run"``: one ``InferenceSession.run`` (a run);
* ``cat: "Node"``, ``name: "<node>_kernel_time"``: one kernel execution of a graph node, with
  ``args.node_index``, ``op_name``, ``provider``, ``input_type_shape`` / ``output_type_shape``
  (lists of ``{element type: shape}``) and byte sizes as decimal strings;
* other events (``model_loading_uri``, ``session_initialization``,
  ``SequentialExecutor::Execute``, ``<node>_fence_before/after`` of old releases) are counted and
  not timed.

Node events are kept in file order with the run whose span holds their start (``ts``); a node
event outside every run is counted as such. Problems name the file and the event's JSON path
(``$[12].args.node_index``). Cost: one ``json.loads`` plus one pass over the events, with a
binary search of the runs for each node event.
"""

from __future__ import annotations

import bisect
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from perfline.core.errors import InputError, Problem
from perfline.core.finite_numbers import read_number
from perfline.core.json_codec import limit_problem

KERNEL_SUFFIX = "_kernel_time"
MODEL_RUN = "model_run"
Shape = tuple[int, ...]


@dataclass(frozen=True)
class NodeEvent:
    """One kernel execution: node name (suffix removed), what ran, when (µs) and in which run."""

    position: int
    name: str
    node_index: int | None
    op_name: str
    provider: str
    ts: float
    duration_us: float
    run: int
    args: Mapping[str, Any]

    @property
    def input_shapes(self) -> tuple[Shape, ...]:
        """``args.input_type_shape`` as shapes (``()`` where an entry is not a shape)."""
        return _shapes(self.args.get("input_type_shape"))

    @property
    def output_shapes(self) -> tuple[Shape, ...]:
        """``args.output_type_shape`` as shapes."""
        return _shapes(self.args.get("output_type_shape"))

    @property
    def output_types(self) -> tuple[str, ...]:
        """The element type of each ``args.output_type_shape`` entry (``""`` where none)."""
        return _element_types(self.args.get("output_type_shape"))

    @property
    def parameter_size(self) -> int | None:
        """``args.parameter_size``: bytes of the node's initializer inputs, as ORT counts them."""
        value = self.args.get("parameter_size")
        if isinstance(value, str) and value.isdigit():
            return int(value)
        return None


@dataclass(frozen=True)
class Profile:
    """The runs and node events of one profile file."""

    source: str
    run_durations_us: tuple[float, ...]
    node_events: tuple[NodeEvent, ...]
    outside_runs: int
    without_node_index: tuple[int, ...]
    other_events: Mapping[str, int]


def _load(data: bytes, source: str) -> list[Any]:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise InputError(source, Problem(f"byte {error.start}", "not UTF-8 text")) from None
    if not text.strip():
        raise InputError(source, Problem("byte 0", "the file is empty; expected a Chrome trace"))
    try:
        document = json.loads(text)
    except json.JSONDecodeError as error:
        hint = " (the file is truncated)" if error.pos >= len(text.rstrip()) - 1 else ""
        raise InputError(
            source,
            Problem(
                f"line {error.lineno}, column {error.colno}",
                f"invalid JSON{hint}: {error.msg}; expected an ONNX Runtime profile",
            ),
        ) from None
    except (RecursionError, ValueError):  # nested too deeply, an integer too long
        raise InputError(source, limit_problem(text)) from None
    if isinstance(document, Mapping) and isinstance(document.get("traceEvents"), list):
        return list(document["traceEvents"])
    if not isinstance(document, list):
        raise InputError(
            source,
            Problem(
                "$",
                f"expected a Chrome trace (a JSON array of events, or an object with "
                f"'traceEvents'), found a JSON {type(document).__name__}; not an ONNX Runtime "
                "profile",
            ),
        )
    return document


def _number(value: Any, source: str, where: str) -> float:
    return read_number(value, source, where, non_negative=True)


def _shapes(value: Any) -> tuple[Shape, ...]:
    shapes: list[Shape] = []
    if not isinstance(value, list):
        return ()
    for item in value:
        if isinstance(item, Mapping) and len(item) == 1:
            (dims,) = item.values()
            if isinstance(dims, list) and all(type(d) is int for d in dims):
                shapes.append(tuple(dims))
                continue
        shapes.append(())
    return tuple(shapes)


def _element_types(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        return ()
    return tuple(
        next(iter(item)) if isinstance(item, Mapping) and len(item) == 1 else "" for item in value
    )


def _node_index(args: Mapping[str, Any], source: str, where: str) -> int | None:
    value = args.get("node_index")
    if value is None:
        return None
    try:
        index = int(value)
    except (TypeError, ValueError):
        raise InputError(
            source, Problem(f"{where}.args.node_index", f"expected an integer, got {value!r}")
        ) from None
    if index < 0:
        raise InputError(source, Problem(f"{where}.args.node_index", f"negative index {index}"))
    return index


def read_profile(data: bytes, source: str) -> Profile:
    """Decode one profile; malformed content raises ``InputError`` naming the event."""
    events = _load(data, source)
    runs: list[tuple[float, float]] = []
    others: dict[str, int] = {}
    kernels: list[tuple[int, Mapping[str, Any]]] = []
    for position, event in enumerate(events):
        if not isinstance(event, Mapping):
            raise InputError(source, Problem(f"$[{position}]", "expected an event object"))
        category = event.get("cat")
        name = event.get("name")
        if category == "Session" and name == MODEL_RUN:
            start = _number(event.get("ts"), source, f"$[{position}].ts")
            duration = _number(event.get("dur"), source, f"$[{position}].dur")
            runs.append((start, start + duration))
        elif category == "Node" and isinstance(name, str) and name.endswith(KERNEL_SUFFIX):
            kernels.append((position, event))
        else:
            label = f"{category}:{name}" if category != "Node" else "Node:<non-kernel event>"
            others[label] = others.get(label, 0) + 1
    if not runs and not kernels:
        raise InputError(
            source,
            Problem(
                "$",
                f"no 'model_run' or '*_kernel_time' events among {len(events)} events; not an "
                "ONNX Runtime profile (written with SessionOptions.enable_profiling)",
            ),
        )
    if not runs:
        raise InputError(
            source,
            Problem("$", "no 'model_run' session events: the profile records no run"),
        )
    order = sorted(range(len(runs)), key=lambda i: runs[i][0])
    starts = [runs[i][0] for i in order]
    nodes: list[NodeEvent] = []
    outside = 0
    without_index: list[int] = []
    for position, event in kernels:
        where = f"$[{position}]"
        ts = _number(event.get("ts"), source, f"{where}.ts")
        duration = _number(event.get("dur"), source, f"{where}.dur")
        slot = bisect.bisect_right(starts, ts) - 1
        if slot < 0 or ts > runs[order[slot]][1]:
            outside += 1
            continue
        args = event.get("args")
        args = args if isinstance(args, Mapping) else {}
        index = _node_index(args, source, where)
        if index is None:
            without_index.append(position)
        op_name = args.get("op_name")
        provider = args.get("provider")
        nodes.append(
            NodeEvent(
                position=position,
                name=str(event["name"])[: -len(KERNEL_SUFFIX)],
                node_index=index,
                op_name=op_name if isinstance(op_name, str) else "",
                provider=provider if isinstance(provider, str) else "",
                ts=ts,
                duration_us=duration,
                run=slot,
                args=args,
            )
        )
    return Profile(
        source=source,
        run_durations_us=tuple(runs[i][1] - runs[i][0] for i in order),
        node_events=tuple(nodes),
        outside_runs=outside,
        without_node_index=tuple(without_index),
        other_events=dict(sorted(others.items())),
    )


def describe_positions(positions: Sequence[int], limit: int = 3) -> str:
    """``$[12], $[40], ...`` for a message."""
    shown = ", ".join(f"$[{p}]" for p in positions[:limit])
    return shown + (", ..." if len(positions) > limit else "")
