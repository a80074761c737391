"""Decoding a neural statistics file and aggregating it per block (stripe).

Mode 0: for each block, every section counter is summed over the block's
tasks; ``op_cycles = total_cycles =`` the sum of the 16 section totals. These
are accumulated section-active cycles, not elapsed time.

Mode 1: for each block, tasks are grouped by their core id (word 0); each
counter is summed per core and the block's value of that counter is the
*largest* per-core sum, counter by counter (so two counters' maxima can come
from different cores); ``op_cycles = total_cycles =`` the aggregated
``nx_active`` (also when it is 0). Core ids are not reported.

All-zero tasks are ignored. A block whose counters are all zero is dropped
unless the statistics info lists it (then it is a zero row with no counters).
A non-zero block the info does not list, or a listed id past the decoded
blocks, is an error. Rows come out in the info's order.

Decoding is vectorised with numpy (files hold millions of words):
O(words) plus a sort of the non-zero tasks by (block, core) in mode 1.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy
import numpy.typing

from perfline.core.backends.nx_common.counters import CounterLayout
from perfline.core.backends.nx_common.records import SectionCycles, StripeRow
from perfline.core.errors import InputError, Problem

WORD_BYTES = 4
MIN_WORD_MULTIPLE = 16

Matrix = numpy.typing.NDArray[numpy.uint64]


@dataclass(frozen=True)
class DecodedBlocks:
    """Per-block aggregated counters (rows = blocks, columns = layout counters)."""

    layout: CounterLayout
    block_count: int
    values: Matrix
    nonzero: numpy.typing.NDArray[numpy.bool_]


def decode_statistics(data: bytes, layout: CounterLayout, source: str) -> DecodedBlocks:
    """Decode and aggregate a ``statistics_mode<N>.bin`` (see the module docstring)."""
    size = len(data)
    task_bytes = layout.words_per_task * WORD_BYTES
    if size == 0:
        raise InputError(source, Problem("byte 0", "the statistics file is empty"))
    if size % WORD_BYTES:
        raise InputError(
            source,
            Problem(f"byte {size}", f"length {size} is not a multiple of the 4-byte word"),
        )
    words = size // WORD_BYTES
    if words % MIN_WORD_MULTIPLE:
        raise InputError(
            source,
            Problem(f"byte {size}", f"{words} words is not a multiple of 16 words"),
        )
    if size % task_bytes:
        raise InputError(
            source,
            Problem(
                f"byte {size - size % task_bytes}",
                f"length {size} is not a multiple of the task size ({layout.words_per_task} "
                f"words = {task_bytes} bytes for mode {layout.mode} on {layout.generation}); "
                f"{size % task_bytes} trailing bytes",
            ),
        )
    tasks = numpy.frombuffer(data, dtype="<u4").reshape(-1, layout.words_per_task)
    task_count = tasks.shape[0]
    block_count = -(-task_count // layout.tasks_per_block)
    columns = [word for _, word in layout.counters]
    if layout.core_word is None:
        values = _block_sums(tasks, columns, block_count, layout.tasks_per_block)
    else:
        keep = tasks.any(axis=1)
        task_index = numpy.nonzero(keep)[0]
        values = numpy.zeros((block_count, len(columns)), dtype=numpy.uint64)
        if task_index.size:
            selected = tasks[task_index]
            values = _max_over_cores(
                (task_index // layout.tasks_per_block).astype(numpy.int64),
                selected[:, layout.core_word].astype(numpy.int64),
                selected[:, columns].astype(numpy.uint64),
                block_count,
            )
    nonzero = numpy.asarray(values.any(axis=1), dtype=numpy.bool_)
    return DecodedBlocks(layout, block_count, values, nonzero)


def _block_sums(
    tasks: numpy.typing.NDArray[numpy.uint32], columns: list[int], block_count: int, per_block: int
) -> Matrix:
    """Mode 0: per-block column sums (zero tasks add nothing, so no filtering is needed)."""
    counters = tasks[:, columns]
    missing = block_count * per_block - counters.shape[0]
    if missing:
        counters = numpy.concatenate(
            (counters, numpy.zeros((missing, len(columns)), dtype=counters.dtype))
        )
    summed: Matrix = counters.reshape(block_count, per_block, len(columns)).sum(
        axis=1, dtype=numpy.uint64
    )
    return summed


def _max_over_cores(
    blocks: numpy.typing.NDArray[numpy.int64],
    cores: numpy.typing.NDArray[numpy.int64],
    counters: Matrix,
    block_count: int,
) -> Matrix:
    order = numpy.lexsort((cores, blocks))
    blocks, cores, counters = blocks[order], cores[order], counters[order]
    starts = numpy.flatnonzero(
        numpy.concatenate(([True], (blocks[1:] != blocks[:-1]) | (cores[1:] != cores[:-1])))
    )
    per_core = numpy.add.reduceat(counters, starts, axis=0)
    group_blocks = blocks[starts]
    values = numpy.zeros((block_count, counters.shape[1]), dtype=numpy.uint64)
    numpy.maximum.at(values, group_blocks, per_core)
    return values


def stripe_rows(
    decoded: DecodedBlocks,
    info_ids: Sequence[int],
    *,
    statistics_source: str,
    info_source: str,
) -> tuple[StripeRow, ...]:
    """One row per stripe listed in the info, in the info's order."""
    listed = set(info_ids)
    for block in numpy.flatnonzero(decoded.nonzero).tolist():
        if block not in listed:
            raise InputError(
                statistics_source,
                Problem(
                    f"block {block}",
                    f"has non-zero counters but the statistics info {info_source} does not "
                    f"list stripe {block}",
                ),
            )
    rows: list[StripeRow] = []
    names = [name for name, _ in decoded.layout.counters]
    for position, stripe in enumerate(info_ids):
        if stripe >= decoded.block_count:
            raise InputError(
                info_source,
                Problem(
                    f"entry {position}",
                    f"stripe {stripe} is beyond the {decoded.block_count} block(s) decoded from "
                    f"{statistics_source}",
                ),
            )
        if not decoded.nonzero[stripe]:
            rows.append(StripeRow(str(stripe), 0, 0))
            continue
        values = [int(value) for value in decoded.values[stripe].tolist()]
        cycles = sum(values) if decoded.layout.mode == 0 else values[names.index("nx_active")]
        rows.append(
            StripeRow(
                stripe_id=str(stripe),
                op_cycles=cycles,
                total_cycles=cycles,
                sections=tuple(
                    SectionCycles(name, value) for name, value in zip(names, values, strict=True)
                ),
            )
        )
    return tuple(rows)
