"""Daemon benchmarks: change -> refresh latency, inlay-hint latency, memory with 10 jobs.

Runs the real daemon (``python -m perfline serve --stdio``) in temporary workspaces and
drives it with a pygls client, printing:

1. time from rewriting the NX-shaped document of ``benchmarks/core_pipeline.py``
   (``nx_document``) to the ``workspace/inlayHint/refresh`` request, p50/p90/p99/max over
   several changes: new values on the same graph (what a new capture of the same model
   gives) and a changed graph, at 1,000 chains (target <= 200 ms), and new values at
   20,000 chains; with the phases read back from the daemon's timing log
   (``perfline.server.timing``: monotonic timestamps, comparable across processes on one
   machine), and the core pipeline and line index timed in-process on the same documents;
2. ``textDocument/inlayHint`` latency p50/p99 on a 2,000-line file with a figure on every
   line, from sending the request to the last byte of the response (the client's own JSON
   parse and garbage collection are left out; target p99 <= 10 ms);
3. the daemon's resident memory with 10 such jobs loaded (target <= 300 MB).

Usage: ``python benchmarks/daemon.py [--changes 10] [--large-changes 5] [--requests 300]
[--only changes|hints|memory]``. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import asyncio
import copy
import gc
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.client import LanguageClient

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    # the shared document builder, tests/support/documents.py (issue 21 item 8); appended, so that
    # the installed (perhaps compiled) perfline still comes before the source tree
    sys.path.append(str(ROOT))

from perfline.core.document_shapes import ComponentJson  # noqa: E402
from tests.support.documents import (  # noqa: E402
    CHAIN_KINDS,
    EntityTable,
    breakdown,
    envelope,
    model_file,
    nx_backend,
    nx_document,
    nx_target,
    sum_metric,
)


def chain_document(chains: int, lines: int, seed: int) -> dict[str, Any]:
    """``chains`` chains, one source operator each, whose stacks land on ``lines`` lines
    (built with the shared builder: the envelope, ``EntityTable``, records)."""
    table = EntityTable(two_sided=False)
    breakdowns: list[dict[str, Any]] = []
    for i in range(chains):
        chain, op = f"chain/segment_0/{i}", f"source_operator/segment_0/spirv-{i}"
        table.add(chain, "chain", f"chain {i}")
        table.add(op, "source_operator", f"op{i}", placement="NX")
        table.link(chain, op)
        line = 1 + (i % lines)
        stack = f"code_stack/model.py:{line}-{i}"
        attributes = {"file": "/home/dev/bench/model.py", "line": line}
        table.add(stack, "code_stack", f"model.py:{line}", attributes=attributes)
        table.link(stack, op)
        value = 100 + (i * 7919 + seed * 104729) % 5000
        breakdowns.append(breakdown(chain, [sum_metric("op_cycles", value)], chain))
    result = {
        "kind": "performance",
        "status": "ok",
        "producer": "nx-performance-estimator",
        "breakdowns": breakdowns,
        "entities": table.values(),
        "entity_kinds": copy.deepcopy(CHAIN_KINDS),
    }
    gpu: ComponentJson = {"type": "gpu", "family": "mali", "model": "nx"}
    return envelope(
        [result],
        model=model_file("bench.vgf", "a" * 64),
        target=nx_target("bench", component=gpu),
        backends=[nx_backend(version="unknown")],
        run_id="a953f09a-1b6b-4725-8819-56e9ad0b1eb4",
    )


def make_workspace(root: Path, jobs: int, chains: int, lines: int) -> Path:
    (root / "model.py").write_text("".join(f"x{i} = layer{i}(x)\n" for i in range(lines)))
    (root / "perfline.toml").write_text('[[path_map]]\nfrom = "/home/dev/bench/"\nto = "."\n')
    for job in range(jobs):
        (root / f"run{job}.mlia.json").write_text(json.dumps(chain_document(chains, lines, job)))
    return root


def _ignoring() -> Any:
    """A handler (a new function: pygls marks each one) for a server notification or
    request the benchmark does not look at."""

    def ignore(ls: LanguageClient, params: Any) -> None:
        return None

    return ignore


class Bench:
    def __init__(self) -> None:
        self.client = LanguageClient("bench", "0")
        self.refreshes: asyncio.Queue[float] = asyncio.Queue()
        # pygls's ``feature`` decorator is untyped: registered through an ``Any``
        register: Any = self.client.feature

        def refresh(ls: LanguageClient, params: Any) -> None:
            self.refreshes.put_nowait(time.monotonic())

        register(types.WORKSPACE_INLAY_HINT_REFRESH)(refresh)
        for method in (
            types.WORKSPACE_CODE_LENS_REFRESH,
            "perfline/resultChanged",
            types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS,
            types.WINDOW_WORK_DONE_PROGRESS_CREATE,
        ):
            register(method)(_ignoring())

    async def start(self, root: Path, log_file: Path | None = None) -> None:
        logging = ["--log-file", str(log_file)] if log_file is not None else []
        # cwd: the workspace, so that ``-m`` imports the installed perfline (perhaps compiled),
        # not the source tree
        await self.client.start_io(
            sys.executable, "-m", "perfline", "serve", "--stdio", *logging, cwd=str(root)
        )
        caps = types.ClientCapabilities(
            workspace=types.WorkspaceClientCapabilities(
                inlay_hint=types.InlayHintWorkspaceClientCapabilities(refresh_support=True)
            ),
            general=types.GeneralClientCapabilities(
                position_encodings=[types.PositionEncodingKind.Utf8]
            ),
        )
        await self.client.initialize_async(
            types.InitializeParams(capabilities=caps, root_uri=root.as_uri())
        )
        self.client.initialized(types.InitializedParams())

    async def wait_ready(self, jobs: int, timeout: float = 120.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            result = await self.client.protocol.send_request_async("perfline/jobs", {})
            if len(result.jobs) == jobs and all(j.state == "ok" for j in result.jobs):
                return
            await asyncio.sleep(0.05)
        raise TimeoutError(f"the daemon did not analyse {jobs} job(s) in {timeout:g} s")

    async def stop(self) -> None:
        await self.client.shutdown_async(None)
        self.client.exit(None)
        await asyncio.sleep(0.2)
        client: Any = self.client  # pygls: ``stop`` is untyped
        await client.stop()


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


#: The phases of a change, as (label, from mark, to mark); ``write`` and ``arrival`` are the
#: benchmark's own marks, the others come from the daemon's timing log.
PHASES = (
    ("file event seen", "write", "event"),
    ("debounce", "event", "flush"),
    ("scan + dispatch", "flush", "start"),
    ("read + hash", "start", "read"),
    ("parse + postprocess", "read", "backend"),
    ("line index", "backend", "index"),
    ("hand-over + refresh sent", "index", "refresh"),
    ("refresh transport", "refresh", "arrival"),
)
_TIMING = re.compile(r"perfline\.server\.timing: job=(\S+) generation=(\d+) (.*)$")


def read_timings(log_file: Path) -> dict[int, dict[str, float]]:
    """Timing marks by generation from the daemon's log."""
    found: dict[int, dict[str, float]] = {}
    for line in log_file.read_text().splitlines():
        match = _TIMING.search(line)
        if match:
            marks = found.setdefault(int(match.group(2)), {})
            for item in match.group(3).split():
                name, _, value = item.partition("=")
                marks[name] = float(value)
    return found


