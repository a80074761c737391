"""Rebuild the projection stage's input from a conformance case.

Projection only changes breakdowns, so the input it saw is the expected
output's entities (collapsed, with code lines) plus the original breakdowns
that survived the collapse (those whose entity is still there), with metrics
in their re-serialized form (what the pipeline's normalization hands over).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from perfline.core.document_canonical import metric_view


def stage_inputs(
    document: Mapping[str, Any], expected: Mapping[str, Any]
) -> list[tuple[dict[str, Any], list[Any]]]:
    """(projection input, expected breakdowns) for every result with entities."""
    pairs: list[tuple[dict[str, Any], list[Any]]] = []
    for raw, done in zip(document["results"], expected["results"], strict=True):
        if not raw.get("entities"):
            continue
        kept = {entity["id"] for entity in done.get("entities", [])}
        stage = dict(raw)
        stage["entities"] = done.get("entities", [])
        stage["breakdowns"] = [
            {**b, "metrics": [metric_view(m) for m in b.get("metrics", [])]}
            for b in raw.get("breakdowns", [])
            if b.get("entity_id") in kept
        ]
        want = [
            {**b, "metrics": [metric_view(m) for m in b.get("metrics", [])]}
            for b in done.get("breakdowns", [])
        ]
        pairs.append((stage, want))
    return pairs
