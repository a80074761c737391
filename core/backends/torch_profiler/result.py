"""The measured result of one or more torch.profiler traces of one program.

Entities:

* every leaf (``leaves``) is a ``source_operator`` (an op as the user's code called it, with
  everything it ran, or a frame's own Python time: ``Python: forward``), id
  ``source_operator/<name>@<12 hex of its key>``, ``operator_types`` its op name or
  ``python``;
* its code frames are ``code_stack`` entities, one per prefix, outermost first (ids as every
  backend writes them: ``code_stack/<basename:line>-<12 hex>``), attributes ``file`` (the
  workspace path when the file is in the workspace, else the name as recorded), ``line``,
  ``function``, ``line_kind`` (``def``: the function's entry line, which is what a trace
  records; ``statement``) and ``frame_origin`` (``workspace`` or ``outside_workspace``: the
  default collapse rule of this producer removes the latter, torch, the standard library
  and site-packages);
* the ``code_stack`` of a function's ``def`` line (its frame on one call path) has the
  attribute ``calls_per_step``: how often the function was entered on that path, per step
  (``leaves.frame_calls``). A count, not a figure: it is no metric, so the projection does not
  sum it into call lines and ``compare``/``check`` do not judge it; a ``def`` line's calls
  are the sum over its stacks (what the editor's hover and lens show);
* its module calls are the leaf's attributes ``module`` (``Net_0/Block_1``: the instances
  the tracer names, root to leaf) and ``module_type`` (``Block``). They are not
  ``nn_module`` entities: module chains cut across the code stacks (a module's call glue
  sits on its caller's line), and the projection's search for covers of a line by module
  and stack figures grows exponentially with such overlaps; a module class's total comes
  from its lines, as the editor shows it.

Breakdowns: every leaf has every metric of the result (``attribution``): its mean per step
(ms or bytes), ``aggregation: "sum"``, ``samples`` = steps; the per-step values go to
``run_samples``. The model level: the steps' durations as ``inference_time`` (and its
companions), each metric's total per step under the metric's own name (what a line's
share is of), the peaks of allocated memory. Pure; cost:
linear in the leaves and their depth.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any, Final

from perfline.core.backends.nx_common.provenance import code_stack_entities
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.backends.runtime_common.metrics import inference_metrics
from perfline.core.backends.torch_profiler.attribution import TIME_METRICS, zeros
from perfline.core.backends.torch_profiler.leaves import Leaf
from perfline.core.document_shapes import ResultJson
from perfline.core.formats.identity import SourceFrame

PRODUCER: Final = "torch-profiler"
WORKSPACE: Final = "workspace"
OUTSIDE_WORKSPACE: Final = "outside_workspace"
NO_CYCLES: Final = "torch.profiler traces carry no cycle counts."
BYTES: Final = "bytes"
UNIT_MS: Final = "ms"


def unit_of(metric: str) -> str:
    """The unit of a leaf metric."""
    return UNIT_MS if metric in TIME_METRICS else BYTES


class TorchResult:
    """The result, its per-step samples (entities and model level)."""

    __slots__ = ("result", "result_samples", "run_samples")

    def __init__(
        self,
        result: ResultJson,
        run_samples: dict[str, dict[str, list[float]]],
        result_samples: dict[str, list[float]],
    ) -> None:
        self.result = result
        self.run_samples = run_samples
        self.result_samples = result_samples


def leaf_id(leaf: Leaf) -> str:
    """``source_operator/<name>@<12 hex of the leaf's key>``."""
    digest = hashlib.sha256(leaf.key.encode("utf-8")).hexdigest()[:12]
    return f"source_operator/{leaf.name}@{digest}"


