"""Typed records shared by the NX readers and the result construction.

A *stripe* is the smallest scheduled unit; its figures come from the estimator's
performance database (or from decoded hardware counters in measured mode). The
*debug links* say which chain and cascade each stripe belongs to and which TOSA
operations (with their raw ``api_labels`` text) a chain executes. A *segment*
bundles the two with what the VGF's SPIR-V says about that graph segment.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property

from perfline.core.backends.nx_common.labels import KnownLabels
from perfline.core.backends.nx_common.provenance import ProvenanceMemo
from perfline.core.formats.spirv import SpirvModule

Number = int | float


@dataclass(frozen=True)
class MemoryTraffic:
    """Traffic through one memory path (``L1``, ``DRAM``, ...) for one stripe."""

    name: str
    read_bytes: Number
    write_bytes: Number
    traffic_cycles: Number


@dataclass(frozen=True)
class SectionCycles:
    """Cycles of one hardware section (``InputReader``, ``nx_active``, ...)."""

    name: str
    cycles: Number


@dataclass(frozen=True)
class StripeRow:
    """One stripe's figures, in the order of its source table."""

    stripe_id: str
    op_cycles: Number
    total_cycles: Number
    memory: tuple[MemoryTraffic, ...] = ()
    sections: tuple[SectionCycles, ...] = ()


@dataclass(frozen=True)
class TosaOperation:
    """A lowered operation from the debug database.

    ``op_type`` is ``None`` for Execution-Engine (shader) operations;
    ``raw_labels`` is the unsplit ``api_labels`` cell (label recovery needs the
    segment's known debug names, so splitting happens at construction time).
    """

    op_id: str
    op_type: str | None
    raw_labels: str


@dataclass(frozen=True)
class DebugLinks:
    """The resolved links of one debug database.

    Each stripe maps to exactly one chain and one cascade (readers enforce it).
    """

    stripe_chain: Mapping[str, str]
    stripe_cascade: Mapping[str, str]
    chain_fused: Mapping[str, tuple[str, ...]]
    fused_tosa: Mapping[str, tuple[str, ...]]
    nx_operations: Mapping[str, TosaOperation]
    ee_operations: Mapping[str, TosaOperation] = field(default_factory=dict)


@dataclass(frozen=True)
class SegmentSpirv:
    """What a VGF graph segment's SPIR-V module says about its operations.

    ``operation_ids``: result ids of the ``TOSA.001000.1`` operations, first-seen
    order. ``debug_names``: result id -> ``NonSemantic.Graph.DebugInfo.1`` name.
    """

    operation_ids: tuple[int, ...]
    debug_names: Mapping[int, str] = field(default_factory=dict)

    @classmethod
    def of_module(cls, module: SpirvModule | None) -> SegmentSpirv:
        """What ``module`` says (nothing when the segment has no SPIR-V)."""
        if module is None:
            return cls(())
        return cls(module.operation_ids, dict(module.debug_names))

    def structural_ids(self) -> tuple[int, ...]:
        """Operation ids followed by any other debug-named ids, first-seen order."""
        seen = dict.fromkeys(self.operation_ids)
        for result_id in self.debug_names:
            seen.setdefault(result_id)
        return tuple(seen)

    @cached_property
    def structural_id_set(self) -> frozenset[int]:
        """The structural ids as a set (computed once)."""
        return frozenset(self.structural_ids())

    @cached_property
    def known_labels(self) -> KnownLabels:
        """The debug names prepared for label recovery (computed once)."""
        return KnownLabels(self.debug_names.values())

    @cached_property
    def provenance_memo(self) -> ProvenanceMemo:
        """Parsed labels of this segment (filled on use)."""
        return ProvenanceMemo()

    @cached_property
    def name_index(self) -> Mapping[str, tuple[int, ...]]:
        """``ids_named()`` computed once."""
        return self.ids_named()

    def ids_named(self) -> dict[str, tuple[int, ...]]:
        """Debug name -> the result ids carrying it."""
        names: dict[str, list[int]] = {}
        for result_id, name in self.debug_names.items():
            names.setdefault(name, []).append(result_id)
        return {name: tuple(ids) for name, ids in names.items()}


@dataclass(frozen=True)
class SegmentInput:
    """Everything known about one analysed graph segment.

    ``index`` is the original VGF segment index (0 when there is no VGF);
    ``spirv`` is ``None`` when no VGF was supplied (then no source operators
    can be named); ``debug_source`` names the debug database in errors and
    ``operations_source`` the file ``spirv`` was read from (the VGF, a capture's
    shader module) in messages about the two not belonging together.
    """

    index: int
    name: str
    stripes: tuple[StripeRow, ...]
    links: DebugLinks
    spirv: SegmentSpirv | None = None
    debug_source: str | None = None
    operations_source: str | None = None
