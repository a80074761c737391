"""Many distinct runs from the real fixtures, for ``perfline batch``'s tests and benchmark.

Each variant is a real recording with its timings redrawn: every timestamp of the file
goes through one monotone warp of the time axis (each gap between two consecutive
distinct timestamps stretched by a seeded random factor, times a per-run factor), so
every event keeps its order, its nesting and its name, and only durations change, as
they do between two real runs. A "slow" set of events (ETDump instruction ids, ONNX
Runtime node names) can be made slower by a factor: every gap inside such an event is
stretched by it too, so what encloses it grows with it.

* ``--etdump N``: the DS-CNN portable ETDump (``tests/data/measured/portable``), its
  ``start_time`` / ``end_time`` fields rewritten in place in the flatbuffer, beside a copy
  of its ETRecord: ``etdump/run_K.etdump``;
* ``--ort N``: the DS-CNN ONNX Runtime profile (``tests/data/onnxruntime/dscnn_opt.json``),
  its ``ts`` / ``dur`` redrawn, beside a copy of the model: ``ort/run_K.json``;
* ``--documents N``: standardized documents, the raw output of perfline's ExecuTorch
  backend on variants of the XNNPACK ETDump (``tests/data/measured/xnnpack``):
  ``documents/run_K.json``.

It writes ``runs.txt``, one run spec a line (relative to OUT), for
``perfline batch run --from-list OUT/runs.txt``. The same seed gives the same bytes.

    python tests/data/batch/make_runs.py OUT --etdump 61 --ort 31 --documents 29 [--seed 1]
        [--slow-instructions 5,6 --slow-nodes Conv_12 --slow-factor 1.3]
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import struct
from collections.abc import Iterable, Sequence
from pathlib import Path

DATA = Path(__file__).resolve().parents[1]
PORTABLE = DATA / "measured" / "portable"
XNNPACK = DATA / "measured" / "xnnpack"
ORT_PROFILE = DATA / "onnxruntime" / "dscnn_opt.json"
ORT_MODEL = DATA / "formats" / "dscnn" / "dscnn.onnx"
#: Spread of the per-gap factor and of the per-run factor.
GAP_SPREAD = 0.15
RUN_SPREAD = 0.08


class Warp:
    """A monotone map of integer timestamps: sorted distinct points, each gap scaled."""

    def __init__(
        self,
        points: Iterable[int],
        rng: random.Random,
        slow: Sequence[tuple[int, int]] = (),
        factor: float = 1.0,
    ) -> None:
        ordered = sorted(set(points))
        scale = 1.0 + rng.uniform(-RUN_SPREAD, RUN_SPREAD)
        self.new: dict[int, int] = {}
        if not ordered:
            return
        current = ordered[0]
        self.new[current] = current
        for before, after in zip(ordered, ordered[1:], strict=False):
            stretch = scale * (1.0 + rng.uniform(-GAP_SPREAD, GAP_SPREAD))
            if any(start <= before and after <= end for start, end in slow):
                stretch *= factor
            current += max(1, round((after - before) * stretch))
            self.new[after] = current

    def __call__(self, point: int) -> int:
        return self.new[point]


# ---- ETDump: the flatbuffer's profile events, read with struct ----------------------------


def _u32(data: bytes | bytearray, at: int) -> int:
    return int(struct.unpack_from("<I", data, at)[0])


def _field(data: bytes | bytearray, table: int, slot: int) -> int:
    """The absolute position of a table's field, 0 when absent."""
    vtable = table - struct.unpack_from("<i", data, table)[0]
    size = struct.unpack_from("<H", data, vtable)[0]
    entry = 4 + 2 * slot
    if entry >= size:
        return 0
    offset = struct.unpack_from("<H", data, vtable + entry)[0]
    return table + offset if offset else 0


def _tables(data: bytes | bytearray, table: int, slot: int) -> list[int]:
    at = _field(data, table, slot)
    if not at:
        return []
    vector = at + _u32(data, at)
    return [
        vector + 4 + 4 * i + _u32(data, vector + 4 + 4 * i) for i in range(_u32(data, vector))
    ]


def profile_events(data: bytes | bytearray) -> list[tuple[int, int, int]]:
    """(start field position, end field position, instruction id) of every profile event
    of an ETDump (``ETDump.run_data[].events[].profile_event``, slots 6, 7 and 2)."""
    if data[8:12] == b"ED00":
        root = 4 + _u32(data, 4)
    elif data[4:8] == b"ED00":
        root = _u32(data, 0)
    else:
        raise ValueError("not an ETDump (no ED00 identifier)")
    found: list[tuple[int, int, int]] = []
    for run in _tables(data, root, 1):
        for event in _tables(data, run, 3):
            at = _field(data, event, 0)
            if not at:
                continue
            profile = at + _u32(data, at)
            start, end = _field(data, profile, 6), _field(data, profile, 7)
            instruction = _field(data, profile, 2)
            if start and end:
                ident = struct.unpack_from("<i", data, instruction)[0] if instruction else -1
                found.append((start, end, ident))
    return found


