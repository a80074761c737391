"""``perfline report``: validate, post-process and present a standardized-output document."""

from __future__ import annotations

import click

from perfline.clients.cli.common import (
    collapse_options,
    emit,
    find_config,
    guarded,
    load_config,
    pipeline_settings,
    read_json,
    write_output,
)
from perfline.clients.cli.html_output import write_html_report
from perfline.core.pipeline import postprocess


@click.command("report")
@click.argument("document", metavar="DOC.json")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the processed document as JSON on stdout (and nothing else there).",
)
@click.option(
    "--output-dir",
    type=click.Path(file_okay=False),
    default=None,
    help="Where mlia-output/mlia-output.json is written (default: current folder).",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    default=None,
    help="perfline.toml whose [filtering] collapse rules apply (default: the nearest "
    "perfline.toml from the document's folder upwards).",
)
@click.option(
    "--html",
    "html",
    type=click.Path(dir_okay=False),
    default=None,
    metavar="OUT.html",
    help="Also write a self-contained HTML report (summary, annotated sources, chart, table).",
)
@collapse_options
@guarded
def command(
    document: str,
    as_json: bool,
    output_dir: str | None,
    config: str | None,
    html: str | None,
    collapse: tuple[str, ...],
    no_default_collapse: bool,
) -> None:
    """Validate DOC.json, post-process it (collapse, code lines, projection) and report it.

    DOC.json may be '-' for standard input. The processed document is always written to
    OUTPUT_DIR/mlia-output/mlia-output.json.
    """
    raw = read_json(document)
    settings = pipeline_settings(
        collapse, no_default_collapse, load_config(find_config(config, document))
    )
    source = "<stdin>" if document == "-" else document
    processed = postprocess(raw, settings, source=source)
    write_output(processed, output_dir)
    if html is not None:
        write_html_report(processed, html, document=document, config=config)
    emit(processed, as_json)
