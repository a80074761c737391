"""The ``--cli`` mode of ``core_pipeline.py``: ``perfline report DOC --json`` as users run it.

For each size, the NX-shaped documents of ``core_pipeline.nx_document`` (integer values and,
unless ``--integer-only``, float values: a tenth of the integer ones, like an estimator's
milliseconds) are written to files (``json.dumps(indent=4)``, as a producer writes them)
and the whole command runs in a fresh process: interpreter start, imports, reading,
post-processing, writing ``mlia-output/mlia-output.json`` and the same bytes on stdout, a
pipe, as ``| jq`` would read it. The benchmark moves what arrives into a file with
``splice(2)``, kernel to kernel, so its reader takes almost no CPU from the measured run
(the command is timed, not a consumer), and checks after the run that those are the file's
bytes. The process is ``perfline.clients.cli.main`` under a small wrapper that times,
inside the same run, the calls the report command makes to ``read_json``, ``postprocess``
and ``write_output``, and the imports before ``main`` starts; the whole command's wall
time is taken by the parent (start to exit) and its peak RSS from the kernel (``VmHWM``
at exit).

With ``--vs-reference PYTHON`` the same command of the reference runs on the integer
documents up to ``--reference-max`` chains, in the same round: a fresh process that imports
mlia, reads the file, post-processes it with the NX default collapse rule, persists
``mlia-output/mlia-output.json`` with mlia's own persistence and prints mlia's JSON (what
``mlia ... --json`` does after an analysis). The ratio is the reference's wall time over
ours; ``agree`` compares the two outputs' ``results``.

Printed per size and values: the command's wall time (fastest of the rounds, median
beside it), postprocess's time in that run and its share of the command, the time beyond
postprocess and its ratio to postprocess, read, write and import times, peak RSS, the
growth of the whole command's time from the previous size scaled to 4x the chains
(``(t2 / t1) ** (log 4 / log(n2 / n1))``, exact for a 4x step), the float documents' time
over the integer ones' at that size, and the reference. Then every target of issue 23
(item 4) with its figure and whether it is met.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from pathlib import Path
from typing import IO, Any

from core_pipeline import NX_RULE, nx_document

_WRAPPER = """
import atexit, json, os, sys, time
started = time.perf_counter()
from perfline.clients import cli
from perfline.clients.cli import report
from perfline.core import pipeline
spent = {"imports": time.perf_counter() - started, "read": 0.0, "postprocess": 0.0,
         "write": 0.0}
def timed(name, function):
    def wrapper(*args, **kwargs):
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            spent[name] += time.perf_counter() - start
    return wrapper
report.read_json = timed("read", report.read_json)
report.write_output = timed("write", report.write_output)
pipeline.postprocess = timed("postprocess", pipeline.postprocess)
if hasattr(report, "postprocess"):  # a build whose report module imports it at its top
    report.postprocess = pipeline.postprocess
def save():
    from perfline.build_info import core_build
    spent["build"] = core_build()
    with open("/proc/self/status") as status:  # the peak of this process since its exec
        for line in status:
            if line.startswith("VmHWM:"):
                spent["peak_kb"] = int(line.split()[1])
    with open(os.environ["PERFLINE_BENCH_TIMES"], "w") as out:
        json.dump(spent, out)
atexit.register(save)
exit_now = os._exit
def exit_after_saving(status):  # main() ends a process that retains a document at once
    save()
    exit_now(status)
os._exit = exit_after_saving
sys.argv = ["perfline", *sys.argv[1:]]
cli.main()
"""

_REFERENCE = """
import json, logging, sys
from pathlib import Path
logging.disable(logging.CRITICAL)
from mlia.core.output_persistence import persist_standardized_output
from mlia.core.output_postprocessing import postprocess_standardized_output
from mlia.core.output_rendering import standardized_output_to_json
from mlia.core.settings import ApplicationSettings, CollapseRule, FilteringSettings
document_path, output_dir = sys.argv[1], Path(sys.argv[2]) / "mlia-output"
with open(document_path, encoding="utf-8") as handle:
    document = json.load(handle)
