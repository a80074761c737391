"""Benchmark of the HTML report: file size and time to interactive in headless Chromium.

    .venv/bin/python benchmarks/html_report.py [--sizes 5000,20000] [--repeat 5]
        [--cli-runs 3] [--chromium /usr/bin/chromium]

For each size, builds the NX-shaped document of ``benchmarks/core_pipeline.py`` and a workspace
whose ``model.py`` and ``blocks.py`` hold every line the document's code stacks name (so the
source section is as large as a real one), then runs what a user runs, each in a fresh process
of the Python running this script (install the compiled build to measure it):

* ``perfline report DOC.json --html OUT.html`` on the raw document (post-processing included),
* the same on the post-processed document, and ``perfline report`` without ``--html`` on it,
  alternately ``--cli-runs`` times each: the difference of their fastest runs is what the HTML
  costs (reading the sources, rendering, writing); fastest runs, since a neighbour's burst on a
  shared host only ever adds time;

and opens the page ``--repeat`` times from ``file://`` in a fresh headless Chromium with the
network off (``tests/core/report_html/browser/drive.mjs --measure``), reporting the time from
navigation start until the page's script has drawn everything and is listening (``readyAt``, the
page's own clock) and the wall time from ``goto`` to that point, fastest and median.

The compare case (``--no-compare`` skips it): the same document as the baseline and, as the new
run, a copy in which one chain in 20 is 30% slower and another one in 20 is 20% faster (every
metric of those chains' breakdowns); ``perfline compare BASE NEW --html OUT.html`` on the raw
documents (both post-processed and compared, as a user runs it) against the same command
without ``--html`` (the difference is what the compare view costs), the page's size, and its
time to interactive as above. Needs Node.js, npm (``npm ci`` in
``tests/core/report_html/browser`` is run if needed) and Chromium.
"""

from __future__ import annotations

import argparse
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

from core_pipeline import nx_document

ROOT = Path(__file__).resolve().parent.parent
BROWSER = ROOT / "tests" / "core" / "report_html" / "browser"


def _installed_build() -> str:
    probe = "from perfline.build_info import core_build; print(core_build())"
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd="/", check=False
    )
    return done.stdout.strip() or f"not importable: {done.stderr.strip()[-200:]}"


def _workspace(folder: Path, chains: int) -> None:
    """``blocks.py`` / ``model.py`` with a statement on every line the document names."""
    blocks = ['"""Blocks of the benchmark model (generated)."""', "import torch", "", ""]
    blocks += ["class Blocks(torch.nn.Module):", "    def forward(self, x):"]
    while len(blocks) < 10 + chains + 2:
        blocks.append(f"        x = self.layer_{len(blocks)}(x)")
    blocks.append("        return x")
    model = ['"""The benchmark model (generated)."""', "import torch", ""]
    model += ["class Model(torch.nn.Module):", "    def forward(self, x):"]
    while len(model) < 40 + chains // 8 + 2:
        model.append(f"        x = self.blocks_{len(model)}(x)")
    model.append("        return x")
    (folder / "blocks.py").write_text("\n".join(blocks) + "\n")
    (folder / "model.py").write_text("\n".join(model) + "\n")
    (folder / "perfline.toml").write_text('[[path_map]]\nfrom = "/home/dev/proj/"\nto = "."\n')


