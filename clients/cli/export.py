"""``perfline export DOC.json --model-explorer OUT.json --model MODEL``: figures for other tools.

Writes Model Explorer node data: the document's operator figures (post-processed as ``perfline
report`` does) keyed by the node ids of the graph Model Explorer shows for MODEL (ONNX, PT2,
TOSA flatbuffer or VGF), with a colour gradient, so loading the file in Model Explorer colours
the graph by cost. Says on standard error what was placed and what was not.
"""

from __future__ import annotations

import json

import click

from perfline.clients.cli.common import (
    collapse_options,
    find_config,
    guarded,
    load_config,
    pipeline_settings,
    read_json,
)
from perfline.clients.cli.files import read_model, replace_text
from perfline.core.errors import InputError, Problem


@click.command("export")
@click.argument("document", metavar="DOC.json")
@click.option(
    "--model-explorer",
    "model_explorer",
    type=click.Path(dir_okay=False),
    metavar="OUT.json",
    help="Write Model Explorer node data (operator figures keyed by the graph's node ids).",
)
@click.option(
    "--model",
    type=click.Path(dir_okay=False),
    metavar="MODEL",
    help="The model the document's operators belong to (.onnx, .pt2, .tosa or .vgf).",
)
@click.option("--metric", help="The metric to export (default: the report's dominant metric).")
@click.option(
    "--result",
    type=click.IntRange(min=1),
    help="Which result (1-based; default: the first whose operators are nodes of MODEL).",
)
@click.option(
    "--config",
    type=click.Path(dir_okay=False),
    default=None,
    help="perfline.toml whose [filtering] collapse rules apply (default: the nearest one).",
)
@collapse_options
@guarded
def command(
    document: str,
    model_explorer: str | None,
    model: str | None,
    metric: str | None,
    result: int | None,
    config: str | None,
    collapse: tuple[str, ...],
    no_default_collapse: bool,
) -> None:
    """Export DOC.json's figures for another tool (today: Model Explorer node data)."""
    from perfline.core.model_explorer.graph_ids import explorer_graph
    from perfline.core.model_explorer.node_data import build_node_data, describe
    from perfline.core.pipeline import postprocess

    if model_explorer is None:
        raise InputError(
            "perfline export", Problem("options", "expected --model-explorer OUT.json")
        )
    if model is None:
        raise InputError(
            "perfline export",
            Problem("--model", "Model Explorer node ids depend on the model: give --model MODEL"),
        )
    graph = explorer_graph(read_model(model), model)
    raw = read_json(document)
    settings = pipeline_settings(
        collapse, no_default_collapse, load_config(find_config(config, document))
    )
    processed = postprocess(raw, settings, source="<stdin>" if document == "-" else document)
    overlay = build_node_data(
        processed,
        graph,
        metric=metric,
        result=None if result is None else result - 1,
        source=document,
    )
    if not overlay.placed:
        raise InputError(
            document,
            f"no operator figure of {overlay.metric} lands on a node of {model}",
        )
    replace_text(model_explorer, json.dumps(overlay.data, indent=2, sort_keys=True) + "\n")
    click.echo(f"wrote {model_explorer}: {describe(overlay, model)}", err=True)
