"""The real traces of tests/data/torch_profiler (torch 2.13 CPU, see its README), analysed
the way ``perfline analyze`` does, with the repository as the workspace."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Any

from perfline.core.backends.torch_profiler.document import analyze_traces
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.core.workspace_config import WorkspaceConfig
from perfline.server.ingest.torch_trace import (
    read_trace_file,
    sidecar_beside,
    workspace_resolution,
)
from tests.support import locations
from tests.support.locations import REPO

DATA = locations.DATA / "torch_profiler"
TRACES = DATA / "traces"
MODELS = "tests/data/torch_profiler/models"
CAPTURED = ("transformer_block", "cnn", "custom_function", "train_step", "threaded", "compiled")


def trace_path(name: str) -> Path:
    return TRACES / f"{name}.pt.trace.json"


def sidecar_path(name: str) -> Path:
    return TRACES / f"{name}.pt.trace.json.perfline.json"


@lru_cache(maxsize=32)
def processed(path: Path, statements: bool) -> dict[str, Any]:
    sidecar = sidecar_beside(path) if statements else None
    read = read_trace_file(path, str(path), sidecar=sidecar)
    resolution = workspace_resolution([read], REPO, WorkspaceConfig())
    raw = analyze_traces(
        [read], resolution.paths, timestamp="2026-01-01T00:00:00Z", workspace=str(REPO)
    )
    return postprocess(raw, PipelineSettings(), source=str(path))


def line_figures(document: dict[str, Any], file: str, metric: str = "cpu_time") -> dict[int, float]:
    """(line) -> the processed figure of ``metric`` on each code line of ``file``."""
    result = document["results"][0]
    lines = {
        e["id"]: e["attributes"]["line"]
        for e in result["entities"]
        if e["kind"] == "code_line" and e["attributes"]["file"] == file
    }
    found: dict[int, float] = {}
    for breakdown in result["breakdowns"]:
        line = lines.get(breakdown["entity_id"])
        if line is None:
            continue
        for figure in breakdown["metrics"]:
            if figure["name"] == metric:
                found[line] = figure["value"]
    return found
