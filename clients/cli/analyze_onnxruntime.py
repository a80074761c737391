"""The ONNX Runtime branch of ``perfline analyze``.

``perfline analyze MODEL.onnx PROFILE.json... [--warmup-runs N] [--optimized-model M.onnx]``:
an ONNX model with one or more profiles ONNX Runtime wrote for it; the default warm-up comes
from ``[onnxruntime] warmup_runs`` of the nearest ``perfline.toml``, else 1. ``analyze.py``
calls ``wants_onnxruntime`` to decide, then ``run_onnxruntime``.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.clients.cli.common import find_config, load_config
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings, postprocess
from perfline.server.ingest.named_files import read_input_file
from perfline.server.jobs.onnxruntime_job import external_data_warnings


def wants_onnxruntime(inputs: Sequence[str]) -> bool:
    """An ``.onnx`` model with ``.json`` profiles."""
    suffixes = [Path(item).suffix.lower() for item in inputs]
    return ".onnx" in suffixes and ".json" in suffixes


def compressed_profile_error(inputs: Sequence[str]) -> InputError | None:
    """The error for a gzip-compressed profile given beside an ``.onnx`` model
    (``profile.json.gz``), which this route does not read (ONNX Runtime writes plain JSON),
    naming the first such input; None when no input is one."""
    if not any(Path(item).suffix.lower() == ".onnx" for item in inputs):
        return None
    for item in inputs:
        if item.lower().endswith(".json.gz"):
            return InputError(
                item,
                "ONNX Runtime profiles are read as ONNX Runtime writes them (.json), not "
                f"compressed: decompress it first (gunzip -k {item}) and give "
                f"{item[: -len('.gz')]}",
            )
    return None


def reject_route_options(
    *,
    static: bool,
    ort: bool,
    estimator: str | None,
    compatibility: bool,
    profiling_data: Sequence[str],
    method: str | None,
    companion_model: str | None,
    warmup_runs: int | None,
    optimized_model: str | None,
) -> None:
    """An ``InputError`` naming the first option given that the chosen route does not use
    (``static``: ``--static``; ``ort``: ONNX Runtime profiles; else another route)."""
    ours = static or ort
    given = {
        "--estimator": ours and estimator is not None,
        "--compatibility": ours and compatibility,
        "--profiling-data": static and bool(profiling_data),
        "--method": ours and method is not None,
        "--companion-model": ours and companion_model is not None,
        "--warmup-runs": not ort and warmup_runs is not None,
        "--optimized-model": not ort and optimized_model is not None,
    }
    route = "--static" if static else "ONNX Runtime profiles" if ort else "these inputs"
    for option, present in given.items():
        if present:
            raise InputError("perfline analyze", Problem(option, f"does not apply to {route}"))


def read_file(path: Path, what: str) -> tuple[InputFile, float]:
    """The file's bytes and modification time; problems name the path."""
    return read_input_file(path, what)


def run_onnxruntime(
    inputs: Sequence[str],
    *,
    warmup_runs: int | None,
    optimized_model: str | None,
    settings: PipelineSettings,
    cli_arguments: Sequence[str] = (),
) -> dict[str, Any]:
    """Build and post-process the ONNX Runtime document."""
    from perfline.core.backends.onnxruntime.document import analyze_profiles

    models = [Path(i) for i in inputs if Path(i).suffix.lower() == ".onnx"]
    profiles = [Path(i) for i in inputs if Path(i).suffix.lower() == ".json"]
    others = [i for i in inputs if Path(i).suffix.lower() not in (".onnx", ".json")]
    if len(models) != 1 or others:
        raise InputError(
            "perfline analyze",
            Problem(
                "arguments",
                f"expected one ONNX model and its ONNX Runtime profiles (.json); got models "
                f"{[str(m) for m in models]}, other inputs {others}",
            ),
        )
    if warmup_runs is None:
        warmup_runs = load_config(find_config(None, str(models[0]))).backends.warmup_runs
    model, model_time = read_file(models[0], "ONNX model")
    read = [read_file(p, "ONNX Runtime profile") for p in profiles]
    optimized = read_file(Path(optimized_model), "optimized model") if optimized_model else None
    times = [model_time, *(t for _, t in read), *([optimized[1]] if optimized else [])]
    raw = analyze_profiles(
        model,
        [f for f, _ in read],
        timestamp=iso_timestamp(max(times)),
        warmup_runs=warmup_runs,
        optimized_model=optimized[0] if optimized else None,
        cli_arguments=cli_arguments,
        extra_warnings=external_data_warnings(models[0], model.data),
    )
    return postprocess(raw, settings, source="ONNX Runtime result")
