"""Same line, every runtime (issue 22 item 4): ``perfline compare --jobs`` and the hover.

One workspace with four jobs on the same ``dscnn.py``: the ExecuTorch portable and XNNPACK
runs of the DS-CNN program (real ETRecord/ETDump pairs), an ONNX Runtime profile of the
same model and its static cost. The figures expected on each line come from the
ExecuTorch Inspector's reading of the portable dump and from the raw events of the ONNX
Runtime profile (``tests/support/raw_events``), not from perfline; the static cost of
line 27 is counted by hand (four 1x1 convolutions 64 -> 64 channels on 25x5).
"""

from __future__ import annotations

import json
import math
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from lsprotocol import types

from perfline.clients.cli import cli
from tests.support.compare_data import (
    DATA,
    FIRST_INSPECTOR,
    inspector_line_runs,
    mean,
    written,
)
from tests.support.lsp_session import start
from tests.support.raw_events import raw_line_runs

pytestmark = pytest.mark.timeout(180)

ORT_PROFILE = DATA / "onnxruntime" / "dscnn_noopt.json"
TOML = """[[path_map]]
from = "/home/dev/kws/"
to = "."

[[jobs]]
name = "portable"
backend = "executorch"
inputs = ["dscnn_portable.etrecord", "dscnn_portable.etdump"]

[[jobs]]
name = "xnnpack"
backend = "executorch"
inputs = ["dscnn_xnnpack.etrecord", "dscnn_xnnpack.etdump"]

[[jobs]]
name = "ort"
backend = "onnxruntime"
inputs = ["dscnn.onnx", "dscnn_noopt.json"]

[[jobs]]
name = "static"
backend = "static"
inputs = ["dscnn.onnx"]
"""


def _workspace(tmp_path: Path) -> Path:
    root = tmp_path / "runtimes"
    root.mkdir()
    formats, measured = DATA / "formats" / "dscnn", DATA / "measured"
    for source in (
        formats / "dscnn.py",
        formats / "dscnn.onnx",
        ORT_PROFILE,
        *(measured / "portable").glob("dscnn_portable.et*"),
        *(measured / "xnnpack").glob("dscnn_xnnpack.et*"),
    ):
        shutil.copyfile(source, root / source.name)
    (root / "perfline.toml").write_text(TOML)
    return root


def _side_by_side(root: Path, *extra: str) -> dict[str, Any]:
    outcome = CliRunner().invoke(cli, ["compare", "--jobs", "-w", str(root), "--json", *extra])
    assert outcome.exit_code == 0, outcome.output
    data: dict[str, Any] = json.loads(outcome.stdout)
    return data


def test_compare_jobs_prints_every_runtime_per_line(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    data = _side_by_side(root)
    assert data["perfline_compare_jobs"] == 1 and data["jobs"] == [
        "ort",
        "portable",
        "static",
        "xnnpack",
    ]
    (file,) = data["files"]
    assert file["file"] == "dscnn.py"
    lines = {line["line"]: line for line in file["lines"]}
    assert lines[26]["source"] == "x = self.pointwise(x)"
    portable = inspector_line_runs(FIRST_INSPECTOR)
    for number, runs in portable.items():
        figure = lines[number]["jobs"]["portable"]
        assert figure["label"].startswith(f"{written(mean(runs))} ms avg"), (number, figure)
    ort = raw_line_runs(ORT_PROFILE)
    for number in (25, 27, 40):
        figure = lines[number]["jobs"]["ort"]
        assert figure["value"] == pytest.approx(mean(ort[number]), rel=1e-9), number
        assert figure["producer"] != lines[number]["jobs"]["portable"]["producer"]
    assert lines[27]["jobs"]["static"]["label"].startswith("2.0M MAC")
    assert lines[27]["jobs"]["static"]["value"] == 4 * 64 * 64 * 25 * 5
    # The text form: one column per job that has a figure in the file, one row per line.
    outcome = CliRunner().invoke(cli, ["compare", "--jobs", "-w", str(root)])
    assert outcome.exit_code == 0, outcome.output
    head, header, *rows = outcome.stdout.splitlines()
    assert head.startswith("dscnn.py: ") and header.split() == ["line", "source", *file["jobs"]]
    (row_26,) = [r for r in rows if r.split()[:1] == ["26"]]
    assert "x = self.pointwise(x)" in row_26 and f"{written(mean(portable[26]))} ms avg" in row_26


def test_compare_jobs_with_a_metric_and_bad_use(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    data = _side_by_side(root, "--metric", "macs", "--file", str(root / "dscnn.py"))
    (file,) = data["files"]
    assert file["jobs"] == ["static"]
    assert {line["line"] for line in file["lines"]} >= {25, 27, 40, 44}
    outcome = CliRunner().invoke(cli, ["compare", "--jobs", "a.json", "b.json"])
    assert outcome.exit_code == 2 and "give no BASE or NEW" in outcome.output
    outcome = CliRunner().invoke(cli, ["compare", "a.json"])
    assert outcome.exit_code == 2 and "expected BASE and NEW (or --jobs)" in outcome.output


async def test_the_hover_shows_every_runtime_side_by_side(tmp_path: Path) -> None:
    root = _workspace(tmp_path)
    async with start(root, "stdio", "visual-studio-code") as session:
        jobs = await session.wait_analysed()
        assert {j.state for j in jobs} == {"ok"}, jobs
        uri = session.open("dscnn.py")
        hover = await session.client.text_document_hover_async(
            types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(26, 8))  # line 27
        )
        assert hover is not None and isinstance(hover.contents, types.MarkupContent)
        text = hover.contents.value
        assert text.startswith("**Same line, every runtime**")
        table = text.split("\n\n")[1].splitlines()
        columns = [c.strip() for c in table[0].strip("|").split("|")][1:]
        assert columns == ["`ort`", "`portable`", "`static`", "`xnnpack`"]
        rows = {
            r.split("|")[1].strip(): [c.strip() for c in r.strip("|").split("|")[1:]]
            for r in table[2:]
        }
        assert rows["ran"][0].startswith("ONNX Runtime")
        assert rows["ran"][1] == "ExecuTorch CPU kernels (no delegate), measured, 10 runs"
        assert rows["ran"][2].startswith("perfline static cost") and "XNNPACK" in rows["ran"][3]
        portable = inspector_line_runs(FIRST_INSPECTOR)[27]
        ort = raw_line_runs(ORT_PROFILE)[27]
        assert rows["figure"][1] == f"{written(mean(portable))} ms avg"
        assert rows["figure"][0] == f"{written(mean(ort))} ms avg"
        assert rows["figure"][2] == "2.0M MAC"
        # every statistic, the unit once per row, each job in its column
        assert rows["duration avg (ms)"][:2] == [written(mean(ort)), written(mean(portable))]
        assert rows["macs (MAC)"][2] == "2.0M" and rows["macs (MAC)"][:2] == ["", ""]
        assert math.isclose(float(rows["duration avg (ms)"][1]), mean(portable), rel_tol=0.01)
