"""Data and independent references for the daemon's baseline comparisons.

* The DS-CNN ExecuTorch portable ETDump of ``examples/kws`` and a second real ETDump of the
  same program (``tests/data/docs/dscnn_portable_rerun.etdump``), each with the ExecuTorch
  Inspector's own reading (per event: per-run times in ms, stack traces):
  ``inspector_line_runs`` gives, per source line of ``dscnn.py``, the per-run sums of the
  operator calls whose innermost user frame is that line, computed from those readings
  alone (not from perfline); ``inspector_inclusive_runs`` the same with every user frame
  of a call counted (a *call line* such as ``x = self.blocks(x)`` then holds the calls of
  the lines it calls), and ``inspector_calls`` the lines each call line calls (the user
  frames below it in the stack traces).
* ``exact_rank_p``: the two-sided exact Mann-Whitney U p-value conditional on ties, by a
  count over rank sums written here (the distance of the base sample's rank sum from its
  mean, as extreme or more), and ``holm``: Holm's step-down adjusted p-values. With them a
  test decides, without perfline's code, which lines changed significantly.
* ``written``: a time (ms) as the documented rounding rule writes it, spelled out here.
* ``generated_etdumps``: a pair of generated ETDumps of the same program, 30 runs each,
  every operator drawn from its own 10 measured durations, the pointwise convolutions of
  ``dscnn.py:26`` 25% slower in the second (the generator of
  ``tests/core/compare/test_injected_regression.py``).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path

from tests.support.server_helpers import REPO

DATA = REPO / "tests" / "data"
FIRST_INSPECTOR = DATA / "measured" / "portable" / "dscnn_portable.inspector.json"
RERUN = DATA / "docs" / "dscnn_portable_rerun.etdump"
RERUN_INSPECTOR = DATA / "docs" / "dscnn_portable_rerun.inspector.json"
ORT_MODEL = DATA / "formats" / "dscnn" / "dscnn.onnx"
ORT_SOURCE = DATA / "formats" / "dscnn" / "dscnn.py"
INTERLEAVED_A = DATA / "compare" / "interleaved" / "dscnn_interleaved_a.json"
INTERLEAVED_B = DATA / "compare" / "interleaved" / "dscnn_interleaved_b.json"

_USER_FRAME = re.compile(r'kws/dscnn\.py", line (\d+)')


def _operator_calls(path: Path) -> list[tuple[list[int], list[float]]]:
    """Each operator call's user frames of ``dscnn.py`` (outermost first) and per-run ms."""
    data = json.loads(path.read_text())
    (block,) = [b for b in data["event_blocks"] if b["name"] == "Execute"]
    return [
        (
            [int(n) for n in _USER_FRAME.findall(" ".join(event["stack_traces"].values()))],
            event["raw_ms"],
        )
        for event in block["events"]
        if event["name"] == "OPERATOR_CALL" and event["stack_traces"]
    ]


def _add_runs(lines: dict[int, list[float]], line: int, runs: list[float]) -> None:
    known = lines.setdefault(line, [0.0] * len(runs))
    for index, value in enumerate(runs):
        known[index] += value


def inspector_line_runs(path: Path) -> dict[int, list[float]]:
    """Per line of ``dscnn.py``: the per-run sums (ms) of its operator calls."""
    lines: dict[int, list[float]] = {}
    for frames, runs in _operator_calls(path):
        _add_runs(lines, frames[-1], runs)
    return lines


def inspector_inclusive_runs(path: Path) -> dict[int, list[float]]:
    """Per line of ``dscnn.py``: the per-run sums (ms) of the operator calls with the line
    among their user frames at any depth (a call line's calls include its callees')."""
    lines: dict[int, list[float]] = {}
    for frames, runs in _operator_calls(path):
        for line in set(frames):
            _add_runs(lines, line, runs)
    return lines


def inspector_calls(path: Path) -> dict[int, set[int]]:
    """Per call line of ``dscnn.py``: the lines it calls (user frames deeper than it)."""
    calls: dict[int, set[int]] = {}
    for frames, _ in _operator_calls(path):
        for depth, line in enumerate(frames[:-1]):
            calls.setdefault(line, set()).update(n for n in frames[depth + 1 :] if n != line)
    return {line: called for line, called in calls.items() if called}


def written(value: float) -> str:
    """The documented rounding of times (ms): no decimals from 100, one from 10, two from 1,
    two significant digits below."""
    if value >= 100:
        return f"{value:.0f}"
    if value >= 10:
        return f"{value:.1f}"
    if value >= 1:
        return f"{value:.2f}"
    return f"{value:.2g}"


def mean(values: list[float]) -> float:
    return math.fsum(values) / len(values)


def exact_rank_p(base: list[float], new: list[float]) -> float:
    """Two-sided exact Mann-Whitney U p-value, conditional on the ties present."""
    pooled = sorted(base + new)
    doubled: dict[float, int] = {}
    position = 0
    while position < len(pooled):
        end = position
        while end + 1 < len(pooled) and pooled[end + 1] == pooled[position]:
            end += 1
        doubled[pooled[position]] = position + end + 2  # twice the mean 1-based rank
        position = end + 1
    ranks = [doubled[v] for v in base + new]
    size = len(base)
    counts: list[Counter[int]] = [Counter() for _ in range(size + 1)]
    counts[0][0] = 1
    for done, rank in enumerate(ranks):
        for taken in range(min(done, size - 1), -1, -1):
            for total, ways in list(counts[taken].items()):
                counts[taken + 1][total + rank] += ways
    center = size * (len(ranks) + 1)  # twice the mean rank sum of the base sample
    observed = abs(sum(doubled[v] for v in base) - center)
    extreme = sum(ways for total, ways in counts[size].items() if abs(total - center) >= observed)
    return extreme / math.comb(len(ranks), size)


def holm(p_values: list[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the input's order."""
    order = sorted(range(len(p_values)), key=p_values.__getitem__)
    adjusted = [0.0] * len(p_values)
    running = 0.0
    for rank, index in enumerate(order):
        running = max(running, min(1.0, (len(p_values) - rank) * p_values[index]))
        adjusted[index] = running
    return adjusted


def significant_lines(
    base: dict[int, list[float]], new: dict[int, list[float]], level: float = 0.05
) -> set[int]:
    """The lines whose per-run sums differ at ``level`` after Holm over the lines."""
    lines = sorted(set(base) & set(new))
    adjusted = holm([exact_rank_p(base[n], new[n]) for n in lines])
    return {n for n, p in zip(lines, adjusted, strict=True) if p < level}


def percent_of(label: str) -> tuple[str, float] | None:
    """(arrow, percentage) of a hint's ``▲12%`` / ``▼<1%``, or None."""
    found = re.search(r"([▲▼])(<?)(\d+)%", label)
    if found is None:
        return None
    return found.group(1), (0.5 if found.group(2) else float(found.group(3)))


def generated_etdumps(folder: Path) -> tuple[Path, Path]:
    """(base, new) generated ETDumps of the example program (see the module docstring)."""
    from tests.support.injected_regression import FACTOR, regression_etdump

    base, new = folder / "generated_base.etdump", folder / "generated_new.etdump"
    base.write_bytes(regression_etdump(11, 1.0))
    new.write_bytes(regression_etdump(12, FACTOR))
    return base, new
