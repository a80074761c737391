"""``perfline report``: validate, post-process and present a standardized-output document."""

from __future__ import annotations

import click

from perfline.clients.cli.announce import wrote
from perfline.clients.cli.common import (
    collapse_options,
    find_config,
    float_sums_option,
    guarded,
    load_config,
    not_a_document,
    pipeline_settings,
    read_json,
    text_options,
)
from perfline.clients.cli.output import print_text, retain, write_output
from perfline.core.errors import InputError

OUTPUT_HELP = (
    "Where the processed document is written: OUTPUT_DIR/mlia-output/mlia-output.json "
    "(default: the current folder). Only that file is replaced, atomically; nothing else "
    "in the folder is touched."
)


@click.command("report")
@click.argument("document", metavar="DOC.json")
@click.option(
    "--json",
    "as_json",
    is_flag=True,
    help="Print the processed document as JSON on stdout (and nothing else there).",
)
@click.option("--output-dir", type=click.Path(file_okay=False), default=None, help=OUTPUT_HELP)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    default=None,
    help="perfline.toml whose [filtering] collapse rules and float_sums apply (default: the "
    "nearest perfline.toml from the document's folder upwards).",
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
@float_sums_option
@text_options
@guarded
def command(
    document: str,
    as_json: bool,
    output_dir: str | None,
    config: str | None,
    html: str | None,
    collapse: tuple[str, ...],
    no_default_collapse: bool,
    float_sums: str | None,
    limit: int | None,
    show_all: bool,
) -> None:
    """Validate DOC.json, post-process it (collapse, code lines, projection) and report it.

    DOC.json may be '-' for standard input. The processed document is always written to
    OUTPUT_DIR/mlia-output/mlia-output.json (by a temporary file renamed over it when
    complete, so DOC.json may be that very file); 'wrote PATH' goes to stderr for it and
    for the --html page.
    """
    from perfline.core.collection import collection_paused
    from perfline.core.pipeline import postprocess

    source = "<stdin>" if document == "-" else document
    # Reading, like the post-processing, builds a large acyclic tree: the cyclic collector
    # would scan it again and again (0.6 of 0.9 s of reading at 20,000 chains) for nothing.
    with collection_paused():
        raw = read_json(document)
        settings = pipeline_settings(
            collapse, no_default_collapse, load_config(find_config(config, document)), float_sums
        )
        try:
            processed = postprocess(raw, settings, source=source)
        except InputError as error:
            raise not_a_document(raw, error) from None
        retain(raw, processed)  # freed by the end of the process, not object by object
        # read from JSON and post-processed: JSON values only
        write_output(processed, output_dir, echo=as_json, json_only=True)
        if html is not None:
            from perfline.clients.cli.html_output import write_html_report

            wrote(write_html_report(processed, html, document=document, config=config))
    if not as_json:
        print_text(processed, float_sums=settings.float_sums, limit=None if show_all else limit)
