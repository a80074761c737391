"""Benchmark of a value-only refresh: ``postprocess`` with a pipeline memo when a job's
capture changes and its model does not.

    .venv/bin/python benchmarks/value_refresh.py [--sizes 1000,20000] [--runs 15]
        [--float-values] [--float-sums exact|reference]

Each size runs in a fresh subprocess (the installed perfline first, as
``core_pipeline.py`` does): the NX-shaped document of ``core_pipeline.nx_document``
is post-processed once with a new ``PipelineMemo`` (the job's first run), then
``--runs`` times alternately with every breakdown value changed and back (a new
capture of the same model: integer values times 3, float values times 2, so sums
change as the values do and equal figures stay equal) and once without the memo
(a full run, for comparison). It prints the first run, the median and fastest
refresh, the full run, whether the refreshes replayed the projection
(``ProjectionMemo``) and the subprocess's peak RSS; every refresh's output is
checked against a full run of the same document. Wall times on a shared machine
swing; compare sizes and variants within one run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

_CASE = """
import json, statistics, sys, time
sys.path.append({root!r})
sys.path.insert(0, {here!r})
from core_pipeline import nx_document
from perfline.build_info import core_build
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.projection import ProjectionMemo
from perfline.core.pipeline_memo import PipelineMemo

chains = int(sys.argv[1])
first = nx_document(chains, float_values={floats!r})
second = json.loads(json.dumps(first))
for result in second["results"]:
    for breakdown in result["breakdowns"]:
        for metric in breakdown["metrics"]:
            value = metric["value"]
            metric["value"] = value * 2 if type(value) is float else value * 3
settings = PipelineSettings(float_sums={float_sums!r})
memo = PipelineMemo()
start = time.perf_counter()
postprocess(first, settings, memo=memo)
first_run = time.perf_counter() - start
times = []
for run in range({runs!r}):
    document = second if run % 2 == 0 else first
    start = time.perf_counter()
    refreshed = postprocess(document, settings, memo=memo)
    times.append(time.perf_counter() - start)
start = time.perf_counter()
full = postprocess(second, settings)
full_run = time.perf_counter() - start
same = json.dumps(postprocess(second, settings, memo=memo)) == json.dumps(full)
replays = memo.state(0, "projection", ProjectionMemo)
peak_kb = 0
with open("/proc/self/status") as status:
    for line in status:
        if line.startswith("VmHWM:"):
            peak_kb = int(line.split()[1])
print(json.dumps({{"build": core_build(), "first": first_run, "median": statistics.median(times),
                  "fastest": min(times), "full": full_run, "same": same,
                  "replayed": replays.replayed, "projected": replays.projected,
                  "peak_kb": peak_kb}}))
"""


def _case(script: str, chains: int) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-c", script, str(chains)],
        cwd="/",
        capture_output=True,
        text=True,
        timeout=3600,
        check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(done.stderr.strip().splitlines()[-1] if done.stderr else "failed")
    reply: dict[str, Any] = json.loads(done.stdout)
    return reply


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,20000")
    parser.add_argument("--runs", type=int, default=15, help="refreshes per size")
    parser.add_argument("--float-values", action="store_true", help="float metric values")
    parser.add_argument("--float-sums", choices=("exact", "reference"), default="exact")
    args = parser.parse_args()
    script = _CASE.format(
        root=str(ROOT),
        here=str(Path(__file__).resolve().parent),
        floats=args.float_values,
        float_sums=args.float_sums,
        runs=args.runs,
    )
    values = "float" if args.float_values else "integer"
    print(
        f"value-only refresh of postprocess with a PipelineMemo ({values} values, float sums"
        f" {args.float_sums}); seconds; each size in a fresh subprocess"
    )
    print(
        f"{'chains':>7} {'first run':>10} {'refresh p50':>12} {'fastest':>9} {'full run':>9}"
        f" {'replayed':>9} {'same':>5} {'peak MB':>8}"
    )
    build = ""
    for size in [int(s) for s in args.sizes.split(",") if s]:
        print(f"running {size} chains", file=sys.stderr, flush=True)
        case = _case(script, size)
        build = case["build"]
        replayed = f"{case['replayed']}/{case['replayed'] + case['projected'] - 1}"
        print(
            f"{size:>7} {case['first']:>10.3f} {case['median']:>12.3f} {case['fastest']:>9.3f}"
            f" {case['full']:>9.3f} {replayed:>9} {case['same']!s:>5}"
            f" {case['peak_kb'] / 1024:>8.0f}",
            flush=True,
        )
    print(f"perfline core: {build} ({sys.executable})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
