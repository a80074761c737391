"""The ``nx-estimator`` job type: an NX estimator output triple
(``<name>_performance_database.dat``, ``<name>_debug_database.dat``, optional
``<name>_network_performance_summary.json``) plus the model (``.vgf``/``.tosa``) of that
stem if present -> the estimated result. Reading goes through
``perfline.server.ingest.estimator``, which never runs a program when given existing
outputs. Cost: one read of the outputs per new content, then the post-processing.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.server.jobs.context import DiscoveredJob, JobContext
from perfline.server.jobs.two_stage import options_key, processed_stage

PERFORMANCE_SUFFIX = "_performance_database.dat"
DEBUG_SUFFIX = "_debug_database.dat"
SUMMARY_SUFFIX = "_network_performance_summary.json"
MODEL_SUFFIXES = (".vgf", ".tosa")


class EstimatorJob:
    """NX estimator outputs (+ model) -> the estimated result."""

    name = "nx-estimator"
    description = "NX performance estimator outputs (with the .vgf/.tosa model if present)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.server.ingest import estimator

        models = [Path(i.absolute) for i in context.inputs if i.path.endswith(MODEL_SUFFIXES)]
        outputs = [Path(i.absolute) for i in context.inputs if not i.path.endswith(MODEL_SUFFIXES)]
        where = ", ".join(i.path for i in context.inputs) or None
        if len(models) > 1:
            raise InputError(where, "an nx-estimator job takes at most one model (.vgf or .tosa)")
        if models and models[0].name.endswith(".tosa"):
            # Converting TOSA would run the converter: never from a workspace file.
            models = []
        key = (*((i.absolute, i.digest) for i in context.inputs), options_key(context.options))

        def raw() -> dict[str, Any]:
            classified = estimator.classify_inputs(outputs)
            analysis = estimator.analyze_outputs(
                models[0] if models else None,
                classified.outputs,
                performance=bool(context.options.get("performance", True)),
                compatibility=bool(context.options.get("compatibility", False)),
            )
            return analysis.document

        return processed_stage(context, "nx-estimator", key, raw, where)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        present = set(files)
        jobs = []
        for path in files:
            if not path.endswith(PERFORMANCE_SUFFIX):
                continue
            prefix = path[: -len(PERFORMANCE_SUFFIX)]
            if prefix + DEBUG_SUFFIX not in present:
                continue
            inputs = [path, prefix + DEBUG_SUFFIX]
            if prefix + SUMMARY_SUFFIX in present:
                inputs.append(prefix + SUMMARY_SUFFIX)
            for suffix in MODEL_SUFFIXES:
                if prefix + suffix in present:
                    inputs.append(prefix + suffix)
                    break
            jobs.append(DiscoveredJob(prefix, self.name, tuple(inputs)))
        return jobs