def _perfline(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-m", "perfline", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    seconds = time.perf_counter() - start
    if done.returncode != 0:
        raise RuntimeError(f"perfline {' '.join(args)}: {done.stderr.strip()[-400:]}")
    return seconds


def _open(page: Path, chromium: str) -> dict[str, Any]:
    done = subprocess.run(
        [
            "node",
            str(BROWSER / "drive.mjs"),
            "--html",
            str(page),
            "--chromium",
            chromium,
            "--measure",
            "--timeout",
            "120000",
        ],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if done.returncode != 0 or not lines:
        raise RuntimeError(f"the page did not open: {(done.stderr or done.stdout)[-600:]}")
    measured: dict[str, Any] = json.loads(lines[-1])
    return measured


def _opened(page: Path, chromium: str, repeat: int) -> dict[str, tuple[float, float]]:
    """The page opened ``repeat`` times (no errors, one request each): ``ready`` and ``wall``
    as (best, median) seconds."""
    opened = [_open(page, chromium) for _ in range(repeat)]
    for item in opened:
        if item["errors"] or item["requests"] != 1:
            raise RuntimeError(f"page errors or requests: {item}")
    ready = [float(o["readyAt"]) for o in opened]
    wall = [float(o["wall"]) for o in opened]
    return {
        "ready": (min(ready), statistics.median(ready)),
        "wall": (min(wall), statistics.median(wall)),
    }


def _case(chains: int, folder: Path, chromium: str, repeat: int, cli_runs: int) -> dict[str, Any]:
    _workspace(folder, chains)
    raw = folder / "raw.json"
    raw.write_text(json.dumps(nx_document(chains)))
    out = folder / "out"
    config = ["--config", str(folder / "perfline.toml"), "--output-dir", str(out)]
    page = folder / "report.html"
    with_raw = _perfline(["report", str(raw), "--html", str(page), *config], folder)
    processed = folder / "processed.json"
    shutil.copy(out / "mlia-output" / "mlia-output.json", processed)
    plain_runs: list[float] = []
    html_runs: list[float] = []
    for _ in range(cli_runs):
        plain_runs.append(_perfline(["report", str(processed), *config], folder))
        html_runs.append(
            _perfline(["report", str(processed), "--html", str(page), *config], folder)
        )
    plain, html = min(plain_runs), min(html_runs)
    return {
        "chains": chains,
        "bytes": page.stat().st_size,
        "report_raw": with_raw,
        "html_cost": html - plain,
        "plain": plain,
        **_opened(page, chromium, repeat),
    }


def _variant(document: dict[str, Any], seed: int = 7) -> dict[str, Any]:
    """A copy with one chain in 20 30% slower and another one in 20 20% faster."""
    copy: dict[str, Any] = json.loads(json.dumps(document))
    rng = random.Random(seed)
    for breakdown in copy["results"][0]["breakdowns"]:
        if not breakdown["entity_id"].startswith("chain/"):
            continue
        draw = rng.random()
        factor = 1.3 if draw < 0.05 else 0.8 if draw < 0.1 else 1.0
        if factor != 1.0:
            for metric in breakdown["metrics"]:
                if isinstance(metric.get("value"), int | float):
                    metric["value"] = round(metric["value"] * factor)
    return copy


def _compare_case(
    chains: int, folder: Path, chromium: str, repeat: int, cli_runs: int
) -> dict[str, Any]:
    _workspace(folder, chains)
    base, new = folder / "base.json", folder / "new.json"
    document = nx_document(chains)
    base.write_text(json.dumps(document))
    new.write_text(json.dumps(_variant(document)))
    page = folder / "compare.html"
    args = ["compare", str(base), str(new), "--source-root", str(folder)]
    plain_runs: list[float] = []
    html_runs: list[float] = []
    for _ in range(cli_runs):
        plain_runs.append(_perfline(args, folder))
        html_runs.append(_perfline([*args, "--html", str(page)], folder))
    return {
        "bytes": page.stat().st_size,
        "compare": min(plain_runs),
        "with_html": min(html_runs),
        **_opened(page, chromium, repeat),
    }


def _print_compare(size: int, case: dict[str, Any]) -> None:
    ready, wall = case["ready"], case["wall"]
    print(
        f"{size:>7} {case['bytes'] / 1e6:>8.2f} MB {case['with_html']:>9.2f} s"
        f" {case['compare']:>8.2f} s {case['with_html'] - case['compare']:>8.2f} s"
        f" {ready[0]:>10.0f} ms (median {ready[1]:>5.0f})"
        f" {wall[0]:>8.0f} ms (median {wall[1]:>5.0f})",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="5000,20000")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--cli-runs", type=int, default=3)
    parser.add_argument("--chromium", default=shutil.which("chromium") or "/usr/bin/chromium")
    parser.add_argument("--no-compare", action="store_true", help="skip the compare view")
    args = parser.parse_args()
    if shutil.which("node") is None:
        sys.exit("node is not installed (Node.js 20 and npm are needed to drive Chromium)")
    if not (BROWSER / "node_modules" / "playwright-core").is_dir():
        subprocess.run(["npm", "ci", "--no-audit", "--no-fund"], cwd=BROWSER, check=True)
    print(f"perfline build: {_installed_build()}; python {sys.executable}")
    print(f"chromium: {args.chromium}; {args.repeat} opening(s) per size, each a fresh browser")
    print(
        f"CLI: fastest of {args.cli_runs} runs of `report` on the processed document, without"
        " and with --html (HTML part = the difference); raw = one run on the raw document"
    )
    header = (
        f"{'chains':>7} {'HTML size':>11} {'raw --html':>11} {'report':>8} {'HTML part':>10}"
        f" {'interactive (page clock)':>25} {'goto -> interactive':>21}"
    )
    print(header)
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="perfline-html-bench-") as folder:
            case = _case(size, Path(folder), args.chromium, args.repeat, args.cli_runs)
        ready, wall = case["ready"], case["wall"]
        print(
            f"{size:>7} {case['bytes'] / 1e6:>8.2f} MB {case['report_raw']:>9.2f} s"
            f" {case['plain']:>6.2f} s {case['html_cost']:>8.2f} s"
            f" {ready[0]:>10.0f} ms (median {ready[1]:>5.0f})"
            f" {wall[0]:>8.0f} ms (median {wall[1]:>5.0f})",
            flush=True,
        )
    if args.no_compare:
        return
    print(
        "\ncompare view: `perfline compare BASE NEW` on the raw documents, fastest of"
        f" {args.cli_runs} runs without and with --html (HTML part = the difference)"
    )
    print(
        f"{'chains':>7} {'HTML size':>11} {'--html':>11} {'compare':>10} {'HTML part':>10}"
        f" {'interactive (page clock)':>25} {'goto -> interactive':>21}"
    )
    for size in (int(s) for s in args.sizes.split(",")):
        with tempfile.TemporaryDirectory(prefix="perfline-html-bench-") as folder:
            compared = _compare_case(size, Path(folder), args.chromium, args.repeat, args.cli_runs)
        _print_compare(size, compared)


if __name__ == "__main__":
    main()