def print_phases(runs: list[dict[str, float]]) -> None:
    complete = [r for r in runs if all(m in r for _, a, b in PHASES for m in (a, b))]
    if not complete:
        print("  (no phase timings found in the daemon log)")
        return
    parts = []
    for label, first, second in PHASES:
        values = [(r[second] - r[first]) * 1000 for r in complete]
        parts.append(f"{label} {statistics.median(values):.0f}")
    print(f"  phases, median ms over {len(complete)} changes: " + ", ".join(parts))


def nx_workspace(root: Path, chains: int) -> Path:
    """A workspace with the NX-shaped document of ``benchmarks/core_pipeline.py`` (its
    stacks land on ``model.py`` and ``blocks.py``, mapped from ``/home/dev/proj``)."""
    (root / "model.py").write_text("".join(f"x{i} = block{i}(x)\n" for i in range(40 + chains)))
    (root / "blocks.py").write_text("".join(f"y{i} = op{i}(y)\n" for i in range(10 + chains)))
    (root / "perfline.toml").write_text('[[path_map]]\nfrom = "/home/dev/proj/"\nto = "."\n')
    (root / "run0.mlia.json").write_text(json.dumps(nx_document(chains)))
    return root


def revalued(document: dict[str, Any], factor: int) -> dict[str, Any]:
    """The same graph with every metric value multiplied by ``factor`` (an integer, so the
    cascade totals stay the sums of their chains)."""
    copy_: dict[str, Any] = json.loads(json.dumps(document))
    for result in copy_["results"]:
        for record in result["breakdowns"]:
            for metric in record["metrics"]:
                metric["value"] = metric["value"] * factor
    return copy_


def change_texts(chains: int, changes: int, graph: bool) -> list[str]:
    """The documents written one after the other: new values on the same graph, or
    (``graph``) a new graph each time (another seed)."""
    if graph:
        return [json.dumps(nx_document(chains, seed=100 + change)) for change in range(changes)]
    base = nx_document(chains)
    return [json.dumps(revalued(base, 2 + change)) for change in range(changes)]