def etdump_variant(
    data: bytes, rng: random.Random, slow: frozenset[int] = frozenset(), factor: float = 1.0
) -> bytes:
    """The ETDump with every event's times warped (``slow`` instruction ids: ``factor``)."""
    events = profile_events(data)
    times = [
        (struct.unpack_from("<Q", data, s)[0], struct.unpack_from("<Q", data, e)[0], i)
        for s, e, i in events
    ]
    slowed = [(start, end) for start, end, ident in times if ident in slow]
    warp = Warp((t for start, end, _ in times for t in (start, end)), rng, slowed, factor)
    out = bytearray(data)
    for (start_at, end_at, _), (start, end, _) in zip(events, times, strict=True):
        struct.pack_into("<Q", out, start_at, warp(start))
        struct.pack_into("<Q", out, end_at, warp(end))
    return bytes(out)


# ---- ONNX Runtime profiles ------------------------------------------------------------------


def ort_variant(
    events: list[dict[str, object]],
    rng: random.Random,
    slow: frozenset[str] = frozenset(),
    factor: float = 1.0,
) -> list[dict[str, object]]:
    """The profile's events with ``ts`` and ``dur`` warped (``slow`` node names: ``factor``)."""
    spans = [(int(e["ts"]), int(e["ts"]) + int(e["dur"])) for e in events]  # type: ignore[call-overload]
    slowed = [span for span, e in zip(spans, events, strict=True) if _node(e) in slow]
    warp = Warp((t for span in spans for t in span), rng, slowed, factor)
    return [
        {**e, "ts": warp(start), "dur": warp(end) - warp(start)}
        for e, (start, end) in zip(events, spans, strict=True)
    ]


def _node(event: dict[str, object]) -> str:
    name = str(event.get("name", ""))
    return name.removesuffix("_kernel_time")


# ---- writing the runs -----------------------------------------------------------------------


def write_runs(
    out: Path,
    *,
    etdump: int = 0,
    ort: int = 0,
    documents: int = 0,
    seed: int = 1,
    slow_instructions: frozenset[int] = frozenset(),
    slow_nodes: frozenset[str] = frozenset(),
    slow_factor: float = 1.0,
) -> list[str]:
    """Write the variants under ``out`` and ``out/runs.txt``; returns the run specs."""
    rng = random.Random(seed)
    specs: list[str] = []
    if etdump:
        folder = out / "etdump"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PORTABLE / "dscnn_portable.etrecord", folder / "dscnn_portable.etrecord")
        base = (PORTABLE / "dscnn_portable.etdump").read_bytes()
        for k in range(etdump):
            name = f"run_{k:05d}.etdump"
            data = etdump_variant(base, rng, slow_instructions, slow_factor)
            (folder / name).write_bytes(data)
            specs.append(f"etdump/dscnn_portable.etrecord,etdump/{name}")
    if ort:
        folder = out / "ort"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(ORT_MODEL, folder / "dscnn.onnx")
        events = json.loads(ORT_PROFILE.read_text(encoding="utf-8"))
        for k in range(ort):
            name = f"run_{k:05d}.json"
            variant = ort_variant(events, rng, slow_nodes, slow_factor)
            (folder / name).write_text(json.dumps(variant), encoding="utf-8")
            specs.append(f"ort/dscnn.onnx,ort/{name}")
    if documents:
        specs.extend(_documents(out / "documents", documents, rng))
    (out / "runs.txt").write_text("".join(f"{spec}\n" for spec in specs), encoding="utf-8")
    return specs


def _documents(folder: Path, count: int, rng: random.Random) -> list[str]:
    """Raw standardized documents of XNNPACK ETDump variants, by perfline's own backend."""
    from perfline.core.backends.executorch.document import analyze_etdump
    from perfline.core.backends.source_model.inputs import InputFile

    folder.mkdir(parents=True, exist_ok=True)
    record = InputFile("dscnn_xnnpack.etrecord", (XNNPACK / "dscnn_xnnpack.etrecord").read_bytes())
    base = (XNNPACK / "dscnn_xnnpack.etdump").read_bytes()
    specs = []
    for k in range(count):
        dump = InputFile(f"run_{k:05d}.etdump", etdump_variant(base, rng))
        document = analyze_etdump(record, dump, timestamp="2026-12-01T00:00:00Z")
        name = f"run_{k:05d}.json"
        (folder / name).write_text(json.dumps(document, indent=1), encoding="utf-8")
        specs.append(f"documents/{name}")
    return specs


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--etdump", type=int, default=0)
    parser.add_argument("--ort", type=int, default=0)
    parser.add_argument("--documents", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--slow-instructions", default="", help="ETDump instruction ids, a,b")
    parser.add_argument("--slow-nodes", default="", help="ONNX Runtime node names, a,b")
    parser.add_argument("--slow-factor", type=float, default=1.0)
    arguments = parser.parse_args()
    specs = write_runs(
        arguments.out,
        etdump=arguments.etdump,
        ort=arguments.ort,
        documents=arguments.documents,
        seed=arguments.seed,
        slow_instructions=frozenset(int(i) for i in arguments.slow_instructions.split(",") if i),
        slow_nodes=frozenset(n for n in arguments.slow_nodes.split(",") if n),
        slow_factor=arguments.slow_factor,
    )
    print(f"wrote {len(specs)} runs and {arguments.out / 'runs.txt'}")


if __name__ == "__main__":
    main()
