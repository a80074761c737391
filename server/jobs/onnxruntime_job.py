"""The ``onnxruntime`` job type: an ONNX model and ONNX Runtime profiles -> the measured result.

Inputs: one model ``.onnx``, one or more profiles (``.json``) and optionally ONNX Runtime's saved
optimised model (``*.optimized.onnx``, what ``SessionOptions.optimized_model_filepath`` wrote for
the optimised profiles). Option ``warmup_runs`` (integer >= 0, default 1, also ``[onnxruntime]
warmup_runs`` in ``perfline.toml``). Convention: beside ``X.onnx``, each ``X_<tag>.json`` (ORT's
``profile_file_prefix = "X"`` naming) or, when ``X.onnx`` is the folder's only model,
``onnxruntime_profile_*.json`` (ORT's default name) is one job ``<folder>/X_<tag>``, with
``X_<tag>.optimized.onnx`` when present. The raw document is memoized by the inputs' content
hashes and options, the post-processed one also by the pipeline settings.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError, Problem
from perfline.server.jobs.context import DiscoveredJob, JobContext, JobInput
from perfline.server.jobs.two_stage import processed_stage

OPTIMIZED_SUFFIX = ".optimized.onnx"
DEFAULT_PROFILE_PREFIX = "onnxruntime_profile_"


def is_optimized_model(path: str) -> bool:
    """ONNX Runtime's saved optimised model, by its conventional suffix."""
    return path.lower().endswith(OPTIMIZED_SUFFIX)


def warmup_option(options: Any, where: str | None) -> int:
    """The ``warmup_runs`` option (default 1); anything but an integer >= 0 is an error."""
    value = options.get("warmup_runs", 1)
    if type(value) is not int or value < 0:
        raise InputError(
            where, Problem("options.warmup_runs", f"expected an integer >= 0, got {value!r}")
        )
    return value


def external_data_warnings(model: Path, data: bytes, shown: str | None = None) -> list[str]:
    """Warnings for initializers whose external data file is missing beside ``model`` (the
    file on disk; ``shown`` is how messages name it, default its path). I/O: existence checks,
    only inside the model's folder (a location outside it is reported, never looked up)."""
    from perfline.core.formats.onnx_graph import external_data_locations

    warnings = []
    for name, location in external_data_locations(data, str(model)).items():
        relative = Path(location)
        if relative.is_absolute() or ".." in relative.parts:
            warnings.append(
                f"{shown or model}: initializer {name!r} names external data {location!r} "
                "outside the model's folder; it is not looked up (values are not read)."
            )
        elif not (model.parent / relative).is_file():
            warnings.append(
                f"{shown or model}: initializer {name!r} keeps its data in {location!r}, which is "
                "missing beside the model; shapes and sizes come from the model file, values are "
                "not read."
            )
    return warnings


def _split(inputs: Sequence[JobInput]) -> tuple[list[JobInput], list[JobInput], list[JobInput]]:
    models = [
        i for i in inputs if i.path.lower().endswith(".onnx") and not is_optimized_model(i.path)
    ]
    optimized = [i for i in inputs if is_optimized_model(i.path)]
    profiles = [i for i in inputs if i.path.lower().endswith(".json")]
    return models, optimized, profiles


def external_warnings(item: JobInput) -> list[str]:
    """``external_data_warnings`` of a job input (none without its absolute path)."""
    if not item.absolute:
        return []
    return external_data_warnings(Path(item.absolute), item.data, item.path)


def _stem(path: str) -> str:
    return path.rpartition("/")[2][: -len(".onnx")]


class OnnxRuntimeJob:
    """ONNX model + ONNX Runtime profiles -> the measured result."""

    name = "onnxruntime"
    description = "an ONNX model with ONNX Runtime profiles (measured)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.core.backends.onnxruntime.document import analyze_profiles
        from perfline.core.backends.source_model.inputs import InputFile

        where = ", ".join(i.path for i in context.inputs) or None
        models, optimized, profiles = _split(context.inputs)
        if len(models) != 1 or not profiles or len(optimized) > 1:
            raise InputError(
                where,
                "an onnxruntime job takes one model (.onnx), one or more profiles (.json) and "
                "at most one saved optimized model (*.optimized.onnx)",
            )
        warmup = warmup_option(context.options, where)
        model = models[0]
        timestamp = iso_timestamp(max(i.mtime for i in context.inputs))
        key = (*((i.path, i.digest) for i in context.inputs), warmup, timestamp)

        def raw() -> dict[str, Any]:
            document: dict[str, Any] = analyze_profiles(
                InputFile(model.path, model.data),
                [InputFile(p.path, p.data) for p in profiles],
                timestamp=timestamp,
                warmup_runs=warmup,
                optimized_model=(
                    InputFile(optimized[0].path, optimized[0].data) if optimized else None
                ),
                extra_warnings=external_warnings(model),
            )
            return document

        return processed_stage(context, "onnxruntime", key, raw, profiles[0].path)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        present = set(files)
        by_folder: dict[str, list[str]] = {}
        for path in files:
            if path.lower().endswith(".onnx") and not is_optimized_model(path):
                by_folder.setdefault(path.rpartition("/")[0], []).append(path)
        jobs: list[DiscoveredJob] = []
        for path in files:
            folder, _, name = path.rpartition("/")
            if not name.lower().endswith(".json"):
                continue
            stem = name[: -len(".json")]
            prefix = f"{folder}/" if folder else ""
            models = by_folder.get(folder, [])
            model = next(
                (m for m in models if stem.startswith(m.rpartition("/")[2][:-5] + "_")), None
            )
            if model is None and stem.startswith(DEFAULT_PROFILE_PREFIX) and len(models) == 1:
                model = models[0]
            if model is None:
                continue
            inputs = [model, path]
            if prefix + stem + OPTIMIZED_SUFFIX in present:
                inputs.append(prefix + stem + OPTIMIZED_SUFFIX)
            jobs.append(DiscoveredJob(prefix + stem, self.name, tuple(inputs)))
        return jobs