async def change_to_refresh(chains: int, changes: int, graph: bool) -> None:
    """Time from rewriting the NX-shaped document to ``workspace/inlayHint/refresh``."""
    texts = change_texts(chains, changes, graph)
    with tempfile.TemporaryDirectory() as folder:
        root = nx_workspace(Path(folder), chains)
        log_file = Path(folder) / "daemon.log"
        bench = Bench()
        await bench.start(root, log_file)
        await bench.wait_ready(1, timeout=600)
        await asyncio.sleep(0.5)
        while not bench.refreshes.empty():
            bench.refreshes.get_nowait()
        latencies = []
        marks: list[dict[str, float]] = []
        for text in texts:
            start = time.monotonic()
            (root / "run0.mlia.json").write_text(text)
            arrived = await asyncio.wait_for(bench.refreshes.get(), 600)
            latencies.append((arrived - start) * 1000)
            marks.append({"write": start, "arrival": arrived})
            await asyncio.sleep(0.3)
            while not bench.refreshes.empty():
                bench.refreshes.get_nowait()
        rss = rss_mb(bench.client._server.pid)  # type: ignore[union-attr]
        await bench.stop()
        attach_timings(marks, read_timings(log_file))
    what = "a changed graph" if graph else "new values, same graph"
    print(
        f"change -> inlayHint/refresh, NX-shaped {chains:,}-chain document, {what} "
        f"({changes} changes): p50 {pct(latencies, 0.5):.0f} ms, p90 {pct(latencies, 0.9):.0f} "
        f"ms, p99 {pct(latencies, 0.99):.0f} ms, max {max(latencies):.0f} ms (load average "
        f"{' '.join(f'{x:.2f}' for x in os.getloadavg())})"
    )
    print_phases(marks)
    print(f"  daemon memory after the {changes} changes: RSS {rss:.0f} MB")


def attach_timings(marks: list[dict[str, float]], timings: dict[int, dict[str, float]]) -> None:
    """Give each write the phases of the run it triggered: the first whose file event
    follows it."""
    runs = sorted(timings.values(), key=lambda r: r.get("event", 0.0))
    for mark in marks:
        after = [r for r in runs if r.get("event", 0.0) >= mark["write"]]
        if after:
            mark.update(after[0])


def _unresolved(path: str) -> None:
    """The in-process index's resolver (one function, as the daemon keeps one resolver
    while its configuration and file list are unchanged)."""
    return None


def in_process(chains: int) -> None:
    """The core pipeline and the line index alone on the same documents, in this process."""
    from perfline.core.pipeline import PipelineSettings, postprocess_with_layouts
    from perfline.core.pipeline_memo import PipelineMemo
    from perfline.server.index_memo import IndexMemo
    from perfline.server.line_index import build_line_index

    base = nx_document(chains)
    factors = iter(range(2, 100))

    def timed(
        document: dict[str, Any], memo: PipelineMemo | None, index_memo: IndexMemo | None
    ) -> tuple[float, float]:
        document = json.loads(json.dumps(document))
        start = time.perf_counter()
        processed = postprocess_with_layouts(
            document, PipelineSettings(), source="bench", memo=memo
        )
        middle = time.perf_counter()
        build_line_index(
            "bench", processed.document, _unresolved, None, index_memo, processed.layouts
        )
        return (middle - start) * 1000, (time.perf_counter() - middle) * 1000

    cold = [timed(nx_document(chains, seed=200 + i), None, None) for i in range(3)]
    memo, index_memo = PipelineMemo(), IndexMemo()
    timed(base, memo, index_memo)
    warm = [timed(revalued(base, next(factors)), memo, index_memo) for _ in range(3)]
    print(
        f"  in-process, {chains:,} chains: core postprocess "
        f"{statistics.median(c[0] for c in cold):.0f} ms, line index "
        f"{statistics.median(c[1] for c in cold):.0f} ms on a new graph; "
        f"{statistics.median(w[0] for w in warm):.0f} ms and "
        f"{statistics.median(w[1] for w in warm):.0f} ms with the job's memos when only "
        "the values changed"
    )


