"""``perfline annotate FILE``: the source with its figures in the margin.

Each annotated line gets its inlay-hint label in a left margin, and each
function / ``nn.Module`` class with figures gets its code-lens title above it,
as an editor shows them (both rendered by the server: ``perfline/lineAnnotations``
and ``perfline/codeLenses``). Uses the daemon serving the file's workspace if one
runs, else analyses the workspace in-process.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli._connect import daemon_options, find_workspace, open_session
from perfline.clients.rpc import RpcError


def render(source: str, lines: list[dict[str, Any]], lenses: dict[int, str], color: bool) -> str:
    labels: dict[int, str] = {}
    for item in lines:
        number = item.get("currentLine") or item["line"]
        if item.get("label"):
            labels[number] = item["label"]
    width = max((len(v) for v in labels.values()), default=0)
    text_lines = source.splitlines()
    digits = len(str(len(text_lines)))
    out: list[str] = []
    for number, text in enumerate(text_lines, start=1):
        if number in lenses:
            indent = text[: len(text) - len(text.lstrip())]
            lens = f"{' ' * digits}   {' ' * width} │ {indent}▸ {lenses[number]}"
            out.append(click.style(lens, fg="cyan") if color else lens)
        label = labels.get(number, "")
        margin = label.rjust(width)
        if color and label:
            margin = click.style(margin, fg="yellow", bold=True)
        out.append(f"{number:>{digits}}   {margin} │ {text}")
    return "\n".join(out) + "\n"


@click.command("annotate")
@click.argument("file", type=click.Path(exists=True, dir_okay=False, path_type=Path))
@daemon_options
@click.option("--job", help="Only this job's figures.")
@click.option("--json", "as_json", is_flag=True, help="Print the line annotations as JSON.")
@click.option("--metric", help="The metric to show (in-process analysis only).")
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
    path = file.resolve()
    root = (workspace or find_workspace(path)).resolve()
    session, how = open_session(tcp, socket_path, root, allow_local=True, metric=metric)
    try:
        params: dict[str, Any] = {"file": str(path)}
        if job:
            params["job"] = job
        annotations = session.request("perfline/lineAnnotations", params)
        lenses = session.request("perfline/codeLenses", params)["lenses"]
        jobs = session.request("perfline/jobs")["jobs"]
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
    source = path.read_text(encoding="utf-8", errors="replace")
    lines = annotations["lines"]
    use_color = sys.stdout.isatty() if color is None else color
    titles = {lens["line"]: lens["title"] for lens in lenses}
    click.echo(render(source, lines, titles, use_color), nl=False)
    if not any(item.get("label") for item in lines):
        click.echo(
            f"perfline annotate: no figures for {file} ({how}, {len(jobs)} job(s) in {root})",
            err=True,
        )
        if any(info.get("error") for info in jobs) or not jobs:
            sys.exit(2)
