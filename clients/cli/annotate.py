"""``perfline annotate FILE``: the source with its figures in the margin.

Each annotated line gets its inlay-hint label in a left margin, and each
function / ``nn.Module`` class with figures gets its code-lens title above it,
as an editor shows them (both rendered by the server: ``perfline/lineAnnotations``
and ``perfline/codeLenses``). Uses the daemon serving the file's workspace if one
runs, else analyses the workspace in-process (never with a broken ``perfline.toml``:
its problems are printed and the exit status is 2).

The first line titles the columns (line number, the figure: its metric and the share of the
model, the file). With several jobs each has a column, titled with its name on a second line
(``job_columns``); jobs with the same figure on every line share one column, and a note on
stderr says which. ``--metric`` is honoured with a daemon too: when the daemon labels lines
by another metric, the workspace is analysed in-process with that one (a note says so).

Without ``-w``, the workspace is the nearest folder holding ``perfline.toml`` above FILE,
else the current folder when FILE lies in it (``perfline annotate models/cnn.py`` from the
project's root), else FILE's folder. Job failures are printed once, by this command (the
in-process engine's log lines are not echoed to the terminal). A file without figures while
a recorded file of its name has some (never linked by the name alone) gets the
``[[path_map]]`` entry that would map it.

On a terminal the margin is coloured by each line's share of the total
(``share_color``), so hot lines stand out; ``--no-color`` or a pipe gives plain text.
"""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli._connect import (
    CONFIG,
    Session,
    daemon_options,
    find_workspace,
    open_session,
)
from perfline.clients.rpc import RpcError
from perfline.core.errors import InputError
from perfline.server.file_access import SOURCE_LIMITS, Root, read_text

#: The margin colour of each share level of ``core.figure_text.share_level`` (0 to 3), the
#: levels the editor's hot-line marker uses: one rule for what counts as hot.
LEVEL_COLORS: tuple[str, ...] = ("bright_black", "green", "yellow", "red")


def share_color(share: float | None) -> str | None:
    """The margin colour of a line with this share of the total (None: no colour): red from
    half of the model, yellow from a fifth, green from 5%, dim below (the marker's levels)."""
    if share is None:
        return None
    from perfline.core.figure_text import share_level

    return LEVEL_COLORS[share_level(share)]


def _line_share(item: dict[str, Any]) -> float | None:
    shares = [e["share"] for e in item.get("entities", []) if isinstance(e.get("share"), float)]
    return max(shares) if shares else None


def figure_title(lines: list[dict[str, Any]]) -> str:
    """The margin's column title: the metrics of the labelled figures (with their unit and
    statistic, as the labels write them) and what the percentage is a share of."""
    named: dict[str, None] = {}
    for item in lines:
        for entity in item.get("entities", []):
            metric = entity.get("metric")
            if entity.get("label") and isinstance(metric, dict):
                named[_metric_words(metric, entity.get("statistic"))] = None
    if not named:
        return "figure"
    return f"{', '.join(named)} · % of model"


def _metric_words(metric: dict[str, Any], statistic: Any) -> str:
    words = str(metric.get("name"))
    detail = [str(metric.get("unit") or ""), str(statistic or "")]
    detail = [part for part in detail if part and part not in words]
    return f"{words} ({' '.join(detail)})" if detail else words


Column = tuple[tuple[str, ...], dict[int, str]]
"""The jobs a margin column shows (several when their figures are the same on every line)
and its figure on each line."""


def job_columns(lines: list[dict[str, Any]]) -> list[Column]:
    """One column per job with a figure in the file, in the order the lines list them; jobs
    whose figures are the same on every line share one."""
    per_job: dict[str, dict[int, str]] = {}
    for item in lines:
        number = item.get("currentLine") or item["line"]
        for entity in item.get("entities", []):
            label = entity.get("label")
            if label:
                cells = per_job.setdefault(str(entity.get("job")), {})
                cells[number] = f"{cells[number]}  {label}" if number in cells else label
    columns: list[tuple[list[str], dict[int, str]]] = []
    for job, cells in per_job.items():
        same = next((names for names, shown in columns if shown == cells), None)
        if same is not None:
            same.append(job)
        else:
            columns.append(([job], cells))
    return [(tuple(names), cells) for names, cells in columns]


def merged_jobs(columns: list[Column]) -> dict[tuple[str, ...], int]:
    """Jobs shown in one column (the same figure on every line): (jobs) -> lines."""
    return {names: len(cells) for names, cells in columns if len(names) > 1}