class RawLsp:
    """A bare JSON-RPC client over the daemon's stdio: json.loads only, so the timings are
    the daemon's (a pygls client would add its own cattrs structuring of every hint)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.ids = 0
        self.last_byte = 0.0

    @classmethod
    async def start(cls, root: Path) -> RawLsp:
        process = await asyncio.create_subprocess_exec(
            sys.executable,
            "-m",
            "perfline",
            "serve",
            "--stdio",
            cwd=str(root),
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
        )
        raw = cls(process)
        await raw.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": {"general": {"positionEncodings": ["utf-8"]}},
            },
        )
        raw.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
        return raw

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    async def read(self) -> dict[str, Any]:
        assert self.process.stdout is not None
        length = 0
        while True:
            line = await self.process.stdout.readline()
            if line.lower().startswith(b"content-length:"):
                length = int(line.split(b":")[1])
            elif line in (b"\r\n", b"\n") and length:
                break
        body = await self.process.stdout.readexactly(length)
        self.last_byte = time.perf_counter()  # the response is in; parsing it is the client's
        message: dict[str, Any] = json.loads(body)
        return message

    async def request(self, method: str, params: Any) -> Any:
        self.ids += 1
        self.send({"jsonrpc": "2.0", "id": self.ids, "method": method, "params": params})
        while True:
            message = await self.read()
            if "method" in message and "id" in message:  # a server request: answer null
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            elif message.get("id") == self.ids and "method" not in message:
                return message.get("result")

    async def stop(self) -> None:
        await self.request("shutdown", None)
        self.send({"jsonrpc": "2.0", "method": "exit"})
        await asyncio.wait_for(self.process.wait(), 10)


async def hint_latency(requests: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = make_workspace(Path(folder), jobs=1, chains=2000, lines=2000)
        raw = await RawLsp.start(root)
        while True:
            jobs = (await raw.request("perfline/jobs", {}))["jobs"]
            if jobs and all(j["state"] == "ok" for j in jobs):
                break
            await asyncio.sleep(0.05)
        uri = (root / "model.py").as_uri()
        text = (root / "model.py").read_text()
        raw.send(
            {
                "jsonrpc": "2.0",
                "method": "textDocument/didOpen",
                "params": {
                    "textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}
                },
            }
        )

        def params(first: int, last: int) -> dict[str, Any]:
            return {
                "textDocument": {"uri": uri},
                "range": {
                    "start": {"line": first, "character": 0},
                    "end": {"line": last, "character": 0},
                },
            }

        count = len(await raw.request("textDocument/inlayHint", params(0, 2000)) or [])
        baseline = []
        for _ in range(requests):
            start = time.perf_counter()
            await raw.request("perfline/status", {})
            baseline.append((raw.last_byte - start) * 1000)
        print(
            f"round trip of perfline/status: p50 {pct(baseline, 0.5):.2f} ms, "
            f"p99 {pct(baseline, 0.99):.2f} ms"
        )
        for name, (first, last) in (
            ("whole file", (0, 2000)),
            ("one screen (60 lines)", (1000, 1060)),
        ):
            timings = []
            for _ in range(requests):
                # the client's own garbage collection is not the daemon's latency
                gc.collect()
                gc.disable()
                start = time.perf_counter()
                await raw.request("textDocument/inlayHint", params(first, last))
                timings.append((raw.last_byte - start) * 1000)
                gc.enable()
            print(
                f"inlayHint latency, 2,000-line file ({count} hinted lines), {name}: "
                f"p50 {pct(timings, 0.5):.2f} ms, p99 {pct(timings, 0.99):.2f} ms "
                f"({requests} requests, request sent -> last byte of the response; "
                "target p99 <= 10 ms)"
            )
        await raw.stop()


async def memory(jobs: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = make_workspace(Path(folder), jobs=jobs, chains=1000, lines=500)
        bench = Bench()
        await bench.start(root)
        await bench.wait_ready(jobs)
        pid = bench.client._server.pid  # type: ignore[union-attr]
        print(
            f"daemon memory with {jobs} jobs of 1,000 chains loaded: RSS {rss_mb(pid):.0f} MB "
            f"(target <= 300 MB)"
        )
        await bench.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--changes", type=int, default=10)
    parser.add_argument("--large-changes", type=int, default=5)
    parser.add_argument("--large-chains", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=300)
    parser.add_argument("--jobs", type=int, default=10)
    parser.add_argument(
        "--only", choices=("changes", "hints", "memory"), help="Run one part of the benchmark."
    )
    args = parser.parse_args()
    probe = "from perfline.build_info import core_build; print(core_build())"
    build = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd="/", check=False
    ).stdout.strip()
    print(f"daemon: {sys.executable} -m perfline serve; core post-processing: {build}")
    if args.only in (None, "changes"):
        asyncio.run(change_to_refresh(1000, args.changes, graph=False))
        asyncio.run(change_to_refresh(1000, args.changes, graph=True))
        in_process(1000)
        if args.large_changes:
            asyncio.run(change_to_refresh(args.large_chains, args.large_changes, graph=False))
    if args.only in (None, "hints"):
        asyncio.run(hint_latency(args.requests))
    if args.only in (None, "memory"):
        asyncio.run(memory(args.jobs))


if __name__ == "__main__":
    main()
