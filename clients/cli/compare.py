"""``perfline compare BASE NEW``: what got faster or slower, line by line; and
``perfline compare --jobs``: every job of a workspace side by side per line
(``compare_jobs``).

BASE and NEW are each a standardized document (``mlia-output.json``, raw or
processed), a folder holding ``mlia-output/mlia-output.json`` (the output of
``perfline report`` or ``analyze``), a ``perfline profile`` run folder (its traces), or the
inputs ``perfline analyze`` takes (a torch.profiler trace among them),
joined with commas (``model.etrecord,run.etdump``) or as a folder of estimator
outputs; those are analysed first. The table shows one row per code line
(largest significant changes first); ``--json`` prints every entity's deltas;
``--html OUT.html`` also writes the compare view of the HTML report (the new run's page
with base, new and delta of every figure, coloured by significance).
Warnings (partial overlap, line mapping) go to standard error.

The shared options and the loading live here too; ``check.py`` uses them.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ParamSpec, TypeVar, cast

import click

from perfline.clients.cli._connect import daemon_options, find_workspace, open_session
from perfline.clients.cli.announce import wrote
from perfline.clients.cli.common import (
    find_config,
    guarded,
    load_config,
    pipeline_settings,
)
from perfline.clients.cli.compare_sources import SourceVersions, check_revision
from perfline.clients.cli.run_spec import load_run
from perfline.clients.rpc import RpcError
from perfline.core.compare.comparison import Comparison, compare_documents
from perfline.core.compare.deltas import CompareSettings
from perfline.core.compare.significance import CORRECTIONS, Correction
from perfline.core.errors import InputError, Problem
from perfline.core.escaping import terminal_text
from perfline.core.pipeline import PipelineSettings

P = ParamSpec("P")
R = TypeVar("R")


def parse_percent(text: str, option: str) -> float:
    """``5%`` or ``5`` -> 0.05 (the number is always a percentage)."""
    raw = text.strip().removesuffix("%").strip()
    try:
        value = float(raw)
    except ValueError:
        raise InputError(
            "perfline", Problem(option, f"expected a percentage such as 5%, got {text!r}")
        ) from None
    if not 0 <= value < 1e6:
        raise InputError("perfline", Problem(option, f"expected a percentage >= 0, got {text!r}"))
    return value / 100


def comparison_options(function: Callable[P, R]) -> Callable[P, R]:
    """The options ``compare`` and ``check`` share."""
    options = [
        click.option(
            "--level",
            type=click.FloatRange(0, 1, min_open=True, max_open=True),
            default=0.05,
            show_default=True,
            help="Significance level of the corrected p-values of measured figures.",
        ),
        click.option(
            "--correction",
            type=click.Choice(CORRECTIONS),
            default="holm",
            show_default=True,
            help="Multiple-test control across the lines compared (Holm, Benjamini-Hochberg).",
        ),
        click.option(
            "--estimate-threshold",
            default="0%",
            show_default=True,
            metavar="PERCENT",
            help="Change an estimate (no per-run values) must exceed to count.",
        ),
        click.option(
            "--metric",
            "metrics",
            multiple=True,
            metavar="NAME",
            help="Metric lines are judged and shown by (repeatable; default: the primary one).",
        ),
        click.option(
            "--source-root",
            type=click.Path(file_okay=False),
            default=".",
            show_default=True,
            help="The workspace holding the model sources (line mapping, SARIF paths).",
        ),
        click.option("--base-rev", default=None, metavar="REV", help="git revision of BASE."),
        click.option("--new-rev", default=None, metavar="REV", help="git revision of NEW."),
        click.option(
            "--base-source",
            type=click.Path(file_okay=False),
            default=None,
            help="A folder holding the baseline's version of the sources.",
        ),
        click.option(
            "--config",
            type=click.Path(dir_okay=False),
            default=None,
            help="perfline.toml (default: the nearest one from --source-root upwards).",
        ),
    ]
    for option in reversed(options):
        function = option(function)
    return function


@dataclass(frozen=True)
class CompareRequest:
    """What the shared options ask for."""

    level: float
    correction: str
    estimate_threshold: str
    metrics: tuple[str, ...]
    source_root: str
    base_rev: str | None
    new_rev: str | None
    base_source: str | None
    config: str | None


def run_comparison(
    base: str, new: str, request: CompareRequest
) -> tuple[Comparison, SourceVersions]:
    """Load both sides, map the changed files' lines, compare."""
    comparison, sources, _ = compare_sides(base, new, request)
    return comparison, sources


def compare_sides(
    base: str, new: str, request: CompareRequest
) -> tuple[Comparison, SourceVersions, dict[str, Any]]:
    """``run_comparison``, and the new run's processed document."""
    check_revision(request.base_rev, "--base-rev")
    check_revision(request.new_rev, "--new-rev")
    root = Path(request.source_root)
    if not root.is_dir():
        raise InputError(request.source_root, "no such folder (--source-root)")
    config_path = find_config(request.config, str(root / "x"))
    config = load_config(config_path)
    settings = pipeline_settings((), False, config)
    base_document, base_label = load_side(base, "baseline", settings)
    new_document, new_label = load_side(new, "new run", settings)
    sources = SourceVersions(
        root,
        config,
        base_rev=request.base_rev,
        new_rev=request.new_rev,
        base_source=Path(request.base_source) if request.base_source else None,
    )
    compare_settings = CompareSettings(
        level=request.level,
        correction=cast(Correction, request.correction),
        estimate_threshold=parse_percent(request.estimate_threshold, "--estimate-threshold"),
    )
    comparison = compare_documents(
        base_document,
        new_document,
        compare_settings,
        line_maps=sources.line_maps(base_document, new_document),
        base_source=base_label,
        new_source=new_label,
    )
    return comparison, sources, new_document


