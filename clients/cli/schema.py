"""``perfline schema``: print the JSON Schema of the standardized-output document."""

from __future__ import annotations

import json

import click

from perfline.core.json_schema import document_json_schema


@click.command("schema")
def command() -> None:
    """Print the JSON Schema (draft 2020-12) of a schema-1.2.0 document."""
    click.echo(json.dumps(document_json_schema(), indent=2))
