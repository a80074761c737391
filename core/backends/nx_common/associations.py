"""Which source operators a chain executes, from its TOSA operations' labels.

For each TOSA operation of a chain (fused-operation order, then TOSA order) the
labels are recovered and each is resolved to SPIR-V result ids of the segment:
a ``..._spirv_id_<N>`` placeholder names ``N`` (which must exist in the
segment's SPIR-V when a VGF was supplied); any other label names every result
id whose debug name is exactly that label; without a VGF nothing resolves.
Operations with the same set of ids are merged into one association (operator
types and provenance unioned, order kept); operations with no ids are dropped.
Cost: O(operations x labels) plus label recovery.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from perfline.core.backends.nx_common.labels import (
    KnownLabels,
    placeholder_result_id,
    split_labels,
)
from perfline.core.backends.nx_common.provenance import Provenance, ProvenanceMemo
from perfline.core.backends.nx_common.records import SegmentInput, SegmentSpirv, TosaOperation
from perfline.core.errors import InputError, Problem

_NO_LABELS = KnownLabels()


@dataclass(frozen=True)
class Association:
    """A group of a chain's TOSA operations that map to the same source operators."""

    result_ids: tuple[int, ...]
    operator_types: tuple[str, ...]
    provenances: tuple[Provenance, ...]
    tosa_ids: tuple[str, ...]


def chain_operations(segment: SegmentInput, chain_id: str) -> list[TosaOperation]:
    """The NX TOSA operations of a chain, fused-operation order then TOSA order."""
    links = segment.links
    operations: list[TosaOperation] = []
    for fused_id in links.chain_fused.get(chain_id, ()):
        for tosa_id in links.fused_tosa.get(fused_id, ()):
            operation = links.nx_operations.get(tosa_id)
            if operation is not None:
                operations.append(operation)
    return operations


def resolve_labels(
    segment: SegmentInput, operation: TosaOperation, table: str
) -> tuple[tuple[int, ...], tuple[Provenance, ...]]:
    """The SPIR-V result ids and JSON provenance the operation's labels name."""
    ids: dict[int, None] = {}
    provenances: list[Provenance] = []
    memo = segment.spirv.provenance_memo if segment.spirv is not None else ProvenanceMemo()
    for label in split_labels(operation.raw_labels, known_labels(segment.spirv)):
        provenance = memo.parse(label)
        if provenance is not None:
            provenances.append(provenance)
        for result_id in label_result_ids(segment, label, f"table {table}, id {operation.op_id}"):
            ids.setdefault(result_id)
    return tuple(ids), tuple(provenances)


def known_labels(spirv: SegmentSpirv | None) -> KnownLabels:
    """The debug names label recovery should keep whole."""
    return spirv.known_labels if spirv is not None else _NO_LABELS


def label_result_ids(segment: SegmentInput, label: str, where: str) -> tuple[int, ...]:
    """The SPIR-V result ids one label names (see the module docstring)."""
    spirv = segment.spirv
    placeholder = placeholder_result_id(label)
    if placeholder is not None:
        if spirv is not None and placeholder not in spirv.structural_id_set:
            raise InputError(
                segment.debug_source,
                Problem(
                    f"{where}, column api_labels",
                    f"label {label!r} references SPIR-V result id {placeholder}, which is "
                    f"not present in VGF segment {segment.index}",
                ),
            )
        return (placeholder,)
    if spirv is None:
        return ()
    return spirv.name_index.get(label, ())


def chain_associations(segment: SegmentInput, chain_id: str) -> list[Association]:
    """The chain's associations, in order of first appearance."""
    merged: dict[frozenset[int], _Pending] = {}
    for operation in chain_operations(segment, chain_id):
        ids, provenances = resolve_labels(segment, operation, "tosa_op_id")
        if not ids:
            continue
        pending = merged.setdefault(frozenset(ids), _Pending(ids))
        if operation.op_type and operation.op_type not in pending.operator_types:
            pending.operator_types.append(operation.op_type)
        for provenance in provenances:
            if provenance not in pending.provenances:
                pending.provenances.append(provenance)
        pending.tosa_ids.append(operation.op_id)
    return [
        Association(
            result_ids=pending.result_ids,
            operator_types=tuple(pending.operator_types),
            provenances=tuple(pending.provenances),
            tosa_ids=tuple(pending.tosa_ids),
        )
        for pending in merged.values()
    ]


@dataclass
class _Pending:
    result_ids: tuple[int, ...]
    operator_types: list[str] = field(default_factory=list)
    provenances: list[Provenance] = field(default_factory=list)
    tosa_ids: list[str] = field(default_factory=list)


def source_operator_id(segment_index: int, result_id: int) -> str:
    """The canonical VGF source-operator id of a SPIR-V result id."""
    return f"source_operator/segment_{segment_index}/spirv-{result_id}"


def debug_name_of(spirv: SegmentSpirv | None, result_id: int) -> str | None:
    """The segment's debug name for ``result_id``, if any."""
    if spirv is None:
        return None
    return spirv.debug_names.get(result_id)
