"""The ``static`` job type: the static cost of one ONNX, PT2 or TOSA model (predicted).

Input: one model file. Options (also from ``[static.target]`` of ``perfline.toml``):
``macs_per_second``, ``bytes_per_second`` (positive numbers) and ``target_name`` give a roofline
time. Convention (only when ``[static] discover = true``, so a workspace full of models starts
no job by default): every ``.onnx`` (not ONNX Runtime's ``*.optimized.onnx``), ``.pt2`` and
``.tosa`` file is one job ``<path>.static``. Memoized like the other job types.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from perfline.core.envelope import iso_timestamp
from perfline.core.errors import InputError, Problem
from perfline.core.finite_numbers import read_number
from perfline.server.jobs.context import DiscoveredJob, JobContext
from perfline.server.jobs.onnxruntime_job import external_warnings
from perfline.server.jobs.two_stage import processed_stage

MODEL_SUFFIXES = (".onnx", ".pt2", ".tosa")
_RATES = ("macs_per_second", "bytes_per_second")


def roofline_options(options: Any, where: str | None) -> tuple[float | None, float | None, str]:
    """(MAC rate, byte rate, target name) from a job's options; bad values are errors."""
    rates: list[float | None] = []
    for key in _RATES:
        value = options.get(key)
        number = (
            read_number(value, where, f"options.{key}", positive=True)
            if value is not None
            else None
        )
        rates.append(number)
    name = options.get("target_name", "roofline target")
    if not isinstance(name, str) or not name:
        raise InputError(where, Problem("options.target_name", "expected a non-empty string"))
    return rates[0], rates[1], name


class StaticCostJob:
    """One model file -> its static cost."""

    name = "static"
    description = "the static cost of an ONNX, PT2 or TOSA model (predicted, opt-in)"

    def run(self, context: JobContext) -> dict[str, Any]:
        from perfline.core.backends.settings import RooflineTarget
        from perfline.core.backends.source_model.inputs import InputFile
        from perfline.core.backends.static_cost.document import analyze_static

        where = ", ".join(i.path for i in context.inputs) or None
        if len(context.inputs) != 1:
            raise InputError(where, "a static job takes exactly one model (.onnx, .pt2, .tosa)")
        item = context.inputs[0]
        macs, bytes_rate, target_name = roofline_options(context.options, where)
        target = RooflineTarget(macs, bytes_rate, target_name) if macs or bytes_rate else None
        timestamp = iso_timestamp(item.mtime)
        key = (item.path, item.digest, macs, bytes_rate, target_name, timestamp)

        def raw() -> dict[str, Any]:
            warnings = external_warnings(item) if item.path.lower().endswith(".onnx") else []
            document: dict[str, Any] = analyze_static(
                InputFile(item.path, item.data),
                timestamp=timestamp,
                target=target,
                extra_warnings=warnings,
            )
            return document

        return processed_stage(context, "static", key, raw, item.path)

    def discover(self, files: Sequence[str]) -> list[DiscoveredJob]:
        return [
            DiscoveredJob(f"{path}.static", self.name, (path,))
            for path in files
            if path.lower().endswith(MODEL_SUFFIXES)
            and not path.lower().endswith(".optimized.onnx")
        ]
