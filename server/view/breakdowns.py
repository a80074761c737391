"""Which lines a breakdown covers, and of which job: a line, a block or a file (in the
asking connection's current lines), else every annotated line of the model.

The job is the one asked for, else the first whose figures land on the selection (the
first job with a result, for the model); one result of it (that of the first line). The
Markdown is ``breakdown_text.breakdown_markdown``. Linear in the job's lines.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from perfline.core.errors import InputError
from perfline.server.line_entries import LineEntry
from perfline.server.scheduler.bounded_reads import read_source_text
from perfline.server.view.breakdown_text import breakdown_markdown
from perfline.server.view.code_blocks import block_name
from perfline.server.view.engine_surface import EngineSurface, LineMap
from perfline.server.view.result_tables import result_tables


def lines_breakdown(
    engine: EngineSurface,
    path: Path,
    job: str | None,
    span: tuple[int | None, int | None],
    lines: LineMap | None,
) -> dict[str, Any] | None:
    """The breakdown of lines ``span`` (1-based, inclusive; None: the file's first/last)
    of ``path``; None when no figure of the chosen job lands there."""
    first, last = span
    if first is not None and last is None:
        last = first
    chosen: list[tuple[int, LineEntry]] = []
    for number, entries in sorted(engine.line_entries(path).items()):
        current = lines(path, number) if lines is not None else number
        if current is None or (first is not None and current < first):
            continue
        if last is not None and current > last:
            continue
        chosen += [(current, e) for e in entries if job is None or e.facts.job == job]
    if not chosen:
        return None
    picked = chosen[0][1]
    rows = [
        (n, e)
        for n, e in chosen
        if (e.facts.job, e.facts.result_index) == (picked.facts.job, picked.facts.result_index)
    ]
    where = (
        path.name
        if first is None
        else f"{path.name}:{first}" + (f"-{last}" if last != first else "")
    )
    title = f"Breakdown of {where}"
    if first is not None and last is not None and last > first:
        name = block_name(_read(path, engine), first, last)
        title = f"Breakdown of {name} ({where})" if name else title
    return _answer(engine, picked.facts.job, picked.facts.result_index, title, rows)


def model_breakdown(engine: EngineSurface, job: str | None) -> dict[str, Any] | None:
    """Every annotated line of the model (the first result with code lines)."""
    names = [job] if job is not None else [j.name for j in engine.jobs() if j.has_result]
    for name in names:
        good = engine.result(name)
        if good is None:
            continue
        rows = [
            (number, entry)
            for file in sorted(good.index.lines)
            for number, entries in sorted(good.index.lines[file].items())
            for entry in entries
        ]
        index = rows[0][1].facts.result_index if rows else 0
        rows = [(n, e) for n, e in rows if e.facts.result_index == index]
        return _answer(engine, name, index, "Model breakdown", rows)
    return None


def _answer(
    engine: EngineSurface, job: str, index: int, title: str, rows: Sequence[tuple[int, LineEntry]]
) -> dict[str, Any] | None:
    tables = result_tables(engine.result(job), index)
    if tables is None:
        return None
    return {
        "job": job,
        "resultIndex": index,
        "title": title,
        "lines": sorted({n for n, _ in rows}),
        "markdown": breakdown_markdown(title, job, rows, tables),
    }


def _read(path: Path, engine: EngineSurface) -> str:
    try:
        return read_source_text(path, engine.boundary)
    except InputError:
        return ""
