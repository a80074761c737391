"""The static-cost branch of ``perfline analyze``: ``perfline analyze MODEL --static``.

One ONNX, PT2 or TOSA model; the roofline target comes from ``[static.target]`` of the nearest
``perfline.toml`` (no built-in target). An ONNX model whose external data files are missing is
still costed (shapes are in the model file), with a warning per missing file.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.clients.cli.analyze_onnxruntime import read_file
from perfline.clients.cli.common import find_config, load_config
from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.server.jobs.onnxruntime_job import external_data_warnings


def run_static(
    inputs: Sequence[str],
    *,
    settings: PipelineSettings,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """Build and post-process the static-cost document of one model."""
    from perfline.core.backends.static_cost.document import analyze_static

    if len(inputs) != 1:
        raise InputError(
            "perfline analyze",
            Problem("--static", f"expected one model (.onnx, .pt2, .tosa); got {list(inputs)}"),
        )
    path = Path(inputs[0])
    model, mtime = read_file(path, "model")
    target = load_config(find_config(None, str(path))).backends.static_target
    warnings = external_data_warnings(path, model.data) if path.suffix.lower() == ".onnx" else []
    raw = analyze_static(
        model,
        timestamp=iso_timestamp(mtime),
        target=target,
        cli_arguments=cli_arguments,
        extra_warnings=warnings,
    )
    return postprocess(raw, settings, source="static cost result")
