"""A baseline and a new run of the DS-CNN with one known regression, for the compare view.

    python -m tests.support.compare_pair OUT_DIR [--runs 30] [--factor 1.25] [--line 26]

Writes ``OUT_DIR/base.etrecord`` + ``base.etdump`` and ``OUT_DIR/new.etrecord`` +
``new.etdump``. The ETRecord is the real portable DS-CNN one (``tests/data/measured``);
each ETDump holds ``runs`` runs in which every operator's duration is drawn from that
operator's own 10 measured durations (ExecuTorch's Inspector reading of the real dump), so
the two runs differ by the model's own noise, nothing else, except that in the new run the
operators of one source line (by default the pointwise convolutions of ``dscnn.py:26``, found
from the Inspector's stack traces) take ``factor`` times as long. The regression is on that
line only; every other line changes within the noise. Deterministic (fixed seeds).
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
from pathlib import Path

from tests.support import locations
from tests.support.etdump_writer import Event, write_etdump

DATA = locations.DATA / "measured" / "portable"
ETRECORD = DATA / "dscnn_portable.etrecord"
INSPECTOR = DATA / "dscnn_portable.inspector.json"
SEEDS = {"base": 11, "new": 12}


def measured(line: int) -> tuple[list[int], dict[int, list[float]], set[int]]:
    """Instruction order, each instruction's measured milliseconds, and those of ``line``."""
    data = json.loads(INSPECTOR.read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    calls = [e for e in block["events"] if e["name"] == "OPERATOR_CALL"]
    order = [e["instruction_id"] for e in calls]
    durations = {e["instruction_id"]: e["raw_ms"] for e in calls}
    pattern = re.compile(rf'kws/dscnn\.py", line {line},')
    on_line = {
        e["instruction_id"] for e in calls if pattern.search(" ".join(e["stack_traces"].values()))
    }
    return order, durations, on_line


def etdump(seed: int, factor: float, runs: int, line: int) -> bytes:
    """An ETDump of ``runs`` runs; the operators of ``line`` ``factor`` times slower."""
    order, durations, slower = measured(line)
    rng = random.Random(seed)
    recorded: list[tuple[str, list[Event]]] = [("load", [Event("Method::init", 0, 1000, 0, -1)])]
    for _ in range(runs):
        events: list[Event] = []
        clock = 1000
        for instruction in order:
            drawn = rng.choice(durations[instruction])
            if instruction in slower:
                drawn *= factor
            ticks = round(drawn * 1e6)
            events.append(Event("OPERATOR_CALL", clock, clock + ticks, instruction, 0))
            clock += ticks + 500
        events.append(Event("Method::execute", 0, clock + 2000, 0, -1))
        recorded.append(("forward", events))
    return write_etdump(recorded)


def write_pair(
    folder: Path, *, runs: int = 30, factor: float = 1.25, line: int = 26
) -> tuple[str, str]:
    """Write both runs into ``folder``; returns the ``perfline compare`` arguments of each."""
    folder.mkdir(parents=True, exist_ok=True)
    sides = []
    for name, scale in (("base", 1.0), ("new", factor)):
        shutil.copy(ETRECORD, folder / f"{name}.etrecord")
        (folder / f"{name}.etdump").write_bytes(etdump(SEEDS[name], scale, runs, line))
        sides.append(f"{folder / name}.etrecord,{folder / name}.etdump")
    return sides[0], sides[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--factor", type=float, default=1.25)
    parser.add_argument("--line", type=int, default=26)
    args = parser.parse_args()
    for side in write_pair(args.out, runs=args.runs, factor=args.factor, line=args.line):
        print(side)


if __name__ == "__main__":
    main()
