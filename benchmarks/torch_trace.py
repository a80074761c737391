"""torch.profiler trace benchmark: ``perfline analyze TRACE`` on a 100 MB trace next to
``json.loads`` of the same file, and a 1 GB ``.json.gz`` trace streamed.

The big traces are made from a real one (``tests/data/torch_profiler/traces/train_step.pt.
trace.json``, torch 2.13: forward, loss, backward and AdamW) by repeating its recorded steps:
each copy shifted in time and given fresh ``External id``, ``Python id``, flow and step
numbers, so every step is a real step of the same program and the trace grows, not its
shape (the same stacks, so the result's size stays that of the small trace).

Measured, each in a fresh process of the Python running this script (use the compiled
build's), in the same run, one after the other:

* ``json.loads`` of the 100 MB file: wall time (read + parse) and peak RSS;
* ``perfline analyze TRACE --output-dir DIR`` (the CLI as users run it: process start,
  streaming read, attribution, post-processing, the output file and the text report): wall
  time and peak RSS; the ratio to ``json.loads``'s time (target <= 2) and peak RSS less an idle
  perfline process's, as a share of the file size (target <= 1.5);
* the same on the 1 GB ``.json.gz`` trace: wall time and peak RSS (streamed: far below the
  decompressed size).

Usage: ``python benchmarks/torch_trace.py [--mb 100] [--gz-mb 1024] [--keep DIR]``. Prints
figures; asserts nothing. Making the 1 GB trace takes a few minutes; ``--gz-mb 0`` skips it.
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

REPO = Path(__file__).resolve().parents[1]
SOURCE = REPO / "tests" / "data" / "torch_profiler" / "traces" / "train_step.pt.trace.json"
MODEL = REPO / "tests" / "data" / "torch_profiler" / "models" / "train_step.py"
MB = 1024 * 1024
_ID_KEYS = ("External id", "Python id", "Python parent id", "correlation", "Ev Idx")


def _steps(events: list[dict[str, Any]]) -> tuple[float, float]:
    windows = [
        (e["ts"], e["ts"] + e["dur"])
        for e in events
        if e.get("cat") == "user_annotation" and e["name"].startswith("ProfilerStep#")
    ]
    return min(s for s, _ in windows), max(e for _, e in windows)


def _shifted(event: dict[str, Any], copy: int, span: float, id_step: int) -> dict[str, Any]:
    moved = dict(event)
    if isinstance(moved.get("ts"), (int, float)):
        moved["ts"] = round(moved["ts"] + copy * span, 3)
    if "id" in moved:
        moved["id"] = moved["id"] + copy * id_step
    args = moved.get("args")
    if isinstance(args, dict):
        args = dict(args)
        for key in _ID_KEYS:
            if isinstance(args.get(key), int):
                args[key] = args[key] + copy * id_step
        moved["args"] = args
    if moved.get("cat") == "user_annotation" and moved["name"].startswith("ProfilerStep#"):
        number = int(moved["name"].split("#")[1])
        moved["name"] = f"ProfilerStep#{number + copy * 1000}"
    return moved


def write_trace(target_bytes: int, out: IO[str]) -> int:
    """Write a trace of about ``target_bytes`` made from ``SOURCE``'s steps; the number of
    steps it holds."""
    document = json.loads(SOURCE.read_text())
    events = document["traceEvents"]
    first, last = _steps(events)
    span = last - first
    in_steps = [
        e for e in events if isinstance(e.get("ts"), (int, float)) and first <= e["ts"] < last
    ]
    inside = {id(e) for e in in_steps}
    once = [e for e in events if id(e) not in inside]
    id_step = 10_000_000
    out.write("{\n")
    for key, value in document.items():
        if key not in ("traceEvents", "traceName"):
            out.write(f"  {json.dumps(key)}: {json.dumps(value)},\n")
    out.write('  "traceEvents": [\n')
    written = 0
    body = ",\n".join("  " + json.dumps(e) for e in once)
    out.write(body)
    written += len(body)
    steps_per_copy = sum(1 for e in in_steps if e.get("name", "").startswith("ProfilerStep#"))
    copies = 0
    while written < target_bytes:
        chunk = ",\n".join("  " + json.dumps(_shifted(e, copies, span, id_step)) for e in in_steps)
        out.write(",\n" + chunk)
        written += len(chunk) + 2
        copies += 1
    out.write('\n  ],\n  "traceName": "big.pt.trace.json"\n}\n')
    return copies * steps_per_copy


def _child(arguments: list[str], cwd: Path | None = None) -> tuple[float, float]:
    """Run ``python ARGUMENTS`` in a fresh process; (wall s, its own peak RSS MB, from
    ``wait4``'s resource usage of that process alone)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=cwd
    )
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - start
    if status != 0:
        assert process.stderr is not None
        raise SystemExit(f"child failed ({status}): {process.stderr.read()[-2000:]!r}")
    return wall, usage.ru_maxrss / 1024


