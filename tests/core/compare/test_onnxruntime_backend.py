"""The shared onnxruntime profiles compared through the ONNX Runtime backend itself.

The other compare tests analyse the profiles in-process with the backend
(``tests/support/ort_runs.py``); this one lets ``perfline compare`` analyse ``dscnn.onnx`` +
each profile through the ONNX Runtime route (``clients/cli/compare.py: _analysed``) and checks
the per-line deltas against the raw events, whatever warm-up policy, unit and statistic names
the backend chose: the check that the backend's figures are the raw events' own.
"""

from __future__ import annotations

import json
import statistics
from pathlib import Path

import pytest
from click.testing import CliRunner

from perfline.clients.cli import cli
from tests.support.compare_paths import ONNX_MODEL, ORT_NOOPT, ORT_OPT
from tests.support.raw_events import raw_line_runs

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


def test_the_model_level_is_judged_on_the_sessions_runs() -> None:
    """The ONNX Runtime route records the per-run values of ``inference_time`` and its
    companions (``result_run_samples``), as the ExecuTorch route does, so two interleaved
    sessions of one model are noise at the model level too, never a 0%-threshold change."""
    from perfline.core.backends.onnxruntime.document import analyze_profiles
    from perfline.core.backends.source_model.inputs import InputFile
    from perfline.core.compare import compare_documents
    from perfline.core.pipeline import postprocess
    from tests.support.compare_paths import INTERLEAVED_A, INTERLEAVED_B

    def analysed(profile: Path) -> dict[str, object]:
        read = [InputFile(str(p), p.read_bytes()) for p in (ONNX_MODEL, profile)]
        return postprocess(analyze_profiles(read[0], [read[1]], timestamp="2026-01-01T00:00:00Z"))

    base, new = analysed(INTERLEAVED_A), analysed(INTERLEAVED_B)
    events = json.loads(INTERLEAVED_A.read_text())
    runs = sorted((e["ts"], e["dur"]) for e in events if e.get("name") == "model_run")[1:]
    recorded = base["extensions"]["perfline"]["result_run_samples"][0]  # type: ignore[index]
    assert recorded["inference_time"] == pytest.approx([d / 1000 for _, d in runs])
    (result,) = compare_documents(base, new).results
    model = {m.name: m for m in result.model.metrics}
    assert {"inference_time", "inference_time_p50", "inferences_per_second"} <= set(model)
    for name in ("inference_time", "inference_time_p50", "inferences_per_second"):
        assert model[name].method == "samples", name
        assert model[name].base_runs == model[name].new_runs == len(runs), name
        assert not model[name].significant, name
