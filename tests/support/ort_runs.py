"""ONNX Runtime runs for the compare and hardening tests, analysed by the real backend
(``core/backends/onnxruntime``) from real profiles, and the one way the tests shorten a run:
``first_runs`` keeps a profile's first runs, as if the session had run that many times.

The tests' expected figures never come from here: they come from the raw events
(``tests/support/raw_events.py``, ``tests/support/onnxruntime_data.py``), and the backend's
own reading of the same profiles is checked against those events in
``tests/core/compare/test_onnxruntime_backend.py``. Cost: one backend run per call (the
DS-CNN profiles: a few milliseconds).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from perfline.core.backends.onnxruntime.document import analyze_profiles
from perfline.core.backends.source_model.inputs import InputFile

#: The session event ONNX Runtime writes for each ``InferenceSession.run``.
MODEL_RUN = "model_run"


def ort_run(model: Path, profile: Path, *, data: bytes | None = None) -> dict[str, Any]:
    """The raw (not post-processed) document of one profile of ``model``, as ``perfline
    analyze MODEL PROFILE`` makes it; ``data``: the profile's bytes when they are not the
    file's (``first_runs``)."""
    return analyze_profiles(
        InputFile(str(model), model.read_bytes()),
        [InputFile(str(profile), profile.read_bytes() if data is None else data)],
        timestamp="2026-01-01T00:00:00Z",
    )


def first_runs(profile: Path, count: int, warmup: int = 1) -> bytes:
    """The profile as it would be had the session run ``warmup + count`` times: every event
    that starts before the next run's ``model_run`` event."""
    events: list[dict[str, Any]] = json.loads(profile.read_text())
    starts = sorted(e["ts"] for e in events if e.get("name") == MODEL_RUN)
    assert len(starts) > warmup + count, f"{profile}: {len(starts)} runs"
    end = starts[warmup + count]
    return json.dumps([e for e in events if e.get("ts", 0) < end]).encode()
