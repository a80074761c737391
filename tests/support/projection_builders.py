"""Builders of the projection tests: small random NX-shaped results (``small_result``,
from the shared document builder ``tests/support/documents.py``), origin figure sets and
contributors.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from perfline.core.projection.contributors import Contributor
from perfline.core.projection.figure_arithmetic import OriginSums
from perfline.core.projection.origin_shapes import origin_figures
from tests.support.documents import NX_KINDS, small_result

__all__ = ["NX_KINDS", "faithful_contributor", "origin_sums", "small_result"]


def _metric(value: int, aggregation: str = "sum") -> dict[str, Any]:
    return {"name": "op_cycles", "unit": "cycles", "value": value, "aggregation": aggregation}


def origin_sums(origins: range) -> OriginSums:
    """Usable origins whose only figure is ``op_cycles`` = origin + 1."""
    figures = {}
    for origin in origins:
        made = origin_figures([{"entity_id": str(origin), "metrics": [_metric(origin + 1)]}])
        assert made is not None
        figures[origin] = made
    return OriginSums(figures)


def faithful_contributor(
    sums: OriginSums,
    origins: Iterable[int],
    covered: Iterable[int],
    extras: Iterable[int] = (),
    sealed: bool = False,
) -> Contributor:
    """A contributor whose figures are the exact total of its origins."""
    figures = sums.total(frozenset(origins))
    assert figures is not None
    return Contributor(
        figures, frozenset(origins), sealed, True, frozenset(covered), frozenset(extras)
    )
