"""Whether NX databases belong to the VGF (or shader module) they are read with.

A chain *matches* when the labels of one of its TOSA operations name an
operation of its segment's SPIR-V (it has an association); it is *foreign* when
its operations carry labels and none names an operation; a chain without
labels (no operations, or only the synthetic operations of stripes the debug
database does not link) tells nothing either way. Only segments read with
SPIR-V are judged (the databases alone name no operation at all).

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
from perfline.core.errors import InputError

_SHOWN = 5
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
    """Raise when nothing matches; the partial-match warning, or ``None``.

    ``noun`` says whose chains they are (``estimator chains``, ``captured chains``).
    """
    foreign = [match for match in matches if not match.matched and _labels(match)]
    if not foreign:
        return None
    matched = sum(1 for match in matches if match.matched)
    models = _joined(_model_of(match.segment) for match in matches)
    if matched == 0:
        examples = _examples(foreign)
        raise InputError(
            _joined(match.segment.debug_source or "debug database" for match in foreign),
            f"0 of {len(matches)} {noun} matched an operation of {models}: the labels of "
            f"{len(foreign)} of them ({examples}) name no operation of it; the databases are of "
            "another model (or of another conversion of it)",
        )
    total = sum(match.total_cycles for match in matches)
    left = sum(match.total_cycles for match in foreign)
    share = f" ({left / total * 100:.3g}%)" if total else ""
    largest = sorted(foreign, key=lambda match: -match.total_cycles)
    listed = ", ".join(
        f"{match.entity_id} ({_number(match.total_cycles)} cycles)" for match in largest[:_SHOWN]
    )
    if len(largest) > _SHOWN:
        listed += f", ... ({len(largest) - _SHOWN} more omitted)"
    return (
        f"{matched} of {len(matches)} {noun} matched an operation of {models}; the labels of "
        f"{_plural(len(foreign), 'chain')} name no operation of it, so {_number(left)} of "
        f"{_number(total)} cycles (total_cycles){share} are left unattributed (no source "
        f"operator): {listed}."
    )


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


def _examples(foreign: Sequence[ChainMatch]) -> str:
    seen: dict[str, None] = {}
    for match in foreign:
        for label in _labels(match):
            shown = label if len(label) <= _LABEL_CHARS else label[: _LABEL_CHARS - 3] + "..."
            seen.setdefault(repr(shown))
            if len(seen) == _EXAMPLES:
                return "e.g. " + ", ".join(seen)
    return "e.g. " + ", ".join(seen)


def _model_of(segment: SegmentInput) -> str:
    return segment.operations_source or f"VGF segment {segment.index}"


def _joined(names: Iterable[str]) -> str:
    return ", ".join(dict.fromkeys(names))


def _plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def _number(value: Number) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.6g}"
