"""The shared onnxruntime profiles compared through the ONNX Runtime backend itself.

The other tests build ORT-shaped documents from the raw profiles themselves
(``ort_documents``); this one lets ``perfline compare`` analyse ``dscnn.onnx`` + each profile
through the ONNX Runtime route (``clients/cli/compare.py: _analysed``) and checks the per-line
deltas against the raw events, whatever warm-up policy, unit and statistic names the backend
chose.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.compare._data import ONNX_MODEL, ORT_NOOPT, ORT_OPT
from tests.compare.raw_events import raw_line_runs

SCALE = {"ms": 1.0, "us": 1000.0, "µs": 1000.0, "ns": 1e6, "s": 1e-3}


def test_shared_profiles_through_the_onnxruntime_backend(tmp_path: Path) -> None:
    outcome = CliRunner().invoke(
        cli,
        [
            "compare",
            f"{ONNX_MODEL},{ORT_NOOPT}",
            f"{ONNX_MODEL},{ORT_OPT}",
            "--json",
            "--source-root",
            str(tmp_path),
        ],
    )
    assert outcome.exit_code == 0, outcome.output
    (result,) = json.loads(outcome.stdout)["results"]
    lines = [e for e in result["entities"] if e["kind"] == "code_line" and e["status"] == "common"]
    assert lines
    checked = 0
    for entity in lines:
        for delta in entity["metrics"]:
            name = delta["name"]
            if (
                "base" not in delta
                or "new" not in delta
                or not any(key in name for key in ("avg", "mean"))
            ):
                continue
            assert delta["method"] == "samples", name  # the backend persisted per-run values
            scale = SCALE[delta["unit"]]
            for side, profile in (("base", ORT_NOOPT), ("new", ORT_OPT)):
                runs = delta[f"{side}_runs"]
                raw = raw_line_runs(profile, warmup=0)[entity["new_line"]][-runs:]
                assert delta[side] == pytest.approx(statistics.fmean(raw) * scale, rel=1e-9)
            checked += 1
    assert checked
