"""Whether NX databases belong to the VGF (or shader module) they are read with.

A chain *matches* when the labels of one of its TOSA operations name an
operation of its segment's SPIR-V (it has an association); it is *foreign* when
its operations carry labels and none names an operation; a chain without
labels (no operations, or only the synthetic operations of stripes the debug
database does not link) tells nothing either way. Only segments read with
SPIR-V are judged (the databases alone name no operation at all).

The verdict is ``run_match``'s (the chains its evidence, ``total_cycles`` their
weight):

* No chain matches and at least one is foreign: the databases are of another
  model -> ``InputError`` naming the debug database(s) and the VGF, with the
  counts (``0 of 27 estimator chains matched an operation of m.vgf``).
* Some chains are foreign: a result warning with the counts, the foreign
  chains' ``total_cycles`` (in cycles) left unattributed, and the largest of
  them.

Cost: O(chains + their TOSA operations); label resolution is reused from the
view (performance) or done once here (compatibility).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from perfline.core.backends.nx_common.aggregate import group_stripes, sum_stripes
from perfline.core.backends.nx_common.associations import (
    chain_associations,
    chain_operations,
    known_labels,
)
from perfline.core.backends.nx_common.debug_database import SYNTHETIC_LABEL_PREFIX
from perfline.core.backends.nx_common.labels import split_labels
from perfline.core.backends.nx_common.records import Number, SegmentInput
from perfline.core.backends.nx_common.view import ChainView
from perfline.core.backends.run_match import Evidence, Wording, judge_run

_EXAMPLES = 2
_LABEL_CHARS = 60


@dataclass(frozen=True)
class ChainMatch:
    """One chain of a segment read with SPIR-V: its figure and whether it matched."""

    entity_id: str
    segment: SegmentInput
    chain_id: str
    total_cycles: Number
    matched: bool


def view_matches(segments: Sequence[SegmentInput], chains: Iterable[ChainView]) -> list[ChainMatch]:
    """The judged chains of a built view (segments without SPIR-V are left out)."""
    by_index = {segment.index: segment for segment in segments if segment.spirv is not None}
    return [
        ChainMatch(
            chain.entity_id,
            by_index[chain.segment_index],
            chain.chain_id,
            chain.totals.total_cycles,
            bool(chain.associations),
        )
        for chain in chains
        if chain.segment_index in by_index
    ]


def segment_matches(segments: Sequence[SegmentInput]) -> list[ChainMatch]:
    """The judged chains of segments without a view (the compatibility result)."""
    matches: list[ChainMatch] = []
    for segment in segments:
        if segment.spirv is None:
            continue
        groups = group_stripes(segment.stripes, segment.links.stripe_chain)
        for chain_id, stripes in groups.items():
            matches.append(
                ChainMatch(
                    f"chain/segment_{segment.index}/{chain_id}",
                    segment,
                    chain_id,
                    sum_stripes(stripes).total_cycles,
                    bool(chain_associations(segment, chain_id)),
                )
            )
    return matches


def check_matches(matches: Sequence[ChainMatch], noun: str) -> str | None:
    """Raise when nothing matches; the partial-match warning, or ``None`` (``run_match``'s
    verdict: a chain without labels is not judged).

    ``noun`` says whose chains they are (``estimator chains``, ``captured chains``).
    """
    evidence: list[Evidence] = []
    for match in matches:
        labels = () if match.matched else _labels(match)
        mismatch = f"its labels ({_examples(labels)}) name no operation of it" if labels else None
        evidence.append(
            Evidence(
                match.entity_id,
                float(match.total_cycles),
                mismatch,
                judged=match.matched or bool(labels),
            )
        )
    databases = _joined(
        match.segment.debug_source or "debug database"
        for match, item in zip(matches, evidence, strict=True)
        if item.mismatch
    )
    verdict = judge_run(
        evidence,
        Wording(
            run=databases,
            items=noun,
            model=f"an operation of {_joined(_model_of(match.segment) for match in matches)}",
            conclusion="the databases are of another model (or of another conversion of it)",
            unit="cycles (total_cycles)",
            item_unit="cycles",
        ),
    )
    return verdict.warning


def _labels(match: ChainMatch) -> tuple[str, ...]:
    known = known_labels(match.segment.spirv)
    labels: list[str] = []
    for operation in chain_operations(match.segment, match.chain_id):
        labels.extend(
            label
            for label in split_labels(operation.raw_labels, known)
            if not label.startswith(SYNTHETIC_LABEL_PREFIX)
        )
    return tuple(labels)


def _examples(labels: Sequence[str]) -> str:
    shown = [
        repr(label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 3] + "...")
        for label in dict.fromkeys(labels)
    ]
    more = ", ..." if len(shown) > _EXAMPLES else ""
    return ", ".join(shown[:_EXAMPLES]) + more


def _model_of(segment: SegmentInput) -> str:
    return segment.operations_source or f"VGF segment {segment.index}"


def _joined(names: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(names))
