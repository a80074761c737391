"""A generated pair of ExecuTorch runs with one known regression: every run draws each
operator's duration from that operator's 10 measured durations in the real portable DS-CNN
Inspector dump; in the slower run the pointwise convolutions of ``dscnn.py:26`` take
``FACTOR`` times longer. Seeded draws, no clock; the ETDumps are written in memory."""

from __future__ import annotations

import json
import random
import re

from tests.support.compare_paths import inspector
from tests.support.etdump_writer import Event, write_etdump

RUNS = 30
SLOWER_LINE = 26
FACTOR = 1.25
BASE_SEED, NEW_SEED = 11, 12


def measured() -> tuple[list[int], dict[int, list[float]], set[int]]:
    """Instruction order, each instruction's measured ms, and the instructions of line 26."""
    data = json.loads(inspector("portable").read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    calls = [e for e in block["events"] if e["name"] == "OPERATOR_CALL"]
    order = [e["instruction_id"] for e in calls]
    durations = {e["instruction_id"]: e["raw_ms"] for e in calls}
    slower = {
        e["instruction_id"]
        for e in calls
        if re.search(rf'kws/dscnn\.py", line {SLOWER_LINE},', " ".join(e["stack_traces"].values()))
    }
    return order, durations, slower


def draws(seed: int, factor: float) -> list[dict[int, int]]:
    """Per run: each instruction's drawn duration in ticks (ns), line 26's scaled."""
    order, durations, slower = measured()
    rng = random.Random(seed)
    runs = []
    for _ in range(RUNS):
        drawn: dict[int, int] = {}
        for instruction in order:
            value = rng.choice(durations[instruction])
            drawn[instruction] = round(value * (factor if instruction in slower else 1.0) * 1e6)
        runs.append(drawn)
    return runs


def regression_etdump(seed: int, factor: float) -> bytes:
    order, _, _ = measured()
    runs: list[tuple[str, list[Event]]] = [("load", [Event("Method::init", 0, 1000, 0, -1)])]
    for drawn in draws(seed, factor):
        events: list[Event] = []
        clock = 1000
        for instruction in order:
            ticks = drawn[instruction]
            events.append(Event("OPERATOR_CALL", clock, clock + ticks, instruction, 0))
            clock += ticks + 500
        events.append(Event("Method::execute", 0, clock + 2000, 0, -1))
        runs.append(("forward", events))
    return write_etdump(runs)


def instructions_holding(line: int) -> set[int]:
    """The instructions whose Inspector stack traces hold ``dscnn.py`` line ``line``."""
    data = json.loads(inspector("portable").read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    return {
        e["instruction_id"]
        for e in block["events"]
        if e["name"] == "OPERATOR_CALL"
        and re.search(rf'kws/dscnn\.py", line {line},', " ".join(e["stack_traces"].values()))
    }
