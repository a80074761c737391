"""Figures computed straight from a trace's JSON (and its sidecar), by code that shares
nothing with the backend: the expectations of the real-trace tests.

A slice's time counts in the step whose ``ProfilerStep#N`` window holds its start, so what a
slice and everything below it ran is the sum of their *self* times (duration less the
children's) over those of them that start inside a step."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Any

_FRAME = re.compile(r"^(.+)\((\d+)\): (.+)$")


class Nesting:
    """The CPU slices of a trace (``python_function`` and ``cpu_op``) nested by time."""

    def __init__(self, trace: Path) -> None:
        all_events = json.loads(trace.read_bytes())["traceEvents"]
        self.windows = sorted(
            (e["ts"], e["ts"] + e["dur"])
            for e in all_events
            if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")
        )
        self.slices = [
            e
            for e in all_events
            if e.get("ph") == "X" and e.get("cat") in ("python_function", "cpu_op")
        ]
        self.children: dict[int, list[int]] = defaultdict(list)
        self.parent: dict[int, int] = {}
        order = sorted(
            range(len(self.slices)),
            key=lambda i: (
                str(self.slices[i]["tid"]),
                self.slices[i]["ts"],
                -self.slices[i]["dur"],
                self.slices[i]["cat"] == "cpu_op",
            ),
        )
        stack: list[int] = []
        thread = None
        for index in order:
            event = self.slices[index]
            if event["tid"] != thread:
                stack, thread = [], event["tid"]
            while stack and self._end(stack[-1]) <= event["ts"]:
                stack.pop()
            if stack:
                self.children[stack[-1]].append(index)
                self.parent[index] = stack[-1]
            stack.append(index)
        self._below: dict[int, float] = {}

    def _end(self, index: int) -> float:
        return self.slices[index]["ts"] + self.slices[index]["dur"]

    def in_steps(self, ts: float) -> bool:
        return any(start <= ts < end for start, end in self.windows)

    def below(self, index: int) -> float:
        """Self time (µs) of the slice and everything below it, over those starting in a
        step (children first, so deep nesting costs no recursion)."""
        pending = [index]
        while pending:
            top = pending[-1]
            missing = [c for c in self.children.get(top, []) if c not in self._below]
            if missing:
                pending.extend(missing)
                continue
            pending.pop()
            event = self.slices[top]
            kids = self.children.get(top, [])
            own = event["dur"] - sum(self.slices[c]["dur"] for c in kids)
            total = own if self.in_steps(event["ts"]) else 0.0
            self._below[top] = total + sum(self._below[c] for c in kids)
        return self._below[index]

    def steps(self) -> int:
        return len(self.windows)

    def frames_of(self, file_end: str) -> list[tuple[int, re.Match[str]]]:
        """The Python frames of the file ending with ``file_end``."""
        found = []
        for index, event in enumerate(self.slices):
            if event["cat"] != "python_function":
                continue
            match = _FRAME.match(event["name"])
            if match and ("/" + file_end).endswith("/" + match[1]):
                found.append((index, match))
        return found


def frame_lines(trace: Path, file_end: str) -> set[int]:
    """The lines the tracer names the file's frames by: each function's ``def`` line, or,
    for a frame already running when the profiler started, its current line. At statement
    level such a line also carries the frame's own Python time."""
    return {int(match[2]) for _, match in Nesting(trace).frames_of(file_end)}


def def_line_totals(trace: Path, file_end: str) -> dict[int, float]:
    """(def line) -> per-step mean (ms) of what the file's functions ran (what each
    function's ``def`` line carries at function level)."""
    nesting = Nesting(trace)
    found: dict[int, float] = defaultdict(float)
    for index, match in nesting.frames_of(file_end):
        found[int(match[2])] += nesting.below(index) / 1000
    return {line: total / nesting.steps() for line, total in found.items() if total}


