"""Benchmark of comparing two runs: compare time against the time of loading both documents.

    .venv/bin/python benchmarks/compare.py [--chains 20000] [--rounds 5] [--changed 0.05]
        [--keep DIR] [--cli]

Builds the NX-shaped document of ``benchmarks/core_pipeline.py`` with ``--chains`` chains
(the baseline) and a copy in which a ``--changed`` share of the chains have every figure
10% higher (the new run), post-processes both (the inputs ``perfline compare`` meets are
``mlia-output.json`` files) and writes them to a folder (``--keep DIR`` keeps and reuses
them). Then, ``--rounds`` times, a fresh subprocess loads both files (``json.load``, what
``perfline compare`` reads them with) and compares them (``compare_documents``), timing
each step (wall and CPU time: on the shared machine the CPU time of the process is the
steadier figure); load and compare alternate within each round, so they meet the same
load. It prints each round, then the fastest and the median of each step and the ratio
compare / load (target: at most 2). ``--cli`` also times
``perfline compare BASE NEW --json`` end to end (process start, reading, validating the
processed documents, comparing and writing the JSON) against the same load time.
Prints which build (pure or compiled core) ran.
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROUND = """
import gc, json, resource, sys, time
from perfline.core.compare import compare_documents
base_path, new_path = sys.argv[1], sys.argv[2]
start, cpu = time.perf_counter(), time.process_time()
with open(base_path) as f:
    base = json.load(f)
with open(new_path) as f:
    new = json.load(f)
load, load_cpu = time.perf_counter() - start, time.process_time() - cpu
start, cpu = time.perf_counter(), time.process_time()
comparison = compare_documents(base, new)
compare, compare_cpu = time.perf_counter() - start, time.process_time() - cpu
lines = sum(len(r.lines()) for r in comparison.results)
changed = sum(
    1 for r in comparison.results for e in r.lines() for m in e.metrics if m.significant
)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(json.dumps({"load": load, "compare": compare, "load_cpu": load_cpu,
                  "compare_cpu": compare_cpu, "lines": lines, "changed": changed,
                  "peak_mb": peak}))
"""


def _documents(chains: int, changed: float, folder: Path) -> tuple[Path, Path]:
    base_path, new_path = folder / f"base-{chains}.json", folder / f"new-{chains}.json"
    if base_path.is_file() and new_path.is_file():
        return base_path, new_path
    from core_pipeline import nx_document  # this script's folder is on sys.path

    from perfline.core.pipeline import postprocess

    base = nx_document(chains)
    new = copy.deepcopy(base)
    rng = random.Random(5)
    for breakdown in new["results"][0]["breakdowns"]:
        if breakdown["entity_id"].startswith("chain/") and rng.random() < changed:
            for metric in breakdown["metrics"]:
                metric["value"] = int(metric["value"] * 1.1)
    start = time.perf_counter()
    processed: list[dict[str, Any]] = [postprocess(base), postprocess(new)]
    print(f"post-processed both documents in {time.perf_counter() - start:.1f} s", flush=True)
    for path, document in zip((base_path, new_path), processed, strict=True):
        path.write_text(json.dumps(document, indent=4) + "\n")
    return base_path, new_path


def _round(base: Path, new: Path) -> dict[str, float]:
    output = subprocess.run(
        [sys.executable, "-c", ROUND, str(base), str(new)],
        capture_output=True,
        text=True,
        check=True,
        cwd="/",
    )
    figures: dict[str, float] = json.loads(output.stdout.strip().splitlines()[-1])
    return figures


def _cli(base: Path, new: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "perfline", "compare", str(base), str(new), "--json"],
        stdout=subprocess.DEVNULL,
        check=True,
        cwd=base.parent,
    )
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--chains", type=int, default=20000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--changed", type=float, default=0.05)
    parser.add_argument("--keep", type=Path, default=None)
    parser.add_argument("--cli", action="store_true")
    options = parser.parse_args()
    from perfline.build_info import core_build

    print(f"perfline core build: {core_build()}; {options.chains} chains", flush=True)
    folder = options.keep or Path(tempfile.mkdtemp(prefix="perfline-compare-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        base, new = _documents(options.chains, options.changed, folder)
        size = (base.stat().st_size + new.stat().st_size) / 1e6
        print(f"documents: {size:.0f} MB together", flush=True)
        rounds = []
        for number in range(options.rounds):
            figures = _round(base, new)
            rounds.append(figures)
            cli = f", perfline compare --json {_cli(base, new):.2f} s" if options.cli else ""
            print(
                f"round {number + 1}: load {figures['load']:.2f} s, compare "
                f"{figures['compare']:.2f} s, ratio {figures['compare'] / figures['load']:.2f}"
                f" (CPU time: {figures['load_cpu']:.2f} s, {figures['compare_cpu']:.2f} s, "
                f"ratio {figures['compare_cpu'] / figures['load_cpu']:.2f}; "
                f"{int(figures['lines'])} lines, {int(figures['changed'])} changed figures, "
                f"peak {figures['peak_mb']:.0f} MB){cli}",
                flush=True,
            )
        loads = [r["load"] for r in rounds]
        compares = [r["compare"] for r in rounds]
        ratios = [r["compare"] / r["load"] for r in rounds]
        print(
            f"load both: fastest {min(loads):.2f} s, median {statistics.median(loads):.2f} s; "
            f"compare: fastest {min(compares):.2f} s, median {statistics.median(compares):.2f} s"
        )
        cpu_ratios = [r["compare_cpu"] / r["load_cpu"] for r in rounds]
        print(
            f"compare / load: {min(compares) / min(loads):.2f} (fastest runs), "
            f"median of rounds {statistics.median(ratios):.2f}, CPU time median "
            f"{statistics.median(cpu_ratios):.2f} (target: at most 2)"
        )
    finally:
        if options.keep is None:
            shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