def json_loads(path: Path) -> tuple[float, float]:
    return _child(["-c", f"import json; json.loads(open({str(path)!r}, 'rb').read())"])


def idle_perfline() -> float:
    return _child(["-m", "perfline", "--version"])[1]


def analyze(path: Path, output: Path) -> tuple[float, float]:
    """``perfline analyze`` from the trace's folder, which holds the model's source (the
    workspace the frames resolve onto)."""
    return _child(
        ["-m", "perfline", "analyze", str(path), "--output-dir", str(output)], cwd=path.parent
    )


def _timed(label: str, make: Callable[[], int]) -> int:
    start = time.perf_counter()
    steps = make()
    print(f"{label}: made in {time.perf_counter() - start:.0f} s, {steps} steps")
    return steps


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=int, default=100)
    parser.add_argument("--gz-mb", type=int, default=1024)
    parser.add_argument("--keep", type=Path, default=None, help="write the traces here")
    arguments = parser.parse_args()
    from perfline.build_info import core_build

    print(f"perfline core build: {core_build()}; python {sys.version.split()[0]}")
    with tempfile.TemporaryDirectory() as scratch:
        folder = arguments.keep or Path(scratch)
        folder.mkdir(parents=True, exist_ok=True)
        (folder / MODEL.name).write_bytes(MODEL.read_bytes())
        plain = folder / "big.pt.trace.json"
        with plain.open("w") as out:
            _timed(f"{plain.name}", lambda: write_trace(arguments.mb * MB, out))
        size = plain.stat().st_size / MB
        idle = idle_perfline()
        loads_wall, loads_peak = json_loads(plain)
        wall, peak = analyze(plain, folder / "out")
        print(f"trace: {size:.1f} MB")
        print(f"json.loads (fresh process, read + parse): {loads_wall:.2f} s, ", end="")
        print(f"peak {loads_peak:.0f} MB")
        print(f"perfline analyze (fresh process, all of it): {wall:.2f} s, peak {peak:.0f} MB")
        print(f"  time / json.loads: {wall / loads_wall:.2f} (target <= 2)")
        print(
            f"  peak - idle perfline ({idle:.0f} MB): {peak - idle:.0f} MB = "
            f"{(peak - idle) / size:.2f} x the file (target <= 1.5); whole process "
            f"{peak / size:.2f} x"
        )
        if arguments.gz_mb:
            zipped = folder / "huge.pt.trace.json.gz"
            with gzip.open(zipped, "wt", compresslevel=1) as out:
                _timed(zipped.name, lambda: write_trace(arguments.gz_mb * MB, out))
            wall, peak = analyze(zipped, folder / "out-gz")
            print(
                f"{zipped.name}: {zipped.stat().st_size / MB:.0f} MB compressed, "
                f"{arguments.gz_mb} MB of JSON; perfline analyze {wall:.1f} s, peak {peak:.0f} MB"
            )


if __name__ == "__main__":
    main()
