"""``perfline operators MODEL``: a model's canonical source-operator ids, types and locations.

The table shows each location by file name and line; below it, the source files as the model
records them (the paths a ``[[path_map]]`` of ``perfline.toml`` maps onto the workspace), the
user's files first, each with how many operators name it.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from perfline.clients.cli.common import guarded
from perfline.clients.cli.files import read_model
from perfline.core.formats.identity import SourceFrame, SourceOperator
from perfline.core.formats.models import ModelOperators, model_operators


def _frame(frame: SourceFrame) -> dict[str, Any]:
    return {"file": frame.file, "line": frame.line, "function": frame.function}


def _document(path: str, model: ModelOperators) -> dict[str, Any]:
    return {
        "model": path,
        "format": model.format,
        "notes": list(model.notes),
        "operators": [
            {
                "id": operator.id,
                "op_type": operator.op_type,
                "name": operator.name,
                "locations": [_frame(frame) for frame in operator.locations],
                "nn_module_stack": [
                    {"key": m.key, "path": m.path, "type": m.type} for m in operator.nn_module_stack
                ],
            }
            for operator in model.operators
        ],
    }


def _location_text(operator: SourceOperator) -> str:
    frames = _shown_frames(operator)
    return " > ".join(f"{Path(f.file).name}:{f.line}" for f in frames)


def _shown_frames(operator: SourceOperator) -> tuple[SourceFrame, ...]:
    return operator.user_frames() or operator.locations[-1:]


def recorded_files(operators: Sequence[SourceOperator]) -> list[tuple[str, int]]:
    """The recorded paths of the files the table's locations name, with how many operators
    name each: most operators first, then by path."""
    counts: dict[str, int] = {}
    for operator in operators:
        for file in dict.fromkeys(frame.file for frame in _shown_frames(operator)):
            counts[file] = counts.get(file, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))


@click.command("operators")
@click.argument("model", metavar="MODEL")
@click.option("--json", "as_json", is_flag=True, help="Print the operators as JSON on stdout.")
@guarded
def command(model: str, as_json: bool) -> None:
    """List MODEL's canonical source_operator ids, operator types and source locations.

    MODEL is an ONNX, PT2, TOSA (flatbuffer or MLIR text) or VGF file. Locations show the user
    frames (library frames omitted) as file:line, outermost first.
    """
    found = model_operators(read_model(model), model)
    if as_json:
        click.echo(json.dumps(_document(model, found), indent=2))
        return
    from rich.console import Console

    from perfline.clients.cli.output import report_width
    from perfline.core.text_table import Column, print_table

    width = report_width()
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower()
    console = Console(width=width, color_system=None, highlight=False, emoji=False, soft_wrap=False)
    console.print(f"{model} ({found.format}, {len(found.operators)} operators)", markup=False)
    operators = found.operators
    print_table(
        console,
        [
            Column("ID", one_line=True, keep="end", want=24, cells=[o.id for o in operators]),
            Column("Type", min_width=12, cells=[o.op_type for o in operators]),
            Column("Name", min_width=12, cells=[o.name for o in operators]),
            Column("Location", min_width=16, cells=[_location_text(o) for o in operators]),
        ],
        width=width,
        ascii_only="utf" not in encoding,
    )
    files = recorded_files(operators)
    if files:
        console.print(
            "source files as recorded (map them with [[path_map]] in perfline.toml):",
            markup=False,
        )
        for file, count in files:
            console.print(f"  {file} ({count} operator(s))", markup=False, highlight=False)
    for note in found.notes:
        console.print(f"note: {note}", markup=False, highlight=False)
