"""``perfline compare --jobs``: the same line in every runtime, side by side, for a workspace.

When several jobs annotate the same source (ExecuTorch portable, XNNPACK, ONNX Runtime,
static cost, an NX estimate...), one table per source file: a row per annotated line (its
number and text), a column per job with the line's figure as the editor's hint shows it
(``9.63 ms avg · 81%``: the job's own metric and its share of that job's model). The
figures come from ``perfline/lineAnnotations`` (with each line's metrics), the path
``perfline annotate`` takes: a running daemon of the workspace, else an in-process
analysis. Lines meet through each job's path maps onto the workspace file, so runs
recorded in different folders share a row. ``--json`` prints every job's figures per
line instead.

Cost: one ``perfline/lineAnnotations`` request per file, linear in its lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli._connect import Session
from perfline.core.errors import InputError
from perfline.core.escaping import terminal_text
from perfline.server.file_access import Root, read_text

FORMAT_VERSION = 1
SOURCE_WIDTH = 40


def side_by_side(
    session: Session, root: Path, files: tuple[Path, ...], metrics: tuple[str, ...]
) -> dict[str, Any]:
    """The side-by-side data of ``files`` (default: every annotated Python file)."""
    jobs = [j["name"] for j in session.request("perfline/jobs")["jobs"]]
    chosen = [str(f.resolve()) for f in files] or [
        f for f in session.request("perfline/status")["annotatedFiles"] if f.endswith(".py")
    ]
    out_files = []
    for file in chosen:
        answer = session.request("perfline/lineAnnotations", {"file": file, "metrics": True})
        lines = _lines(answer["lines"], metrics, _source(Path(answer["file"])))
        shown = [job for job in jobs if any(job in line["jobs"] for line in lines)]
        out_files.append({"file": _relative(answer["file"], root), "jobs": shown, "lines": lines})
    return {
        "perfline_compare_jobs": FORMAT_VERSION,
        "workspace": root.as_posix(),
        "jobs": jobs,
        "files": out_files,
    }


def _lines(
    items: list[dict[str, Any]], metrics: tuple[str, ...], source: list[str]
) -> list[dict[str, Any]]:
    lines = []
    for item in items:
        number = item["line"]
        figures: dict[str, Any] = {}
        for entity in item["entities"]:
            figure = _figure(entity, metrics)
            if figure is not None:
                figures.setdefault(entity["job"], figure)
        if figures:
            text = source[number - 1].strip() if 0 < number <= len(source) else ""
            lines.append({"line": number, "source": text, "jobs": figures})
    return lines


def _figure(entity: dict[str, Any], metrics: tuple[str, ...]) -> dict[str, Any] | None:
    """The entity's figure: its hint's (``label``), or the first of ``metrics`` it has."""
    base = {"producer": entity["producer"], "mode": entity["mode"]}
    if not metrics:
        if entity["value"] is None:
            return None
        return {
            **base,
            "label": entity["label"],
            "value": entity["value"],
            "metric": entity["metric"],
            "statistic": entity["statistic"],
            "share": entity["share"],
        }
    from perfline.core import figure_text

    for name in metrics:
        for metric in entity.get("metrics", ()):
            value = metric.get("value")
            if metric.get("name") == name and isinstance(value, int | float):
                unit = str(metric.get("unit", ""))
                return {
                    **base,
                    "label": figure_text.format_value(float(value), unit),
                    "value": value,
                    "metric": {"name": name, "unit": unit},
                    "statistic": None,
                    "share": None,
                }
    return None


def render(data: dict[str, Any]) -> str:
    """The tables as text (one per file)."""
    out: list[str] = []
    for file in data["files"]:
        jobs = file["jobs"]
        out.append(f"{file['file']}: {len(file['lines'])} line(s), {len(jobs)} job(s)")
        if not file["lines"]:
            out.append("")
            continue
        header = ["line", "source", *jobs]
        rows = [
            [
                str(line["line"]),
                _clip(line["source"]),
                *(line["jobs"].get(job, {}).get("label") or "" for job in jobs),
            ]
            for line in file["lines"]
        ]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]
        for row in [header, *rows]:
            cells = [
                row[i].rjust(widths[i]) if i == 0 or i > 1 else row[i].ljust(widths[i])
                for i in range(len(row))
            ]
            out.append("  ".join(cells).rstrip())
        out.append("")
    return "\n".join(out)


def print_side_by_side(data: dict[str, Any], as_json: bool) -> None:
    if as_json:
        click.echo(json.dumps(data, ensure_ascii=False, separators=(",", ":")))
        return
    click.echo(terminal_text(render(data)), nl=False)
    if not any(file["lines"] for file in data["files"]):
        click.echo("perfline compare --jobs: no job puts figures on a source line", err=True)


def _clip(text: str) -> str:
    return text if len(text) <= SOURCE_WIDTH else text[: SOURCE_WIDTH - 1] + "…"


def _source(path: Path) -> list[str]:
    try:
        return read_text(path, root=Root.user_given(), kind="source").splitlines()
    except InputError:
        return []


def _relative(file: str, root: Path) -> str:
    try:
        return Path(file).relative_to(root).as_posix()
    except ValueError:
        return file