def build_result(
    leaves: Sequence[Leaf],
    metrics: Sequence[str],
    step_ms: Sequence[float],
    *,
    peaks: dict[str, int],
    warnings: Sequence[str],
    calls: Mapping[tuple[str, ...], float] | None = None,
) -> TorchResult:
    """Entities, breakdowns and metrics of ``leaves`` (see the module docstring); ``calls``:
    entries per step of a function's frame, by its frames' ``file:line:function``."""
    steps = len(step_ms)
    registry: dict[str, dict[str, Any]] = {}
    operators: list[dict[str, Any]] = []
    result = ResultBuilder("performance", PRODUCER, mode="measured")
    result.warn(*warnings)
    samples: dict[str, dict[str, list[float]]] = {}
    totals = {metric: zeros(steps) for metric in metrics}
    stacks_memo: dict[tuple[str, ...], list[dict[str, Any]]] = {}
    counted: set[str] = set()
    for leaf in leaves:
        stack = _stack_entities(leaf, stacks_memo)
        for link in stack:
            registry.setdefault(link["id"], link)
        if calls:
            _count_calls(leaf, stack, registry, calls, counted)
        identity = leaf_id(leaf)
        operator: dict[str, Any] = {"id": identity, "kind": "source_operator", "name": leaf.name}
        if stack:
            operator["parent_ids"] = [stack[-1]["id"]]
        attributes: dict[str, Any] = {
            "operator_types": ["python" if leaf.is_python else leaf.name],
        }
        if leaf.modules:
            attributes["module"] = "/".join(module.instance for module in leaf.modules)
            attributes["module_type"] = leaf.modules[-1].class_name
        operator["attributes"] = attributes
        operators.append(operator)
        figures: list[dict[str, Any]] = []
        per_step: dict[str, list[float]] = {}
        for metric in metrics:
            values = leaf.values.get(metric) or zeros(steps)
            per_step[metric] = values.tolist()
            row = totals[metric]
            for step, value in enumerate(values):
                row[step] += value
            figures.append(
                {
                    "name": metric,
                    "unit": unit_of(metric),
                    "value": sum(values) / steps,
                    "aggregation": "sum",
                    "samples": steps,
                }
            )
        result.add_breakdown(identity, figures)
        samples[identity] = per_step
    result_metrics = inference_metrics(list(step_ms), no_cycles=NO_CYCLES)
    result_samples: dict[str, list[float]] = {}
    for metric in metrics:
        name = metric
        row = totals[metric]
        result_metrics.append(
            {"name": name, "unit": unit_of(metric), "value": sum(row) / steps, "samples": steps}
        )
        result_samples[name] = row.tolist()
    for name, value in peaks.items():
        result_metrics.append({"name": name, "unit": BYTES, "value": value})
    result.add_metrics(result_metrics)
    result.add_entities(registry.values())
    result.add_entities(operators)
    return TorchResult(result.finish(), samples, result_samples)


def _count_calls(
    leaf: Leaf,
    stack: Sequence[dict[str, Any]],
    registry: Mapping[str, dict[str, Any]],
    calls: Mapping[tuple[str, ...], float],
    counted: set[str],
) -> None:
    """``calls_per_step`` on the stacks of ``leaf`` that are a function's counted frame."""
    texts = tuple(frame.text() for frame in leaf.frames)
    for depth, link in enumerate(stack):
        identity = link["id"]
        if identity in counted:
            continue
        counted.add(identity)
        found = calls.get(texts[: depth + 1])
        if found is not None:
            registry[identity]["attributes"]["calls_per_step"] = found


def _stack_entities(
    leaf: Leaf, memo: dict[tuple[str, ...], list[dict[str, Any]]]
) -> list[dict[str, Any]]:
    key = tuple(frame.text() for frame in leaf.frames)
    found = memo.get(key)
    if found is not None:
        return found
    entities = code_stack_entities(
        [SourceFrame(frame.file, frame.line, frame.function) for frame in leaf.frames]
    )
    for entity, frame in zip(entities, leaf.frames, strict=True):
        attributes = entity["attributes"]
        attributes["line_kind"] = frame.line_kind
        attributes["frame_origin"] = WORKSPACE if frame.in_workspace else OUTSIDE_WORKSPACE
    memo[key] = entities
    return entities