def load_side(spec: str, role: str, settings: PipelineSettings) -> tuple[dict[str, Any], str]:
    """The processed document of one side of the comparison, and its display name
    (``run_spec.load_run``: a document, an output folder, or comma-joined inputs)."""
    return load_run(spec, role, settings)


def _write_html(
    comparison: Comparison, document: dict[str, Any], target: str, request: CompareRequest
) -> None:
    """The new run's report page against the baseline (sources as in the workspace now)."""
    from perfline.clients.cli.html_output import write_html_report

    root = Path(request.source_root)
    written = write_html_report(
        document,
        target,
        document=str(root / "x"),
        config=request.config,
        root=root,
        comparison=comparison,
    )
    wrote(written)


def report_warnings(comparison: Comparison, sources: SourceVersions) -> None:
    """Warnings and line-mapping notes on standard error."""
    for warning in comparison.warnings:
        click.echo(f"warning: {terminal_text(warning)}", err=True)
    for note in sources.notes:
        click.echo(f"note: {terminal_text(note)}", err=True)


@click.command("compare")
@click.argument("base", metavar="BASE", required=False)
@click.argument("new", metavar="NEW", required=False)
@comparison_options
@click.option("--json", "as_json", is_flag=True, help="Print every entity's deltas as JSON.")
@click.option("--changes-only", is_flag=True, help="With --json: only entities that changed.")
@click.option("--all", "show_all", is_flag=True, help="Show every line, not the top 30.")
@click.option(
    "--html",
    "html",
    default=None,
    metavar="OUT.html",
    help="Also write the compare view of the HTML report (self-contained, opens offline).",
)
@click.option(
    "--jobs",
    "across_jobs",
    is_flag=True,
    help="Instead of BASE and NEW: every job of the workspace side by side per line "
    "(same line, every runtime).",
)
@click.option(
    "--file",
    "files",
    multiple=True,
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="With --jobs: only this source file (repeatable; default: every annotated one).",
)
@daemon_options
@guarded
def command(
    base: str | None,
    new: str | None,
    as_json: bool,
    changes_only: bool,
    show_all: bool,
    html: str | None,
    across_jobs: bool,
    files: tuple[Path, ...],
    workspace: Path | None,
    tcp: str | None,
    socket_path: str | None,
    **options: Any,
) -> None:
    """Compare NEW with the baseline BASE: per-line base, new, delta and significance.

    With --jobs (and no BASE, NEW): the figures of every job of the workspace side by
    side on each source line, from the daemon serving it (--tcp, --socket, or the one
    advertised for --workspace) or an in-process analysis.

    \b
    perfline compare main/mlia-output.json mlia-output/mlia-output.json
    perfline compare base.etrecord,base.etdump new.etrecord,new.etdump --json
    perfline compare BASE NEW --html compare.html
    perfline compare --jobs -w examples/kws
    """
    import json

    from perfline.core.compare.json_form import comparison_json
    from perfline.core.compare.table import render_comparison

    if across_jobs:
        _across_jobs(base, new, files, workspace, (tcp, socket_path), options, as_json)
        return
    if base is None or new is None:
        raise InputError("perfline compare", "expected BASE and NEW (or --jobs)")
    request = CompareRequest(**options)
    comparison, sources, new_document = compare_sides(base, new, request)
    report_warnings(comparison, sources)
    if html is not None:
        _write_html(comparison, new_document, html, request)
    if as_json:
        data = comparison_json(comparison, changes_only=changes_only)
        # Compact: the standard library writes indented JSON with its slow Python encoder.
        sys.stdout.write(json.dumps(data, separators=(",", ":")) + "\n")
        return
    width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower()
    table = render_comparison(
        comparison,
        metrics=options["metrics"],
        limit=0 if show_all else 30,
        width=width,
        ascii_only="utf" not in encoding,
    )
    sys.stdout.write(terminal_text(table))


def _across_jobs(
    base: str | None,
    new: str | None,
    files: tuple[Path, ...],
    workspace: Path | None,
    daemon: tuple[str | None, str | None],
    options: dict[str, Any],
    as_json: bool,
) -> None:
    from perfline.clients.cli.compare_jobs import print_side_by_side, side_by_side

    if base is not None or new is not None:
        raise InputError(
            "perfline compare",
            "--jobs compares the jobs of one workspace: "
            "give no BASE or NEW (use --workspace and --file)",
        )
    start = workspace or (files[0].parent if files else Path(options["source_root"]))
    root = (workspace or find_workspace(start)).resolve()
    session, _ = open_session(daemon[0], daemon[1], root, allow_local=True)
    try:
        data = side_by_side(session, root, files, tuple(options["metrics"]))
    except RpcError as error:
        raise InputError("perfline compare --jobs", error.message) from None
    finally:
        session.close()
    print_side_by_side(data, as_json)