def render(
    source: str,
    lines: list[dict[str, Any]],
    lenses: dict[int, str],
    color: bool,
    title: tuple[str, str] | None = None,
    columns: list[Column] | None = None,
) -> str:
    """The source with each line's figure in a margin (``title``: the figure column's and
    the source column's titles, written above them; ``columns``: with more than one, a
    column per job, titled with the jobs' names on a second line)."""
    shares: dict[int, float | None] = {}
    labels: dict[int, str] = {}
    for item in lines:
        number = item.get("currentLine") or item["line"]
        if item.get("label"):
            labels[number] = item["label"]
            shares[number] = _line_share(item)
    names: list[str] = []
    if columns is not None and len(columns) > 1:
        names = [" = ".join(jobs) for jobs, _ in columns]
        widths = [
            max(len(name), *(len(cell) for cell in cells.values()))
            for name, (_, cells) in zip(names, columns, strict=True)
        ]
        labels = {
            number: "  ".join(
                cells.get(number, "").rjust(width)
                for width, (_, cells) in zip(widths, columns, strict=True)
            )
            for number in labels
        }
        names = [name.rjust(width) for name, width in zip(names, widths, strict=True)]
    width = max((len(v) for v in labels.values()), default=0)
    if names:
        width = max(width, len("  ".join(names)))
    text_lines = source.splitlines()
    digits = len(str(len(text_lines)))
    out: list[str] = []
    if title is not None:
        width = max(width, len(title[0]))
        digits = max(digits, len("line"))
        first = title[0].ljust(width) if names else title[0].rjust(width)
        head = f"{'line':>{digits}}   {first} │ {title[1]}"
        out.append(click.style(head, bold=True) if color else head)
        if names:
            jobs = f"{'':>{digits}}   {'  '.join(names):>{width}} │"
            out.append(click.style(jobs, bold=True) if color else jobs)
    for number, text in enumerate(text_lines, start=1):
        if number in lenses:
            indent = text[: len(text) - len(text.lstrip())]
            lens = f"{' ' * digits}   {' ' * width} │ {indent}▸ {lenses[number]}"
            out.append(click.style(lens, fg="cyan") if color else lens)
        label = labels.get(number, "")
        margin = label.rjust(width)
        if color and label:
            colour = share_color(shares.get(number))
            margin = click.style(margin, fg=colour, bold=colour in ("red", "yellow"))
        out.append(f"{number:>{digits}}   {margin} │ {text}")
    return "\n".join(out) + "\n"