def _statement_children(
    trace: Path, sidecar: Path, file_end: str
) -> tuple[Nesting, list[tuple[int, int]]]:
    """(line, slice) for every direct child (a call, an op) of the file's functions that has
    an op below it: the line the sidecar gives that function in the op's stack."""
    document = json.loads(sidecar.read_bytes())
    files = document["files"]
    stacks = document["stacks"]
    stack_of = {entry[0]: stacks[entry[1]] for entry in document["ops"]}
    nesting = Nesting(trace)

    def first_stack(index: int) -> list[Any] | None:
        pending = [index]
        while pending:
            top = pending.pop(0)
            event = nesting.slices[top]
            if event["cat"] == "cpu_op":
                found = stack_of.get(event["args"].get("External id"))
                if found is not None:
                    return found
            pending.extend(nesting.children.get(top, []))
        return None

    def same_above(index: int, name: str) -> int:
        """How many enclosing frames run the same function of the same file."""
        count = 0
        up = nesting.parent.get(index)
        while up is not None:
            event = nesting.slices[up]
            other = _FRAME.match(event["name"]) if event["cat"] == "python_function" else None
            if other and other[1] == name.split("(")[0] and other[3] == name.split(": ")[-1]:
                count += 1
            up = nesting.parent.get(up)
        return count

    found: list[tuple[int, int]] = []
    for index, match in nesting.frames_of(file_end):
        function = match[3]
        occurrence = same_above(index, nesting.slices[index]["name"])
        for child in nesting.children.get(index, []):
            stack = first_stack(child)
            if stack is None:
                continue
            lines = [
                frame[1]
                for frame in stack
                if frame[2] == function and files[frame[0]].endswith("/" + file_end)
            ]
            if len(lines) > occurrence:
                found.append((lines[occurrence], child))
    return nesting, found


def statement_line_totals(trace: Path, sidecar: Path, file_end: str) -> dict[int, float]:
    """(statement line) -> per-step mean (ms) of what the file's functions ran at that line:
    their direct children (calls, ops) that have an op below them, at the line the sidecar
    gives that function in those ops' stacks."""
    nesting, children = _statement_children(trace, sidecar, file_end)
    totals: dict[int, float] = defaultdict(float)
    for line, child in children:
        totals[line] += nesting.below(child) / 1000
    return {line: total / nesting.steps() for line, total in totals.items() if total}


def _allocations(trace: Path, device_type: int = 0) -> tuple[list[dict[str, Any]], Nesting]:
    """The positive ``[memory]`` events of a device type (0: host, 1: CUDA) that start inside
    a step, and the trace's nesting."""
    nesting = Nesting(trace)
    events = json.loads(trace.read_bytes())["traceEvents"]
    found = [
        e
        for e in events
        if e.get("name") == "[memory]"
        and e["args"]["Bytes"] > 0
        and e["args"]["Device Type"] == device_type
        and nesting.in_steps(e["ts"])
    ]
    return found, nesting


def peak_allocated(trace: Path, device_type: int = 0) -> int:
    """The highest ``Total Allocated`` of the trace's ``[memory]`` events of a device type."""
    events = json.loads(trace.read_bytes())["traceEvents"]
    return max(
        e["args"]["Total Allocated"]
        for e in events
        if e.get("name") == "[memory]" and e["args"]["Device Type"] == device_type
    )


def memory_def_line_totals(trace: Path, file_end: str, device_type: int = 0) -> dict[int, float]:
    """(def line) -> per-step mean of the bytes allocated (on the host, or with
    ``device_type=1`` on the GPU) while the file's functions ran: each allocation inside one
    of their frames (same thread, start <= ts < end), counted once per line."""
    allocations, nesting = _allocations(trace, device_type)
    frames = nesting.frames_of(file_end)
    found: dict[int, float] = defaultdict(float)
    for event in allocations:
        lines = {
            int(match[2])
            for index, match in frames
            if nesting.slices[index]["tid"] == event["tid"]
            and nesting.slices[index]["ts"]
            <= event["ts"]
            < nesting.slices[index]["ts"] + nesting.slices[index]["dur"]
        }
        for line in lines:
            found[line] += event["args"]["Bytes"]
    return {line: total / nesting.steps() for line, total in found.items()}


def memory_statement_line_totals(trace: Path, sidecar: Path, file_end: str) -> dict[int, float]:
    """(statement line) -> per-step mean of the bytes allocated while the file's functions
    ran the calls and ops at that line (the children ``statement_line_totals`` takes: each
    allocation inside one of them, same thread), counted once per line."""
    allocations, _ = _allocations(trace)
    nesting, children = _statement_children(trace, sidecar, file_end)
    seen: dict[int, set[int]] = defaultdict(set)
    for line, child in children:
        event = nesting.slices[child]
        for number, allocation in enumerate(allocations):
            if (
                allocation["tid"] == event["tid"]
                and event["ts"] <= allocation["ts"] < event["ts"] + event["dur"]
            ):
                seen[line].add(number)
    return {
        line: sum(allocations[n]["args"]["Bytes"] for n in numbers) / nesting.steps()
        for line, numbers in seen.items()
    }
