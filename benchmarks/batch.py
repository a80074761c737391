"""``perfline batch`` benchmark: throughput on a local Dask cluster against one process,
summarize time, and the client's memory against the number of runs.

1. ``tests/data/batch/make_runs.py`` writes ``--runs`` distinct runs of the DS-CNN portable
   ETDump pair (every timestamp of the real ETDump redrawn).
2. ``perfline batch run --in-process`` on the first ``--subset`` runs, then ``perfline batch
   run`` (the default: a ``LocalCluster`` of one single-thread worker process per core) on
   the same subset and on all the runs, then the in-process subset again (the single
   process's rate is the mean of the two, so that a neighbour's load during the long run
   weighs on both sides), each a fresh process into a fresh store, as a user runs them
   (process and cluster start included): wall time, runs per second, and the
   client process's peak resident memory (``VmHWM`` of ``/proc/PID/status``, read until it
   exits; the workers are other processes), and the CPU time per run of the client and every
   process it waited for (the workers included): what the cluster costs beyond the work,
   whatever else loads the machine.
3. ``perfline batch summarize`` of the whole store into the aggregate document: wall time of
   the command (process start included).

Prints the throughput ratio (local cluster on all runs / in-process on the subset), what the
CPU time per run makes of it on free cores, the summarize time, the client's peak memory at
the subset's size and at the full size, the build, the core count and the load average
along the way. Asserts nothing.

Usage: ``python benchmarks/batch.py [--runs 10000] [--subset 500] [--keep DIR]`` with the
Python of the install to measure (its ``perfline`` script, beside it, is what runs).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

REPO = Path(__file__).resolve().parents[1]
MAKE_RUNS = REPO / "tests" / "data" / "batch" / "make_runs.py"
PERFLINE = Path(sys.executable).parent / "perfline"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("make_runs", MAKE_RUNS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _peak_kib(pid: int) -> int | None:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as status:
            for line in status:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def timed(arguments: list[str]) -> tuple[float, float, int]:
    """Wall seconds of ``perfline ARGUMENTS``, the CPU seconds of it and of every process it
    started and waited for (the local cluster's workers), and its own peak resident KiB."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    process = subprocess.Popen(
        [str(PERFLINE), *arguments], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    peak = 0
    while process.poll() is None:
        peak = max(peak, _peak_kib(process.pid) or 0)
        time.sleep(0.05)
    wall = time.perf_counter() - start
    errors = process.stderr.read().decode() if process.stderr else ""
    if process.returncode != 0:
        raise SystemExit(f"perfline {' '.join(arguments)} failed:\n{errors}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, peak


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10_000)
    parser.add_argument("--subset", type=int, default=500)
    parser.add_argument("--keep", type=Path, default=None, help="Keep the runs and stores here.")
    arguments = parser.parse_args()
    folder = arguments.keep or Path(tempfile.mkdtemp(prefix="perfline-batch-bench-"))
    folder.mkdir(parents=True, exist_ok=True)
    build = subprocess.run(
        [str(PERFLINE), "--version"], capture_output=True, text=True, check=True
    ).stdout.strip()
    print(f"{build}; {os.cpu_count()} cores; load average {os.getloadavg()}")
    try:
        start = time.perf_counter()
        runs = folder / "runs"
        _script().write_runs(runs, etdump=arguments.runs, seed=1)
        print(f"made {arguments.runs:,} runs in {time.perf_counter() - start:.1f} s")
        lines = (runs / "runs.txt").read_text(encoding="utf-8").splitlines()
        subset = runs / "subset.txt"
        subset.write_text("\n".join(lines[: arguments.subset]) + "\n", encoding="utf-8")
        listing = {"subset": str(subset), "all": str(runs / "runs.txt")}
        results: dict[str, tuple[float, float, int]] = {}
        for name, list_file, extra in (
            ("in-process, subset", listing["subset"], ["--in-process"]),
            ("local cluster, subset", listing["subset"], []),
            ("local cluster, all", listing["all"], []),
            ("in-process, subset again", listing["subset"], ["--in-process"]),
        ):
            store = folder / f"store-{name.replace(', ', '-').replace(' ', '-')}"
            shutil.rmtree(store, ignore_errors=True)
            wall, cpu, peak = timed(
                ["batch", "run", "--from-list", list_file, "--store", str(store), *extra]
            )
            count = arguments.subset if "subset" in name else arguments.runs
            results[name] = (count / wall, cpu / count, peak)
            print(
                f"{name:>24}: {count:>6,} runs in {wall:7.1f} s = {count / wall:6.1f} runs/s, "
                f"CPU {1000 * cpu / count:5.1f} ms/run, client peak {peak / 1024:6.1f} MiB, "
                f"load {os.getloadavg()[0]:.1f}"
            )
        alone = [results[name] for name in ("in-process, subset", "in-process, subset again")]
        single = statistics.mean(rate for rate, _, _ in alone)
        ratio = results["local cluster, all"][0] / single
        print(
            f"throughput: local cluster / in-process (mean of the runs before and after) = "
            f"{ratio:.2f}x (target >= 1.7x on 2 cores)"
        )
        cores = os.cpu_count() or 1
        per_run = statistics.mean(cpu for _, cpu, _ in alone)
        capacity = cores * per_run / results["local cluster, all"][1]
        print(
            f"CPU per run: in-process {1000 * per_run:.1f} ms, local cluster "
            f"{1000 * results['local cluster, all'][1]:.1f} ms: on {cores} free cores the "
            f"cluster would do {capacity:.2f}x the single process's runs per second"
        )
        store = folder / "store-local-cluster-all"
        out = folder / "aggregate.json"
        wall, _, peak = timed(["batch", "summarize", "--store", str(store), "--out", str(out)])
        print(
            f"summarize of {arguments.runs:,} runs: {wall:.2f} s (target <= 10 s), peak "
            f"{peak / 1024:.0f} MiB, document {out.stat().st_size / 1e6:.1f} MB"
        )
        small, large = results["local cluster, subset"][2], results["local cluster, all"][2]
        print(
            f"client peak memory: {small / 1024:.1f} MiB at {arguments.subset:,} runs, "
            f"{large / 1024:.1f} MiB at {arguments.runs:,} runs ({large / small:.2f}x)"
        )
        print(f"load average after: {os.getloadavg()}")
    finally:
        if arguments.keep is None:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