rule = CollapseRule(kind={kind!r}, attribute={attribute!r}, globs={globs!r})
settings = ApplicationSettings(filtering=FilteringSettings(collapse=(rule,)))
output = postprocess_standardized_output(document, settings)
output_dir.mkdir(parents=True, exist_ok=True)
persist_standardized_output(output, output_dir)
sys.stdout.write(standardized_output_to_json(output) + "\\n")
"""


class _Drain(threading.Thread):
    """Reads a pipe to its end. With ``keep`` (a path) the bytes are moved into that file
    by ``splice(2)``, kernel to kernel, so the reader takes almost no CPU from the run
    (a consumer as light as one can be: what is timed is the command, not its reader);
    otherwise (no ``os.splice``) they are read and only their count and CRC-32 kept."""

    def __init__(self, pipe: IO[bytes], keep: Path | None = None) -> None:
        super().__init__(daemon=True)
        self.pipe = pipe
        self.keep = keep if keep is not None and hasattr(os, "splice") else None
        self.crc = 0
        self.size = 0
        self.head = b""

    def run(self) -> None:
        if self.keep is not None:
            with open(self.keep, "wb") as out:
                while moved := os.splice(self.pipe.fileno(), out.fileno(), 1 << 20):
                    self.size += moved
            return
        while chunk := self.pipe.read(1 << 20):
            if len(self.head) < 1 << 16:
                self.head += chunk[: 1 << 16]
            self.crc = zlib.crc32(chunk, self.crc)
            self.size += len(chunk)

    def checksum(self) -> int:
        """CRC-32 of everything read (of the kept file, read after the run)."""
        if self.keep is None:
            return self.crc
        crc = 0
        with open(self.keep, "rb") as kept:
            while chunk := kept.read(1 << 20):
                crc = zlib.crc32(chunk, crc)
        return crc


def _timed_process(
    command: list[str], env: dict[str, str], timeout: float, keep: Path | None = None
) -> dict[str, Any]:
    """Run to exit with stdout drained (into ``keep`` when given); wall seconds and
    stdout's size and CRC-32 (the CRC worked out after the run)."""
    start = time.perf_counter()
    process = subprocess.Popen(
        command,
        cwd="/",
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
    )
    assert process.stdout is not None and process.stderr is not None
    drain = _Drain(process.stdout, keep)
    drain.start()
    errors = _Drain(process.stderr)
    errors.start()
    deadline = time.monotonic() + timeout
    while True:
        pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        if pid:
            break
        if time.monotonic() > deadline:
            process.kill()
            raise RuntimeError(f"timed out after {timeout:.0f} s")
        time.sleep(0.002)
    seconds = time.perf_counter() - start
    process.returncode = os.waitstatus_to_exitcode(status)
    drain.join()
    errors.join()
    if process.returncode != 0:
        raise RuntimeError(errors.head.decode(errors="replace").strip()[-300:] or "failed")
    return {
        "seconds": seconds,
        "cpu_seconds": usage.ru_utime + usage.ru_stime,
        "stdout_crc32": drain.checksum(),
        "stdout_bytes": drain.size,
    }


def _ours(document: Path, output_dir: Path) -> dict[str, Any]:
    times = output_dir / "times.json"
    env = {**os.environ, "PERFLINE_BENCH_TIMES": str(times)}
    command = [
        sys.executable,
        "-c",
        _WRAPPER,
        "report",
        str(document),
        "--json",
        "--output-dir",
        str(output_dir),
    ]
    output_dir.mkdir(parents=True, exist_ok=True)
    stdout = output_dir / "stdout.json"
    run = _timed_process(command, env, timeout=3600, keep=stdout)
    stdout.unlink(missing_ok=True)
    run.update(json.loads(times.read_text()))
    written = (output_dir / "mlia-output" / "mlia-output.json").read_bytes()
    if zlib.crc32(written) != run["stdout_crc32"] or len(written) != run["stdout_bytes"]:
        raise SystemExit("perfline printed other bytes on stdout than it wrote to the file")
    run["results_digest"] = _results_digest(written)
    return run


