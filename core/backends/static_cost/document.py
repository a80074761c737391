"""The static-cost document of one model file (``mode: "predicted"``, producer
``perfline-static``), pure.

Per operator (``source_operator/<canonical id>`` of its format, with code stacks and modules):
``macs`` (MAC), ``flops`` (FLOP), ``parameter_bytes``, ``input_bytes``, ``output_bytes``
(bytes), all ``aggregation: "sum"`` so lines, modules and the model roll up by the projection;
with a roofline target, ``predicted_time`` (ms) = max(MACs / macs_per_second,
bytes / bytes_per_second) and the deciding bound in the operator's ``roofline_bound`` attribute.
No target numbers are built in. An operator whose cost is not known gets no breakdown and is
listed in a warning with the reason; ``CONST`` operators of TOSA are not costed. Model metrics
are the sums over the costed operators.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePath
from typing import Any

from perfline.core.backends.nx_common.metrics import unavailable
from perfline.core.backends.result_builder import ResultBuilder
from perfline.core.backends.settings import RooflineTarget
from perfline.core.backends.source_model.inputs import InputFile
from perfline.core.backends.source_model.provenance import (
    ENTITY_KINDS,
    operators_without_stack,
    provenance_entities,
)
from perfline.core.backends.static_cost.formulas import OperatorCost
from perfline.core.envelope import build_document, model_info, run_id_for, sha256_hex
from perfline.core.errors import InputError, Problem
from perfline.core.finite_numbers import read_number
from perfline.core.formats.identity import source_operator_id
from perfline.core.formats.models import detect_format, model_operators

PRODUCER = "perfline-static"
STATIC_FORMATS = ("onnx", "pt2", "tosa")
_FIGURES = (
    ("macs", "MAC"),
    ("flops", "FLOP"),
    ("parameter_bytes", "bytes"),
    ("input_bytes", "bytes"),
    ("output_bytes", "bytes"),
)


def operator_costs(
    data: bytes, source: str, kind: str
) -> list[tuple[str, OperatorCost | None, str | None]]:
    """(operator id, cost or ``None``, reason) for every costed operator of the model."""
    if kind == "onnx":
        from perfline.core.backends.static_cost.onnx_cost import onnx_costs
        from perfline.core.formats.onnx_graph import read_onnx_graph

        return [
            (source_operator_id(str(c.node.index)), c.cost, c.reason)
            for c in onnx_costs(read_onnx_graph(data, source))
        ]
    if kind == "pt2":
        from perfline.core.backends.static_cost.pt2_cost import pt2_costs

        return [
            (source_operator_id(c.node.name), c.cost, c.reason) for c in pt2_costs(data, source)
        ]
    from perfline.core.backends.static_cost.tosa_cost import tosa_costs

    return [
        (source_operator_id(str(c.operator.id)), c.cost, c.reason) for c in tosa_costs(data, source)
    ]


def analyze_static(
    model: InputFile,
    *,
    timestamp: str,
    target: RooflineTarget | None = None,
    cli_arguments: Sequence[str] = (),
    extra_warnings: Sequence[str] = (),
) -> dict[str, Any]:
    """The complete (not yet post-processed) static-cost document of ``model``."""
    kind = detect_format(model.data, model.path)
    if kind not in STATIC_FORMATS:
        raise InputError(
            model.path,
            Problem("format", f"static cost reads ONNX, PT2 and TOSA models, not {kind.upper()}"),
        )
    listed = model_operators(model.data, model.path)
    try:
        costs = operator_costs(model.data, model.path, kind)
    except OverflowError:  # int x float of a shape's element count past the float range
        raise InputError(
            model.path,
            Problem("shapes", "a tensor's shape holds more elements than a number can count"),
        ) from None
    costed = {identity for identity, _, _ in costs}
    operators = [op for op in listed.operators if op.id in costed]
    warnings = list(extra_warnings)
    result = ResultBuilder("performance", PRODUCER, mode="predicted")
    bounds: dict[str, dict[str, Any]] = {}
    totals: dict[str, float] = {}
    unknown: list[str] = []
    names = {op.id: op for op in operators}
    for identity, cost, reason in costs:
        if cost is None or cost.macs is None or cost.flops is None or cost.total_bytes is None:
            operator = names.get(identity)
            label = f"{operator.op_type} {operator.name or identity}" if operator else identity
            unknown.append(f"{label} ({reason or 'a figure is unknown'})")
            continue
        metrics: list[dict[str, Any]] = []
        operator = names.get(identity)
        place = f"operator {operator.name if operator else identity}"
        for name, unit in _FIGURES:
            value = getattr(cost, name)
            read_number(value, model.path, f"{place}: {name}", non_negative=True)
            metrics.append({"name": name, "unit": unit, "value": value, "aggregation": "sum"})
            totals[name] = totals.get(name, 0) + value
        if target is not None:
            time_ms, bound = target.time_ms(cost.macs, cost.total_bytes)
            read_number(time_ms, model.path, f"{place}: predicted_time", non_negative=True)
            metrics.append(
                {"name": "predicted_time", "unit": "ms", "value": time_ms, "aggregation": "sum"}
            )
            totals["predicted_time"] = totals.get("predicted_time", 0.0) + time_ms
            bounds[identity] = {"roofline_bound": bound}
        result.add_breakdown(identity, metrics)
    for name, total in totals.items():
        read_number(total, model.path, f"the model's total {name}", non_negative=True)
    if unknown:
        warnings.append(
            f"{len(unknown)} of {len(costs)} operators have no cost (perfline knows no formula "
            f"or a shape): {'; '.join(unknown[:20])}"
            + (f"; and {len(unknown) - 20} more." if len(unknown) > 20 else ".")
        )
    missing = operators_without_stack(operators)
    if missing:
        warnings.append(
            f"{missing} of {len(operators)} operators of {model.path} record no source stack "
            "trace: their figures stay on the operators, with no code line."
        )
    attributes = {
        identity: {**bounds.get(identity, {}), "category": cost.category}
        for identity, cost, _ in costs
        if cost is not None
    }
    if unknown:
        result.set_status("partial")
    result.warn(*warnings)
    result.add_metrics(_model_metrics(totals, target))
    result.add_entities(provenance_entities(operators, attributes))
    result.declare_kinds(ENTITY_KINDS)
    configuration: dict[str, Any] = {"inputs": {"model": model.path}, "format": kind}
    if target is not None:
        configuration["roofline_target"] = {
            "name": target.name,
            "macs_per_second": target.macs_per_second,
            "bytes_per_second": target.bytes_per_second,
        }
    return build_document(
        results=[result.finish()],
        model=model_info(PurePath(model.path).name, kind, model.data),
        target={
            "profile_name": target.name if target else "static",
            "target_type": "static",
            "components": [{"type": "specification", "family": "perfline-static"}],
            "configuration": configuration.get("roofline_target", {}),
            "description": (
                f"static cost from the {kind.upper()} model's shapes"
                + (f", roofline time for {target.name}" if target else "")
            ),
        },
        backends=[
            {
                "id": PRODUCER,
                "name": "perfline static cost",
                "version": "experimental",
                "configuration": configuration,
            }
        ],
        timestamp=timestamp,
        run_id=run_id_for([sha256_hex(model.data)]),
        context={"cli_arguments": list(cli_arguments)} if cli_arguments else {},
    )


def _model_metrics(totals: dict[str, float], target: RooflineTarget | None) -> list[dict[str, Any]]:
    metrics: list[dict[str, Any]] = []
    for name, unit in _FIGURES:
        metrics.append({"name": name, "unit": unit, "value": totals.get(name, 0)})
    if target is not None:
        metrics.append(
            {"name": "inference_time", "unit": "ms", "value": totals.get("predicted_time", 0.0)}
        )
    else:
        metrics.append(
            unavailable("inference_time", "ms", "No roofline target configured ([static.target]).")
        )
    return metrics
