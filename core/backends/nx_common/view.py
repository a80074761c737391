"""Entities, breakdowns and totals of NX graph segments (the shared NX result core).

Decides, per segment: chains and cascades from the stripes (grouped by the
debug database's stripe links, in order of first appearance; a chain's parent
is the cascade sharing its stripes), source operators from the chains' TOSA
labels (one id: the chain links the source directly and it is placed on ``NX``;
several ids: a ``performance_group`` between chain and sources), ``nn_module``
and ``code_stack`` provenance from ExecuTorch JSON labels, structural source
operators for every SPIR-V operation no chain reached (parent: the segment),
and authoritative breakdowns on chains and cascades. Execution-Engine
operations place their sources on ``EE``; a source on both becomes ``NX/EE``.

Cost: linear in stripes + debug-table rows + labels (plus label recovery).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from perfline.core.backends.nx_common.aggregate import StripeTotals, group_stripes, sum_stripes
from perfline.core.backends.nx_common.associations import (
    Association,
    chain_associations,
    debug_name_of,
    resolve_labels,
    source_operator_id,
)
from perfline.core.backends.nx_common.breakdowns import breakdown
from perfline.core.backends.nx_common.kinds import performance_entity_kinds
from perfline.core.backends.nx_common.provenance import (
    code_stack_entities,
    module_entities,
)
from perfline.core.backends.nx_common.records import SegmentInput
from perfline.core.errors import InputError, Problem

NX = "NX"
EE = "EE"


@dataclass(frozen=True)
class ChainView:
    """One chain: its entity id, summed figures and source associations."""

    entity_id: str
    segment_index: int
    chain_id: str
    cascade_entity_id: str | None
    totals: StripeTotals
    associations: tuple[Association, ...]


@dataclass(frozen=True)
class SegmentsView:
    """The shared NX part of a performance result."""

    entities: list[dict[str, Any]]
    breakdowns: list[dict[str, Any]]
    entity_kinds: list[dict[str, Any]]
    chains: tuple[ChainView, ...]
    segment_totals: tuple[StripeTotals, ...]


def build_segments_view(segments: Sequence[SegmentInput]) -> SegmentsView:
    """Entities, breakdowns, declared kinds, chain views and per-segment totals."""
    builder = _Builder()
    chains: list[ChainView] = []
    totals: list[StripeTotals] = []
    for segment in segments:
        chains.extend(builder.add_segment(segment))
        totals.append(sum_stripes(segment.stripes))
    return SegmentsView(
        entities=builder.entities(),
        breakdowns=builder.breakdowns,
        entity_kinds=performance_entity_kinds(),
        chains=tuple(chains),
        segment_totals=tuple(totals),
    )


def local_name(prefix: str, op_id: str) -> str:
    """``Chain 5`` for ``5`` or a synthetic ``chain_5``."""
    stripped = op_id[len(prefix) + 1 :] if op_id.startswith(f"{prefix}_") else op_id
    return f"{prefix.capitalize()} {stripped}"


@dataclass
class _Source:
    entity: dict[str, Any]
    parents: list[str] = field(default_factory=list)
    placements: set[str] = field(default_factory=set)


class _Builder:
    """Accumulates entities across segments (local state of one build)."""

    def __init__(self) -> None:
        self.chain_entities: list[dict[str, Any]] = []
        self.cascade_entities: list[dict[str, Any]] = []
        self.provenance: dict[str, dict[str, Any]] = {}
        self.groups: list[dict[str, Any]] = []
        self.sources: dict[str, _Source] = {}
        self.segment_entities: list[dict[str, Any]] = []
        self.breakdowns: list[dict[str, Any]] = []

    def add_segment(self, segment: SegmentInput) -> list[ChainView]:
        segment_id = f"segment/{segment.index}"
        self.segment_entities.append({"id": segment_id, "kind": "segment", "name": segment.name})
        chain_groups = group_stripes(segment.stripes, segment.links.stripe_chain)
        cascade_groups = group_stripes(segment.stripes, segment.links.stripe_cascade)
        self._check_linked(segment)
        prefix = f"segment_{segment.index}"
        chain_parent: dict[str, str] = {}
        cascade_rows: list[tuple[str, StripeTotals]] = []
        for cascade_id, stripes in cascade_groups.items():
            entity_id = f"cascade/{prefix}/{cascade_id}"
            cascade_totals = sum_stripes(stripes)
            cascade_rows.append((entity_id, cascade_totals))
            for stripe in stripes:
                chain_parent[segment.links.stripe_chain[stripe.stripe_id]] = entity_id
            self.cascade_entities.append(
                {
                    "id": entity_id,
                    "kind": "cascade",
                    "name": f"{segment.name}/{local_name('cascade', cascade_id)}",
                    "placement": NX,
                    "parent_ids": [segment_id],
                    "attributes": {"stripe_ids": list(cascade_totals.stripe_ids)},
                }
            )
        views: list[ChainView] = []
        chain_breakdowns: list[dict[str, Any]] = []
        for chain_id, stripes in chain_groups.items():
            entity_id = f"chain/{prefix}/{chain_id}"
            chain_totals = sum_stripes(stripes)
            associations = tuple(chain_associations(segment, chain_id))
            entity: dict[str, Any] = {
                "id": entity_id,
                "kind": "chain",
                "name": f"{segment.name}/{local_name('chain', chain_id)}",
                "placement": NX,
            }
            parent = chain_parent.get(chain_id)
            if parent is not None:
                entity["parent_ids"] = [parent]
            entity["attributes"] = {"stripe_ids": list(chain_totals.stripe_ids)}
            self.chain_entities.append(entity)
            self._link_associations(segment, chain_id, entity_id, associations)
            chain_breakdowns.append(breakdown(entity_id, chain_totals))
            views.append(
                ChainView(entity_id, segment.index, chain_id, parent, chain_totals, associations)
            )
        self.breakdowns.extend(chain_breakdowns)
        self.breakdowns.extend(breakdown(eid, t) for eid, t in cascade_rows)
        self._place_execution_engine(segment)
        self._add_structural(segment, segment_id)
        return views

    def _check_linked(self, segment: SegmentInput) -> None:
        problems = [
            Problem(
                "table stripe_op_id",
                f"stripe {stripe.stripe_id} of the performance data has no chain and cascade "
                "(expected a row with this id)",
            )
            for stripe in segment.stripes
            if stripe.stripe_id not in segment.links.stripe_chain
            or stripe.stripe_id not in segment.links.stripe_cascade
        ]
        if problems:
            raise InputError(segment.debug_source, problems)

    def _link_associations(
        self,
        segment: SegmentInput,
        chain_id: str,
        chain_entity_id: str,
        associations: Iterable[Association],
    ) -> None:
        for position, association in enumerate(associations):
            source_ids = [source_operator_id(segment.index, r) for r in association.result_ids]
            fallback = "/".join(association.operator_types) or None
            for result_id in association.result_ids:
                self._source(segment, result_id, fallback)
            if len(source_ids) == 1:
                source = self.sources[source_ids[0]]
                _add_unique(source.parents, chain_entity_id)
                source.placements.add(NX)
                if association.operator_types and "attributes" not in source.entity:
                    source.entity["attributes"] = {
                        "operator_types": list(association.operator_types)
                    }
            else:
                group_id = f"performance_group/segment_{segment.index}/chain_{chain_id}/{position}"
                self.groups.append(
                    {
                        "id": group_id,
                        "kind": "performance_group",
                        "name": fallback or group_id,
                        "parent_ids": [chain_entity_id],
                        "attributes": {"operator_types": list(association.operator_types)},
                    }
                )
                for source_id in source_ids:
                    _add_unique(self.sources[source_id].parents, group_id)
            for provenance in association.provenances:
                self._add_provenance(module_entities(provenance.modules), source_ids)
                self._add_provenance(code_stack_entities(provenance.frames), source_ids)

    def _add_provenance(self, chain: list[dict[str, Any]], source_ids: list[str]) -> None:
        for entity in chain:
            self.provenance.setdefault(entity["id"], entity)
        if chain:
            leaf = chain[-1]["id"]
            for source_id in source_ids:
                _add_unique(self.sources[source_id].parents, leaf)

    def _source(self, segment: SegmentInput, result_id: int, fallback: str | None) -> _Source:
        source_id = source_operator_id(segment.index, result_id)
        existing = self.sources.get(source_id)
        if existing is not None:
            return existing
        debug_name = debug_name_of(segment.spirv, result_id)
        if debug_name and segment.spirv is not None:
            name = segment.spirv.provenance_memo.display_name(debug_name)
        else:
            name = fallback or source_id
        source = _Source({"id": source_id, "kind": "source_operator", "name": name})
        self.sources[source_id] = source
        return source

    def _place_execution_engine(self, segment: SegmentInput) -> None:
        for operation in segment.links.ee_operations.values():
            ids, _ = resolve_labels(segment, operation, "shader_op_id")
            if len(ids) == 1:
                self._source(segment, ids[0], None).placements.add(EE)

    def _add_structural(self, segment: SegmentInput, segment_id: str) -> None:
        if segment.spirv is None:
            return
        for result_id in segment.spirv.structural_ids():
            source_id = source_operator_id(segment.index, result_id)
            if source_id in self.sources:
                if not self.sources[source_id].parents:
                    self.sources[source_id].parents.append(segment_id)
                continue
            source = self._source(segment, result_id, None)
            source.parents.append(segment_id)

    def entities(self) -> list[dict[str, Any]]:
        sources = [_finish_source(source) for source in self.sources.values()]
        ordered_sources = [s for s in sources if s.get("placement")] + [
            s for s in sources if not s.get("placement")
        ]
        return [
            *self.chain_entities,
            *self.cascade_entities,
            *self.provenance.values(),
            *self.groups,
            *ordered_sources,
            *sorted(self.segment_entities, key=lambda entity: str(entity["id"])),
        ]


def _finish_source(source: _Source) -> dict[str, Any]:
    entity = {key: value for key, value in source.entity.items() if key != "attributes"}
    if source.placements:
        entity["placement"] = "/".join(p for p in (NX, EE) if p in source.placements)
    if source.parents:
        entity["parent_ids"] = list(source.parents)
    if "attributes" in source.entity:
        entity["attributes"] = source.entity["attributes"]
    return entity


def _add_unique(items: list[str], item: str) -> None:
    if item not in items:
        items.append(item)
