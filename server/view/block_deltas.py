"""A code lens's block total against the baseline: ``DSBlock.forward: 10.8 ms total ▲12%``.

A block's total adds the figures of its counted lines (``code_blocks``); against the
baseline, the same lines' baseline figures are added (each line through its own delta:
moved lines included, lines only in one run left out of both sums). Whether the block
changed:

* **sampled** (every counted line has per-run values in both runs, in one unit): the
  runs of one result are the same recorded executions, so the block's per-run values are
  the run-by-run sums of its lines'; the two runs' sums are compared by the Mann-Whitney
  U test (``core.compare.significance``), and the p-values of the file's blocks are
  adjusted together (Holm or Benjamini-Hochberg, the client's settings);
* **exact** (no counted line has per-run values: estimates): beyond the estimate
  threshold;
* otherwise (some lines sampled, others not) the block is not judged.

Only a significant change is shown, as ``▲12%`` after the total (``(on 5 of 7 lines)``
when some counted lines have no baseline figure). Pure; linear in the blocks' lines.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from typing import NamedTuple

from perfline.core import figure_text
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.significance import adjust, mann_whitney_p
from perfline.server.line_entries import LineEntry
from perfline.server.view.code_blocks import CodeBlock
from perfline.server.view.line_deltas import DeltaLookup, metric_delta

#: A counted line -> (the entry the lens sums, the metric name it sums), or None.
LensEntryAt = Callable[[int], tuple[LineEntry, str] | None]


class BlockSums(NamedTuple):
    """A block's base and new sums over its lines in both runs, and how to judge them."""

    base: float
    new: float
    compared: int
    counted: int
    base_runs: tuple[float, ...] | None
    new_runs: tuple[float, ...] | None
    judged: bool


def block_changes(
    blocks: Sequence[CodeBlock],
    lens_entry_at: LensEntryAt,
    deltas: DeltaLookup,
    settings: CompareSettings,
) -> dict[int, str]:
    """Block position -> its change text (``▲12%``), for the blocks that changed."""
    sums = {i: found for i, b in enumerate(blocks) if (found := _sums(b, lens_entry_at, deltas))}
    tested = [(i, s) for i, s in sums.items() if s.judged and s.base_runs is not None]
    p_values = [mann_whitney_p(s.base_runs or (), s.new_runs or ()) for _, s in tested]
    adjusted = dict(zip((i for i, _ in tested), adjust(p_values, settings.correction), strict=True))
    changes: dict[int, str] = {}
    for position, found in sums.items():
        if not found.judged or not _differs(found.base, found.new):
            continue
        if found.base_runs is not None:
            significant = adjusted[position] < settings.level
        else:
            significant = abs(found.new - found.base) > settings.estimate_threshold * abs(
                found.base
            )
        if significant and found.base:
            text = figure_text.format_change(found.new / found.base - 1)
            if found.compared < found.counted:
                text += f" (on {found.compared} of {found.counted} lines)"
            changes[position] = text
    return changes


def _sums(block: CodeBlock, lens_entry_at: LensEntryAt, deltas: DeltaLookup) -> BlockSums | None:
    base = new = 0.0
    compared = 0
    base_runs: list[tuple[float, ...]] = []
    new_runs: list[tuple[float, ...]] = []
    unsampled = 0
    for line in block.counted:
        chosen = lens_entry_at(line)
        found = deltas.of(chosen[0]) if chosen is not None else None
        if chosen is None or found is None:
            continue
        delta = metric_delta(found.entity, chosen[1])
        if delta is None or delta.base is None or delta.new is None:
            continue
        compared += 1
        base += delta.base
        new += delta.new
        runs = _runs(found.result.base_runs, found.entity.base_id, chosen[1])
        later = _runs(found.result.new_runs, found.entity.new_id, chosen[1])
        same_unit = chosen[0].metric is None or chosen[0].metric.unit == delta.unit
        if runs is None or later is None or not same_unit:
            unsampled += 1
        else:
            base_runs.append(runs)
            new_runs.append(later)
    if not compared:
        return None
    if unsampled == compared:
        return BlockSums(base, new, compared, len(block.counted), None, None, True)
    if unsampled or not _aligned(base_runs) or not _aligned(new_runs):
        return BlockSums(base, new, compared, len(block.counted), None, None, False)
    return BlockSums(base, new, compared, len(block.counted), _add(base_runs), _add(new_runs), True)


def _runs(
    samples: Mapping[str, Mapping[str, tuple[float, ...]]], entity: str | None, metric: str
) -> tuple[float, ...] | None:
    if entity is None:
        return None
    return samples.get(entity, {}).get(metric)


def _aligned(lists: Sequence[tuple[float, ...]]) -> bool:
    return bool(lists) and len({len(values) for values in lists}) == 1


def _add(lists: Sequence[tuple[float, ...]]) -> tuple[float, ...]:
    return tuple(math.fsum(run) for run in zip(*lists, strict=True))


def _differs(base: float, new: float) -> bool:
    return base != new and not math.isclose(base, new, rel_tol=1e-9, abs_tol=0.0)