def _theirs(python: str, document: Path, output_dir: Path) -> dict[str, Any]:
    script = _REFERENCE.format(kind=NX_RULE[0], attribute=NX_RULE[1], globs=NX_RULE[2])
    command = [python, "-c", script, str(document), str(output_dir)]
    run = _timed_process(command, dict(os.environ), timeout=3600)
    written = (output_dir / "mlia-output" / "mlia-output.json").read_bytes()
    run["results_digest"] = _results_digest(written)
    return run


def _results_digest(text: bytes) -> str:
    results = json.loads(text)["results"]
    compact = json.dumps(results, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(compact.encode()).hexdigest()


def run_cli_benchmark(
    sizes: list[int],
    rounds: int,
    reference: str | None,
    reference_max: int,
    with_floats: bool = True,
) -> int:
    """Time the command per size and values, ``rounds`` rounds side by side; print the
    table and the targets."""
    kinds = ("int", "float") if with_floats else ("int",)
    cases = [(size, kind) for size in sizes for kind in kinds]
    with tempfile.TemporaryDirectory(prefix="perfline-cli-bench-") as scratch:
        folder = Path(scratch)
        documents: dict[tuple[int, str], Path] = {}
        for size, kind in cases:
            path = folder / f"nx-{size}-{kind}.json"
            document = nx_document(size, float_values=kind == "float")
            path.write_text(json.dumps(document, indent=4) + "\n", encoding="utf-8")
            documents[(size, kind)] = path
        runs: dict[tuple[int, str], list[dict[str, Any]]] = {case: [] for case in cases}
        references: dict[int, list[dict[str, Any]]] = {size: [] for size in sizes}
        for number in range(1, rounds + 1):
            for size, kind in cases:
                print(
                    f"round {number}/{rounds}: perfline report, {size} chains, {kind} values",
                    file=sys.stderr,
                    flush=True,
                )
                output = folder / f"ours-{size}-{kind}"
                runs[(size, kind)].append(_ours(documents[(size, kind)], output))
                if reference and kind == "int" and size <= reference_max:
                    print(
                        f"round {number}/{rounds}: reference, {size} chains",
                        file=sys.stderr,
                        flush=True,
                    )
                    references[size].append(
                        _theirs(reference, documents[(size, kind)], folder / f"ref-{size}")
                    )
        input_bytes = {case: path.stat().st_size for case, path in documents.items()}
        _print_table(cases, runs, references, input_bytes)
        _print_targets(sizes, kinds, runs, references)
    return 0


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    return min(runs, key=lambda run: float(run["seconds"]))


def _growth_per_4x(small: int, large: int, small_s: float, large_s: float) -> float:
    """The time's growth from ``small`` to ``large`` chains, scaled to a 4x step."""
    return float((large_s / small_s) ** (math.log(4) / math.log(large / small)))


def _print_table(
    cases: list[tuple[int, str]],
    runs: dict[tuple[int, str], list[dict[str, Any]]],
    references: dict[int, list[dict[str, Any]]],
    input_bytes: dict[tuple[int, str], int],
) -> None:
    build = runs[cases[0]][0]["build"]
    print(
        f"timing: `perfline report DOC --json --output-dir DIR`, stdout read from a pipe; "
        f"perfline core: {build} ({sys.executable})"
    )
    print(
        "seconds: wall time of the whole process (start to exit), fastest run (median); "
        "postprocess, read, write, imports: inside that run; beyond = whole - postprocess;"
    )
    print(
        "x4: growth of the whole time from the previous size, scaled to 4x the chains; "
        "f/i: float values' time over integer values' at that size"
    )
    print(
        f"{'chains':>7} {'values':>6} {'in MB':>6} {'out MB':>7} {'whole s':>8} {'(median)':>9}"
        f" {'cpu':>7} {'postproc':>8} {'share':>6} {'beyond':>7} {'b/pp':>6}"
        f" {'read':>6} {'write':>6} {'imports':>7} {'peak MB':>8} {'x4':>6} {'f/i':>5}"
        f" {'reference s':>12} {'ratio':>7} {'agree':>6}"
    )
    previous: dict[str, tuple[int, float]] = {}
    for size, kind in cases:
        best = _best(runs[(size, kind)])
        median = statistics.median(float(run["seconds"]) for run in runs[(size, kind)])
        whole, post = float(best["seconds"]), float(best["postprocess"])
        beyond = whole - post
        peak = max(float(run["peak_kb"]) for run in runs[(size, kind)]) / 1024
        growth = ""
        if kind in previous:
            small, small_s = previous[kind]
            growth = f"x{_growth_per_4x(small, size, small_s, whole):.2f}"
        previous[kind] = (size, whole)
        ratio = ""
        if kind == "float" and (size, "int") in runs:
            ratio = f"{whole / float(_best(runs[(size, 'int')])['seconds']):.2f}"
        line = (
            f"{size:>7} {kind:>6} {input_bytes[(size, kind)] / 1e6:>6.1f}"
            f" {best['stdout_bytes'] / 1e6:>7.1f}"
            f" {whole:>8.3f} {f'({median:.3f})':>9} {best['cpu_seconds']:>7.3f}"
            f" {post:>8.3f} {post / whole:>6.0%}"
            f" {beyond:>7.3f} {beyond / max(post, 1e-9):>6.0%} {best['read']:>6.3f}"
            f" {best['write']:>6.3f} {best['imports']:>7.3f} {peak:>8.0f} {growth:>6} {ratio:>5}"
        )
        if kind == "int" and references[size]:
            theirs = _best(references[size])
            agree = "yes" if theirs["results_digest"] == best["results_digest"] else "NO"
            line += f" {theirs['seconds']:>12.2f} {theirs['seconds'] / whole:>6.0f}x {agree:>6}"
        print(line, flush=True)


REFERENCE_CHAINS = 400
LARGE_CHAINS = 20_000


def _print_targets(
    sizes: list[int],
    kinds: tuple[str, ...],
    runs: dict[tuple[int, str], list[dict[str, Any]]],
    references: dict[int, list[dict[str, Any]]],
) -> None:
    """Issue 23's targets of the command (item 4), each with its figure from this run."""
    print("targets (issue 23, compiled build):")

    def verdict(label: str, figure: str, met: bool) -> None:
        print(f"  {label:<58} {figure:<32} {'met' if met else 'NOT MET'}")

    def whole(size: int, kind: str = "int") -> float:
        return float(_best(runs[(size, kind)])["seconds"])

    if references.get(REFERENCE_CHAINS):
        theirs = float(_best(references[REFERENCE_CHAINS])["seconds"])
        ratio = theirs / whole(REFERENCE_CHAINS)
        verdict(
            f">= 60x the reference at {REFERENCE_CHAINS} chains",
            f"{ratio:.0f}x ({theirs:.2f} s / {whole(REFERENCE_CHAINS):.3f} s)",
            ratio >= 60,
        )
    if LARGE_CHAINS in sizes:
        seconds = whole(LARGE_CHAINS)
        verdict(f"{LARGE_CHAINS:,} chains <= 8 s", f"{seconds:.2f} s", seconds <= 8)
        peak = max(float(run["peak_kb"]) for run in runs[(LARGE_CHAINS, "int")]) / 1024
        verdict(f"{LARGE_CHAINS:,} chains <= 1 GB", f"{peak:.0f} MB peak RSS", peak <= 1024)
        best = _best(runs[(LARGE_CHAINS, "int")])
        post = float(best["postprocess"])
        share = (float(best["seconds"]) - post) / post
        verdict(
            f"beyond postprocess <= 30% of postprocess at {LARGE_CHAINS:,}",
            f"{share:.0%} ({float(best['seconds']) - post:.2f} s / {post:.2f} s)",
            share <= 0.30,
        )
    for kind in kinds:
        for small, large in itertools.pairwise(sizes):
            growth = _growth_per_4x(small, large, whole(small, kind), whole(large, kind))
            verdict(
                f"growth <= 4.5x per 4x chains ({kind}, {small:,} -> {large:,})",
                f"x{growth:.2f} per 4x",
                growth <= 4.5,
            )
    if "float" in kinds:
        for size in sizes:
            ratio = whole(size, "float") / whole(size)
            verdict(
                f"float values within 1.3x of integer ({size:,} chains)",
                f"{ratio:.2f}x ({whole(size, 'float'):.3f} s)",
                ratio <= 1.3,
            )
