"""Shared plumbing of the CLI commands: reading input documents, collapse
options, writing ``mlia-output/mlia-output.json``, printing the report, and
turning errors into exit statuses (2 for bad input, 1 for internal failure).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import sys
import traceback
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

import click

from perfline.core.collapse_rules import parse_rule
from perfline.core.errors import InputError, Problem
from perfline.core.pipeline import PipelineSettings
from perfline.core.render_text import render_text
from perfline.core.workspace_config import (
    CONFIG_FILE_NAME,
    WorkspaceConfig,
    parse_workspace_config,
)

EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 1
OUTPUT_FOLDER = "mlia-output"
OUTPUT_FILE = "mlia-output.json"

P = ParamSpec("P")
R = TypeVar("R")


def guarded(function: Callable[P, R]) -> Callable[P, R]:
    """Run a command body; bad input -> stderr + exit 2, anything else -> exit 1."""

    @functools.wraps(function)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return function(*args, **kwargs)
        except InputError as error:
            click.echo(f"error: {error.render()}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except (click.exceptions.Exit, click.ClickException, SystemExit, KeyboardInterrupt):
            raise
        except Exception as error:  # an internal failure, not the user's input
            click.echo(f"internal error: {type(error).__name__}: {error}", err=True)
            if os.environ.get("PERFLINE_DEBUG"):
                traceback.print_exc()
            else:
                click.echo("(set PERFLINE_DEBUG=1 for the traceback)", err=True)
            sys.exit(EXIT_INTERNAL)

    return wrapper


def read_json(path: str) -> Any:
    """Parse a JSON file (``-`` is standard input); errors name the line and column."""
    source = "<stdin>" if path == "-" else path
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InputError(source, "no such file") from None
    except IsADirectoryError:
        raise InputError(source, "is a folder, expected a JSON file") from None
    except UnicodeDecodeError as error:
        raise InputError(source, Problem(f"byte {error.start}", "not UTF-8 text")) from None
    except OSError as error:
        raise InputError(source, f"cannot read: {error.strerror}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as error:
        raise InputError(
            source,
            Problem(f"line {error.lineno}, column {error.colno}", f"invalid JSON: {error.msg}"),
        ) from None
    except RecursionError:
        raise InputError(
            source, "JSON nested too deeply to read (expected a standardized-output document)"
        ) from None


def collapse_options(function: Callable[P, R]) -> Callable[P, R]:
    """``--collapse KIND:ATTRIBUTE:GLOB[,GLOB...]`` (repeatable) and ``--no-default-collapse``."""
    function = click.option(
        "--no-default-collapse",
        is_flag=True,
        help="Do not apply the producers' default collapse rules (bare core behaviour).",
    )(function)
    return click.option(
        "--collapse",
        "collapse",
        multiple=True,
        metavar="KIND:ATTRIBUTE:GLOB[,GLOB...]",
        help="Collapse entities of KIND whose ATTRIBUTE matches a glob (repeatable).",
    )(function)


def find_config(explicit: str | None, near: str) -> Path | None:
    """``--config`` if given, else the nearest ``perfline.toml`` from ``near``'s folder upwards."""
    if explicit is not None:
        return Path(explicit)
    if near == "-":
        return None
    folder = Path(near).resolve().parent
    for candidate in (folder, *folder.parents):
        config = candidate / CONFIG_FILE_NAME
        if config.is_file():
            return config
    return None


def load_config(path: Path | None) -> WorkspaceConfig:
    """The parsed configuration (the empty default without a file)."""
    if path is None:
        return WorkspaceConfig()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise InputError(str(path), f"cannot read: {error.strerror or error}") from None
    return parse_workspace_config(text, source=str(path))


def pipeline_settings(
    collapse: tuple[str, ...],
    no_default_collapse: bool,
    config: WorkspaceConfig | None = None,
) -> PipelineSettings:
    """Settings from the configuration's ``[filtering]`` plus the command-line options."""
    config = config or WorkspaceConfig()
    rules = config.collapse_rules + tuple(parse_rule(text) for text in collapse)
    return PipelineSettings(
        collapse_rules=rules,
        use_backend_defaults=config.use_backend_defaults and not no_default_collapse,
    )


def to_json_text(document: Mapping[str, Any]) -> str:
    """The canonical JSON text of a document (4-space indent, trailing newline)."""
    return json.dumps(document, indent=4) + "\n"


def write_output(document: Mapping[str, Any], output_dir: str | None) -> Path:
    """Write ``<output_dir>/mlia-output/mlia-output.json`` (the folder is re-created)."""
    folder = Path(output_dir or ".") / OUTPUT_FOLDER
    if folder.is_dir():
        shutil.rmtree(folder)
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / OUTPUT_FILE
    temporary = target.with_suffix(".json.tmp")
    temporary.write_text(to_json_text(document), encoding="utf-8")
    temporary.replace(target)
    return target


def emit(document: Mapping[str, Any], as_json: bool) -> None:
    """Print the processed document: canonical JSON, or the text report."""
    if as_json:
        sys.stdout.write(to_json_text(document))
        return
    width = shutil.get_terminal_size((120, 24)).columns if sys.stdout.isatty() else 120
    encoding = (getattr(sys.stdout, "encoding", None) or "").lower()
    ascii_only = "utf" not in encoding
    sys.stdout.write(render_text(document, width=width, ascii_only=ascii_only))