@click.command("annotate")
@click.argument("file", type=click.Path(path_type=Path))
@daemon_options
@click.option("--job", help="Only this job's figures.")
@click.option("--json", "as_json", is_flag=True, help="Print the line annotations as JSON.")
@click.option(
    "--metric",
    help="The metric to show (with a daemon that shows another: analysed in-process).",
)
@click.option(
    "--color/--no-color", default=None, help="Colour the margin (default: on a terminal)."
)
def command(
    file: Path,
    workspace: Path | None,
    tcp: str | None,
    socket_path: str | None,
    job: str | None,
    as_json: bool,
    metric: str | None,
    color: bool | None,
) -> None:
    """Print FILE with performance figures in the margin."""
    if not file.is_file():
        problem = "is a folder, expected a source file" if file.is_dir() else "no such file"
        click.echo(f"error: {file}: {problem}", err=True)
        sys.exit(2)
    path = file.resolve()
    root = (workspace or _workspace_of(path)).resolve()
    # an in-process engine logs each job failure; this command prints them itself, once
    logging.getLogger("perfline.server").addHandler(logging.NullHandler())
    session, how = open_session(tcp, socket_path, root, allow_local=True, metric=metric)
    params: dict[str, Any] = {"file": str(path), "metrics": metric is not None}
    if job:
        params["job"] = job
    try:
        annotations = session.request("perfline/lineAnnotations", params)
        if metric is not None and how.startswith("daemon") and _other_metric(annotations, metric):
            session.close()
            click.echo(
                f"note: the {how} labels lines by another metric; --metric {metric}: "
                "analysed in-process",
                err=True,
            )
            session, how = open_session(None, None, root, metric=metric, local=True)
            annotations = session.request("perfline/lineAnnotations", params)
        lenses = session.request("perfline/codeLenses", params)["lenses"]
        jobs = session.request("perfline/jobs")["jobs"]
        if how.startswith("daemon"):
            # A running daemon keeps its last valid configuration: say that it is broken.
            broken = session.request("perfline/status").get("configError")
            if broken:
                click.echo(f"warning: {broken} (the daemon keeps its last valid one)", err=True)
        if metric is not None:
            _exit_on_missing_metric(session, metric, annotations["lines"], jobs, job)
        elsewhere: list[str] = []
        if not any(item.get("label") for item in annotations["lines"]):
            annotated = session.request("perfline/status").get("annotatedFiles") or []
            elsewhere = _same_name_elsewhere(path, [str(item) for item in annotated])
    except RpcError as error:
        click.echo(f"perfline annotate: {error.message}", err=True)
        sys.exit(2)
    finally:
        session.close()
    for info in jobs:
        if info.get("error"):
            click.echo(f"job {info['name']}: {info['error']['message']}", err=True)
    if as_json:
        click.echo(json.dumps(annotations, indent=2, ensure_ascii=False))
        return
    try:
        source = read_text(path, root=Root.user_given(), kind="source", limits=SOURCE_LIMITS)
    except InputError as error:
        click.echo(f"perfline annotate: {error}", err=True)
        sys.exit(2)
    lines = annotations["lines"]
    use_color = sys.stdout.isatty() if color is None else color
    titles = {lens["line"]: lens["title"] for lens in lenses}
    heading = (figure_title(lines), str(file))
    columns = job_columns(lines)
    click.echo(render(source, lines, titles, use_color, heading, columns), nl=False)
    for names, count in merged_jobs(columns).items():
        click.echo(
            f"note: jobs {', '.join(names)} have the same figure on {count} line(s); "
            "each such line shows it once (--job NAME shows one job)",
            err=True,
        )
    if not any(item.get("label") for item in lines):
        click.echo(
            f"perfline annotate: no figures for {file} ({how}, {len(jobs)} job(s) in {root})",
            err=True,
        )
        for recorded in elsewhere:
            click.echo(
                f"note: the figures of {recorded} (as recorded) are not put on {file} by its "
                "name alone; if it is this file, map it in perfline.toml: [[path_map]] "
                f'from = "{recorded}" to = "{_relative(path, root)}"',
                err=True,
            )
        if any(info.get("error") for info in jobs) or not jobs:
            sys.exit(2)


def _workspace_of(path: Path) -> Path:
    """The nearest folder holding ``perfline.toml`` above ``path``; else the current folder
    when ``path`` lies in it; else ``path``'s folder."""
    found = find_workspace(path)
    if (found / CONFIG).is_file():
        return found
    here = Path.cwd().resolve()
    return here if path.is_relative_to(here) else found


def _same_name_elsewhere(path: Path, annotated: list[str]) -> list[str]:
    """Files with figures that have ``path``'s name but are not ``path`` (a recorded path
    perfline never links by its name alone)."""
    return [item for item in annotated if Path(item).name == path.name and Path(item) != path]


def _relative(path: Path, root: Path) -> str:
    return path.relative_to(root).as_posix() if path.is_relative_to(root) else str(path)


def _other_metric(annotations: dict[str, Any], metric: str) -> bool:
    """Whether a labelled figure is of another metric than ``metric``."""
    return any(
        entity.get("label") and (entity.get("metric") or {}).get("name") != metric
        for item in annotations["lines"]
        for entity in item.get("entities", [])
    )


def _exit_on_missing_metric(
    session: Session,
    metric: str,
    lines: list[dict[str, Any]],
    jobs: list[dict[str, Any]],
    job: str | None,
) -> None:
    """``--metric`` naming a metric no breakdown of the results has (so no line can show
    it): say so, list the breakdowns' metrics, exit 2."""
    on_lines = {
        m.get("name") for item in lines for e in item.get("entities", []) for m in e["metrics"]
    }
    if metric in on_lines:
        return
    names: set[str] = set()
    for info in jobs:
        if (job is not None and info["name"] != job) or not info.get("hasResult"):
            continue
        document = session.request("perfline/result", {"job": info["name"]})["document"]
        names.update(_metric_names(document))
    if metric in names or not names:
        return
    click.echo(
        f"error: --metric {metric!r}: the results have no such metric; "
        f"their figures are {', '.join(sorted(names))}",
        err=True,
    )
    sys.exit(2)


def _metric_names(document: dict[str, Any]) -> set[str]:
    names: set[str] = set()
    for result in document.get("results") or ():
        for breakdown in result.get("breakdowns") or ():
            names.update(str(m.get("name")) for m in breakdown.get("metrics") or ())
    return names
