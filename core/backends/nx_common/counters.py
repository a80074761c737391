"""Counter layouts of neural statistics (mode 0 / mode 1, Mali-G1 / Mali-G2).

A statistics file is little-endian u32 words forming *tasks*; consecutive
tasks form *blocks* (block index = stripe id).

| mode | generation | words/task | tasks/block | words |
|---|---|---|---|---|
| 0 | G1 | 16 | 512 | 16 section counters ``section_0`` .. ``section_15`` |
| 0 | G2 | 16 | 1024 | same |
| 1 | G1 | 32 | 256 | 0 = core id, 1-29 = counters below, 30-31 ignored |
| 1 | G2 | 64 | 256 | 0 = core id, 1-29 as G1, 30 reserved, 31/32 = ``me_src0/1_stall`` |
"""

from __future__ import annotations

from dataclasses import dataclass

from perfline.core.errors import InputError, Problem

MALI_G1 = "Mali-G1"
MALI_G2 = "Mali-G2"
GENERATIONS = (MALI_G1, MALI_G2)

MODE1_COUNTERS: tuple[str, ...] = (
    "nx_active",
    "dl_active",
    "ir_active",
    "wf_active",
    "ce_active",
    "ve_active",
    "tu_active",
    "ow_active",
    "task_init_stall",
    "rd_ll_stall",
    "rd_hl_stall",
    "dma_wr_stall",
    "ir_idx_stall",
    "ce_src0_stall",
    "ce_src1_stall",
    "ve_src0_ir_stall",
    "ve_src0_ce_stall",
    "ve_src0_ve_stall",
    "ve_src0_tu_stall",
    "ve_src1_ir_stall",
    "ve_src1_ve_stall",
    "ve_src1_tu_stall",
    "tu_src0_ir_stall",
    "tu_src0_ve_stall",
    "tu_src0_tu_stall",
    "ow_src0_ir_stall",
    "ow_src0_ve_stall",
    "ow_src0_tu_stall",
    "ow_idx_stall",
)
G2_EXTRA_COUNTERS: tuple[tuple[str, int], ...] = (("me_src0_stall", 31), ("me_src1_stall", 32))


@dataclass(frozen=True)
class CounterLayout:
    """Where each counter sits in a task, and how tasks group into blocks."""

    generation: str
    mode: int
    words_per_task: int
    tasks_per_block: int
    core_word: int | None
    counters: tuple[tuple[str, int], ...]
    """(counter name, word index in the task), output order."""

    @property
    def schema_id(self) -> str:
        """A name for the layout, e.g. ``arm.mali-g2.neural-statistics.mode1``."""
        return f"arm.{self.generation.lower()}.neural-statistics.mode{self.mode}"


def counter_layout(generation: str, mode: int, source: str = "statistics") -> CounterLayout:
    """The layout of ``mode`` statistics on ``generation`` (``Mali-G1`` or ``Mali-G2``)."""
    if generation not in GENERATIONS:
        raise InputError(source, Problem("device", f"unsupported device generation {generation!r}"))
    if mode == 0:
        return CounterLayout(
            generation=generation,
            mode=0,
            words_per_task=16,
            tasks_per_block=512 if generation == MALI_G1 else 1024,
            core_word=None,
            counters=tuple((f"section_{k}", k) for k in range(16)),
        )
    if mode == 1:
        counters = tuple((name, word) for word, name in enumerate(MODE1_COUNTERS, start=1))
        if generation == MALI_G2:
            counters += G2_EXTRA_COUNTERS
        return CounterLayout(
            generation=generation,
            mode=1,
            words_per_task=32 if generation == MALI_G1 else 64,
            tasks_per_block=256,
            core_word=0,
            counters=counters,
        )
    raise InputError(source, Problem("statistics_mode", f"expected 0 or 1, got {mode!r}"))


def device_generation(name: str, vendor_id: int, source: str, where: str) -> str:
    """``Mali-G1`` / ``Mali-G2`` from an Arm device name (``Mali-G2-Pro-NX MC1`` -> G2)."""
    if vendor_id != 0x13B5:
        raise InputError(
            source, Problem(where, f"vendor_id {vendor_id:#x} is not Arm (0x13b5 expected)")
        )
    for generation in GENERATIONS:
        if name == generation or name.startswith((f"{generation}-", f"{generation} ")):
            return generation
    raise InputError(
        source,
        Problem(where, f"device name {name!r} is not a Mali-G1 or Mali-G2 neural device"),
    )
