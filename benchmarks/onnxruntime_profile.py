"""ONNX Runtime profile benchmark: the PaddleOCR profile through the CLI, and linear cost.

1. ``perfline analyze ch_ppocr_mobile_v2.0_cls_infer.onnx ppocr_cls_noopt.json`` (818 KB, 1,290
   node events; target <= 0.3 s) as a user runs it: a fresh ``python -m perfline`` process per
   run, process start, reading, mapping, post-processing, writing the output and the text
   report included; fastest and median wall and CPU time of ``--repeat`` runs. Also the same
   with ``--json``.
2. Linear cost: profiles of 5, 10 and 20 MB made from the real one by repeating its runs (each
   copy shifted in time, so every run is a real run of the same session), analysed in-process
   (``analyze_profiles`` + ``postprocess``): CPU seconds and ms per MB for each size.

Usage: ``python benchmarks/onnxruntime_profile.py [--repeat 7]`` with the Python of the install
to measure. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
MODEL = (
    REPO / "tests" / "data" / "formats" / "onnx-third-party" / "ch_ppocr_mobile_v2.0_cls_infer.onnx"
)
PROFILE = REPO / "tests" / "data" / "onnxruntime" / "ppocr_cls_noopt.json"


def cli_runs(repeat: int, extra: list[str]) -> tuple[list[float], list[float]]:
    """Wall and CPU (user + system) times of ``perfline analyze MODEL PROFILE`` in fresh
    processes (CPU time moves less than wall time when other tenants load the machine)."""
    times = []
    cpu = []
    with tempfile.TemporaryDirectory() as folder:
        for _ in range(repeat):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "perfline",
                    "analyze",
                    str(MODEL),
                    str(PROFILE),
                    "--output-dir",
                    folder,
                    *extra,
                ],
                check=True,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            times.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
    return times, cpu


def scaled_profile(target_bytes: int) -> bytes:
    """The real profile with its runs repeated until it holds about ``target_bytes``."""
    events: list[dict[str, Any]] = json.loads(PROFILE.read_text())
    runs = sorted((e["ts"], e["ts"] + e["dur"]) for e in events if e.get("name") == "model_run")
    start, end = runs[0][0], runs[-1][1]
    session = [e for e in events if e["ts"] < start]
    timed = [e for e in events if e["ts"] >= start]
    span = end - start + 1000
    copies = max(1, round(target_bytes / PROFILE.stat().st_size))
    out = list(session)
    for copy in range(copies):
        for event in timed:
            out.append({**event, "ts": event["ts"] + copy * span})
    return json.dumps(out).encode()


def in_process(data: bytes) -> float:
    from perfline.core.backends.onnxruntime.document import analyze_profiles
    from perfline.core.backends.source_model.inputs import InputFile
    from perfline.core.pipeline import postprocess

    model = InputFile(str(MODEL), MODEL.read_bytes())
    start = time.process_time()
    document = analyze_profiles(
        model, [InputFile("scaled.json", data)], timestamp="2026-01-01T00:00:00Z"
    )
    postprocess(document)
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    arguments = parser.parse_args()
    from perfline.build_info import core_build

    print(f"build: {core_build()}")
    print(f"profile: {PROFILE.name}, {PROFILE.stat().st_size / 1024:.0f} KB")
    for extra in ([], ["--json"]):
        times, cpu = cli_runs(arguments.repeat, extra)
        label = " ".join(["perfline analyze MODEL PROFILE", *extra])
        print(
            f"{label}: wall fastest {min(times):.3f} s, median {statistics.median(times):.3f} s;"
            f" CPU fastest {min(cpu):.3f} s, median {statistics.median(cpu):.3f} s "
            f"({arguments.repeat} runs, process start included; target 0.3 s)"
        )
    for megabytes in (5, 10, 20):
        data = scaled_profile(megabytes * 1024 * 1024)
        best = min(in_process(data) for _ in range(3))
        size = len(data) / 1024 / 1024
        print(
            f"in-process analyze + postprocess, {size:.1f} MB profile: {best:.3f} s CPU "
            f"({best / size * 1000:.1f} ms per MB)"
        )


if __name__ == "__main__":
    main()
