"""The standardized document of an ONNX Runtime profile analysis (pure).

The caller (the I/O edge) passes the model, the profiles, optionally ONNX Runtime's saved
optimised model, and the timestamp; the run id is derived from the inputs' content hashes. The
per-run values behind the measured statistics go to ``extensions.perfline.run_samples`` (one
item per result: entity id -> metric -> values in run order, warm-up left out), those of the
model-level statistics to ``extensions.perfline.result_run_samples`` (the session's runs).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from perfline.core.backends.onnxruntime.profile import describe_positions, read_profile
from perfline.core.backends.onnxruntime.result import PRODUCER, build_ort_result
from perfline.core.backends.onnxruntime.runs import recorded_runs
from perfline.core.backends.runtime_common.metrics import model_run_samples
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.collection import collection_paused
from perfline.core.compare.run_samples import with_run_samples
from perfline.core.envelope import build_document, model_info, run_id_for, sha256_hex
from perfline.core.errors import InputError, Problem
from perfline.core.formats.onnx import model_operators, read_onnx
from perfline.core.formats.onnx_graph import read_onnx_graph

DEFAULT_WARMUP_RUNS = 1


def analyze_profiles(
    model: InputFile,
    profiles: Sequence[InputFile],
    *,
    timestamp: str,
    warmup_runs: int = DEFAULT_WARMUP_RUNS,
    optimized_model: InputFile | None = None,
    cli_arguments: Sequence[str] = (),
    extra_warnings: Sequence[str] = (),
) -> dict[str, Any]:
    """The complete (not yet post-processed) document for one model and its profiles (the
    cyclic collector paused: a large trace makes millions of acyclic objects)."""
    with collection_paused():
        if not profiles:
            raise InputError(model.path, Problem("arguments", "expected one or more profiles"))
        graph = read_onnx_graph(model.data, model.path)
        operators = model_operators(graph.model)
        optimized = (
            read_onnx(optimized_model.data, optimized_model.path) if optimized_model else None
        )
        read = [read_profile(profile.data, profile.path) for profile in profiles]
        warnings = list(extra_warnings)
        for profile in read:
            if profile.without_node_index:
                warnings.append(
                    f"{profile.source}: {len(profile.without_node_index)} node events carry no "
                    f"args.node_index ({describe_positions(profile.without_node_index)}); they are "
                    "mapped by name only."
                )
        runs = recorded_runs(read, warmup_runs)
        built = build_ort_result(
            graph,
            operators,
            runs,
            model_source=model.path,
            profile_sources=[profile.path for profile in profiles],
            optimized=optimized,
            extra_warnings=warnings,
        )
        providers = built.configuration["providers"]
        paths: dict[str, Any] = {"model": model.path, "profiles": [p.path for p in profiles]}
        if optimized_model is not None:
            paths["optimized_model"] = optimized_model.path
        backend = {
            "id": PRODUCER,
            "name": "ONNX Runtime profiler",
            "version": "experimental",
            "configuration": {"inputs": paths, **built.configuration},
        }
        context: dict[str, Any] = {"runtime_configuration": {"warmup_runs": warmup_runs, **paths}}
        if cli_arguments:
            context["cli_arguments"] = list(cli_arguments)
        inputs = [model, *profiles, *([optimized_model] if optimized_model else [])]
        runs_used = built.configuration["runs_used"]
        document = build_document(
            results=[built.result],
            model=model_info(PurePath(model.path).name, "onnx", model.data),
            target={
                "profile_name": "onnxruntime",
                "target_type": "onnxruntime",
                "components": [{"type": "cpu", "family": "onnxruntime"}],
                "configuration": {"execution_providers": providers},
                "description": (
                    f"ONNX Runtime ({', '.join(providers) or 'no provider recorded'}), measured, "
                    f"{runs_used} runs ({warmup_runs} warm-up run(s) per profile left out)"
                ),
            },
            backends=[backend],
            timestamp=timestamp,
            run_id=run_id_for(sha256_hex(item.data) for item in inputs),
            context=context,
        )
        # the model level's per-run values, as the ExecuTorch route records them
        result_samples = model_run_samples(runs.run_durations_ms)
        return with_run_samples(document, [built.run_samples], [result_samples])
