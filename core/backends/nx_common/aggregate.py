"""Summing stripe figures into chain, cascade and segment figures.

Every figure is summed over the stripes of a group: op and total cycles, each
memory path's read/write bytes and traffic cycles, and each section's cycles
(sections with the same name are summed). The ``Internal`` memory path is not
reported. Memory paths and sections keep their order of first appearance.
Cost: O(stripes x (memory paths + sections)).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from perfline.core.backends.nx_common.records import (
    MemoryTraffic,
    Number,
    SectionCycles,
    StripeRow,
)

HIDDEN_MEMORY = "Internal"


@dataclass(frozen=True)
class StripeTotals:
    """Summed figures of a group of stripes (``stripe_ids`` in table order)."""

    stripe_ids: tuple[str, ...]
    op_cycles: Number
    total_cycles: Number
    memory: tuple[MemoryTraffic, ...]
    sections: tuple[SectionCycles, ...]


def sum_stripes(stripes: Iterable[StripeRow]) -> StripeTotals:
    """The sums over ``stripes`` (an empty group sums to zeros)."""
    ids: list[str] = []
    op_cycles: Number = 0
    total_cycles: Number = 0
    memory: dict[str, list[Number]] = {}
    sections: dict[str, Number] = {}
    for stripe in stripes:
        ids.append(stripe.stripe_id)
        op_cycles += stripe.op_cycles
        total_cycles += stripe.total_cycles
        for traffic in stripe.memory:
            if traffic.name == HIDDEN_MEMORY:
                continue
            sums = memory.setdefault(traffic.name, [0, 0, 0])
            sums[0] += traffic.read_bytes
            sums[1] += traffic.write_bytes
            sums[2] += traffic.traffic_cycles
        for section in stripe.sections:
            sections[section.name] = sections.get(section.name, 0) + section.cycles
    return StripeTotals(
        stripe_ids=tuple(ids),
        op_cycles=op_cycles,
        total_cycles=total_cycles,
        memory=tuple(MemoryTraffic(name, *sums) for name, sums in memory.items()),
        sections=tuple(SectionCycles(name, cycles) for name, cycles in sections.items()),
    )


def group_stripes(
    stripes: Iterable[StripeRow], key_of: Mapping[str, str]
) -> dict[str, tuple[StripeRow, ...]]:
    """Stripes grouped by ``key_of[stripe_id]``, groups in order of first appearance.

    Stripes without a key are left out (the caller decides whether that is an error).
    """
    groups: dict[str, list[StripeRow]] = {}
    for stripe in stripes:
        key = key_of.get(stripe.stripe_id)
        if key is not None:
            groups.setdefault(key, []).append(stripe)
    return {key: tuple(rows) for key, rows in groups.items()}
