"""Load and watcher chaos against the real daemon: 50 TCP clients × 200 requests while the
ETDump is rewritten every 200 ms (issue 20 item 9).

Starts ``python -m perfline serve --tcp 127.0.0.1:0`` on a copy of ``examples/kws``,
runs the scenario of ``tests/support/load_scenario.py`` (every client sends the
methods of its ``MIX`` in turn: status, jobs, lineAnnotations with and without metrics,
summary, codeLenses, breakdown, and the whole processed document, ``perfline/result``;
the writer alternates the example's ETDump with a second real run of the same program)
and prints, per method, the count and p50/p90/p99/max latency from sending a request to
having parsed its whole answer, the errors, the rewrites, and the daemon's resident
memory (``VmRSS``) before and after. Latencies include the client side (50 Python
threads on the same 2 cores as the daemon) and vary by 2x run to run on a shared machine.

Usage: ``python benchmarks/load.py [--clients 50] [--requests 200] [--rewrite-every 0.2]``.
Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    # the scenario and the daemon helpers of the tests; appended, so that an installed
    # (perhaps compiled) perfline still comes first
    sys.path.append(str(ROOT))

from tests.support.load_scenario import run_load  # noqa: E402
from tests.support.wire_daemon import running  # noqa: E402

RERUN = ROOT / "tests" / "data" / "docs" / "dscnn_portable_rerun.etdump"
KWS = ROOT / "examples" / "kws"


def _percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--rewrite-every", type=float, default=0.2)
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        base = Path(folder)
        root = base / "kws"
        shutil.copytree(KWS, root)
        etdump = root / "dscnn_portable.etdump"
        contents = (RERUN.read_bytes(), etdump.read_bytes())
        with running(root, base) as daemon:
            before = daemon.rss_kib()
            report = run_load(
                daemon.endpoint,
                etdump,
                contents,
                clients=options.clients,
                requests=options.requests,
                rewrite_every=options.rewrite_every,
            )
            time.sleep(1.0)  # the last rewrite analysed
            after = daemon.rss_kib()
    print(
        f"{options.clients} clients x {options.requests} requests, ETDump rewritten every "
        f"{options.rewrite_every * 1000:.0f} ms: {report.requests} answered in "
        f"{report.seconds:.1f} s ({report.requests / report.seconds:.0f} requests/s), "
        f"{report.rewrites} rewrites, {len(report.errors)} errors"
    )
    print(f"{'method':34} {'count':>6} {'p50 ms':>8} {'p90 ms':>8} {'p99 ms':>8} {'max ms':>8}")
    for method, values in sorted(report.latencies.items()):
        figures = [
            statistics.median(values),
            _percentile(values, 0.9),
            _percentile(values, 0.99),
            max(values),
        ]
        shown = " ".join(f"{value * 1000:8.1f}" for value in figures)
        print(f"{method:34} {len(values):6d} {shown}")
    print(f"daemon memory (VmRSS): {before / 1024:.1f} MiB before, {after / 1024:.1f} MiB after")
    for error in report.errors[:10]:
        print("error:", error)


if __name__ == "__main__":
    main()
