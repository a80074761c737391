"""Authoritative origins and shadowing (§6.1).

Decides which breakdowns are exact duplicates (removed, first occurrence kept),
which entities are authoritative (own a breakdown), each one's origin figure
set (or that it is unusable: it stays authoritative but contributes nothing),
and which origins are *shadowed*: an authoritative entity with a direct
authoritative child across a kind pair the result itself declares. Cost: linear
in breakdowns and metrics (a breakdown's full signature is built only when another
breakdown has the same entity id and id), plus one pass over each authoritative
entity's children.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from perfline.core.document_canonical import metric_view
from perfline.core.projection.figure_keys import canonical_json
from perfline.core.projection.figure_sets import FigureSet
from perfline.core.projection.index import GraphIndex
from perfline.core.projection.origin_shapes import OriginShapes, origin_figures


class Authority:  # a value: never mutated (see records.py)
    """The authoritative side of a result."""

    __slots__ = ("authoritative", "duplicates_removed", "figures", "kept_breakdowns", "shadowed")

    def __init__(
        self,
        kept_breakdowns: tuple[Any, ...],
        duplicates_removed: bool,
        authoritative: frozenset[int],
        figures: dict[int, FigureSet],
        shadowed: frozenset[int],
    ) -> None:
        self.kept_breakdowns = kept_breakdowns
        """The breakdowns without exact duplicates, in first-seen order."""
        self.duplicates_removed = duplicates_removed
        self.authoritative = authoritative
        """Entities owning a breakdown."""
        self.figures = figures
        """Each usable authoritative entity's figure set."""
        self.shadowed = shadowed
        """Authoritative entities with a direct authoritative child across a declared pair."""


def _token(value: Any) -> Any:
    """A hashable stand-in for a JSON value that keeps 5, 5.0 and True apart."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return (type(value).__name__, value)
    return ("json", canonical_json(value))


def _breakdown_signature(breakdown: Mapping[str, Any]) -> tuple[Any, ...]:
    metrics = breakdown.get("metrics")
    metric_keys = sorted(
        (
            tuple((key, _token(item)) for key, item in metric_view(m).items())
            if isinstance(m, Mapping)
            else (("", _token(m)),)
        )
        for m in (metrics if isinstance(metrics, list) else [])
    )
    return (
        _token(breakdown.get("entity_id")),
        _token(breakdown.get("id")),
        canonical_json(breakdown.get("qualifiers") or {}),
        tuple(metric_keys),
    )


def find_authority(
    breakdowns: Sequence[Any],
    index: GraphIndex,
    declared: frozenset[tuple[str, str]],
    exact_sums: bool = False,
) -> Authority:
    """Deduplicate breakdowns and derive the authoritative origins (``exact_sums``: the
    run adds floats exactly, see ``exact_sums``)."""
    # A full signature is only needed among breakdowns with equal ids: the
    # first of each (entity_id, id) pair is signed when a second one appears.
    seen: set[tuple[Any, ...]] = set()
    unsigned: dict[tuple[Any, Any], Mapping[str, Any] | None] = {}
    kept: list[Any] = []
    owned: dict[int, list[Mapping[str, Any]]] = {}
    for breakdown in breakdowns:
        ids = (_token(breakdown.get("entity_id")), _token(breakdown.get("id")))
        if ids not in unsigned:
            unsigned[ids] = breakdown
        else:
            first = unsigned[ids]
            if first is not None:
                seen.add(_breakdown_signature(first))
                unsigned[ids] = None
            signature = _breakdown_signature(breakdown)
            if signature in seen:
                continue
            seen.add(signature)
        kept.append(breakdown)
        owner = index.position.get(breakdown.get("entity_id"))
        if owner is not None:
            owned.setdefault(owner, []).append(breakdown)
    figures: dict[int, FigureSet] = {}
    shapes = OriginShapes(exact_sums)
    for owner, records in owned.items():
        figure_set = origin_figures(records, shapes)
        if figure_set is not None:
            figures[owner] = figure_set
    authoritative = frozenset(owned)
    shadowed = frozenset(
        owner
        for owner in authoritative
        if any(
            child in authoritative and (index.kinds[owner], index.kinds[child]) in declared
            for child in index.children[owner]
        )
    )
    return Authority(tuple(kept), len(kept) != len(breakdowns), authoritative, figures, shadowed)
